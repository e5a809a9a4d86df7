//! ptrace interception, what strace-style tools pay: `PTRACE_SYSCALL` stops the tracee at
//! every syscall entry and exit; `PTRACE_SYSEMU` stops it at entry only and skips the syscall,
//! the tracer writing the result (how User-Mode Linux and gVisor's ptrace platform emulate).
//!
//! The worker is the tracer. For each batch it forks a tracee that prepares the probe, warms it
//! up, stops itself, and — once the tracer has resumed it with syscall tracing on — times the
//! probe's own loop and leaves the batch in shared memory. The tracer counts the probe's entry
//! stops and reaps the tracee on every path; `PTRACE_O_EXITKILL` and the tracee's parent-death
//! signal stop it if the worker dies. At each stop the tracer does what strace does at least:
//! `waitpid`, `PTRACE_GET_SYSCALL_INFO`, and resumes (plus one register write under SYSEMU).

use super::{placement, Call, FAMILY};
use crate::harness::{Batch, Probe, Syscall};
use crate::scenarios::{RunError, Scenario, SetupError};
use crate::sys::affinity::pinned_cpu;
use crate::sys::process::{self, Child, Event, Exit};
use crate::sys::ptrace::{self, Resume, PTRACE_SYSCALL_INFO_ENTRY, PTRACE_SYSCALL_INFO_EXIT};
use crate::sys::shared::{Shared, Slots};
use std::collections::BTreeMap;
use std::io;

/// WSTOPSIG of a syscall stop with PTRACE_O_TRACESYSGOOD.
const SYSCALL_STOP: i32 = libc::SIGTRAP | 0x80;

// Shared-memory slots filled by the tracee.
const W_ITERS: usize = 0;
const W_ELAPSED: usize = 1;
const W_BAD: usize = 2;
const W_DONE: usize = 3;
const W_SETUP_ERRNO: usize = 4;
const S_RESULT: usize = 0;

/// Exit codes of a tracee that could not start.
const EXIT_TRACEME: i32 = 3;
const EXIT_PROBE: i32 = 4;
const EXIT_PIN: i32 = 5;

/// Why a traced batch failed.
#[derive(Debug, thiserror::Error)]
pub enum PtraceError {
    #[error("the scenario was not set up")]
    NotSetUp,
    #[error("cannot fork the tracee: {0}")]
    Fork(io::Error),
    #[error(
        "PTRACE_TRACEME failed: {0} (ptrace is not permitted here: Yama ptrace_scope 3, or a \
         seccomp profile blocking ptrace)"
    )]
    TraceMe(io::Error),
    #[error("the tracee did not stop as planned: {0:?}")]
    Unplanned(Event),
    #[error("PTRACE_SETOPTIONS failed: {0}")]
    SetOptions(io::Error),
    #[error("resuming the tracee failed: {0}")]
    Resume(io::Error),
    #[error("the tracee {0} during its batch")]
    Ended(Exit),
    #[error(
        "the tracee made syscall {0} during its batch, which PTRACE_SYSEMU cannot run (is the \
         clock not served by the vDSO here?)"
    )]
    Unemulated(libc::c_long),
    /// A syscall-exit stop under PTRACE_SYSEMU: the kernel ran the call instead of skipping it.
    #[error(
        "the kernel accepted PTRACE_SYSEMU but ran the syscall (an exit stop followed): it does \
         not implement syscall emulation on {}",
        std::env::consts::ARCH
    )]
    ExitUnderSysemu,
    #[error("the tracee ended without finishing its batch")]
    Unfinished,
    #[error("waitpid on the tracee failed: {0}")]
    Wait(io::Error),
    #[error("PTRACE_GET_SYSCALL_INFO failed: {0} (it needs Linux ≥ 5.3)")]
    SyscallInfo(io::Error),
    #[error("{what} failed: {source}")]
    SetReturn {
        what: &'static str,
        source: io::Error,
    },
}

impl From<PtraceError> for RunError {
    fn from(e: PtraceError) -> RunError {
        match e {
            PtraceError::NotSetUp => RunError::NotSetUp,
            e => RunError::failed(e),
        }
    }
}

pub struct Ptrace {
    emulate: bool,
    /// Tracer kept on the loop's CPU (the `.same_cpu` variant).
    same_cpu: bool,
    syscall: Syscall,
    cpus: Vec<u32>,
    shm: Option<Shared<Slots>>,
    loop_cpu: u32,
}

impl Ptrace {
    pub fn new(syscall: Syscall, emulate: bool, same_cpu: bool, cpus: Vec<u32>) -> Ptrace {
        Ptrace {
            emulate,
            same_cpu,
            syscall,
            cpus,
            shm: None,
            loop_cpu: 0,
        }
    }

    fn per_op(&self) -> u64 {
        self.syscall.nrs().len() as u64
    }

    fn resume_request(&self) -> Resume {
        if self.emulate {
            Resume::Sysemu
        } else {
            Resume::Syscall
        }
    }

    /// The tracee (forked tied to the worker): everything before the SIGSTOP is untraced
    /// preparation.
    fn tracee(shm: &Slots, syscall: Syscall, cpu: u32, iters: u64) -> i32 {
        if placement::pin("tracee", cpu).is_err() {
            return EXIT_PIN;
        }
        let Ok(mut probe) = Probe::new(syscall) else {
            return EXIT_PROBE;
        };
        // The value the tracer writes under SYSEMU: what the call returns in this process.
        if let Ok(mut c) = Call::of(syscall, "ptrace") {
            shm.seti(S_RESULT, c.native_result());
        }
        probe.run(64, false); // warm-up: page faults and caches, before any stop
        if let Err(e) = ptrace::traceme() {
            shm.set(W_SETUP_ERRNO, e.raw_os_error().unwrap_or(0) as u64);
            return EXIT_TRACEME;
        }
        // The tracer resumes us with syscall tracing on.
        ptrace::stop_self();
        let b = probe.run(iters, false);
        shm.set(W_ITERS, b.iters);
        shm.set(W_ELAPSED, b.elapsed_ns);
        shm.set(W_BAD, b.bad);
        shm.set(W_DONE, 1);
        // No destructor: the mix probe's would close its descriptor, a traced syscall.
        std::mem::forget(probe);
        0
    }

    /// One traced batch: fork, trace, reap.
    fn batch(&self, iters: u64) -> Result<Batch, PtraceError> {
        let shm = self.shm.as_ref().ok_or(PtraceError::NotSetUp)?;
        shm.clear();
        let (syscall, cpu) = (self.syscall, self.loop_cpu);
        let mut tracee = process::fork_tied(|| Self::tracee(shm, syscall, cpu, iters))
            .map_err(PtraceError::Fork)?;
        let result = self.trace(&mut tracee, shm);
        // Every path reaps the tracee: if tracing stopped early it is killed first.
        if tracee.ended().is_none() {
            tracee.kill_and_reap();
        }
        let stops = result?;
        if shm.get(W_DONE) != 1 {
            return Err(PtraceError::Unfinished);
        }
        Ok(Batch {
            iters: shm.get(W_ITERS),
            elapsed_ns: shm.get(W_ELAPSED),
            bad: shm.get(W_BAD),
            verified: Some(stops),
        })
    }

    /// Traces until the tracee is gone; returns the probe's entry stops.
    fn trace(&self, t: &mut Child, shm: &Slots) -> Result<u64, PtraceError> {
        let pid = t.pid();
        let wait = |t: &mut Child| t.wait_event().map_err(PtraceError::Wait);
        // First report: the tracee's self-inflicted SIGSTOP (or its early exit).
        match wait(t)? {
            Event::Stopped(libc::SIGSTOP) => {}
            Event::Ended(Exit::Code(EXIT_TRACEME)) => {
                return Err(PtraceError::TraceMe(io::Error::from_raw_os_error(
                    shm.get(W_SETUP_ERRNO) as i32,
                )))
            }
            other => return Err(PtraceError::Unplanned(other)),
        }
        let opts = libc::PTRACE_O_TRACESYSGOOD | libc::PTRACE_O_EXITKILL;
        ptrace::set_options(pid, opts).map_err(PtraceError::SetOptions)?;
        let nrs = self.syscall.nrs();
        let result = shm.geti(S_RESULT);
        let req = self.resume_request();
        let mut stops = 0u64;
        let mut signal = 0;
        loop {
            // `signal` is 0 or the signal it stopped with.
            ptrace::resume(req, pid, signal).map_err(PtraceError::Resume)?;
            signal = 0;
            match wait(t)? {
                Event::Ended(Exit::Code(0)) => return Ok(stops),
                Event::Ended(how) => return Err(PtraceError::Ended(how)),
                Event::Stopped(SYSCALL_STOP) => {
                    let (op, nr) = ptrace::syscall_info(pid).map_err(PtraceError::SyscallInfo)?;
                    if op != PTRACE_SYSCALL_INFO_ENTRY {
                        if self.emulate && op == PTRACE_SYSCALL_INFO_EXIT {
                            return Err(PtraceError::ExitUnderSysemu);
                        }
                        continue;
                    }
                    if nrs.contains(&nr) {
                        stops += 1;
                        if self.emulate {
                            ptrace::set_return(pid, result).map_err(|(what, source)| {
                                PtraceError::SetReturn { what, source }
                            })?;
                        }
                    } else if self.emulate {
                        // SYSEMU would skip this call too; only the final exit_group is
                        // expected, once the batch is in shared memory.
                        if shm.get(W_DONE) == 1 {
                            t.kill();
                            t.wait().map_err(PtraceError::Wait)?;
                            return Ok(stops);
                        }
                        return Err(PtraceError::Unemulated(nr));
                    }
                }
                Event::Stopped(sig) => signal = sig,
            }
        }
    }
}

/// The syscalls a clock read falls back to when the vDSO cannot serve it.
const CLOCK_SYSCALLS: [libc::c_long; 2] = [libc::SYS_clock_gettime, libc::SYS_gettimeofday];

/// Why SYSEMU cannot be timed on a machine whose clock reads are syscalls: the tracee's own
/// clock reads would be skipped like the probe (a machine property, not a failure).
fn no_vdso_clock() -> String {
    let path = "/sys/devices/system/clocksource/clocksource0/current_clocksource";
    let source = std::fs::read_to_string(path)
        .map(|s| format!("clocksource '{}'", s.trim()))
        .unwrap_or_else(|_| "the clocksource".into());
    format!(
        "this kernel's {source} has no vDSO mode, so every clock read is a syscall, which \
         PTRACE_SYSEMU would skip like the probe and the batch could not be timed (a machine \
         whose clocksource is tsc, kvm-clock or arch_sys_counter can run it)"
    )
}

impl Scenario for Ptrace {
    fn preemption_is_noise(&self) -> bool {
        // Its interceptor wakes on the worker's CPU (or may): being preempted is its path.
        false
    }
    fn id(&self) -> String {
        let base = if self.emulate {
            "ptrace.sysemu"
        } else {
            "ptrace.syscall"
        };
        if self.same_cpu {
            format!("{base}.same_cpu")
        } else {
            base.into()
        }
    }
    fn family(&self) -> &'static str {
        FAMILY
    }
    fn description(&self) -> String {
        let s = self.syscall.describe();
        if self.emulate {
            format!("{s} under PTRACE_SYSEMU: one stop, the tracer writes the result")
        } else {
            format!("{s} under PTRACE_SYSCALL: entry and exit stops, the call runs")
        }
    }
    fn params(&self) -> BTreeMap<String, String> {
        let mut p = BTreeMap::new();
        p.insert(
            "tracer".into(),
            "the worker; a fresh tracee per batch runs the timed loop".into(),
        );
        p.insert(
            "tracer_cpu".into(),
            placement::describe(&self.cpus, self.same_cpu).into(),
        );
        p.insert(
            "tracer_work_per_stop".into(),
            if self.emulate {
                "waitpid, PTRACE_GET_SYSCALL_INFO, set the return register, PTRACE_SYSEMU"
            } else {
                "waitpid, PTRACE_GET_SYSCALL_INFO, PTRACE_SYSCALL"
            }
            .into(),
        );
        p.insert(
            "stops_per_call".into(),
            if self.emulate { "1" } else { "2" }.into(),
        );
        p
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        if self.emulate {
            Call::of(self.syscall, "ptrace.sysemu")?;
        } else if !self.same_cpu {
            if let Some(why) =
                placement::needs_second_cpu(&self.cpus, "tracer", "ptrace.syscall.same_cpu")
            {
                return Err(SetupError::Unsupported(why));
            }
        }
        self.loop_cpu = pinned_cpu()
            .ok_or_else(|| SetupError::Failed("the worker is not pinned to one CPU".into()))?;
        // The tracer (this worker) moves; the tracee runs the loop on the worker's CPU.
        let tracer_cpu = placement::interceptor_cpu(&self.cpus, self.loop_cpu, self.same_cpu);
        placement::pin("tracer", tracer_cpu).map_err(SetupError::failed)?;
        self.shm =
            Some(Shared::new().map_err(|e| SetupError::Failed(format!("mmap failed: {e}")))?);
        let b = self.batch(16).map_err(|e| match e {
            PtraceError::TraceMe(_) | PtraceError::ExitUnderSysemu => {
                SetupError::Unsupported(e.to_string())
            }
            PtraceError::Resume(ref err)
                if self.emulate && err.raw_os_error() == Some(libc::EIO) =>
            {
                SetupError::Unsupported(format!(
                    "the kernel refused PTRACE_SYSEMU with EIO: it does not implement it on {}",
                    std::env::consts::ARCH
                ))
            }
            PtraceError::Unemulated(nr) if CLOCK_SYSCALLS.contains(&nr) => {
                SetupError::Unsupported(no_vdso_clock())
            }
            e => SetupError::failed(e),
        })?;
        if b.bad != 0 || b.verified != Some(16 * self.per_op()) {
            return Err(SetupError::Failed(format!(
                "16 traced operations: {} wrong results, {:?} probe stops",
                b.bad, b.verified
            )));
        }
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        Ok(self.batch(iters)?)
    }
    fn verification(&self) -> Option<&'static str> {
        Some("tracer stops at the probe syscall's entry")
    }
    fn expected_verified(&self, iters: u64) -> u64 {
        iters * self.per_op()
    }
    fn sample_timeout(&self) -> Option<std::time::Duration> {
        Some(super::INTERCEPTOR_TIMEOUT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ready(emulate: bool) -> Ptrace {
        let mut p = Ptrace::new(Syscall::Getppid, emulate, true, vec![]);
        // What setup does, minus re-pinning the test thread.
        p.loop_cpu = *crate::sys::affinity::allowed_cpus().last().unwrap();
        p.shm = Some(Shared::new().unwrap());
        p
    }

    /// Children of this process right now.
    fn children() -> Vec<String> {
        let mut out = Vec::new();
        for t in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
            let c = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            out.extend(c.split_whitespace().map(String::from));
        }
        out
    }

    #[test]
    fn both_modes_count_every_probe_stop_and_reap_the_tracee() {
        for emulate in [false, true] {
            let p = ready(emulate);
            let b = p.batch(200).unwrap();
            assert_eq!(
                (b.iters, b.bad, b.verified),
                (200, 0, Some(200)),
                "{emulate}"
            );
            assert!(b.elapsed_ns > 0);
        }
        // No tracee is left behind, not even as a zombie. (Other tests' children may come
        // and go, so look for ours only: none of them may stay.)
        let before = children();
        let p = ready(true);
        p.batch(10).unwrap();
        let after = children();
        assert!(
            after.iter().all(|c| before.contains(c)),
            "{before:?} → {after:?}"
        );
    }

    #[test]
    fn a_run_without_setup_is_an_error() {
        let mut p = Ptrace::new(Syscall::Getpid, false, true, vec![]);
        assert_eq!(p.run(5), Err(RunError::NotSetUp));
    }
}
