//! The clock samples are timed with: CLOCK_MONOTONIC_RAW (not slewed by NTP), read through the
//! vDSO. One read costs ~30 ns; samples last milliseconds, so it is negligible. The vDSO's
//! function is found by [`crate::sys::vdso`], not by the C library: musl's lookup misses it on
//! kernels whose vDSO has only the GNU hash table, and every read would be a syscall.
//!
//! Or, where the clock counts instructions (a QEMU guest under `-icount shift=0`, `syscost run
//! --clock instructions`): the CPU's own counter, read with one instruction — the TSC on x86,
//! the generic timer's virtual count on arm64, the timebase (`time` CSR, `mftb`) on riscv64 and
//! ppc64 — which then advances once per instruction. The kernel's clocks follow it too, but
//! through a frequency it calibrated (999.993 MHz, refined to 1000.000 on Debian's 6.1), whose
//! rounding moves a sample by a tick now and then; the counter itself is exact. A timebase
//! slower than 1 GHz is scaled up here, and then counts in steps: QEMU's riscv64 `virt` runs it
//! at 10 MHz (a reading is the instruction count to within 100), ppc64's `pseries` at 512 MHz
//! (to within 2). A sample spans millions of instructions, so that is a few parts in 10⁵ of
//! it. (riscv64's `instret` CSR would count exactly, but the kernel's SBI PMU driver keeps it
//! stopped, and QEMU 7.2's OpenSBI did not start it for a perf event either: it read a
//! constant.)

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Whether [`now_ns`] reads the instruction counter ([`count_instructions`]).
static INSTRUCTIONS: AtomicBool = AtomicBool::new(false);
/// riscv64's and ppc64's timebase frequency, which [`counter`] scales by (0 until known).
#[cfg_attr(
    not(any(target_arch = "riscv64", target_arch = "powerpc64")),
    allow(dead_code)
)]
static TIMEBASE_HZ: AtomicU64 = AtomicU64::new(0);

/// Nanoseconds on CLOCK_MONOTONIC_RAW — or, once [`count_instructions`] has succeeded,
/// instructions on the CPU's counter.
#[inline]
pub fn now_ns() -> u64 {
    if INSTRUCTIONS.load(Ordering::Relaxed) {
        counter()
    } else {
        read(libc::CLOCK_MONOTONIC_RAW)
    }
}

/// Nanoseconds on `clock`, through the vDSO when this process has one.
#[inline]
pub fn read(clock: libc::clockid_t) -> u64 {
    crate::sys::vdso::clock_ns(clock)
}

/// The CPU's free-running counter.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
#[inline]
fn counter() -> u64 {
    crate::sys::counter::ticks()
}

/// The timebase, scaled to one per nanosecond — one per instruction under `-icount shift=0`.
#[cfg(any(target_arch = "riscv64", target_arch = "powerpc64"))]
#[inline]
fn counter() -> u64 {
    scale(crate::sys::counter::ticks())
}

/// Timebase ticks to nanoseconds.
#[cfg(any(target_arch = "riscv64", target_arch = "powerpc64"))]
#[inline]
fn scale(ticks: u64) -> u64 {
    let hz = TIMEBASE_HZ.load(Ordering::Relaxed).max(1);
    (u128::from(ticks) * 1_000_000_000 / u128::from(hz)) as u64
}

/// The counter's frequency, when the architecture says it (arm64's CNTFRQ_EL0).
#[cfg(target_arch = "aarch64")]
fn counter_hz() -> Option<u64> {
    Some(crate::sys::counter::frequency())
}

#[cfg(any(
    target_arch = "x86_64",
    target_arch = "riscv64",
    target_arch = "powerpc64"
))]
fn counter_hz() -> Option<u64> {
    None
}

/// riscv64's timebase ticks at the frequency the device tree states
/// (`/cpus/timebase-frequency`, a big-endian 32-bit cell).
#[cfg(target_arch = "riscv64")]
fn counter_readable() -> Result<(), ClockError> {
    let path = "/proc/device-tree/cpus/timebase-frequency";
    let bytes = std::fs::read(path)
        .map_err(|e| ClockError::Unreadable(format!("the timebase frequency, {path}: {e}")))?;
    let hz = match bytes[..] {
        [a, b, c, d] => u64::from(u32::from_be_bytes([a, b, c, d])),
        [a, b, c, d, e, f, g, h] => u64::from_be_bytes([a, b, c, d, e, f, g, h]),
        _ => {
            return Err(ClockError::Unreadable(format!(
                "{path} holds {} bytes, not a 32- or 64-bit cell",
                bytes.len()
            )))
        }
    };
    TIMEBASE_HZ.store(hz, Ordering::Relaxed);
    Ok(())
}

/// ppc64's timebase ticks at the frequency /proc/cpuinfo states (`timebase : 512000000`).
#[cfg(target_arch = "powerpc64")]
fn counter_readable() -> Result<(), ClockError> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let hz = cpuinfo
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == "timebase").then(|| v.trim().parse::<u64>().ok())?
        })
        .ok_or_else(|| {
            ClockError::Unreadable("/proc/cpuinfo states no timebase frequency".into())
        })?;
    TIMEBASE_HZ.store(hz, Ordering::Relaxed);
    Ok(())
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn counter_readable() -> Result<(), ClockError> {
    Ok(())
}

/// How far one reading may lie from the instruction count: a counter slower than one tick
/// per instruction (riscv64's and ppc64's timebase) is scaled up, and counts in steps then.
fn resolution() -> u64 {
    match TIMEBASE_HZ.load(Ordering::Relaxed) {
        0 => 0,
        hz => 1_000_000_000u64.div_ceil(hz),
    }
}

/// Why the clock is not taken for an instruction counter.
#[derive(Debug, thiserror::Error)]
pub enum ClockError {
    #[error("the CPU's instruction counter cannot be read here: {0}")]
    Unreadable(String),
    #[error(
        "the CPU's counter runs at {hz} Hz, so it does not tick once per instruction (QEMU's \
         arm64 CPUs need cntfrq=1000000000 before QEMU 9.0, as syscost lab sets it)"
    )]
    Frequency { hz: u64 },
    #[error(
        "the clock does not count instructions: {extra} more iterations of a two-instruction \
         loop advanced it by {seen:?} ticks, not {want} each time (this is not a QEMU guest \
         under -icount shift=0; syscost lab --count instructions boots one)"
    )]
    NotExact {
        extra: u64,
        want: u64,
        seen: Vec<u64>,
    },
}

/// Iterations of the check's shorter loop; the longer runs twice as many.
const CHECK_ITERATIONS: u64 = 100_000;
/// Exact readings the check needs, and how many it may take (a timer interrupt inside a loop
/// spoils a reading).
const CHECK_EXACT: usize = 3;
const CHECK_TRIES: usize = 12;

/// Makes [`now_ns`] read the CPU's counter as an instruction counter, after checking that it
/// is one: `N` more iterations of a loop of two instructions must advance it by exactly `2N`,
/// three times, and the shorter loop must read the same each of those times. A clock that keeps
/// time does not (the loop's time varies, and is not two ticks an iteration to the tick); an
/// instruction count does, but for a reading an interrupt fell into. ("Exactly": to within the
/// counter's resolution, one instruction but where a slower timebase is scaled up.)
pub fn count_instructions() -> Result<(), ClockError> {
    if let Some(hz) = counter_hz().filter(|&hz| hz != 1_000_000_000) {
        return Err(ClockError::Frequency { hz });
    }
    counter_readable()?;
    let slack = resolution();
    // One function reads the counter around both loops, the count a value it cannot see
    // through: the instructions around the loop are the same for both (inlined twice, the
    // compiler may move a constant's load across the first read in one copy and not the other).
    #[inline(never)]
    fn time(n: u64) -> u64 {
        let n = std::hint::black_box(n);
        let t0 = counter();
        crate::sys::counter::two_per_iteration(n);
        counter().wrapping_sub(t0)
    }
    let want = 2 * CHECK_ITERATIONS;
    let mut seen = Vec::new();
    let mut shorts = Vec::new();
    for _ in 0..CHECK_TRIES {
        let short = time(CHECK_ITERATIONS);
        let long = time(2 * CHECK_ITERATIONS);
        seen.push(long.wrapping_sub(short));
        if long.wrapping_sub(short).abs_diff(want) <= slack {
            shorts.push(short);
            if shorts
                .iter()
                .filter(|&&s| s.abs_diff(short) <= slack)
                .count()
                >= CHECK_EXACT
            {
                INSTRUCTIONS.store(true, Ordering::Relaxed);
                return Ok(());
            }
        }
    }
    Err(ClockError::NotExact {
        extra: CHECK_ITERATIONS,
        want,
        seen,
    })
}

/// Whether [`now_ns`] counts instructions.
pub fn counts_instructions() -> bool {
    INSTRUCTIONS.load(Ordering::Relaxed)
}

/// What the current CPU's idle loop has done so far: its entries and the time it slept, as the
/// kernel's tick code counts them (`idle_calls`, `idle_sleeptime` in /proc/timer_list). Two
/// equal marks around some work mean the CPU never went idle during it. That matters where the
/// clock counts instructions: QEMU's counter jumps over idle time (one per nanosecond of the
/// guest), so work that waits — an RCU grace period, a kworker — reads as virtual nanoseconds,
/// not as instructions. `None` where the file is missing or unreadable (not root).
pub fn idle_mark() -> Option<(u64, u64)> {
    let cpu = crate::sys::query::current_cpu();
    let text = std::fs::read_to_string("/proc/timer_list").ok()?;
    parse_idle_mark(&text, u64::try_from(cpu).ok()?)
}

/// `idle_calls` and `idle_sleeptime` of `cpu`'s section of a /proc/timer_list text.
fn parse_idle_mark(text: &str, cpu: u64) -> Option<(u64, u64)> {
    let header = format!("cpu: {cpu}");
    let section = text
        .split("\ncpu: ")
        .skip(1)
        .map(|s| format!("cpu: {s}"))
        .find(|s| s.lines().next().map(str::trim) == Some(header.as_str()))?;
    let field = |name: &str| {
        section.lines().find_map(|l| {
            let (k, v) = l.trim().split_once(':')?;
            (k.trim() == name).then(|| v.split_whitespace().next()?.parse::<u64>().ok())?
        })
    };
    Some((field(".idle_calls")?, field(".idle_sleeptime")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The idle counters are read from the CPU's own section, and a text without them (another
    /// kernel's layout, or a CPU that is not listed) gives none rather than a zero.
    #[test]
    fn the_idle_mark_is_read_from_the_cpus_own_section() {
        let text = "Timer List Version: v0.9\nnow at 5 nsecs\n\ncpu: 0\n clock 0:\n  .idle_calls     : 7\n  .idle_sleeptime : 900 nsecs\n\ncpu: 1\n  .idle_calls     : 12\n  .idle_sleeptime : 34 nsecs\n\nTick Device: mode:     1\n";
        assert_eq!(parse_idle_mark(text, 0), Some((7, 900)));
        assert_eq!(parse_idle_mark(text, 1), Some((12, 34)));
        assert_eq!(parse_idle_mark(text, 2), None);
        assert_eq!(parse_idle_mark("cpu: 0\n  .idle_calls : 1\n", 0), None);
    }

    /// A machine's clock keeps time: it is refused as an instruction counter, with what it
    /// read, and `now_ns` stays on CLOCK_MONOTONIC_RAW.
    #[test]
    fn a_clock_that_keeps_time_is_no_instruction_counter() {
        match count_instructions() {
            Err(ClockError::NotExact { seen, .. }) => assert_eq!(seen.len(), CHECK_TRIES),
            // Only an arm64 machine whose counter is not at 1 GHz stops before.
            Err(ClockError::Frequency { hz }) => assert_ne!(hz, 1_000_000_000),
            // Nor one whose timebase frequency cannot be read (riscv64, ppc64).
            Err(ClockError::Unreadable(why)) => assert!(!why.is_empty()),
            Ok(()) => panic!("this test machine's clock counted instructions"),
        }
        assert!(!counts_instructions());
    }
}
