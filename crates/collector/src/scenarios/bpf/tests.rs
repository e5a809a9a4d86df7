//! Tests that load real programs. They need root (or CAP_BPF + CAP_PERFMON); without it they
//! check that the same setup is skipped with the privilege reason instead.

use super::kind::Kind;
use super::session::Session;
use super::{scenarios, Probed};
use crate::engine::driver::{self, Options};
use crate::harness::{Batch, Syscall};
use crate::scenarios::{RunError, Scenario, SetupError};
use crate::sys::affinity::allowed_cpus;
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Duration;
use syscost_record::Status;

/// These tests fork and load programs: one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn privileged() -> bool {
    super::host::check_privileges().is_ok()
}

#[test]
fn a_program_that_counts_nothing_fails_setup_instead_of_measuring() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    // Counting the calls of init (pid 1), not ours: attached, but never hit by us.
    match Session::open_counting(Kind::RawTp, Syscall::Getpid, &allowed_cpus(), 1) {
        Err(SetupError::Failed(why)) => {
            assert!(privileged(), "failed although unprivileged: {why}");
            assert!(why.contains("counted 0 hit(s) for 1 call"), "{why}");
        }
        Err(SetupError::Unsupported(why)) => {
            assert!(!privileged(), "skipped although privileged: {why}");
            assert!(why.contains("not privileged"), "{why}");
        }
        Ok(_) => panic!("a program counting another process's calls passed setup"),
    }
}

#[test]
fn a_sample_counts_one_hit_per_call_and_none_after_detach() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    match Session::open(Kind::RawTp, Syscall::Getpgid, &allowed_cpus()) {
        Ok(mut s) => {
            for iters in [1, 10, 1000] {
                let b = s.sample(iters).unwrap();
                assert_eq!((b.iters, b.bad, b.verified), (iters, 0, Some(iters)));
            }
            // Each sample reports its attach + detach, outside the timed region.
            assert!(s.untimed_ns.is_some_and(|u| u > 0));
        }
        Err(e) => assert!(!privileged(), "setup failed although privileged: {e:?}"),
    }
}

#[test]
fn a_system_wide_program_is_detached_when_its_sample_answers() {
    // The engine asks the next scenario for its sample as soon as this one answers: by then
    // the program must be out of the tracepoint, for every process (it is unregistered before
    // the answer; only its grace periods may still be running).
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    for kind in [Kind::Tp, Kind::RawTp] {
        match Session::open(kind, Syscall::Getpid, &allowed_cpus()) {
            Ok(mut s) => {
                for _ in 0..5 {
                    let b = s.sample(100).unwrap();
                    assert_eq!(b.verified, Some(100), "{kind:?}");
                    assert_eq!(
                        s.hits_now(10),
                        0,
                        "{kind:?}: still attached after answering"
                    );
                }
            }
            Err(e) => assert!(!privileged(), "setup failed although privileged: {e:?}"),
        }
    }
}

/// Expects one more hit than there are calls: the engine must reject every sample.
struct Miscounted(Probed);

impl Scenario for Miscounted {
    fn id(&self) -> String {
        self.0.id()
    }
    fn preemption_is_noise(&self) -> bool {
        self.0.preemption_is_noise()
    }
    fn family(&self) -> &'static str {
        self.0.family()
    }
    fn description(&self) -> String {
        self.0.description()
    }
    fn baseline(&self) -> Option<String> {
        None
    }
    fn params(&self) -> BTreeMap<String, String> {
        self.0.params()
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        self.0.setup()
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        self.0.run(iters)
    }
    fn verification(&self) -> Option<&'static str> {
        self.0.verification()
    }
    fn expected_verified(&self, iters: u64) -> u64 {
        iters + 1
    }
}

#[test]
fn a_hit_count_that_does_not_match_fails_the_scenario() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut v: Vec<Box<dyn Scenario>> = vec![
        Box::new(Miscounted(Probed::new(
            Kind::RawTp,
            Syscall::Getpid,
            allowed_cpus(),
        ))),
        Box::new(Probed::new(Kind::RawTp, Syscall::Getpid, allowed_cpus())),
    ];
    // Setup (two BPF loads and verifications) may take half the budget; on a loaded machine
    // that exceeded one second, and the scenarios were skipped instead of judged.
    let opts = Options {
        started: std::time::Instant::now(),
        budget: Duration::from_secs(6),
        target_ci_pct: 1.0,
        sample_ns: 1_000_000,
        cpu: *allowed_cpus().last().unwrap(),
        instances: 1,
    };
    let out = driver::measure(&mut v, &opts, &AtomicBool::new(false), &mut |_| {});
    let (bad, good) = (&out.slots[0], &out.slots[1]);
    if !privileged() {
        assert_eq!(bad.status, Status::Skipped);
        assert_eq!(good.status, Status::Skipped);
        return;
    }
    assert_eq!(bad.status, Status::Failed, "{:?}", bad.reason);
    let why = bad.reason.as_deref().unwrap_or_default();
    assert!(why.contains("verification failed"), "{why}");
    // The real count is reported: one hit per call, one short of the (wrong) expectation.
    assert!(
        why.contains("expected") && why.contains("observed"),
        "{why}"
    );
    assert_eq!(good.status, Status::Measured, "{:?}", good.reason);
    let (expected, observed) = good.verified.unwrap();
    assert!(expected > 0);
    assert_eq!(expected, observed);
}

/// Its attach point vanishes before its third sample, as a kernel object could mid-run.
struct Vanishing {
    inner: Probed,
    samples: u32,
}

impl Scenario for Vanishing {
    fn id(&self) -> String {
        self.inner.id()
    }
    // As its scenario: its samples are never taken again (it counts them).
    fn preemption_is_noise(&self) -> bool {
        self.inner.preemption_is_noise()
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
    fn setup(&mut self) -> Result<(), SetupError> {
        self.inner.setup()
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        self.samples += 1;
        if self.samples == 3 {
            if let Some(s) = self.inner.session.as_mut() {
                s.break_attach_point();
            }
        }
        self.inner.run(iters)
    }
    fn calibration_run(&mut self, iters: u64) -> Result<Batch, RunError> {
        self.inner.calibration_run(iters)
    }
    fn verification(&self) -> Option<&'static str> {
        self.inner.verification()
    }
}

#[test]
fn an_attach_failing_mid_run_reaches_the_record_with_its_reason() {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut v: Vec<Box<dyn Scenario>> = vec![Box::new(Vanishing {
        inner: Probed::new(Kind::RawTp, Syscall::Getpid, allowed_cpus()),
        samples: 0,
    })];
    let opts = Options {
        started: std::time::Instant::now(),
        budget: Duration::from_secs(3),
        target_ci_pct: 0.0,
        sample_ns: 1_000_000,
        cpu: *allowed_cpus().last().unwrap(),
        instances: 1,
    };
    let out = driver::measure(&mut v, &opts, &AtomicBool::new(false), &mut |_| {});
    let slot = &out.slots[0];
    if !privileged() {
        assert_eq!(slot.status, Status::Skipped);
        return;
    }
    assert_eq!(slot.status, Status::Failed, "{:?}", slot.reason);
    let why = slot.reason.as_deref().unwrap_or_default();
    // The cause, not a verification failure: the round, what failed, and the kernel's errno.
    assert!(
        why.starts_with("in round 2: attaching the BPF program failed: attaching syscost_rawtp"),
        "{why}"
    );
    assert!(why.contains("syscost_no_such_tracepoint"), "{why}");
    assert!(why.contains("(os error 2)"), "ENOENT: {why}");
    assert!(!why.contains("verification"), "{why}");
    // The two samples before it are kept.
    assert_eq!(slot.samples.iter().flatten().count(), 2);
}

#[test]
fn every_kind_has_one_measured_scenario_and_kernel_kinds_an_attach_result() {
    let v = scenarios(Syscall::Getpid);
    let ids: Vec<String> = v.iter().map(|s| s.id()).collect();
    for k in Kind::ALL {
        assert!(ids.contains(&format!("bpf.{}", k.name())));
        let s = v
            .iter()
            .find(|s| s.id() == format!("bpf.{}", k.name()))
            .unwrap();
        let attach = s.untimed_result().map(|(id, _)| id);
        assert_eq!(attach.is_some(), !k.is_user(), "{}", k.name());
        if let Some(id) = attach {
            assert_eq!(id, format!("attach.bpf.{}", k.name()));
        }
    }
    assert!(ids.contains(&"bpf.ufunc".to_string()));
    let up = v.iter().find(|s| s.id() == "bpf.uprobe").unwrap();
    assert_eq!(up.baseline().as_deref(), Some("bpf.ufunc"));
    let fm = v.iter().find(|s| s.id() == "bpf.fmodret").unwrap();
    assert!(fm.params()["note"].contains("skips the syscall body"));
    // Every mechanism with a measured kind has its attach cost somewhere.
    for s in &v {
        if s.family() == "bpf" && s.id() != "bpf.ufunc" && !s.id().starts_with("bpf.u") {
            assert!(s.params()["attach"].contains("attach.bpf."), "{}", s.id());
        }
    }
}
