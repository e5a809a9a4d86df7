//! perf bench syscall runs.

use crate::*;

#[test]
fn perf_bench_runs_each_become_a_record() {
    let rs = import("perf-bench-all.txt");
    let got: Vec<(&str, f64, Option<u64>)> = rs
        .iter()
        .map(|r| {
            let n = &r.results[0];
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
    assert_eq!(rs[0].summary.duration_s, Some(0.523));
    assert!(has_note(&rs[3], "divided by the call count"));
    assert!(has_note(&rs[3], "missing: usecs/op, ops/sec"));
}

#[test]
fn fork_is_an_operation_of_its_own_not_one_syscall() {
    let rs = import("perf-bench-all.txt");
    let fork = &rs[2];
    assert_eq!(ids(fork), ["process.fork"]);
    assert_eq!(fork.results[0].family, "process");
    assert_eq!(fork.settings.syscall, "fork");
    assert_eq!(fork.settings.syscalls_per_op, None);
    let op = fork.settings.operation.as_deref().unwrap();
    assert!(op.contains("fork()") && op.contains("waitpid()"), "{op}");
    // getppid stays one syscall per operation, against which overheads are measured.
    assert_eq!(ids(&rs[0]), ["native"]);
    assert_eq!(rs[0].settings.syscalls_per_op, Some(1));
    assert_eq!(rs[0].settings.operation, None);
}
