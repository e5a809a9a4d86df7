//! The interception paths end to end: every path is measured (or skipped with a reason) with
//! exact verification counts, sits next to SUD in the table, and the engine rejects a batch
//! whose interception count or return value is wrong.

use crate::common;

use common::*;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use syscost::engine::driver::{measure, Options};
use syscost::harness::{Batch, Syscall};
use syscost::scenarios::{intercept, RunError, Scenario, SetupError};
use syscost_record::Status;

const PATHS: [&str; 11] = [
    "seccomp.errno",
    "seccomp.trap",
    "seccomp.user_notif",
    "seccomp.user_notif_continue",
    "seccomp.user_notif.same_cpu",
    "seccomp.log",
    "seccomp.trace",
    "ptrace.syscall",
    "ptrace.sysemu",
    "ptrace.syscall.same_cpu",
    "sud.block",
];

#[test]
fn every_path_is_measured_with_exact_counts_and_grouped_after_sud() {
    let _m = measuring();
    let only = PATHS.join(",");
    let (r, out) = run_json(&["--budget", "5", "--only", &only]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    for id in PATHS {
        let x = result(&r, id);
        match x.status {
            Status::Measured => {
                assert_measured(&r, id);
                let v = x
                    .verification
                    .as_ref()
                    .unwrap_or_else(|| panic!("{id}: no count"));
                assert!(v.expected > 0, "{id}: {v:?}");
                assert_eq!(v.observed, v.expected, "{id}: {v:?}");
                // One interception per operation: the count covers every timed call.
                let ops = x.samples.unwrap() * x.iters_per_sample.unwrap();
                assert_eq!(v.expected, ops, "{id}: {v:?} for {ops} operations");
                let o = x
                    .overhead
                    .as_ref()
                    .unwrap_or_else(|| panic!("{id}: no overhead"));
                assert_eq!(o.vs, "native");
            }
            Status::Skipped => {
                let why = x.reason.as_deref().unwrap_or("");
                assert!(
                    why.len() > 20,
                    "{id} skipped without a real reason: {why:?}"
                );
            }
            Status::Failed => panic!("{id} failed: {:?}\n{stderr}", x.reason),
        }
    }
    // On this kind of machine (root, a 5.x+ kernel) the core paths must all run.
    for id in [
        "seccomp.errno",
        "seccomp.trap",
        "seccomp.trace",
        "ptrace.syscall",
    ] {
        assert_eq!(result(&r, id).status, Status::Measured, "{id}");
    }
    let m = |id| result(&r, id).median_ns.unwrap();
    // Refusals skip the syscall body; signals and stops cost far more than a syscall.
    assert!(m("seccomp.errno") < 2.0 * m("native"));
    assert!(m("seccomp.trap") > 3.0 * m("native"));
    assert!(m("ptrace.syscall") > m("seccomp.trap"));
    // The table shows every interception mechanism together: the intercept block right
    // after the sud block.
    let table = syscost::report::table::render(&r);
    let families: Vec<&str> = table
        .lines()
        .filter(|l| !l.is_empty() && !l.contains(' '))
        .collect();
    let sud = families
        .iter()
        .position(|f| *f == "sud")
        .expect("no sud block");
    assert_eq!(families.get(sud + 1), Some(&"intercept"), "{table}");
}

#[test]
fn mix_runs_the_pass_through_paths_and_skips_the_emulating_ones() {
    let _m = measuring();
    let (r, _) = run_json(&[
        "--budget",
        "3",
        "--syscall",
        "mix",
        "--only",
        "seccomp.errno,seccomp.trap,seccomp.user_notif_continue,ptrace.syscall,ptrace.sysemu",
    ]);
    for id in ["seccomp.errno", "seccomp.trap", "ptrace.sysemu"] {
        let x = result(&r, id);
        assert_eq!(x.status, Status::Skipped, "{id}");
        assert!(
            x.reason.as_deref().unwrap().contains("single-syscall"),
            "{id}: {:?}",
            x.reason
        );
    }
    for id in ["seccomp.user_notif_continue", "ptrace.syscall"] {
        assert_measured(&r, id);
        let x = result(&r, id);
        let v = x.verification.as_ref().unwrap();
        // Five syscalls per operation, each intercepted.
        let ops = x.samples.unwrap() * x.iters_per_sample.unwrap();
        assert_eq!((v.expected, v.observed), (5 * ops, 5 * ops), "{id}");
    }
}

/// Wraps a real scenario and falsifies what its batches report.
struct Tamper {
    inner: Box<dyn Scenario>,
    verified_delta: i64,
    extra_bad: u64,
}

impl Scenario for Tamper {
    fn id(&self) -> String {
        self.inner.id()
    }
    fn family(&self) -> &'static str {
        self.inner.family()
    }
    fn description(&self) -> String {
        self.inner.description()
    }
    fn baseline(&self) -> Option<String> {
        None
    }
    fn params(&self) -> BTreeMap<String, String> {
        self.inner.params()
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        self.inner.setup()
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let mut b = self.inner.run(iters)?;
        b.verified = b.verified.map(|v| (v as i64 + self.verified_delta) as u64);
        b.bad += self.extra_bad;
        Ok(b)
    }
    fn verification(&self) -> Option<&'static str> {
        self.inner.verification()
    }
    fn expected_verified(&self, iters: u64) -> u64 {
        self.inner.expected_verified(iters)
    }
    fn fixed_iters(&self) -> Option<u64> {
        self.inner.fixed_iters()
    }
}

fn path(id: &str) -> Box<dyn Scenario> {
    intercept::scenarios(Syscall::Getpid)
        .into_iter()
        .find(|s| s.id() == id)
        .unwrap_or_else(|| panic!("no scenario {id}"))
}

#[test]
fn a_wrong_count_or_return_fails_the_scenario_loudly() {
    let _m = measuring();
    let tamper = |id, verified_delta, extra_bad| -> Box<dyn Scenario> {
        Box::new(Tamper {
            inner: path(id),
            verified_delta,
            extra_bad,
        })
    };
    let mut scenarios: Vec<Box<dyn Scenario>> = vec![
        tamper("seccomp.trap", 0, 0),       // honest
        tamper("seccomp.trap", -1, 0),      // one handler call missing
        tamper("seccomp.errno", 1, 0),      // one refusal too many
        tamper("seccomp.user_notif", 0, 1), // one wrong return
        tamper("ptrace.sysemu", -1, 0),     // one tracer stop missing
    ];
    let opts = Options {
        started: std::time::Instant::now(),
        budget: Duration::from_secs(3),
        target_ci_pct: 0.0,
        sample_ns: 1_000_000,
        cpu: *syscost::sys::affinity::allowed_cpus().last().unwrap(),
        instances: 1,
    };
    let stop = AtomicBool::new(false);
    let out = measure(&mut scenarios, &opts, &stop, &mut |_| {});
    let slot = |i: usize| &out.slots[i];
    assert_eq!(slot(0).status, Status::Measured, "{:?}", slot(0).reason);
    let (e, o) = slot(0).verified.unwrap();
    assert!(e > 0 && e == o);
    for i in [1, 2, 4] {
        assert_eq!(slot(i).status, Status::Failed, "{}", scenarios[i].id());
        let why = slot(i).reason.as_deref().unwrap();
        assert!(why.contains("verification failed"), "{why}");
    }
    let why = slot(3).reason.as_deref().unwrap();
    assert_eq!(slot(3).status, Status::Failed);
    assert!(why.contains("unexpected value"), "{why}");
}
