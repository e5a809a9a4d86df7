//! SECCOMP_RET_TRAP: the filter turns the probe into SIGSYS; the handler emulates the call
//! (writes the result the real syscall would have returned into the interrupted context) and
//! returns through rt_sigreturn — the signal round trip sandboxes such as Chromium's pay for
//! every trapped call. Unlike `sud.block`, the handler makes no syscall: a seccomp filter has no
//! allowed code region, so reissuing the call would trap again.

use super::{action_filter, install, Call, FAMILY};
use crate::harness::{Batch, Probe, Syscall};
use crate::scenarios::{RunError, Scenario, SetupError};
use crate::sys::trap;
use std::collections::BTreeMap;

pub struct Trap {
    syscall: Syscall,
    probe: Option<Probe>,
}

impl Trap {
    pub fn new(syscall: Syscall) -> Trap {
        Trap {
            syscall,
            probe: None,
        }
    }
}

impl Scenario for Trap {
    fn id(&self) -> String {
        "seccomp.trap".into()
    }
    fn family(&self) -> &'static str {
        FAMILY
    }
    fn description(&self) -> String {
        format!(
            "{} under SECCOMP_RET_TRAP: SIGSYS, the handler emulates the result, sigreturn",
            self.syscall.describe()
        )
    }
    fn params(&self) -> BTreeMap<String, String> {
        let mut p = BTreeMap::new();
        p.insert("action".into(), format!("{:#010x}", libc::SECCOMP_RET_TRAP));
        p.insert(
            "handler".into(),
            "emulates: writes the real result, makes no syscall".into(),
        );
        p.insert("filter_instructions".into(), "4".into());
        p
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        let mut call = Call::of(self.syscall, "seccomp.trap")?;
        super::filter::require_action("trap")?;
        let probe = Probe::new(self.syscall)?;
        trap::install(call.nr, call.native_result())
            .map_err(|e| SetupError::Failed(format!("sigaction(SIGSYS) failed: {e}")))?;
        install(&action_filter(&[call.nr], libc::SECCOMP_RET_TRAP), 0)?;
        self.probe = Some(probe);
        let b = self.run(16).map_err(SetupError::failed)?;
        if b.bad != 0 || b.verified != Some(16) {
            return Err(SetupError::Failed(format!(
                "16 trapped calls: {} wrong results, {} handler calls",
                b.bad,
                b.verified.unwrap_or(0)
            )));
        }
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let p = self.probe.as_mut().ok_or(RunError::NotSetUp)?;
        let before = trap::traps();
        let mut b = p.run(iters, false);
        b.verified = Some(trap::traps() - before);
        Ok(b)
    }
    fn verification(&self) -> Option<&'static str> {
        Some("SIGSYS handler calls for the probe syscall")
    }
}
