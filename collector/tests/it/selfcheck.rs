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
        "2",
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
        "| interleaved (syscost, stops at ±1 % CI) |",
        "| interleaved (syscost, whole budget) |",
        "### Precision versus budget",
        "| 2 |",
        "`null`) costs",
        "getppid: syscost `native`",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }
}
