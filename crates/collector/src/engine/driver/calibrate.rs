//! Calibration, one worker at a time (they share the CPU): each finds the iterations of a
//! sample of the intended length.

use super::run::Run;
use crate::engine::worker::{Reply, WorkerError};
use std::time::{Duration, Instant};
use syscost_record::Status;

/// Calibrates every active worker while the budget (less `reserve`) lasts; one that cannot is
/// retired with the reason, one the budget cuts short simply gets no sample.
pub(super) fn calibrate(run: &mut Run, deadline: Instant, reserve: Duration) {
    for i in run.active() {
        // Calibrating what cannot be sampled any more is wasted budget.
        if run.interrupted() || Instant::now() + reserve >= deadline {
            break;
        }
        let budget_left = deadline
            .saturating_duration_since(Instant::now() + reserve)
            .max(Duration::from_millis(5));
        let hang = Duration::from_secs(10);
        let wait = hang.min(budget_left);
        let stop = run.stop;
        let reply = match run.workers[i].as_mut() {
            Some(w) => w.request_calibration().and_then(|_| w.recv(wait, stop)),
            None => continue,
        };
        match reply {
            Ok(Reply::Calibrated { iters, settle_ns }) => {
                run.slots[i].iters_per_sample = iters;
                run.ready_at[i] = Instant::now() + Duration::from_nanos(settle_ns.unwrap_or(0));
            }
            Ok(Reply::RunFailed(why)) => {
                run.fail(i, Status::Failed, format!("during calibration: {why}"))
            }
            Ok(other) => run.fail(i, Status::Failed, format!("unexpected reply {other:?}")),
            Err(WorkerError::Interrupted) => break,
            // The budget ran out while it calibrated: it simply gets no sample (see below).
            Err(WorkerError::Timeout(_)) if wait < hang => {
                if let Some(mut w) = run.workers[i].take() {
                    w.kill();
                    run.retired.push(w);
                }
            }
            Err(e) => run.fail(i, Status::Failed, format!("during calibration: {e}")),
        }
    }
}
