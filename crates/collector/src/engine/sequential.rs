//! `--method sequential`: the kernel `seccomp_benchmark` method, reproduced exactly so both
//! methods can be compared on one machine and with historical kernel logs.
//!
//! One process, in the kernel's order: calibrate (blocks of 9973 `syscall(__NR_getpid)` through
//! libc until a fixed CLOCK_MONOTONIC duration has passed; samples = count × scale), time native,
//! set NO_NEW_PRIVS, add a constant filter and time, add another and time, add the `args[0]`
//! filter and time, add a constant filter and time — each timing one long run on
//! CLOCK_PROCESS_CPUTIME_ID, reported as integer ns per call. The only change is the scale: the
//! kernel calibrates for 1 s and times 15 s per scenario; here the five timings share the budget.

use super::peer::{Peer, WorkerError, WORDS};
use crate::scenarios::seccomp::{install, Filter, ProfileError};
use crate::scenarios::SetupError;
use crate::sys::affinity::pin_to_cpu;
use crate::sys::syscall::Query;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// The kernel's calibration block.
const STEP: u64 = 9973;

/// The child's messages: one value (the sample count, then each timing), or why it stopped.
const TAG_VALUE: u64 = 1;
const TAG_ERROR: u64 = 2;

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

/// Why the sequence stopped early.
#[derive(Debug, thiserror::Error)]
enum SequenceError {
    #[error("the probe returned an unexpected value during calibration")]
    Calibration,
    #[error("the probe returned an unexpected value under the filters")]
    Timing,
    #[error(transparent)]
    Program(#[from] ProfileError),
    #[error(transparent)]
    Install(#[from] SetupError),
}

fn now(clock: libc::clockid_t) -> u64 {
    crate::harness::clock::read(clock)
}

/// `syscall(nr)` through libc, as the kernel tool does (not the inlined instruction).
fn libc_call(nr: Query) -> libc::c_long {
    nr.libc_call()
}

/// The kernel's calibrate(): blocks of 9973 calls until `duration_ns` of CLOCK_MONOTONIC.
fn calibrate(nr: Query, expected: libc::c_long, duration_ns: u64) -> Result<u64, SequenceError> {
    let start = now(libc::CLOCK_MONOTONIC);
    let mut samples = 0u64;
    loop {
        for _ in 0..STEP {
            if libc_call(nr) != expected {
                return Err(SequenceError::Calibration);
            }
        }
        samples += STEP;
        if now(libc::CLOCK_MONOTONIC) - start >= duration_ns {
            return Ok(samples);
        }
    }
}

/// The kernel's timing(): integer ns per call on the process CPU-time clock.
fn timing(nr: Query, expected: libc::c_long, samples: u64) -> Result<u64, SequenceError> {
    let start = now(libc::CLOCK_PROCESS_CPUTIME_ID);
    for _ in 0..samples {
        if libc_call(nr) != expected {
            return Err(SequenceError::Timing);
        }
    }
    let end = now(libc::CLOCK_PROCESS_CPUTIME_ID);
    Ok((end - start) / samples)
}

/// The whole sequence; runs in a child and streams each value to `out` as soon as it is
/// known, so a budget overrun still keeps what was measured.
fn sequence(
    nr: Query,
    expected: libc::c_long,
    calib_ns: u64,
    scale: f64,
    out: &mut dyn FnMut(u64),
) -> Result<(), SequenceError> {
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
        install(&step.program()?, 0)?;
        out(timing(nr, expected, samples)?);
    }
    Ok(())
}

/// Runs the kernel sequence for `nr` inside `budget`, pinned to `cpu`.
pub fn measure(cpu: u32, budget: Duration, stop: &AtomicBool) -> SequentialOutcome {
    let nr = Query::GETPID;
    let t0 = Instant::now();
    // The kernel: 1 s calibration, then 15× that many calls per scenario; filtered scenarios run
    // longer than native (here up to ~1.8×), so 5 timings take ~100 calibrations of CPU time,
    // and more wall time on a loaded machine. A budget of 150 s reproduces the kernel's own
    // durations; smaller budgets shrink everything alike.
    let calib_ns = (budget.as_secs_f64() / 150.0 * 1e9) as u64;
    let scale = 15.0;
    let child = Peer::spawn(|link| {
        let _ = pin_to_cpu(cpu);
        let expected = Query::GETPID.libc_call();
        let result = sequence(nr, expected, calib_ns, scale, &mut |v| {
            link.send(TAG_VALUE, [v, 0, 0, 0, 0, 0, 0, 0], "");
        });
        if let Err(e) = result {
            link.send(TAG_ERROR, [0; WORDS], &e.to_string());
        }
        0
    });
    let mut words = Vec::new();
    let mut error = None;
    let mut interrupted = false;
    match child {
        Err(e) => error = Some(format!("cannot fork the sequence's process: {e}")),
        Ok(mut child) => {
            // Collect until the child is gone, killing it if it overruns the budget or we are
            // interrupted.
            let deadline = t0 + budget.mul_f64(1.02);
            loop {
                let left = deadline.saturating_duration_since(Instant::now());
                match child.recv(left, stop) {
                    Ok(m) if m.tag == TAG_VALUE => words.push(m.words[0]),
                    Ok(m) => {
                        error = Some(m.text);
                        break;
                    }
                    Err(WorkerError::Died(_)) | Err(WorkerError::Timeout(_)) => break,
                    Err(WorkerError::Interrupted) => {
                        interrupted = true;
                        break;
                    }
                    Err(e) => {
                        error = Some(e.to_string());
                        break;
                    }
                }
            }
            // Dropping the handle kills the child if it is still running.
        }
    }
    let error = error.or_else(|| {
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
