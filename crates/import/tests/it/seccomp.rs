//! seccomp_benchmark of every generation: KTAP, wrapped-around estimates, concatenated and
//! truncated runs, the ≈ rule.

use crate::*;
use syscost_record::Verdict;

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
    // "Pinned to CPU 3 of 4": the benchmark prints cpu + 1, so the CPU index is 2.
    assert_eq!(r.settings.cpu, Some(2));
    let other = &r.environment.incidental.other;
    assert_eq!(other["pinned (as printed)"], "CPU 3 of 4");
    assert_eq!(other["cpus (as the benchmark counts them)"], "4");
    assert_eq!(other["kselftest timeout s"], "180");
    assert_eq!(other["kselftest test number"], "1");
    // The uname host is kept only as a hash.
    assert_eq!(
        r.environment.incidental.machine_hash.as_deref(),
        Some(syscost_record::machine_hash("ci-runner-7").as_str())
    );
    assert!(!serde_json::to_string(&r).unwrap().contains("ci-runner-7"));
    assert_eq!(other["calibration seconds"], "15");
    assert_eq!(
        other["ktap totals"],
        "pass:7 fail:0 xfail:0 xpass:0 skip:0 error:0"
    );
    assert_eq!(other["kselftest result"], "ok");
    assert_eq!(
        other["output generation"],
        "KTAP, pinned to one CPU (2024 on)"
    );
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
    // "Pinned to CPU 1 of 2": CPU 0.
    assert_eq!(r.settings.cpu, Some(0));
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
    // 827 vs 770 passes only under the 10 % rule; the log says ✔️. The 4-filter time is
    // edited, and with it every figure the benchmark computes from it (a log whose figures
    // disagree is refused), its timed loop left out.
    let r = seed_000_edited(|t| {
        t.replace("696.337101319 - 545.874097681 = 150463003638 (150.5s)", "")
            .replace("4 filters (full): 752 ns", "4 filters (full): 770 ns")
            .replace("for 4 full filters: 106 ns", "for 4 full filters: 124 ns")
            .replace("(last 2 diff): 20 ns", "(last 2 diff): 38 ns")
            .replace("(filters / 4): 19 ns", "(filters / 4): 23 ns")
            .replace("(20 ≈ 19): ✔️", "(38 ≈ 23): ❌")
            .replace("(755 ≈ 752)", "(827 ≈ 770)")
    });
    let e = r.expectations.last().unwrap();
    assert_eq!((e.lhs_ns, e.kernel_verdict), (827.0, Verdict::Pass));
    assert_close(e.tolerance_ns, 77.0);
    assert!(has_note(&r, "fit the 10 % rule"));
    // Unedited, the 1 % rule stands.
    assert_close(one(SEED_000).expectations[6].tolerance_ns, 7.52);
}
