//! `--method sequential`: the kernel benchmark's method, reproduced.

use crate::common;

use common::*;
use syscost_record::{validate, Method, Status, StopReason};

#[test]
fn sequential_method_reproduces_the_kernel_arithmetic() {
    let _m = alone();
    let budget = 4.0;
    let (r, out) = run_json(&["--method", "sequential", "--budget", "4"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(r.source.method, Method::Sequential, "{err}");
    assert_eq!(r.summary.stop_reason, StopReason::Complete);
    assert!(validate(&r).is_empty(), "{:?}", validate(&r));
    assert!(
        r.summary.duration_s.unwrap() <= budget * 1.05,
        "{:?} s",
        r.summary.duration_s
    );
    let ids = ids(&r);
    assert_eq!(
        ids,
        [
            "native",
            "seccomp.bitmap.1",
            "seccomp.bitmap.2",
            "seccomp.full.3",
            "seccomp.full.4"
        ]
    );
    // Whatever finished is an integer ns with no invented interval.
    let measured: Vec<f64> = r.results.iter().filter_map(|x| x.median_ns).collect();
    assert!(measured.len() >= 3, "{err}");
    for x in r.results.iter().filter(|x| x.median_ns.is_some()) {
        let m = x.median_ns.unwrap();
        assert_eq!(m, m.trunc(), "{}: {m} is not integer ns", x.id);
        assert!(x.ci_low_ns.is_none() && x.ci_high_ns.is_none());
        assert_eq!(x.samples, Some(1));
        assert!(x.iters_per_sample.unwrap() > 1000);
    }
    if measured.len() == 5 {
        let (n, b1, b2) = (measured[0], measured[1], measured[2]);
        let entry = r.estimate("entry").unwrap().median_ns;
        assert_eq!(entry, b1 - n - (b2 - b1));
        assert_eq!(r.expectations.len(), 7);
        for e in &r.expectations {
            assert_eq!(e.verdict, e.kernel_verdict, "{e:?}");
        }
    } else {
        // A machine too loaded for the sequence to fit its budget: the timings it did not reach
        // failed and say why, and nothing is computed from the missing ones.
        for x in r.results.iter().filter(|x| x.median_ns.is_none()) {
            assert_eq!(x.status, Status::Failed, "{}", x.id);
            let why = x.reason.as_deref().unwrap_or_default();
            assert!(why.contains("did not finish within"), "{}: {why}", x.id);
        }
        assert!(r.estimates.is_empty() && r.expectations.is_empty(), "{err}");
    }
}

#[test]
fn sequential_method_refuses_options_it_cannot_honour() {
    for extra in [["--only", "native"], ["--syscall", "getppid"]] {
        let mut args = vec!["run", "--method", "sequential"];
        args.extend(extra);
        let out = syscost(&args);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("reproduces seccomp_benchmark"));
    }
}
