//! perf bench syscall runs.

use crate::*;

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
