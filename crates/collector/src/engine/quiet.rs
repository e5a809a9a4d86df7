//! Where the clock counts instructions (a QEMU guest under `-icount`, one vCPU), a sample must
//! not count another scenario's leftovers. A BPF program's detach goes on after its sample has
//! answered (grace periods, the RCU callbacks and workqueue items that free the program and
//! its trampoline), and a seccomp filter freed at an attach scenario's exit is freed by a
//! kworker: on one CPU all of that runs inside whichever sample comes next, and a `native`
//! bracket read 376 instructions a call instead of 314. So after a sample that leaves such work
//! behind, the driver waits until the CPU has been idle for whole steps before the next sample.
//! Idle time costs the host nothing there (`-icount sleep=off` skips it), and the guest's
//! budget counts it.
//!
//! On a machine whose clock keeps time this does nothing: there the work runs on other CPUs or
//! between samples, and waiting would only thin the rounds.

use crate::scenarios::Scenario;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One step of the wait.
const STEP: Duration = Duration::from_millis(100);
/// A step is quiet when the CPUs were idle at least this share of it (/proc/stat counts in
/// ticks of 10 ms).
const QUIET_SHARE: f64 = 0.9;
/// Quiet steps in a row that end the wait: an RCU-tasks grace period sleeps ~100 ms between
/// its scans, so one quiet step can fall between two bursts.
const QUIET_STEPS: u32 = 2;
/// The longest wait (a system that is never quiet is measured as it is).
const MOST: Duration = Duration::from_secs(3);

/// Whether the last sample left work behind.
static PENDING: AtomicBool = AtomicBool::new(false);

/// Whether `scenario`'s samples leave work behind that runs after them: a program attached and
/// detached system-wide, or an attach scenario's objects freed at its exit.
fn leaves_work(scenario: &dyn Scenario) -> bool {
    scenario.system_wide() || scenario.family() == "attach"
}

/// Notes what the sample just taken of `scenario` left behind.
pub fn after(scenario: &dyn Scenario) {
    if leaves_work(scenario) {
        PENDING.store(true, Ordering::Relaxed);
    }
}

/// Before a sample, where the clock counts instructions: waits, within `deadline`, until the
/// CPUs have been quiet for [`QUIET_STEPS`] steps, if the last sample left work behind.
pub fn before(deadline: Instant) {
    if !crate::harness::clock::counts_instructions() || !PENDING.swap(false, Ordering::Relaxed) {
        return;
    }
    settle(
        QUIET_STEPS,
        MOST.min(deadline.saturating_duration_since(Instant::now())),
    );
}

/// Waits until the CPUs have been idle for `steps` steps of [`STEP`] in a row, or until `most`
/// has passed; returns how long it waited. A kernel goes on working for a while after its
/// boot (7.x: crypto self-tests, ftrace's record check), and in a guest with one vCPU that
/// work is a second task sharing the loop's CPU, a scheduler slice at a time.
pub fn settle(steps: u32, most: Duration) -> Duration {
    let t0 = Instant::now();
    let mut quiet = 0;
    while quiet < steps && t0.elapsed() + STEP <= most {
        let Some((before, cpus)) = idle_ticks() else {
            break;
        };
        std::thread::sleep(STEP);
        let Some((after, _)) = idle_ticks() else {
            break;
        };
        let idle = Duration::from_millis(after.saturating_sub(before) * 1000 / user_hz());
        quiet = if idle.as_secs_f64() >= QUIET_SHARE * STEP.as_secs_f64() * cpus as f64 {
            quiet + 1
        } else {
            0
        };
    }
    t0.elapsed()
}

/// Idle (and I/O wait) time of every CPU together, in clock ticks (/proc/stat's first line),
/// and how many CPUs there are.
fn idle_ticks() -> Option<(u64, usize)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    let cpus = stat
        .lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count();
    Some((
        fields.get(3)? + fields.get(4).copied().unwrap_or(0),
        cpus.max(1),
    ))
}

fn user_hz() -> u64 {
    let hz = crate::sys::query::sysconf(libc::_SC_CLK_TCK);
    if hz > 0 {
        hz as u64
    } else {
        100
    }
}
