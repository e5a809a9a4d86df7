//! SECCOMP_RET_TRAP: the filter turns the probe into SIGSYS; the handler emulates the call
//! (writes the result the real syscall would have returned into the interrupted context) and
//! returns through rt_sigreturn — the signal round trip sandboxes such as Chromium's pay for
//! every trapped call. Unlike `sud.block`, the handler makes no syscall: a seccomp filter has no
//! allowed code region, so reissuing the call would trap again.

use super::{action_filter, install, Call, FAMILY};
use crate::harness::{Batch, Probe, Syscall};
use crate::scenarios::{RunError, Scenario, SetupError};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// si_code of a SIGSYS raised by a seccomp filter.
const SYS_SECCOMP: libc::c_int = 1;
/// offsetof(siginfo_t, si_syscall) on 64-bit Linux: signo, errno, code, padding, call_addr.
const SI_SYSCALL_OFFSET: usize = 24;

// One scenario per worker process, so process-wide state is the scenario's own.
static TRAP_NR: AtomicI64 = AtomicI64::new(-1);
static TRAP_RESULT: AtomicI64 = AtomicI64::new(0);
/// SIGSYS deliveries for the probe syscall.
static TRAPS: AtomicU64 = AtomicU64::new(0);
/// SIGSYS deliveries for anything else (answered with ENOSYS).
static OTHER_TRAPS: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_sigsys(_sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes valid siginfo and ucontext pointers to an SA_SIGINFO handler;
    // si_syscall is an int at a fixed offset for SIGSYS.
    unsafe {
        if (*info).si_code != SYS_SECCOMP {
            return;
        }
        let nr = *((info as *const u8).add(SI_SYSCALL_OFFSET) as *const libc::c_int) as i64;
        let ret = if nr == TRAP_NR.load(Ordering::Relaxed) {
            TRAPS.fetch_add(1, Ordering::Relaxed);
            TRAP_RESULT.load(Ordering::Relaxed)
        } else {
            OTHER_TRAPS.fetch_add(1, Ordering::Relaxed);
            -(libc::ENOSYS as i64)
        };
        let uc = &mut *(ctx as *mut libc::ucontext_t);
        #[cfg(target_arch = "x86_64")]
        {
            uc.uc_mcontext.gregs[libc::REG_RAX as usize] = ret;
        }
        #[cfg(target_arch = "aarch64")]
        {
            uc.uc_mcontext.regs[0] = ret as u64;
        }
        #[cfg(target_arch = "riscv64")]
        {
            // __gregs[10] is a0.
            uc.uc_mcontext.__gregs[10] = ret as u64;
        }
        #[cfg(target_arch = "powerpc64")]
        {
            crate::harness::set_ppc_syscall_return(&mut uc.uc_mcontext.gp_regs, ret);
        }
    }
}

fn install_handler() -> Result<(), SetupError> {
    // SAFETY: a zeroed sigaction with our handler; the libc restorer is fine here because
    // rt_sigreturn is not trapped (only the probe is).
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_sigsys as *const () as usize;
        act.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut act.sa_mask);
        if libc::sigaction(libc::SIGSYS, &act, std::ptr::null_mut()) != 0 {
            return Err(SetupError::Failed(format!(
                "sigaction(SIGSYS) failed: {}",
                std::io::Error::last_os_error()
            )));
        }
    }
    Ok(())
}

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
        TRAP_NR.store(call.nr, Ordering::Relaxed);
        TRAP_RESULT.store(call.native_result(), Ordering::Relaxed);
        install_handler()?;
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
        let before = TRAPS.load(Ordering::Relaxed);
        let mut b = p.run(iters, false);
        b.verified = Some(TRAPS.load(Ordering::Relaxed) - before);
        Ok(b)
    }
    fn verification(&self) -> Option<&'static str> {
        Some("SIGSYS handler calls for the probe syscall")
    }
}
