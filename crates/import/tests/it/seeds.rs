//! The published seed logs, number by number, and their messy variants.

use crate::*;
use sha2::{Digest, Sha256};
use syscost_record::{Method, SourceKind, StopReason, Verdict};

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
    assert_eq!(r.settings.syscalls_per_op, Some(1));
    assert_eq!(r.settings.confidence, 0.95);
    assert_eq!(r.summary.rounds, 1);
    assert_eq!(r.summary.stop_reason, StopReason::Complete);
    assert_eq!(r.summary.ci_method, "none (imported single measurement)");
    // The log prints each scenario's timed loop (process CPU time), not how long the run
    // took: the duration is absent, never made up.
    assert_eq!(r.summary.duration_s, None);

    let c = &r.environment.comparability;
    assert_eq!(
        (c.arch.as_str(), c.kernel_release.as_str()),
        ("unknown", "unknown")
    );
    assert!(has_note(
        &r,
        "Neither the log nor its source states the kernel release and architecture"
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
