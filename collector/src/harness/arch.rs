//! The syscall instruction itself, per architecture. Always inlined: a call/return around the
//! instruction costs tens of ns on kernels with return-stack mitigations.

/// Issues syscall `nr` with no arguments; returns the raw kernel return (-errno on error).
///
/// # Safety
/// The caller must make sure the syscall is harmless to the process.
#[inline(always)]
pub unsafe fn raw_syscall0(nr: libc::c_long) -> isize {
    raw_syscall1(nr, 0)
}

/// Issues syscall `nr` with one argument.
///
/// # Safety
/// The caller must make sure the syscall and argument are harmless to the process.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn raw_syscall1(nr: libc::c_long, a0: usize) -> isize {
    let ret: isize;
    // `syscall` clobbers rcx (return rip) and r11 (rflags). No `nomem`: the compiler must assume
    // memory changed, so the call is neither hoisted out of the loop nor merged.
    core::arch::asm!(
        "syscall",
        inlateout("rax") nr as isize => ret,
        in("rdi") a0,
        lateout("rcx") _,
        lateout("r11") _,
        options(nostack),
    );
    ret
}

/// Issues syscall `nr` with one argument.
///
/// # Safety
/// The caller must make sure the syscall and argument are harmless to the process.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
pub unsafe fn raw_syscall1(nr: libc::c_long, a0: usize) -> isize {
    let ret: isize;
    core::arch::asm!(
        "svc #0",
        in("x8") nr,
        inlateout("x0") a0 as isize => ret,
        options(nostack),
    );
    ret
}

/// Returns `v` through an empty asm block the optimiser cannot see through: the `null`
/// scenario's stand-in for the syscall, with the same memory clobber.
#[inline(always)]
pub fn opaque(mut v: i64) -> i64 {
    // SAFETY: an empty instruction sequence.
    unsafe { core::arch::asm!("/* {0} */", inout(reg) v, options(nostack)) };
    v
}
