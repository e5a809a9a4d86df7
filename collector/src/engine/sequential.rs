//! `--method sequential`: the kernel `seccomp_benchmark` method, reproduced exactly so both
//! methods can be compared on one machine and with historical kernel logs.
//!
//! One process, in the kernel's order: calibrate (blocks of 9973 `syscall(__NR_getpid)` through
//! libc until a fixed CLOCK_MONOTONIC duration has passed; samples = count × scale), time native,
//! set NO_NEW_PRIVS, add a constant filter and time, add another and time, add the `args[0]`
//! filter and time, add a constant filter and time — each timing one long run on
//! CLOCK_PROCESS_CPUTIME_ID, reported as integer ns per call. The only change is the scale: the
//! kernel calibrates for 1 s and times 15 s per scenario; here the five timings share the budget.

use crate::scenarios::seccomp::{install, Filter};
use crate::scenarios::SetupError;
use std::io::Read;
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The kernel's calibration block.
const STEP: u64 = 9973;

/// What one sequential run produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SequentialOutcome {
    /// Syscalls per timing (the kernel's "Benchmarking N syscalls").
    pub samples: u64,
    /// Integer ns per call: native, 1 bitmap, 2 bitmaps, 3 filters (full), 4 filters (full).
    pub ns: Vec<u64>,
    /// Why the sequence stopped early, if it did.
    pub error: Option<String>,
    pub elapsed: Duration,
    pub interrupted: bool,
}

fn now(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid clock and pointer.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `syscall(nr)` through libc, as the kernel tool does (not the inlined instruction).
fn libc_call(nr: libc::c_long) -> libc::c_long {
    // SAFETY: argument-less query syscalls only.
    unsafe { libc::syscall(nr) }
}

/// The kernel's calibrate(): blocks of 9973 calls until `duration_ns` of CLOCK_MONOTONIC.
fn calibrate(nr: libc::c_long, expected: libc::c_long, duration_ns: u64) -> Result<u64, String> {
    let start = now(libc::CLOCK_MONOTONIC);
    let mut samples = 0u64;
    loop {
        for _ in 0..STEP {
            if libc_call(nr) != expected {
                return Err("the probe returned an unexpected value during calibration".into());
            }
        }
        samples += STEP;
        if now(libc::CLOCK_MONOTONIC) - start >= duration_ns {
            return Ok(samples);
        }
    }
}

/// The kernel's timing(): integer ns per call on the process CPU-time clock.
fn timing(nr: libc::c_long, expected: libc::c_long, samples: u64) -> Result<u64, String> {
    let start = now(libc::CLOCK_PROCESS_CPUTIME_ID);
    for _ in 0..samples {
        if libc_call(nr) != expected {
            return Err("the probe returned an unexpected value under the filters".into());
        }
    }
    let end = now(libc::CLOCK_PROCESS_CPUTIME_ID);
    Ok((end - start) / samples)
}

/// The whole sequence; runs in a child and streams each value (u64) to `out` as soon as it is
/// known, so a budget overrun still keeps what was measured.
fn child(
    nr: libc::c_long,
    expected: libc::c_long,
    calib_ns: u64,
    scale: f64,
    out: &mut dyn FnMut(u64),
) -> Result<(), String> {
    let calibrated = calibrate(nr, expected, calib_ns)?;
    let samples = ((calibrated as f64 * scale) as u64).max(1);
    out(samples);
    out(timing(nr, expected, samples)?);
    for step in [
        Filter::ConstAllow,
        Filter::ConstAllow,
        Filter::ArgLoad,
        Filter::ConstAllow,
    ] {
        let prog = step.program()?;
        install(&prog).map_err(|e| match e {
            SetupError::Unsupported(s) | SetupError::Failed(s) => s,
        })?;
        out(timing(nr, expected, samples)?);
    }
    Ok(())
}

/// Runs the kernel sequence for `nr` inside `budget`, pinned to `cpu`.
pub fn measure(cpu: u32, budget: Duration, stop: &AtomicBool) -> SequentialOutcome {
    let nr = libc::SYS_getpid;
    let t0 = Instant::now();
    // The kernel: 1 s calibration, then 15× that many calls per scenario; filtered scenarios run
    // longer than native (here up to ~1.8×), so 5 timings take ~100 calibrations of CPU time,
    // and more wall time on a loaded machine. A budget of 150 s reproduces the kernel's own
    // durations; smaller budgets shrink everything alike.
    let calib_ns = (budget.as_secs_f64() / 150.0 * 1e9) as u64;
    let scale = 15.0;
    let mut fds = [0; 2];
    // SAFETY: valid array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return SequentialOutcome {
            samples: 0,
            ns: vec![],
            error: Some(format!("pipe: {}", std::io::Error::last_os_error())),
            elapsed: t0.elapsed(),
            interrupted: false,
        };
    }
    // SAFETY: the child only runs the sequence and _exits.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        // SAFETY: plain calls in the child.
        unsafe {
            libc::close(fds[0]);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::signal(libc::SIGINT, libc::SIG_IGN);
        }
        let _ = crate::sys::affinity::pin_to_cpu(cpu);
        let fd = fds[1];
        let mut send = |v: u64| {
            // SAFETY: writing 8 bytes from a local to our pipe.
            unsafe { libc::write(fd, v.to_ne_bytes().as_ptr().cast(), 8) };
        };
        // SAFETY: getpid cannot fail.
        let expected = unsafe { libc::getpid() } as libc::c_long;
        if let Err(e) = child(nr, expected, calib_ns, scale, &mut send) {
            // u64::MAX marks the start of an error text.
            send(u64::MAX);
            // SAFETY: writing our buffer to the pipe.
            unsafe { libc::write(fd, e.as_ptr().cast(), e.len()) };
        }
        // SAFETY: leave without running the parent's destructors.
        unsafe { libc::_exit(0) };
    }
    // SAFETY: closing the child's end in the parent; taking ownership of ours.
    unsafe { libc::close(fds[1]) };
    let mut reader = unsafe { std::fs::File::from_raw_fd(fds[0]) };
    let mut interrupted = false;
    // Wait for the child, killing it if it overruns the budget or we are interrupted.
    let deadline = t0 + budget.mul_f64(1.02);
    loop {
        let mut status = 0;
        // SAFETY: our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            break;
        }
        if stop.load(Ordering::Relaxed) || Instant::now() > deadline {
            interrupted = stop.load(Ordering::Relaxed);
            // SAFETY: our own child.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, &mut status, 0);
            }
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut bytes = Vec::new();
    let _ = reader.read_to_end(&mut bytes);
    let mut words = Vec::new();
    let mut err = None;
    for (i, c) in bytes.chunks(8).enumerate() {
        match c.try_into().map(u64::from_ne_bytes) {
            Ok(u64::MAX) => {
                err = Some(String::from_utf8_lossy(&bytes[(i + 1) * 8..]).into_owned());
                break;
            }
            Ok(v) => words.push(v),
            Err(_) => break,
        }
    }
    let error = err.or_else(|| {
        (words.len() < 6 && !interrupted).then(|| {
            format!(
                "the sequence did not finish within the {:.1} s budget ({} of 5 timings)",
                budget.as_secs_f64(),
                words.len().saturating_sub(1)
            )
        })
    });
    SequentialOutcome {
        samples: words.first().copied().unwrap_or(0),
        ns: words.iter().skip(1).copied().collect(),
        error,
        elapsed: t0.elapsed(),
        interrupted,
    }
}
