//! Syscall User Dispatch (Linux ≥ 5.11): with dispatch on, every syscall made outside an
//! allowed code region consults a selector byte; ALLOW lets it through (the cost `sud_benchmark`
//! measures), BLOCK turns it into SIGSYS, and the handler emulates it — the round trip an
//! emulator such as Wine pays, which no kernel tool times.
//! The mechanism (allowed region, handler, selector) is `sys::sud`.

use super::{RunError, Scenario, SetupError};
use crate::harness::{Batch, Probe, Syscall};
use crate::machine::kconfig;
use crate::sys::{sud, syscall};

fn enable_dispatch() -> Result<(), SetupError> {
    sud::enable().map_err(|err| match err.raw_os_error() {
        Some(libc::EINVAL) => SetupError::Unsupported(no_sud_reason(
            kconfig::running_version(),
            kconfig::enabled("CONFIG_GENERIC_ENTRY"),
        )),
        _ => SetupError::Failed(format!("prctl(PR_SET_SYSCALL_USER_DISPATCH) failed: {err}")),
    })
}

/// Why prctl(PR_SET_SYSCALL_USER_DISPATCH) answered EINVAL, from the kernel's version and
/// whether its config (None: unreadable) enables CONFIG_GENERIC_ENTRY: SUD came with Linux
/// 5.11 and lives in the generic entry code, which an architecture selects (x86 since 5.9) or
/// not (arm64 kernels of this era) — a symbol nobody selected is absent from the config.
fn no_sud_reason(version: Option<(u32, u32)>, generic_entry: Option<bool>) -> String {
    let why = match (version, generic_entry) {
        (Some(v), _) if v < (5, 11) => format!("it needs Linux ≥ 5.11, this is {}.{}", v.0, v.1),
        (_, Some(false)) => "it is part of the generic entry code (kernel/entry/), which this \
                             kernel is not built with: CONFIG_GENERIC_ENTRY is not set in its \
                             config (the architecture does not use it)"
            .to_string(),
        _ => "it needs Linux ≥ 5.11 built with the generic entry code (CONFIG_GENERIC_ENTRY)"
            .to_string(),
    };
    format!(
        "this kernel has no Syscall User Dispatch (prctl(PR_SET_SYSCALL_USER_DISPATCH) \
         returned EINVAL): {why}"
    )
}

pub struct Sud {
    block: bool,
    syscall: Syscall,
    probe: Option<Probe>,
}

pub fn scenarios(syscall: Syscall) -> Vec<Box<dyn Scenario>> {
    vec![
        Box::new(Sud {
            block: false,
            syscall,
            probe: None,
        }),
        Box::new(Sud {
            block: true,
            syscall,
            probe: None,
        }),
    ]
}

impl Scenario for Sud {
    fn id(&self) -> String {
        if self.block { "sud.block" } else { "sud.allow" }.into()
    }
    fn family(&self) -> &'static str {
        "sud"
    }
    fn description(&self) -> String {
        if self.block {
            format!(
                "{}, SUD on, selector BLOCK: SIGSYS, handler performs the call, sigreturn",
                self.syscall.describe()
            )
        } else {
            format!(
                "{}, SUD on, selector ALLOW (what sud_benchmark measures)",
                self.syscall.describe()
            )
        }
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        let probe = Probe::new(self.syscall)?;
        // The mix issues several syscalls; count its first (dup) — every iteration has one.
        sud::count_as_probe(self.syscall.nrs()[0]);
        sud::install_handler()
            .map_err(|e| SetupError::Failed(format!("rt_sigaction(SIGSYS) failed: {e}")))?;
        enable_dispatch()?;
        // Prove dispatch is on: one invalid syscall (as sud_benchmark) under BLOCK must reach
        // the handler, which returns -ENOSYS for it.
        let before = sud::other_traps();
        sud::block(true);
        let ret = syscall::unassigned();
        sud::block(false);
        if sud::other_traps() != before + 1 || ret != -(libc::ENOSYS as isize) {
            return Err(SetupError::Failed(format!(
                "dispatch was enabled but syscall {:#x} under BLOCK was not \
                 caught by the SIGSYS handler (returned {ret})",
                syscall::UNASSIGNED
            )));
        }
        self.probe = Some(probe);
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let p = self.probe.as_mut().ok_or(RunError::NotSetUp)?;
        let before = sud::traps();
        // BLOCK only around the batch, so the worker's own I/O is never emulated.
        sud::block(self.block);
        let mut b = p.run(iters, false);
        sud::block(false);
        b.verified = Some(sud::traps() - before);
        Ok(b)
    }
    fn verification(&self) -> Option<&'static str> {
        Some("SIGSYS handler calls for the probe syscall")
    }
    fn expected_verified(&self, iters: u64) -> u64 {
        if self.block {
            iters
        } else {
            0
        }
    }
}
