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

/// Issues syscall `nr` with one argument.
///
/// # Safety
/// The caller must make sure the syscall and argument are harmless to the process.
#[cfg(target_arch = "riscv64")]
#[inline(always)]
pub unsafe fn raw_syscall1(nr: libc::c_long, a0: usize) -> isize {
    let ret: isize;
    core::arch::asm!(
        "ecall",
        in("a7") nr,
        inlateout("a0") a0 as isize => ret,
        options(nostack),
    );
    ret
}

/// Issues syscall `nr` with one argument. `sc` reports an error by setting CR0's summary
/// overflow bit with a positive errno in r3; it is negated here (as the C libraries do), so the
/// return is -errno as on the other architectures. The kernel may change r0 and r4–r12, CTR,
/// XER and CR0 (the syscall ABI's volatile registers).
///
/// # Safety
/// The caller must make sure the syscall and argument are harmless to the process.
#[cfg(target_arch = "powerpc64")]
#[inline(always)]
pub unsafe fn raw_syscall1(nr: libc::c_long, a0: usize) -> isize {
    let ret: isize;
    core::arch::asm!(
        "sc",
        "bns+ 2f",
        "neg 3, 3",
        "2:",
        inlateout("r0") nr => _,
        inlateout("r3") a0 as isize => ret,
        lateout("r4") _,
        lateout("r5") _,
        lateout("r6") _,
        lateout("r7") _,
        lateout("r8") _,
        lateout("r9") _,
        lateout("r10") _,
        lateout("r11") _,
        lateout("r12") _,
        lateout("cr0") _,
        lateout("ctr") _,
        lateout("xer") _,
        options(nostack),
    );
    ret
}

/// Writes a syscall's result into ppc64 registers (a signal context's or ptrace's `gpr` array,
/// `struct pt_regs` order) the way the kernel returns it: an error as a positive errno in r3
/// with CR0's summary-overflow bit set, a success with it clear.
#[cfg(target_arch = "powerpc64")]
pub fn set_ppc_syscall_return(gpr: &mut [libc::c_ulong], ret: libc::c_long) {
    /// `PT_CCR`, and CR0.SO within it.
    const CCR: usize = 38;
    const SO: libc::c_ulong = 0x1000_0000;
    if (-4095..0).contains(&ret) {
        gpr[3] = (-ret) as libc::c_ulong;
        gpr[CCR] |= SO;
    } else {
        gpr[3] = ret as libc::c_ulong;
        gpr[CCR] &= !SO;
    }
}

/// Returns `v` through an empty asm block the optimiser cannot see through: the `null`
/// scenario's stand-in for the syscall, with the same memory clobber.
#[inline(always)]
pub fn opaque(mut v: i64) -> i64 {
    // SAFETY: an empty instruction sequence.
    unsafe { core::arch::asm!("/* {0} */", inout(reg) v, options(nostack)) };
    v
}
