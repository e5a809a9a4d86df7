//! The end of a run: every worker gone, within the budget where it can be.

use super::run::Run;
use super::REAP_BOUND;
use crate::engine::worker::Worker;
use std::time::{Duration, Instant};

/// Tells the workers to leave (unless interrupted) and reaps them all, the retired ones too;
/// `in_flight`, still running the sample the budget cut short, is killed at once.
pub(super) fn shut_down(
    run: &mut Run,
    in_flight: Option<usize>,
    interrupted: bool,
    deadline: Instant,
) {
    if let Some(i) = in_flight {
        // Still running the sample the budget cut short: no need to wait for it.
        if let Some(w) = run.workers[i].as_mut() {
            w.kill();
        }
    }
    let mut left: Vec<&mut Worker> = run.workers.iter_mut().flatten().collect();
    if !interrupted {
        // Leaving takes what is left of the budget at most; then whoever is still there is
        // killed.
        let grace = deadline
            .saturating_duration_since(Instant::now())
            .min(Duration::from_millis(100));
        Worker::shutdown_all(&mut left, grace);
    }
    // Every worker is gone before this returns (bounded: an exit the kernel cannot finish
    // must not hang the command).
    left.extend(run.retired.iter_mut());
    Worker::kill_and_reap_all(&mut left, REAP_BOUND);
}
