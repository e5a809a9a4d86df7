//! The user function the uprobe scenarios probe (`syscost_ufunc`), in assembly, and its call.

// The function the uprobe scenarios probe and `bpf.ufunc` calls bare: `3x + 1`, written in
// assembly so its first instruction — the one the uprobe replaces — is a `nop` on every
// build. The kernel emulates a probed nop (one trap per call, the kernel benchmark's
// uprobe-nop); a compiler-chosen first instruction may need an out-of-line single step
// instead (two traps), which would make the figure depend on the optimiser.
#[cfg(target_arch = "x86_64")]
std::arch::global_asm!(
    ".pushsection .text.syscost_ufunc,\"ax\",@progbits",
    ".globl syscost_ufunc",
    ".type syscost_ufunc,@function",
    ".balign 16",
    "syscost_ufunc:",
    "nop",
    "lea rax, [rdi + 2*rdi + 1]",
    "ret",
    ".size syscost_ufunc, . - syscost_ufunc",
    ".popsection",
);

#[cfg(target_arch = "aarch64")]
std::arch::global_asm!(
    ".pushsection .text.syscost_ufunc,\"ax\",@progbits",
    ".globl syscost_ufunc",
    ".type syscost_ufunc,@function",
    ".balign 16",
    "syscost_ufunc:",
    "nop",
    "add x0, x0, x0, lsl #1",
    "add x0, x0, #1",
    "ret",
    ".size syscost_ufunc, . - syscost_ufunc",
    ".popsection",
);

#[cfg(target_arch = "riscv64")]
std::arch::global_asm!(
    ".pushsection .text.syscost_ufunc,\"ax\",@progbits",
    ".globl syscost_ufunc",
    ".type syscost_ufunc,@function",
    ".balign 16",
    "syscost_ufunc:",
    "nop",
    "slli a1, a0, 1",
    "add a0, a0, a1",
    "addi a0, a0, 1",
    "ret",
    ".size syscost_ufunc, . - syscost_ufunc",
    ".popsection",
);

// A leaf that needs no TOC: its global and local entry points are the same (ELFv2).
#[cfg(target_arch = "powerpc64")]
std::arch::global_asm!(
    ".pushsection .text.syscost_ufunc,\"ax\",@progbits",
    ".globl syscost_ufunc",
    ".type syscost_ufunc,@function",
    ".balign 16",
    "syscost_ufunc:",
    "nop",
    "sldi 4, 3, 1",
    "add 3, 3, 4",
    "addi 3, 3, 1",
    "blr",
    ".size syscost_ufunc, . - syscost_ufunc",
    ".popsection",
);

extern "C" {
    /// Returns `3x + 1` (wrapping); see the assembly above.
    fn syscost_ufunc(x: u64) -> u64;
}

/// Calls the function: `3x + 1` (wrapping).
#[inline(always)]
pub fn ufunc(x: u64) -> u64 {
    // SAFETY: a leaf function of the C ABI (above) that only computes on its argument.
    unsafe { syscost_ufunc(x) }
}

/// The address the uprobe is placed on.
pub fn ufunc_addr() -> usize {
    syscost_ufunc as *const () as usize
}
