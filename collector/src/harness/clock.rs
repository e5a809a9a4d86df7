//! The clock samples are timed with: CLOCK_MONOTONIC_RAW (not slewed by NTP), read through the
//! vDSO. One read costs ~30 ns; samples last milliseconds, so it is negligible. The vDSO's
//! function is found by [`crate::sys::vdso`], not by the C library: musl's lookup misses it on
//! kernels whose vDSO has only the GNU hash table, and every read would be a syscall.

/// Nanoseconds on CLOCK_MONOTONIC_RAW.
#[inline]
pub fn now_ns() -> u64 {
    read(libc::CLOCK_MONOTONIC_RAW)
}

/// Nanoseconds on `clock`, through the vDSO when this process has one.
#[inline]
pub fn read(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    match crate::sys::vdso::clock_gettime() {
        // SAFETY: the vDSO's clock_gettime, a valid clock id and pointer.
        Some(f) => unsafe { f(clock, &mut ts) },
        // SAFETY: valid clock id and pointer.
        None => unsafe { libc::clock_gettime(clock, &mut ts) },
    };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}
