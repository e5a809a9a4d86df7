//! Syscall User Dispatch's mechanism (the scenario is `scenarios::sud`): the allowed code
//! region, the SIGSYS handler that performs a dispatched syscall from it, and the selector.
//!
//! The handler must not make a syscall outside the allowed region while BLOCK is set (it would
//! trap again with SIGSYS blocked and kill the process), and neither may the signal return. So
//! the allowed region holds exactly two tiny assembly routines: a generic six-argument syscall
//! the handler uses to perform the trapped call, and our own `rt_sigreturn` restorer, installed
//! with a raw `rt_sigaction` (libc's own restorer lives outside the region). riscv64 and ppc64
//! have no restorer field the kernel honours (the signal returns through the vDSO's
//! trampoline, outside the region): there the handler the kernel calls is an assembly entry in
//! the region that calls the Rust handler and then makes the `rt_sigreturn` itself, the stack
//! pointer back where the kernel left it.

use std::io;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicU8, Ordering};

const PR_SET_SYSCALL_USER_DISPATCH: libc::c_int = 59;
const PR_SYS_DISPATCH_ON: libc::c_ulong = 1;
const SELECTOR_ALLOW: u8 = 0;
const SELECTOR_BLOCK: u8 = 1;
/// si_code of a SIGSYS raised by SUD.
const SYS_USER_DISPATCH: libc::c_int = 2;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const SA_RESTORER: libc::c_ulong = 0x0400_0000;

// One scenario per worker process, so process-wide state is the scenario's own.
static SELECTOR: AtomicU8 = AtomicU8::new(SELECTOR_ALLOW);
static PROBE_NR: AtomicI64 = AtomicI64::new(-1);
/// SIGSYS deliveries for the probe syscall.
static TRAPS: AtomicU64 = AtomicU64::new(0);
/// SIGSYS deliveries for anything else (the setup check, a clock fallback...).
static OTHER_TRAPS: AtomicU64 = AtomicU64::new(0);

#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    ".pushsection .text.syscost_sud,\"ax\",@progbits",
    ".balign 16",
    ".globl syscost_sud_region_start",
    "syscost_sud_region_start:",
    ".globl syscost_sud_syscall6",
    "syscost_sud_syscall6:",
    "mov rax, rdi",
    "mov rdi, rsi",
    "mov rsi, rdx",
    "mov rdx, rcx",
    "mov r10, r8",
    "mov r8, r9",
    "mov r9, [rsp + 8]",
    "syscall",
    "ret",
    ".globl syscost_sud_restorer",
    "syscost_sud_restorer:",
    "mov rax, 15", // rt_sigreturn
    "syscall",
    "ud2",
    ".globl syscost_sud_region_end",
    "syscost_sud_region_end:",
    ".popsection",
);

#[cfg(target_arch = "aarch64")]
std::arch::global_asm!(
    ".pushsection .text.syscost_sud,\"ax\",@progbits",
    ".balign 16",
    ".globl syscost_sud_region_start",
    "syscost_sud_region_start:",
    ".globl syscost_sud_syscall6",
    "syscost_sud_syscall6:",
    "mov x8, x0",
    "mov x0, x1",
    "mov x1, x2",
    "mov x2, x3",
    "mov x3, x4",
    "mov x4, x5",
    "mov x5, x6",
    "svc #0",
    "ret",
    ".globl syscost_sud_restorer",
    "syscost_sud_restorer:",
    "mov x8, #139", // rt_sigreturn
    "svc #0",
    "brk #0",
    ".globl syscost_sud_region_end",
    "syscost_sud_region_end:",
    ".popsection",
);

#[cfg(target_arch = "riscv64")]
std::arch::global_asm!(
    ".pushsection .text.syscost_sud,\"ax\",@progbits",
    ".balign 16",
    ".globl syscost_sud_region_start",
    "syscost_sud_region_start:",
    ".globl syscost_sud_syscall6",
    "syscost_sud_syscall6:",
    "mv a7, a0",
    "mv a0, a1",
    "mv a1, a2",
    "mv a2, a3",
    "mv a3, a4",
    "mv a4, a5",
    "mv a5, a6",
    "ecall",
    "ret",
    // The kernel enters here with sp at the signal frame (16-byte aligned); the call keeps
    // the alignment and returns with sp where it was.
    ".globl syscost_sud_restorer",
    "syscost_sud_restorer:",
    "addi sp, sp, -16",
    "call {handler}",
    "addi sp, sp, 16",
    "li a7, 139", // rt_sigreturn
    "ecall",
    "unimp",
    ".globl syscost_sud_region_end",
    "syscost_sud_region_end:",
    ".popsection",
    handler = sym on_sigsys,
);

#[cfg(target_arch = "powerpc64")]
std::arch::global_asm!(
    ".pushsection .text.syscost_sud,\"ax\",@progbits",
    ".balign 16",
    ".globl syscost_sud_region_start",
    "syscost_sud_region_start:",
    ".globl syscost_sud_syscall6",
    "syscost_sud_syscall6:",
    "mr 0, 3",
    "mr 3, 4",
    "mr 4, 5",
    "mr 5, 6",
    "mr 6, 7",
    "mr 7, 8",
    "mr 8, 9",
    "sc",
    "bns+ 2f",
    "neg 3, 3",
    "2:",
    "blr",
    // The kernel enters here (through the vDSO's trampoline, which calls the handler) with
    // r12 at this address (ELFv2) and r1 at a dummy caller frame of __SIGNAL_FRAMESIZE (128)
    // bytes below the signal frame: the Rust handler keeps r1 and may save LR and CR in that
    // frame, as a callee does. rt_sigreturn finds the frame at r1, so the dummy frame is
    // popped first, as the vDSO's trampoline does (with r1 left at the dummy frame, the
    // kernel reads garbage as the frame: "bad frame in rt_sigreturn", SIGSEGV, again).
    ".globl syscost_sud_restorer",
    "syscost_sud_restorer:",
    "addis 2, 12, .TOC.-syscost_sud_restorer@ha",
    "addi 2, 2, .TOC.-syscost_sud_restorer@l",
    ".localentry syscost_sud_restorer, .-syscost_sud_restorer",
    "bl {handler}",
    "nop",
    "addi 1, 1, 128",
    "li 0, 172", // rt_sigreturn
    "sc",
    "trap",
    ".globl syscost_sud_region_end",
    "syscost_sud_region_end:",
    ".popsection",
    handler = sym on_sigsys,
);

extern "C" {
    fn syscost_sud_syscall6(
        nr: libc::c_long,
        a0: libc::c_long,
        a1: libc::c_long,
        a2: libc::c_long,
        a3: libc::c_long,
        a4: libc::c_long,
        a5: libc::c_long,
    ) -> libc::c_long;
    fn syscost_sud_restorer();
    static syscost_sud_region_start: u8;
    static syscost_sud_region_end: u8;
}

/// The kernel's `struct sigaction` (not glibc's): handler, flags, restorer, mask.
#[cfg(any(
    target_arch = "x86_64",
    target_arch = "aarch64",
    target_arch = "powerpc64"
))]
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: libc::c_ulong,
    restorer: usize,
    mask: u64,
}

/// The kernel's `struct sigaction` on riscv64, which has no restorer field.
#[cfg(target_arch = "riscv64")]
#[repr(C)]
struct KernelSigaction {
    handler: usize,
    flags: libc::c_ulong,
    mask: u64,
}

/// SIGSYS handler: performs the trapped syscall from the allowed region and writes its result
/// into the interrupted context, then returns through our restorer (also in the region).
extern "C" fn on_sigsys(_sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes valid siginfo and ucontext pointers to an SA_SIGINFO handler.
    unsafe {
        if (*info).si_code != SYS_USER_DISPATCH {
            return;
        }
        let uc = &mut *(ctx as *mut libc::ucontext_t);
        #[cfg(target_arch = "x86_64")]
        {
            let g = &mut uc.uc_mcontext.gregs;
            let nr = g[libc::REG_RAX as usize];
            let ret = syscost_sud_syscall6(
                nr,
                g[libc::REG_RDI as usize],
                g[libc::REG_RSI as usize],
                g[libc::REG_RDX as usize],
                g[libc::REG_R10 as usize],
                g[libc::REG_R8 as usize],
                g[libc::REG_R9 as usize],
            );
            g[libc::REG_RAX as usize] = ret;
            count(nr);
        }
        #[cfg(target_arch = "aarch64")]
        {
            let r = &mut uc.uc_mcontext.regs;
            let nr = r[8] as libc::c_long;
            let ret = syscost_sud_syscall6(
                nr,
                r[0] as libc::c_long,
                r[1] as libc::c_long,
                r[2] as libc::c_long,
                r[3] as libc::c_long,
                r[4] as libc::c_long,
                r[5] as libc::c_long,
            );
            r[0] = ret as u64;
            count(nr);
        }
        #[cfg(target_arch = "riscv64")]
        {
            // __gregs: pc, ra, sp, gp, tp, t0–t2, s0, s1, a0 (10) … a7 (17).
            let g = &mut uc.uc_mcontext.__gregs;
            let nr = g[17] as libc::c_long;
            let a = |i: usize| g[10 + i] as libc::c_long;
            let ret = syscost_sud_syscall6(nr, a(0), a(1), a(2), a(3), a(4), a(5));
            g[10] = ret as libc::c_ulong;
            count(nr);
        }
        #[cfg(target_arch = "powerpc64")]
        {
            let g = &mut uc.uc_mcontext.gp_regs;
            let nr = g[0] as libc::c_long;
            let a = |i: usize| g[3 + i] as libc::c_long;
            let ret = syscost_sud_syscall6(nr, a(0), a(1), a(2), a(3), a(4), a(5));
            super::syscall::set_ppc_syscall_return(g, ret);
            count(nr);
        }
    }
}

fn count(nr: libc::c_long) {
    if nr == PROBE_NR.load(Ordering::Relaxed) {
        TRAPS.fetch_add(1, Ordering::Relaxed);
    } else {
        OTHER_TRAPS.fetch_add(1, Ordering::Relaxed);
    }
}

/// Installs the SIGSYS handler that performs a dispatched syscall from the allowed region.
pub fn install_handler() -> io::Result<()> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    let act = KernelSigaction {
        handler: on_sigsys as *const () as usize,
        flags: (libc::SA_SIGINFO as libc::c_ulong) | SA_RESTORER,
        restorer: syscost_sud_restorer as *const () as usize,
        mask: 0,
    };
    // The region's entry calls on_sigsys and returns from the signal itself.
    #[cfg(target_arch = "powerpc64")]
    let act = KernelSigaction {
        handler: syscost_sud_restorer as *const () as usize,
        flags: libc::SA_SIGINFO as libc::c_ulong,
        restorer: 0,
        mask: 0,
    };
    #[cfg(target_arch = "riscv64")]
    let act = KernelSigaction {
        handler: syscost_sud_restorer as *const () as usize,
        flags: libc::SA_SIGINFO as libc::c_ulong,
        mask: 0,
    };
    // SAFETY: valid struct, sigsetsize 8 as the kernel expects on 64-bit.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_rt_sigaction,
            libc::SIGSYS,
            &act as *const KernelSigaction,
            std::ptr::null_mut::<KernelSigaction>(),
            8usize,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Turns dispatch on for this process: every syscall outside the region consults the
/// selector ([`block`]). EINVAL: the kernel has no Syscall User Dispatch.
pub fn enable() -> io::Result<()> {
    let start = std::ptr::addr_of!(syscost_sud_region_start) as usize;
    let end = std::ptr::addr_of!(syscost_sud_region_end) as usize;
    // SAFETY: the region is code of this executable, and the selector a static, both alive as
    // long as the process's dispatch.
    let rc = unsafe {
        libc::prctl(
            PR_SET_SYSCALL_USER_DISPATCH,
            PR_SYS_DISPATCH_ON,
            start as libc::c_ulong,
            (end - start) as libc::c_ulong,
            SELECTOR.as_ptr() as libc::c_ulong,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// BLOCK (syscalls outside the region raise SIGSYS, which the handler performs) or ALLOW.
pub fn block(on: bool) {
    SELECTOR.store(
        if on { SELECTOR_BLOCK } else { SELECTOR_ALLOW },
        Ordering::SeqCst,
    );
}

/// Counts SIGSYS deliveries for `nr` in [`traps`], the others in [`other_traps`].
pub fn count_as_probe(nr: libc::c_long) {
    PROBE_NR.store(nr, Ordering::Relaxed);
}

/// SIGSYS deliveries for the syscall [`count_as_probe`] named.
pub fn traps() -> u64 {
    TRAPS.load(Ordering::Relaxed)
}

/// SIGSYS deliveries for anything else (the setup check, a clock fallback...).
pub fn other_traps() -> u64 {
    OTHER_TRAPS.load(Ordering::Relaxed)
}
