//! `syscost selfcheck` produces its three sections from real runs.

use crate::common;

#[test]
fn selfcheck_reports_both_methods_and_precision() {
    let _m = common::measuring();
    let out = common::syscost(&[
        "selfcheck",
        "--runs",
        "1",
        "--budget",
        "2",
        "--budgets",
        "5",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "### Kernel method vs syscost method",
        "| sequential (kernel) |",
        "| interleaved (syscost, stops at its targets) |",
        "| interleaved (syscost, whole budget) |",
        "### Precision versus budget",
        "| 5 |",
        // What the harness costs, or why the run could not say.
        "The timed loop without the syscall (`null`)",
        "getppid: syscost `native`",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}

#[test]
fn selfcheck_suite_reports_widths_spreads_verdicts_and_wall_times() {
    let _m = common::measuring();
    let out = common::syscost(&["selfcheck", "--suite", "--runs", "2", "--budget", "4"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "### The default suite, 2 runs",
        "1-minute load average",
        // Widths need rounds a loaded machine may not give 4 s: the rows, whatever they hold.
        "| entry | ",
        "| bitmap 1 − bitmap 2 | ",
        "| `sud.allow` overhead | ",
        "| depth slope | ",
        "| 1 bitmapped ≈ 2 bitmapped |",
        "Conclusive expectations per run: ",
        "| 2 | ",
        "against the 4 s budget",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    // The two method-comparison sections are not run.
    assert!(!text.contains("### Kernel method vs syscost method"));
}

#[test]
fn selfcheck_suite_calibrates_saved_records_and_names_a_bad_one() {
    let _m = common::measuring();
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for i in 0..2 {
        let p = dir.path().join(format!("r{i}.json"));
        let out = common::syscost(&[
            "run",
            "--budget",
            "4",
            "--only",
            "native,sud.allow",
            "-o",
            p.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        paths.push(p.to_str().unwrap().to_string());
    }
    let mut args = vec!["selfcheck", "--suite", "--records"];
    args.extend(paths.iter().map(String::as_str));
    let out = common::syscost(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for needle in [
        "### The default suite, 2 runs",
        "### A/A calibration across the 2 runs",
        "pairs significant",
        "| `sud.allow` overhead | yes | 2 | ",
        "not known for saved records",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
    // Nothing was run: a file that is no record is named, with why.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{}").unwrap();
    let out = common::syscost(&["selfcheck", "--suite", "--records", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("bad.json") && err.contains("not a run record"),
        "{err}"
    );
}
