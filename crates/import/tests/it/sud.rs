//! sud_benchmark runs.

use crate::*;

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
