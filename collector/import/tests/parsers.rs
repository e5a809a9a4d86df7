//! `syscost import` parsers against the published seed logs, their messy variants (quoted,
//! interleaved with kernel lines, CRLF, quoted-printable, flattened), hand-written fixtures of
//! every benchmark generation, and garbage. Every number the logs print is compared.

use sha2::{Digest, Sha256};
use std::path::PathBuf;
use syscost_import::Format as ImportFormat;
use syscost_import::{import_bytes, Error, Imported, Provenance};
use syscost_record::{content_id, validate, Method, RunRecord, SourceKind, StopReason, Verdict};

fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn try_import(name: &str, format: ImportFormat) -> Result<Imported, Error> {
    let bytes = std::fs::read(path(name)).unwrap();
    import_bytes(&bytes, name, format, &Provenance::default())
}

fn import(name: &str) -> Vec<RunRecord> {
    try_import(name, ImportFormat::Auto).unwrap().records
}

fn one(name: &str) -> RunRecord {
    let mut rs = import(name);
    assert_eq!(rs.len(), 1, "{name}: expected one run");
    rs.remove(0)
}

fn median(r: &RunRecord, id: &str) -> f64 {
    r.result(id)
        .unwrap_or_else(|| panic!("no result {id}"))
        .median_ns
        .unwrap()
}

fn estimate(r: &RunRecord, id: &str) -> f64 {
    r.estimate(id)
        .unwrap_or_else(|| panic!("no estimate {id}"))
        .median_ns
}

fn ids(r: &RunRecord) -> Vec<&str> {
    r.results.iter().map(|x| x.id.as_str()).collect()
}

fn has_note(r: &RunRecord, needle: &str) -> bool {
    r.notes.iter().any(|n| n.contains(needle))
}

/// The measured content of a record, without provenance (which differs between variants).
fn numbers(r: &RunRecord) -> String {
    serde_json::to_string(&(
        &r.results,
        &r.estimates,
        &r.expectations,
        &r.settings,
        &r.environment.comparability,
    ))
    .unwrap()
}

/// (id, lhs, rhs, tolerance, kernel verdict) for every expectation.
fn expectations(r: &RunRecord) -> Vec<(&str, f64, f64, f64, Verdict)> {
    r.expectations
        .iter()
        .map(|e| {
            assert_eq!(e.verdict, Verdict::Inconclusive, "{}", e.id);
            (
                e.id.as_str(),
                e.lhs_ns,
                e.rhs_ns,
                e.tolerance_ns,
                e.kernel_verdict,
            )
        })
        .collect()
}

fn assert_close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

const SEED_000: &str = "seeds/000_3e013fb81e017806.txt";
const SEED_001: &str = "seeds/001_7d615df1a09508f3.txt";
const SEED_002: &str = "seeds/002_7ed701cff3e01d97.txt";
const SEED_003: &str = "seeds/003_d0b369f7e103e02c.txt";
const SEED_004: &str = "seeds/004_3ea49f3098541147.txt";

#[test]
fn seed_000_seccomp_2020_every_number() {
    let r = one(SEED_000);
    assert_eq!(r.source.kind, SourceKind::Import);
    assert_eq!(r.source.method, Method::External);
    assert_eq!(r.source.format.as_deref(), Some("kselftest-seccomp"));
    let sha: String = Sha256::digest(std::fs::read(path(SEED_000)).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(r.source.text_sha256.as_deref(), Some(sha.as_str()));
    assert!(r.source.tool.starts_with("syscost ") && r.source.tool.ends_with(" import"));
    assert_eq!(r.settings.syscall, "getpid");
    assert_eq!(r.settings.syscalls_per_op, 1);
    assert_eq!(r.settings.confidence, 0.95);
    assert_eq!(r.summary.rounds, 1);
    assert_eq!(r.summary.stop_reason, StopReason::Complete);
    assert_eq!(r.summary.ci_method, "none (imported single measurement)");
    // Sum of the five timed loops the log prints.
    assert_close(
        r.summary.duration_s,
        (129350656985u64 + 135025436777 + 135013465992 + 146471147933 + 150463003638) as f64 / 1e9,
    );

    let c = &r.environment.comparability;
    assert_eq!(
        (c.arch.as_str(), c.kernel_release.as_str()),
        ("unknown", "unknown")
    );
    assert!(has_note(
        &r,
        "does not state the kernel release and architecture"
    ));
    assert_eq!(c.bpf_jit_enable.as_deref(), Some("1"));
    assert_eq!(c.bpf_jit_harden.as_deref(), Some("0"));

    assert_eq!(
        ids(&r),
        [
            "native",
            "seccomp.bitmap.1",
            "seccomp.bitmap.2",
            "seccomp.full.3",
            "seccomp.full.4"
        ]
    );
    let values = [646.0, 675.0, 675.0, 732.0, 752.0];
    let timed = [
        129350656985u64,
        135025436777,
        135013465992,
        146471147933,
        150463003638,
    ];
    for ((res, v), t) in r.results.iter().zip(values).zip(timed) {
        assert_eq!(res.median_ns, Some(v), "{}", res.id);
        assert_eq!(res.samples, Some(1));
        assert_eq!(res.iters_per_sample, Some(200_000_000));
        assert_eq!(res.ci_low_ns, None);
        assert_eq!(res.ci_high_ns, None);
        assert_eq!(res.params["timed loop ns"], t.to_string());
        if res.id != "native" {
            let o = res.overhead.as_ref().unwrap();
            assert_eq!(o.vs, "native");
            assert_eq!(o.median_ns, v - 646.0);
            assert_close(o.pct, (v - 646.0) / 646.0 * 100.0);
            assert_eq!(o.ci_low_ns, None);
        }
    }
    for (id, v) in [
        ("total.bitmap.1", 29.0),
        ("total.bitmap.2", 29.0),
        ("total.full.3", 86.0),
        ("total.full.4", 106.0),
        ("entry", 29.0),
        ("per_filter.last2", 20.0),
        ("per_filter.div4", 19.0),
    ] {
        assert_eq!(estimate(&r, id), v, "{id}");
    }
    // Plain-text generation: the 1 % rule, verdicts from the ✔️ marks.
    use Verdict::Pass;
    assert_eq!(
        expectations(&r),
        [
            ("native_le_bitmap1", 646.0, 675.0, 0.0, Pass),
            ("native_le_filter1", 646.0, 732.0, 0.0, Pass),
            ("per_filter_approx", 20.0, 19.0, 2.0, Pass),
            ("bitmap1_approx_bitmap2", 29.0, 29.0, 2.0, Pass),
            ("entry_approx_bitmap1", 29.0, 29.0, 2.0, Pass),
            ("entry_approx_bitmap2", 29.0, 29.0, 2.0, Pass),
            ("total_approx_full4", 755.0, 752.0, 7.52, Pass),
        ]
    );
    assert!(has_note(&r, "single measurements"));
    assert!(has_note(&r, "inconclusive"));
}

#[test]
fn seed_003_bpf_table_every_number() {
    let r = one(SEED_003);
    assert_eq!(r.source.format.as_deref(), Some("bpf-bench"));
    assert_eq!(r.settings.syscall, "getpgid");
    let rows = [
        ("native", "base", 9.200, 0.319),
        ("bpf.tp", "tp", 6.690, 0.125),
        ("bpf.rawtp", "rawtp", 8.571, 0.214),
        ("bpf.kprobe", "kprobe", 6.431, 0.048),
        ("bpf.fentry", "fentry", 8.955, 0.241),
        ("bpf.fmodret", "fmodret", 8.903, 0.135),
    ];
    assert_eq!(ids(&r), rows.map(|x| x.0));
    for (id, bench, mops, sd) in rows {
        let res = r.result(id).unwrap();
        assert_close(res.median_ns.unwrap(), 1000.0 / mops);
        let t = res.throughput_mops.as_ref().unwrap();
        assert_eq!((t.median, t.stddev), (mops, Some(sd)));
        assert_eq!((t.ci_low, t.ci_high), (None, None));
        assert_eq!((res.ci_low_ns, res.ci_high_ns), (None, None));
        assert_eq!(res.params["bench"], format!("trig-{bench}"));
        if id != "native" {
            let o = res.overhead.as_ref().unwrap();
            assert_close(o.median_ns, 1000.0 / mops - 1000.0 / 9.2);
        }
    }
    assert!(has_note(&r, "one producer by default"));
    assert!(has_note(&r, "e-mail quoting removed"));
}

#[test]
fn seed_004_sud_flattened_mail_every_number() {
    let r = one(SEED_004);
    assert_eq!(r.source.format.as_deref(), Some("kselftest-sud"));
    assert_eq!(r.settings.syscall, "sysinfo");
    assert_eq!(ids(&r), ["native", "sud.allow"]);
    assert_eq!(median(&r, "native"), 134.0);
    let sud = r.result("sud.allow").unwrap();
    assert_eq!(sud.median_ns, Some(147.0));
    assert_eq!(sud.iters_per_sample, Some(37_500_000));
    let o = sud.overhead.as_ref().unwrap();
    assert_eq!((o.vs.as_str(), o.median_ns, o.pct), ("native", 13.0, 9.7));
    assert_eq!(sud.params["caught"], "sys_ff00");
    assert_eq!(sud.params["trapped_call_count"], "1");
    assert_eq!(sud.params["native_call_count"], "0");
    assert_eq!(r.environment.incidental.other["calibration seconds"], "5");
    assert!(has_note(&r, "flattened onto one line"));
}

#[test]
fn unsupported_seeds_are_rejected_naming_file_and_line() {
    // Seed 001 is UnixBench output: no supported format.
    let e = try_import(SEED_001, ImportFormat::Auto)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("no supported benchmark result found in seeds/001"),
        "{e}"
    );
    assert!(e.contains("line 1 reads \"new seccomp mode aims"), "{e}");
    // Seed 002 prints "Benchmarking N syscalls..." but its numbers are filter attach times of a
    // one-off benchmark, not seccomp_benchmark scenarios.
    let e = try_import(SEED_002, ImportFormat::KselftestSeccomp)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("no seccomp_benchmark result found in seeds/002"),
        "{e}"
    );
    assert!(
        e.contains(
            "line 49: \"Benchmarking 100000 syscalls...\" begins a run, but no result follows"
        ),
        "{e}"
    );
}

#[test]
fn messy_variants_of_the_seeds_give_the_same_numbers() {
    for (variant, seed, repair) in [
        (
            "seed000-quoted-interleaved-crlf.eml",
            SEED_000,
            "interleaved kernel log lines dropped",
        ),
        ("seed003-requoted-qp.eml", SEED_003, "quoted-printable"),
        ("seed004-unflattened-crlf.eml", SEED_004, "CR/CRLF"),
    ] {
        let v = one(variant);
        let s = one(seed);
        assert_eq!(numbers(&v), numbers(&s), "{variant}");
        assert_ne!(v.id, s.id, "provenance differs, so must the id");
        assert_ne!(v.source.text_sha256, s.source.text_sha256);
        assert!(has_note(&v, repair), "{variant}: {:?}", v.notes);
    }
}

#[test]
fn interrupted_compare_line_keeps_its_mark() {
    // In the variant a kernel message splits "entry ≈ 1 bitmapped (29 ≈ 29): " from its ✔️.
    let v = one("seed000-quoted-interleaved-crlf.eml");
    let e = v
        .expectations
        .iter()
        .find(|e| e.id == "entry_approx_bitmap1")
        .unwrap();
    assert_eq!(e.kernel_verdict, Verdict::Pass);
    assert!(!has_note(&v, "ends before the benchmark's verdict"));
}

#[test]
fn ktap_2024_every_number() {
    let r = one("seccomp-ktap.txt");
    let c = &r.environment.comparability;
    assert_eq!(c.arch, "x86_64");
    assert_eq!(c.kernel_release, "6.8.0-45-generic");
    assert_eq!(
        c.kernel_version.as_deref(),
        Some("#45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024")
    );
    assert_eq!(c.bpf_jit_enable.as_deref(), Some("1"));
    assert_eq!(c.bpf_jit_harden.as_deref(), Some("0"));
    assert_eq!(r.settings.cpu, Some(3));
    let other = &r.environment.incidental.other;
    assert_eq!(other["cpus (as the benchmark counts them)"], "4");
    assert_eq!(other["calibration seconds"], "15");
    assert_eq!(
        other["ktap totals"],
        "pass:7 fail:0 xfail:0 xpass:0 skip:0 error:0"
    );
    assert_eq!(other["kselftest result"], "ok");
    assert_eq!(other["output generation"], "KTAP (2024 on)");
    assert!(!has_note(&r, "does not state"));
    for (id, v) in [
        ("native", 302.0),
        ("seccomp.bitmap.1", 318.0),
        ("seccomp.bitmap.2", 319.0),
        ("seccomp.full.3", 356.0),
        ("seccomp.full.4", 371.0),
    ] {
        assert_eq!(median(&r, id), v);
        assert_eq!(r.result(id).unwrap().iters_per_sample, Some(23_486_415));
    }
    for (id, v) in [
        ("total.bitmap.1", 16.0),
        ("total.bitmap.2", 17.0),
        ("total.full.3", 54.0),
        ("total.full.4", 69.0),
        ("entry", 15.0),
        ("per_filter.last2", 15.0),
        ("per_filter.div4", 13.0),
    ] {
        assert_eq!(estimate(&r, id), v, "{id}");
    }
    // KTAP generation: the 10 % rule (377 vs 371 passes only with it).
    use Verdict::Pass;
    assert_eq!(
        expectations(&r),
        [
            ("native_le_bitmap1", 302.0, 318.0, 0.0, Pass),
            ("native_le_filter1", 302.0, 356.0, 0.0, Pass),
            ("per_filter_approx", 15.0, 13.0, 2.0, Pass),
            ("bitmap1_approx_bitmap2", 16.0, 17.0, 2.0, Pass),
            ("entry_approx_bitmap1", 15.0, 16.0, 2.0, Pass),
            ("entry_approx_bitmap2", 15.0, 17.0, 2.0, Pass),
            ("total_approx_full4", 377.0, 371.0, 37.1, Pass),
        ]
    );
    assert!(has_note(&r, "max(10 % of the smaller, 2 ns)"));
}

#[test]
fn ktap_quoted_interleaved_and_qp_crlf_match_the_clean_log() {
    let clean = one("seccomp-ktap.txt");
    for variant in ["seccomp-ktap-quoted.eml", "seccomp-ktap-qp-crlf.eml"] {
        let v = one(variant);
        assert_eq!(numbers(&v), numbers(&clean), "{variant}");
        assert_eq!(
            v.environment.incidental.other["ktap totals"],
            clean.environment.incidental.other["ktap totals"]
        );
    }
}

#[test]
fn wrapped_around_estimate_is_recorded_as_its_signed_meaning() {
    let r = one("seccomp-ktap-negative.txt");
    assert_eq!(r.environment.comparability.arch, "aarch64");
    assert_eq!(
        r.environment.comparability.kernel_release,
        "6.11.0-rc5-00102-g1f8d5d2c7a51"
    );
    assert_eq!(r.settings.cpu, Some(1));
    assert_eq!(estimate(&r, "per_filter.last2"), -3.0);
    assert_eq!(estimate(&r, "per_filter.div4"), 10.0);
    assert_eq!(estimate(&r, "entry"), 48.0);
    assert!(has_note(&r, "printed as 18446744073709551613 ns"));
    assert!(has_note(&r, "-3 ns"));
    // The benchmark skips every expectation after such an estimate; operands are recomputed
    // from the decoded values, never from the wrapped number.
    use Verdict::Skip;
    assert_eq!(
        expectations(&r),
        [
            ("native_le_bitmap1", 170.0, 215.0, 0.0, Skip),
            ("native_le_filter1", 170.0, 262.0, 0.0, Skip),
            ("per_filter_approx", -3.0, 10.0, 2.0, Skip),
            ("bitmap1_approx_bitmap2", 45.0, 42.0, 4.2, Skip),
            ("entry_approx_bitmap1", 48.0, 45.0, 4.5, Skip),
            ("entry_approx_bitmap2", 48.0, 42.0, 4.2, Skip),
            ("total_approx_full4", 206.0, 259.0, 20.6, Skip),
        ]
    );
    let json = serde_json::to_string(&r).unwrap();
    assert!(!json.contains("18446744073709551613.0") && !json.contains("e19"));
    assert!(has_note(&r, "Saw unexpected benchmark result"));
}

#[test]
fn concatenated_runs_become_separate_records() {
    let rs = import("seccomp-2020-two-runs.txt");
    assert_eq!(rs.len(), 2);
    assert_ne!(rs[0].id, rs[1].id);
    assert_eq!(rs[0].environment.incidental.other["log lines"], "2-30");
    assert_eq!(rs[1].environment.incidental.other["log lines"], "33-62");
    assert_eq!(median(&rs[0], "seccomp.full.3"), 732.0);
    assert_eq!(median(&rs[1], "seccomp.full.3"), 752.0);
    assert_eq!(median(&rs[1], "seccomp.full.4"), 749.0);
    let second = &rs[1];
    assert_eq!(estimate(second, "per_filter.last2"), -3.0);
    assert_eq!(estimate(second, "per_filter.div4"), 18.0);
    use Verdict::{Fail, Pass};
    assert_eq!(
        expectations(second),
        [
            ("native_le_bitmap1", 646.0, 675.0, 0.0, Pass),
            ("native_le_filter1", 646.0, 752.0, 0.0, Pass),
            // "Miscalculation! Measurement went negative" counts as a failure.
            ("per_filter_approx", -3.0, 18.0, 2.0, Fail),
            ("bitmap1_approx_bitmap2", 29.0, 29.0, 2.0, Pass),
            ("entry_approx_bitmap1", 29.0, 29.0, 2.0, Pass),
            ("entry_approx_bitmap2", 29.0, 29.0, 2.0, Pass),
            ("total_approx_full4", 663.0, 749.0, 6.63, Fail),
        ]
    );
}

#[test]
fn truncated_log_records_what_is_there_and_says_what_is_missing() {
    let r = one("seccomp-ktap-truncated.txt");
    assert_eq!(
        ids(&r),
        [
            "native",
            "seccomp.bitmap.1",
            "seccomp.bitmap.2",
            "seccomp.full.3"
        ]
    );
    assert_eq!(median(&r, "seccomp.full.3"), 356.0);
    assert!(r.estimates.is_empty());
    assert!(r.expectations.is_empty());
    assert!(
        has_note(
            &r,
            "missing: seccomp.full.4, all estimates, all expectations, the KTAP Totals line"
        ),
        "{:?}",
        r.notes
    );
    assert!(has_note(&r, "not ok # TIMEOUT 45 seconds"), "{:?}", r.notes);
    assert_eq!(
        r.environment.incidental.other["kselftest result"],
        "not ok # TIMEOUT 45 seconds"
    );
}

#[test]
fn mid_2020_generation_with_two_filters() {
    let r = one("seccomp-2filters.txt");
    assert_eq!(ids(&r), ["native", "seccomp.bitmap.1", "seccomp.bitmap.2"]);
    assert_eq!(median(&r, "native"), 299.0);
    assert_eq!(median(&r, "seccomp.bitmap.1"), 361.0);
    assert_eq!(median(&r, "seccomp.bitmap.2"), 369.0);
    assert_eq!(estimate(&r, "total.bitmap.1"), 62.0);
    assert_eq!(estimate(&r, "total.bitmap.2"), 70.0);
    assert_eq!(estimate(&r, "per_filter.bitmap_diff"), 8.0);
    assert_eq!(estimate(&r, "entry"), 54.0);
    assert!(r.expectations.is_empty());
    assert!(has_note(&r, "predates the bitmap/full scenarios"));
    assert!(!has_note(&r, "Incomplete"));
}

#[test]
fn sud_concatenated_and_truncated() {
    let rs = import("sud-two-runs.txt");
    assert_eq!(rs.len(), 2);
    assert_eq!(median(&rs[0], "native"), 171.0);
    assert_eq!(median(&rs[0], "sud.allow"), 239.0);
    let o = rs[0].result("sud.allow").unwrap().overhead.clone().unwrap();
    assert_eq!((o.median_ns, o.pct), (68.0, 39.8));
    assert_eq!(
        rs[0].result("native").unwrap().iters_per_sample,
        Some(29_100_000)
    );
    assert_eq!(ids(&rs[1]), ["native"]);
    assert_eq!(median(&rs[1], "native"), 170.0);
    assert!(has_note(&rs[1], "sud.allow is missing"));
}

#[test]
fn bpf_bench_summaries_use_the_per_producer_rate() {
    let imp = try_import("bpf-bench-summary.txt", ImportFormat::BpfBench).unwrap();
    let r = &imp.records[0];
    assert_eq!(imp.records.len(), 1);
    assert_eq!(ids(r), ["native", "bpf.rawtp", "bpf.fentry"]);
    assert_close(median(r, "native"), 1000.0 / 9.298);
    assert_close(median(r, "bpf.rawtp"), 1000.0 / 8.481);
    assert_eq!(
        r.result("bpf.rawtp")
            .unwrap()
            .throughput_mops
            .as_ref()
            .unwrap()
            .median,
        16.962
    );
    assert_close(median(r, "bpf.fentry"), 1000.0 / 9.050);
    assert!(has_note(r, "several producers"));
    // The ring-buffer bench's summary is not a trigger bench: reported, not imported.
    assert!(has_note(r, "rb-libbpf, not a trigger bench"));
    assert!(
        imp.warnings.iter().any(|w| w.hint.line == 21),
        "{:?}",
        imp.warnings
    );
}

#[test]
fn bpf_bench_6_10_keeps_in_kernel_rows_apart() {
    let r = one("bpf-bench-6.10-table.txt");
    assert_close(median(&r, "native"), 1000.0 / 19.721);
    assert_eq!(
        r.result("native").unwrap().params["bench"],
        "trig-syscall-count"
    );
    for id in [
        "bpf.kdriver.fentry",
        "bpf.kdriver.kprobe_multi",
        "bpf.kdriver.kretprobe_multi",
    ] {
        let res = r.result(id).unwrap();
        assert!(res.overhead.is_none(), "{id} is not a syscall cost");
    }
    assert_close(median(&r, "bpf.kdriver.tp"), 1000.0 / 58.531);
    assert_close(median(&r, "bpf.uprobe"), 1000.0 / 3.123);
    assert_close(median(&r, "bpf.uretprobe"), 1000.0 / 1.903);
    assert!(r.result("bpf.fentry").is_none());
    assert!(r.result("bpf.kprobe_multi_all").is_some());
    assert!(has_note(&r, "trig-kprobe-multi-all is not a bench name"));
    assert!(has_note(&r, "Linux 6.10+"));
    assert_eq!(r.results.len(), 15);
}

#[test]
fn perf_bench_runs_each_become_a_record() {
    let rs = import("perf-bench-all.txt");
    let got: Vec<(&str, f64, Option<u64>)> = rs
        .iter()
        .map(|r| {
            let n = r.result("native").unwrap();
            (
                r.settings.syscall.as_str(),
                n.median_ns.unwrap(),
                n.iters_per_sample,
            )
        })
        .collect();
    assert_eq!(got.len(), 4, "sched/pipe must not be imported");
    let want = [
        ("getppid", 52.334, 10_000_000),
        ("getpgid", 49.821, 10_000_000),
        ("fork", 78544.2, 10_000),
        ("getppid", 52.2, 10_000_000),
    ];
    for ((s, ns, it), (ws, wns, wit)) in got.iter().zip(want) {
        assert_eq!(*s, ws);
        assert_close(*ns, wns);
        assert_eq!(*it, Some(wit));
    }
    assert_eq!(
        rs[0]
            .result("native")
            .unwrap()
            .throughput_mops
            .as_ref()
            .unwrap()
            .median,
        19.10804
    );
    assert_eq!(rs[0].summary.duration_s, 0.523);
    assert!(has_note(&rs[3], "divided by the call count"));
    assert!(has_note(&rs[3], "missing: usecs/op, ops/sec"));
}

#[test]
fn garbage_and_empty_input_are_rejected() {
    let e = try_import("garbage.txt", ImportFormat::Auto)
        .unwrap_err()
        .to_string();
    assert!(e.contains("garbage.txt"), "{e}");
    assert!(e.contains("line 1"), "{e}");
    let e = import_bytes(
        b"  \n\n",
        "empty.log",
        ImportFormat::Auto,
        &Provenance::default(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "empty.log is empty");
}

#[test]
fn an_explicit_format_only_reads_that_format() {
    let e = try_import(SEED_000, ImportFormat::KselftestSud)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("no sud_benchmark result found in seeds/000"),
        "{e}"
    );
    for (seed, format) in [
        (SEED_000, ImportFormat::KselftestSeccomp),
        (SEED_003, ImportFormat::BpfBench),
        (SEED_004, ImportFormat::KselftestSud),
    ] {
        let explicit = try_import(seed, format).unwrap().records;
        assert_eq!(explicit, import(seed), "{seed}");
    }
}

#[test]
fn every_imported_record_is_valid_single_sample_and_deterministic() {
    let all = [
        SEED_000,
        SEED_003,
        SEED_004,
        "seed000-quoted-interleaved-crlf.eml",
        "seed003-requoted-qp.eml",
        "seed004-unflattened-crlf.eml",
        "seccomp-ktap.txt",
        "seccomp-ktap-quoted.eml",
        "seccomp-ktap-qp-crlf.eml",
        "seccomp-ktap-negative.txt",
        "seccomp-ktap-truncated.txt",
        "seccomp-2020-two-runs.txt",
        "seccomp-2filters.txt",
        "sud-two-runs.txt",
        "bpf-bench-summary.txt",
        "bpf-bench-6.10-table.txt",
        "perf-bench-all.txt",
    ];
    for name in all {
        let rs = import(name);
        assert!(!rs.is_empty());
        assert_eq!(rs, import(name), "{name}: not deterministic");
        for r in &rs {
            assert_eq!(validate(r), vec![], "{name}");
            assert_eq!(r.id, content_id(r));
            assert_eq!(r.source.kind, SourceKind::Import);
            for res in &r.results {
                assert_eq!(res.samples, Some(1), "{name} {}", res.id);
                assert!(res.ci_low_ns.is_none() && res.ci_high_ns.is_none());
                if let Some(o) = &res.overhead {
                    assert!(o.ci_low_ns.is_none() && o.pct_ci_low.is_none());
                }
            }
            for e in &r.estimates {
                assert!(
                    e.ci_low_ns.is_none() && e.median_ns.abs() < 1e6,
                    "{name} {}",
                    e.id
                );
            }
        }
    }
}

#[test]
fn provenance_from_the_command_line_is_kept() {
    let bytes = std::fs::read(path(SEED_004)).unwrap();
    let prov = Provenance {
        source: Some("<202012011458.13B0254D@keescook>"),
        note: Some("quoted results"),
    };
    let r = &import_bytes(&bytes, "x", ImportFormat::Auto, &prov)
        .unwrap()
        .records[0];
    assert_eq!(r.source.url.as_deref(), prov.source);
    assert_eq!(r.source.note.as_deref(), prov.note);
    assert_ne!(r.id, one(SEED_004).id);
}

fn seed_000_edited(edit: impl Fn(&str) -> String) -> RunRecord {
    let text = std::fs::read_to_string(path(SEED_000)).unwrap();
    let edited = edit(&text);
    let mut rs = import_bytes(
        edited.as_bytes(),
        "edited",
        ImportFormat::KselftestSeccomp,
        &Provenance::default(),
    )
    .unwrap()
    .records;
    assert_eq!(rs.len(), 1);
    rs.remove(0)
}

#[test]
fn a_verdict_cut_off_is_computed_with_the_kernel_rule_and_said() {
    let r = seed_000_edited(|t| {
        let end = t.find("(755 ≈ 752): ").unwrap() + "(755 ≈ 752): ".len();
        t[..end].to_string()
    });
    let e = r.expectations.last().unwrap();
    assert_eq!(e.id, "total_approx_full4");
    assert_eq!(
        (e.lhs_ns, e.rhs_ns, e.kernel_verdict),
        (755.0, 752.0, Verdict::Pass)
    );
    assert!(has_note(&r, "ends before the benchmark's verdict"));
}

#[test]
fn the_log_own_verdicts_decide_between_the_1_and_10_percent_rules() {
    // 790 vs 752 passes only under the 10 % rule; the log says ✔️.
    let r = seed_000_edited(|t| t.replace("(755 ≈ 752)", "(790 ≈ 752)"));
    let e = r.expectations.last().unwrap();
    assert_eq!((e.lhs_ns, e.kernel_verdict), (790.0, Verdict::Pass));
    assert_close(e.tolerance_ns, 75.2);
    assert!(has_note(&r, "fit the 10 % rule"));
    // Unedited, the 1 % rule stands.
    assert_close(one(SEED_000).expectations[6].tolerance_ns, 7.52);
}
