//! Interception paths: what a probe syscall costs when it is *intercepted* rather than let
//! through — refused by seccomp (ERRNO, TRACE without a tracer), turned into SIGSYS (TRAP),
//! handed to a supervisor (USER_NOTIF, answered with a value or CONTINUE), logged (LOG), or
//! stopped by a ptrace tracer (PTRACE_SYSCALL, PTRACE_SYSEMU). `sud.block` is the SUD
//! counterpart; the family list puts it right before these.
//!
//! Each path counts its interceptions per batch (returns, handler calls, answered
//! notifications, audit records, tracer stops) and the engine fails the scenario on a mismatch.

mod audit;
mod filter;
mod log;
mod notif;
mod placement;
mod ptrace;
mod refused;
mod trap;

use super::{Scenario, SetupError};
use crate::harness::Syscall;
use crate::sys::syscall::{self, Issue};
use libc::c_long;

pub use crate::scenarios::seccomp::install;
pub use filter::action_filter;

/// The family name of every interception path.
pub const FAMILY: &str = "intercept";

/// How long a sample of a path with a second party (supervisor, tracer) may take before the
/// worker is presumed hung: every call waits for another task to be scheduled, and on a loaded
/// machine one such wait alone can last tens of milliseconds.
pub(crate) const INTERCEPTOR_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

pub fn scenarios(syscall: Syscall) -> Vec<Box<dyn Scenario>> {
    let cpus = crate::sys::affinity::allowed_cpus();
    vec![
        Box::new(refused::Refused::errno(syscall)),
        Box::new(trap::Trap::new(syscall)),
        Box::new(notif::Notif::new(syscall, false, false, cpus.clone())),
        Box::new(notif::Notif::new(syscall, true, false, cpus.clone())),
        Box::new(notif::Notif::new(syscall, false, true, cpus.clone())),
        Box::new(notif::Notif::sync_wake(syscall, cpus.clone())),
        Box::new(log::Log::new(syscall)),
        Box::new(refused::Refused::trace(syscall)),
        Box::new(ptrace::Ptrace::new(syscall, false, false, cpus.clone())),
        Box::new(ptrace::Ptrace::new(syscall, true, false, cpus.clone())),
        Box::new(ptrace::Ptrace::new(syscall, false, true, cpus)),
    ]
}

/// A single-syscall probe in a form the interception paths can issue and emulate: number,
/// argument, and a buffer for `sysinfo`.
pub(crate) struct Call {
    pub nr: c_long,
    call: syscall::Call,
}

impl Call {
    /// The probe as one syscall, or why this path cannot run it. Paths that replace the
    /// result (refuse or emulate it) cannot run UnixBench's mix: `close(dup(fd))` needs a real
    /// descriptor from `dup`.
    pub fn of(syscall: Syscall, path: &str) -> Result<Call, SetupError> {
        let nr = syscall.nr().ok_or_else(|| {
            SetupError::Unsupported(format!(
                "{path} replaces the syscall's result, which the '{}' probe cannot take \
                 (close(dup(fd)) needs the real descriptor): use a single-syscall --syscall",
                syscall.name()
            ))
        })?;
        let call = syscall::Call::new(nr).ok_or_else(|| {
            SetupError::Failed(format!("syscall {nr} is not one of the probe's queries"))
        })?;
        Ok(Call { nr, call })
    }

    /// The probe as a timed loop issues it: with a buffer for `sysinfo`, 0 otherwise
    /// (`getpgid(0)`).
    #[inline(always)]
    pub fn issue(&mut self) -> Issue<'_> {
        self.call.issue()
    }

    /// What the syscall really returns in this process (what an emulation must return).
    pub fn native_result(&mut self) -> i64 {
        self.issue().call() as i64
    }
}
