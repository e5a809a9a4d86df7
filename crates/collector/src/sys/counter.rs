//! The CPU's free-running counter, read with one instruction (the TSC on x86, the generic
//! timer's virtual count on arm64, the timebase on riscv64 and ppc64), and a loop of a known
//! instruction count to tell whether it counts instructions. `harness::clock` decides when
//! to use them.

/// The counter, unscaled.
#[cfg(target_arch = "x86_64")]
#[inline]
pub fn ticks() -> u64 {
    // SAFETY: RDTSC has no preconditions (Linux leaves it allowed to user space).
    unsafe { core::arch::x86_64::_rdtsc() }
}

/// The counter, unscaled.
#[cfg(target_arch = "aarch64")]
#[inline]
pub fn ticks() -> u64 {
    let v: u64;
    // SAFETY: Linux lets user space read the virtual count (the vDSO does); ISB orders it after
    // the instructions before it.
    unsafe { core::arch::asm!("isb", "mrs {v}, cntvct_el0", v = out(reg) v, options(nostack)) };
    v
}

/// riscv64's `time` CSR, unscaled.
#[cfg(target_arch = "riscv64")]
#[inline]
pub fn ticks() -> u64 {
    let t: u64;
    // SAFETY: Linux lets user space read the time CSR (its vDSO does).
    unsafe { core::arch::asm!("rdtime {v}", v = out(reg) t, options(nostack)) };
    t
}

/// The timebase, unscaled.
#[cfg(target_arch = "powerpc64")]
#[inline]
pub fn ticks() -> u64 {
    let tb: u64;
    // SAFETY: the timebase is readable from user space on every 64-bit POWER CPU.
    unsafe { core::arch::asm!("mftb {v}", v = out(reg) tb, options(nostack)) };
    tb
}

/// The counter's frequency as arm64 states it (CNTFRQ_EL0).
#[cfg(target_arch = "aarch64")]
pub fn frequency() -> u64 {
    let v: u64;
    // SAFETY: CNTFRQ_EL0 is readable from user space wherever the counter is.
    unsafe { core::arch::asm!("mrs {v}, cntfrq_el0", v = out(reg) v, options(nostack)) };
    v
}

/// Runs `n` (at least 1) iterations of a loop of exactly two instructions.
#[cfg(target_arch = "x86_64")]
#[inline(never)]
pub fn two_per_iteration(n: u64) {
    // SAFETY: a register countdown, nothing else.
    unsafe {
        core::arch::asm!("2:", "dec {n}", "jnz 2b", n = inout(reg) n.max(1) => _,
            options(nomem, nostack));
    }
}

/// Runs `n` (at least 1) iterations of a loop of exactly two instructions.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
pub fn two_per_iteration(n: u64) {
    // SAFETY: a register countdown, nothing else.
    unsafe {
        core::arch::asm!("2:", "subs {n}, {n}, #1", "b.ne 2b", n = inout(reg) n.max(1) => _,
            options(nomem, nostack));
    }
}

/// Runs `n` (at least 1) iterations of a loop of exactly two instructions.
#[cfg(target_arch = "riscv64")]
#[inline(never)]
pub fn two_per_iteration(n: u64) {
    // SAFETY: a register countdown, nothing else.
    unsafe {
        core::arch::asm!("2:", "addi {n}, {n}, -1", "bnez {n}, 2b", n = inout(reg) n.max(1) => _,
            options(nomem, nostack));
    }
}

/// Runs `n` (at least 1) iterations of a loop of exactly two instructions.
#[cfg(target_arch = "powerpc64")]
#[inline(never)]
pub fn two_per_iteration(n: u64) {
    // SAFETY: a register countdown (`addic.` sets CR0 and XER's carry), nothing else.
    unsafe {
        core::arch::asm!("2:", "addic. {n}, {n}, -1", "bne 2b", n = inout(reg) n.max(1) => _,
            out("cr0") _, out("xer") _, options(nomem, nostack));
    }
}
