//! Workers are forked and set up: all of them at the start, and every active one again for each
//! new instance.

use super::run::{sample_round, RoundEnd, Run};
use super::{Options, REAP_BOUND};
use crate::engine::worker::{Reply, Worker, WorkerError};
use std::time::{Duration, Instant};
use syscost_record::Status;

/// A fresh instance's worker whose samples take at most this long takes a warm-up sample.
const WARM_UP_BELOW: Duration = Duration::from_millis(5);

impl Run<'_> {
    /// Forks a worker for each of `which` (all first: their setups run concurrently), then
    /// collects their verdicts until `until`. A scenario whose worker cannot be forked, whose
    /// setup fails or does not finish in time, is retired with the reason; `instance` names the
    /// instance in it from the second on.
    pub(super) fn set_up(
        &mut self,
        which: &[usize],
        opts: &Options,
        until: Instant,
        instance: u32,
    ) {
        let of = if instance == 0 {
            String::new()
        } else {
            format!("instance {}: ", instance + 1)
        };
        for &i in which {
            match Worker::spawn(self.scenarios[i].as_mut(), opts.cpu, opts.sample_ns) {
                Ok(w) => self.workers[i] = Some(w),
                Err(e) => {
                    self.workers[i] = None;
                    self.slots[i].status = Status::Failed;
                    self.slots[i].reason = Some(format!("{of}cannot fork a worker: {e}"));
                }
            }
        }
        for &i in which {
            let wait = until
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(20));
            let Some(w) = self.workers[i].as_mut() else {
                continue;
            };
            match w.recv(wait, self.stop) {
                Ok(Reply::Ready) => {}
                Ok(Reply::Skipped(why)) => self.fail(i, Status::Skipped, format!("{of}{why}")),
                Ok(Reply::Failed(why)) => {
                    self.fail(i, Status::Failed, format!("{of}setup failed: {why}"))
                }
                Ok(other) => {
                    self.fail(i, Status::Failed, format!("{of}unexpected reply {other:?}"))
                }
                Err(WorkerError::Interrupted) => break,
                // Setup may use half the budget; beyond that it is the budget's doing (or a
                // hang, which the reason cannot tell apart, so it says both).
                Err(WorkerError::Timeout(_)) if instance == 0 => self.fail(
                    i,
                    Status::Skipped,
                    format!(
                        "its setup did not finish within {:.2} s, half of the budget (a larger \
                         --budget gives it more time; if it still does not finish, it hangs)",
                        opts.budget.as_secs_f64() / 2.0
                    ),
                ),
                Err(WorkerError::Timeout(t)) => self.fail(
                    i,
                    Status::Failed,
                    format!(
                        "{of}its setup did not finish within {:.2} s (the first instance's did)",
                        t.as_secs_f64()
                    ),
                ),
                Err(e) => self.fail(i, Status::Failed, format!("{of}during setup: {e}")),
            }
        }
    }

    /// Replaces every active worker by a fresh instance `instance`: the old ones are told to
    /// leave and killed, the new ones set up meanwhile (concurrently: nothing is measured), and
    /// only once every old one is reaped — a worker holding BPF links detaches them on its way
    /// out — and every new one ready does measuring go on. Each new one whose samples are short
    /// then takes one sample at the calibrated size, which is dropped: the first touches of a
    /// fresh process's pages and caches are no part of its steady state.
    pub(super) fn renew(
        &mut self,
        opts: &Options,
        deadline: Instant,
        sample_timeout: Duration,
        instance: u32,
        round: usize,
    ) -> RoundEnd {
        let active = self.active();
        let mut old: Vec<Worker> = active
            .iter()
            .filter_map(|&i| self.workers[i].take())
            .collect();
        let mut refs: Vec<&mut Worker> = old.iter_mut().collect();
        Worker::shutdown_all(&mut refs, Duration::ZERO);
        let until = deadline.min(Instant::now() + Duration::from_secs(10));
        self.set_up(&active, opts, until, instance);
        Worker::kill_and_reap_all(&mut refs, REAP_BOUND);
        drop(refs);
        let now = Instant::now();
        for &i in &active {
            self.ready_at[i] = now;
        }
        // Only the cheap ones: an expensive sample amortises its cold start itself.
        let order: Vec<usize> = active
            .into_iter()
            .filter(|&i| {
                self.workers[i].is_some() && self.sample_wall[i].is_some_and(|w| w <= WARM_UP_BELOW)
            })
            .collect();
        let end = sample_round(self, &order, round, deadline, sample_timeout);
        self.pending.clear();
        self.retaken.clear();
        end
    }
}
