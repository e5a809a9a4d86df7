//! The BPF family: what one small program attached to the probe's path adds to each call, for
//! every attach type (the kernel's bench_trigger, with intervals), plus what attaching costs.
//!
//! - `bpf.<kind>`: the probe syscall with the program attached (uprobes: a user function call,
//!   paired against `bpf.ufunc`, the same call unprobed).
//! - `attach.bpf.<kind>`: the attach + detach each `bpf.<kind>` sample performs outside its
//!   timed region, reported from the same worker (no worker of its own).
//!
//! Kernel-side programs attach system-wide, and every worker shares the measurement CPU in
//! turn. So a worker loads its program once, but attaches it only for its own sample and
//! detaches it before answering (it answers once a call of its own no longer hits the
//! program): `native` and the other scenarios never run with it attached.
//! Uprobes are the exception: bound to the worker's pid, their breakpoint exists only in the
//! worker's own memory, so they stay attached from setup on (re-attaching them per sample
//! would cost ~0.1 s of RCU waiting each time, and bias the first calls after each attach).
//! The program counts only its own worker's calls (tgid filter), and every sample must show
//! exactly one hit per operation — a program that did not run is a failed scenario, not a fast
//! one. Links and programs belong to the worker process, so the kernel releases them when it
//! exits or is killed.

mod host;
mod kind;
mod object;
mod programs;
mod session;
mod ufunc;

#[cfg(test)]
mod tests;

use super::{RunError, Scenario, SetupError};
use crate::harness::{Batch, Syscall};
use crate::sys::affinity::allowed_cpus;
use kind::{attached_to, watched_syscall, Kind};
use session::Session;
use std::collections::BTreeMap;
use std::time::Duration;
use syscost_record::KernelScenario;

/// How long a sample with an attach and a detach may take before the worker is presumed hung:
/// detaching a tracepoint or kprobe waits for RCU grace periods (~70 ms on a small VM, several
/// times that under load).
const DETACHING_SAMPLE_TIMEOUT: Duration = Duration::from_secs(5);

pub fn scenarios(syscall: Syscall) -> Vec<Box<dyn Scenario>> {
    let cpus = allowed_cpus();
    let mut v: Vec<Box<dyn Scenario>> = Vec::new();
    for kind in Kind::ALL {
        v.push(Box::new(Probed::new(kind, syscall, cpus.clone())));
    }
    v.push(Box::new(Ufunc));
    v
}

/// Parameters of a kind's scenario.
fn common_params(kind: Kind, syscall: Syscall) -> BTreeMap<String, String> {
    let mut p = BTreeMap::new();
    p.insert("program".into(), kind.program().into());
    p.insert("attached_to".into(), attached_to(kind, syscall));
    p.insert("mechanism".into(), kind.mechanism().into());
    if !kind.is_user() && syscall == Syscall::Mix {
        p.insert(
            "watched_syscall".into(),
            format!(
                "{} (the first syscall of each mix iteration: one hit per operation)",
                watched_syscall(syscall).0
            ),
        );
    }
    if kind == Kind::Tp {
        let state = if host::tracefs_mounted() {
            "mounted on the host".to_string()
        } else {
            format!(
                "not mounted on the host: each worker mounts it at {} in a mount namespace of \
                 its own (the rest of the system is unchanged)",
                host::TRACEFS
            )
        };
        p.insert("tracefs".into(), state);
    }
    p
}

/// `bpf.<kind>`: the probe with the program attached.
pub struct Probed {
    kind: Kind,
    syscall: Syscall,
    /// The CPUs of the run, decided in the parent (the worker is pinned to one of them).
    cpus: Vec<u32>,
    session: Option<Session>,
}

impl Probed {
    fn new(kind: Kind, syscall: Syscall, cpus: Vec<u32>) -> Probed {
        Probed {
            kind,
            syscall,
            cpus,
            session: None,
        }
    }
}

impl Scenario for Probed {
    fn id(&self) -> String {
        format!("bpf.{}", self.kind.name())
    }
    fn family(&self) -> &'static str {
        "bpf"
    }
    fn description(&self) -> String {
        let on = attached_to(self.kind, self.syscall);
        match self.kind {
            Kind::Uprobe | Kind::Uretprobe => {
                format!("call of a user function with a BPF program on {on}")
            }
            Kind::Fmodret => format!(
                "{} with a BPF {on} program returning -EINVAL: the syscall body is skipped",
                self.syscall.describe()
            ),
            _ => format!("{} with a BPF program on {on}", self.syscall.describe()),
        }
    }
    fn baseline(&self) -> Option<String> {
        Some(if self.kind.is_user() {
            "bpf.ufunc".into()
        } else {
            KernelScenario::Native.id().into()
        })
    }
    fn params(&self) -> BTreeMap<String, String> {
        let mut p = common_params(self.kind, self.syscall);
        let attach = if self.kind.is_user() {
            "once, at setup, bound to the worker's pid: the breakpoint exists only in the \
             worker's own memory, so no other scenario can be slowed by it"
                .to_string()
        } else {
            format!(
                "for each sample, detached before the next scenario runs; outside the timed \
                 region (its cost: attach.bpf.{})",
                self.kind.name()
            )
        };
        p.insert("attach".into(), attach);
        if self.kind.is_trampoline() {
            p.insert(
                "reattach".into(),
                "a kernel that cannot attach a detached trampoline program again (Linux < \
                 5.13 answers ENOENT) gets it loaded afresh before each sample, untimed and \
                 outside attach.bpf.*"
                    .into(),
            );
        }
        p.insert(
            "filter".into(),
            "tgid: only the measuring worker's calls are counted".into(),
        );
        if self.kind.is_user() {
            p.insert(
                "probed_instruction".into(),
                "nop (emulated by the kernel: one trap per call, as the kernel benchmark's \
                 uprobe-nop)"
                    .into(),
            );
        }
        if self.kind == Kind::Fmodret {
            p.insert(
                "note".into(),
                format!(
                    "the program returns {} for the worker's calls, so the kernel skips the \
                     syscall body: this measures entry + trampoline + program, without {}'s \
                     own work (as the kernel benchmark's fmodret)",
                    session::FMODRET_RETURN,
                    watched_syscall(self.syscall).0
                ),
            );
        }
        p
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        self.session = Some(Session::open(self.kind, self.syscall, &self.cpus)?);
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let s = self.session.as_mut().ok_or(RunError::NotSetUp)?;
        Ok(s.sample(iters)?)
    }
    fn verification(&self) -> Option<&'static str> {
        Some("BPF program hits by the worker's own calls while attached")
    }
    fn sample_timeout(&self) -> Option<Duration> {
        (!self.kind.is_user()).then_some(DETACHING_SAMPLE_TIMEOUT)
    }
    fn untimed(&mut self) -> Option<u64> {
        self.session.as_mut()?.untimed_ns.take()
    }
    fn calibration_run(&mut self, iters: u64) -> Result<Batch, RunError> {
        match &mut self.session {
            Some(s) if !self.kind.is_user() => Ok(s.unattached(iters)),
            _ => self.run(iters),
        }
    }
    fn system_wide(&self) -> bool {
        !self.kind.is_user()
    }
    fn preemption_is_noise(&self) -> bool {
        // A kernel-side program's sample reports preemption over its whole attach cycle, not
        // only its timed loop, and taking it again costs a whole cycle.
        self.kind.is_user()
    }
    fn settle_ns(&mut self) -> Option<u64> {
        self.session.as_ref()?.settle_ns
    }
    fn untimed_result(&self) -> Option<(String, String)> {
        (!self.kind.is_user()).then(|| {
            (
                format!("attach.bpf.{}", self.kind.name()),
                format!(
                    "attach + detach of bpf.{}'s program ({}) through bpf(2), once per sample",
                    self.kind.name(),
                    attached_to(self.kind, self.syscall)
                ),
            )
        })
    }
}

/// `bpf.ufunc`: the uprobes' baseline. Its own baseline is none: it makes no syscall, so an
/// overhead against `native` would be a meaningless negative number.
pub struct Ufunc;

impl Scenario for Ufunc {
    fn id(&self) -> String {
        "bpf.ufunc".into()
    }
    fn family(&self) -> &'static str {
        "bpf"
    }
    fn description(&self) -> String {
        format!(
            "call of the user function {} with no probe (baseline of the uprobes)",
            ufunc::SYMBOL
        )
    }
    fn baseline(&self) -> Option<String> {
        None
    }
    fn params(&self) -> BTreeMap<String, String> {
        BTreeMap::from([("function".to_string(), ufunc::SYMBOL.to_string())])
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        Ok(ufunc::timed_calls(iters))
    }
}
