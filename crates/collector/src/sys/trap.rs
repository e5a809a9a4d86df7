//! SECCOMP_RET_TRAP's SIGSYS handler (the scenario is `scenarios::intercept::trap`): it
//! emulates the trapped call, writing the result the real syscall would have returned into the
//! interrupted context, and makes no syscall.

use std::io;
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
            super::syscall::set_ppc_syscall_return(&mut uc.uc_mcontext.gp_regs, ret);
        }
    }
}

/// Installs the handler: a SIGSYS for syscall `nr` is answered with `result`, any other with
/// -ENOSYS.
pub fn install(nr: libc::c_long, result: i64) -> io::Result<()> {
    TRAP_NR.store(nr, Ordering::Relaxed);
    TRAP_RESULT.store(result, Ordering::Relaxed);
    // SAFETY: a zeroed sigaction with our handler; the libc restorer is fine here because
    // rt_sigreturn is not trapped (only the probe is).
    unsafe {
        let mut act: libc::sigaction = std::mem::zeroed();
        act.sa_sigaction = on_sigsys as *const () as usize;
        act.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut act.sa_mask);
        if libc::sigaction(libc::SIGSYS, &act, std::ptr::null_mut()) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// SIGSYS deliveries for the syscall [`install`] named.
pub fn traps() -> u64 {
    TRAPS.load(Ordering::Relaxed)
}
