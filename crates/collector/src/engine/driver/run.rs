//! What the phases share: the workers, the slots their samples go to, the round in progress;
//! and one round's sampling.

use super::{round_order, Group, Slot, RETAKES};
use crate::engine::worker::{Reply, Sample, Worker, WorkerError};
use crate::scenarios::Scenario;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use syscost_record::Status;

pub(super) struct Run<'a> {
    pub(super) scenarios: &'a mut [Box<dyn Scenario>],
    pub(super) workers: Vec<Option<Worker>>,
    pub(super) slots: Vec<Slot>,
    pub(super) stop: &'a AtomicBool,
    /// Samples of the round in progress, added to the slots once the round is complete: a
    /// round the budget cuts short is dropped with its samples, and so are its counts.
    pub(super) pending: Vec<Taken>,
    /// When each worker's background work (see [`Sample::settle_ns`]) should be over.
    pub(super) ready_at: Vec<Instant>,
    /// Wall time of each worker's last sample, request to reply.
    pub(super) sample_wall: Vec<Option<Duration>>,
    /// Workers retired during the run (failed, or out of budget): killed, and reaped with the
    /// others at the end.
    pub(super) retired: Vec<Worker>,
    /// Samples of the round in progress set aside to be taken again (their scenarios).
    pub(super) retaken: Vec<usize>,
}

/// One accepted sample of the round in progress.
pub(super) struct Taken {
    slot: usize,
    ns_per_op: f64,
    untimed: Option<f64>,
    verified: Option<(u64, u64)>,
    preempted: bool,
}

/// How a round ended.
pub(super) enum RoundEnd {
    Complete,
    Interrupted,
    /// The budget ran out while this worker's sample was in flight.
    OutOfBudget(usize),
}

impl<'a> Run<'a> {
    /// No worker yet; every slot measured until it is told otherwise.
    pub(super) fn new(
        scenarios: &'a mut [Box<dyn Scenario>],
        stop: &'a AtomicBool,
        t0: Instant,
    ) -> Run<'a> {
        let n = scenarios.len();
        Run {
            workers: (0..n).map(|_| None).collect(),
            slots: vec![
                Slot {
                    status: Status::Measured,
                    reason: None,
                    samples: Vec::new(),
                    raw: Vec::new(),
                    iters_per_sample: 0,
                    untimed: Vec::new(),
                    preempted: 0,
                    retaken: 0,
                    verified: None,
                    instance: Vec::new(),
                };
                n
            ],
            scenarios,
            stop,
            pending: Vec::new(),
            ready_at: vec![t0; n],
            sample_wall: vec![None; n],
            retired: Vec::new(),
            retaken: Vec::new(),
        }
    }

    pub(super) fn fail(&mut self, i: usize, status: Status, reason: String) {
        if let Some(mut w) = self.workers[i].take() {
            w.kill();
            self.retired.push(w);
        }
        let slot = &mut self.slots[i];
        slot.status = status;
        slot.reason = Some(reason);
    }

    pub(super) fn active(&self) -> Vec<usize> {
        (0..self.workers.len())
            .filter(|&i| self.workers[i].is_some())
            .collect()
    }

    pub(super) fn interrupted(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Handles one reply to a sample request: the sample, or the scenario fails.
    pub(super) fn take_sample(&mut self, i: usize, round: usize, sample: Sample) {
        let b = sample.batch;
        if b.iters == 0 {
            self.fail(i, Status::Failed, "worker returned an empty batch".into());
            return;
        }
        if b.bad != 0 {
            let what = self.scenarios[i].description();
            self.fail(
                i,
                Status::Failed,
                format!(
                    "{} of {} operations returned an unexpected value ({what})",
                    b.bad, b.iters
                ),
            );
            return;
        }
        let mut verified = None;
        if let Some(what) = self.scenarios[i].verification() {
            let expected = self.scenarios[i].expected_verified(b.iters);
            match b.verified {
                Some(observed) if observed == expected => verified = Some((expected, observed)),
                observed => {
                    let observed = observed.map_or("nothing".to_string(), |o| o.to_string());
                    self.fail(
                        i,
                        Status::Failed,
                        format!(
                            "verification failed in round {round}: expected {expected} {what} \
                             for {} operations, observed {observed}",
                            b.iters
                        ),
                    );
                    return;
                }
            }
        }
        self.pending.push(Taken {
            slot: i,
            ns_per_op: b.elapsed_ns as f64 / b.iters as f64,
            untimed: sample.untimed_ns.map(|u| u as f64),
            verified,
            preempted: sample.preempted,
        });
    }

    /// The round is complete: its samples and counts join the slots'.
    pub(super) fn commit_round(&mut self, round: usize) {
        for t in &self.pending {
            let slot = &mut self.slots[t.slot];
            slot.raw.push(t.ns_per_op);
            slot.preempted += t.preempted as u64;
            if let Some((expected, observed)) = t.verified {
                let v = slot.verified.get_or_insert((0, 0));
                v.0 += expected;
                v.1 += observed;
            }
            if t.untimed.is_some() {
                slot.untimed[round] = t.untimed;
            }
        }
        // A scenario's value in the round: the mean of its samples in it.
        for t in &self.pending {
            if self.slots[t.slot].samples[round].is_some() {
                continue;
            }
            let (sum, n) = self
                .pending
                .iter()
                .filter(|u| u.slot == t.slot)
                .fold((0.0, 0usize), |(s, n), u| (s + u.ns_per_op, n + 1));
            self.slots[t.slot].samples[round] = Some(sum / n as f64);
        }
        self.pending.clear();
        for i in self.retaken.drain(..) {
            self.slots[i].retaken += 1;
        }
    }

    /// The order of a round of `group`: its active members shuffled, or, with a system-wide
    /// member, its baseline first and last around the others shuffled.
    pub(super) fn order(&self, group: &Group, round: usize) -> Vec<usize> {
        let active: Vec<usize> = group
            .members
            .iter()
            .copied()
            .filter(|&i| self.workers[i].is_some())
            .collect();
        let around = group.baseline.filter(|b| {
            active.contains(b)
                && active
                    .iter()
                    .any(|&i| i != *b && self.scenarios[i].system_wide())
        });
        match around {
            Some(b) => {
                let others: Vec<usize> = active.iter().copied().filter(|&i| i != b).collect();
                let mut order = vec![b];
                order.extend(round_order(&others, round));
                order.push(b);
                order
            }
            None => round_order(&active, round),
        }
    }
}

/// A silence that ends this close to the deadline was the budget's doing.
const BUDGET_SLACK: Duration = Duration::from_millis(2);

/// How many sample timeouts a worker that is runnable (waiting for a CPU) may stay silent
/// before it is presumed hung after all.
const STARVED_WAITS: u32 = 5;

/// Takes one round's samples, in `order`; the settle times the workers report are kept.
pub(super) fn sample_round(
    run: &mut Run,
    order: &[usize],
    round: usize,
    deadline: Instant,
    sample_timeout: Duration,
) -> RoundEnd {
    for &i in order {
        let iters = run.slots[i].iters_per_sample;
        let limit = run.scenarios[i]
            .sample_timeout()
            .map_or(sample_timeout, |t| t.max(sample_timeout));
        // Where the clock counts instructions nothing else loads the machine: what preempts a
        // sample is the guest's own kernel work (its attach's and detach's, outside the timed
        // loop for a system-wide scenario), and a retake would meet it again.
        let retakes = if run.scenarios[i].preemption_is_noise()
            && !crate::harness::clock::counts_instructions()
        {
            RETAKES
        } else {
            0
        };
        let mut tries = 0;
        loop {
            // Never wait past the budget: a sample still running when it ends is dropped with
            // its round, and that is the budget's doing, not a hang.
            crate::engine::quiet::before(deadline);
            let asked = Instant::now();
            let budget_left = deadline
                .saturating_duration_since(asked)
                .max(Duration::from_millis(1));
            let wait = limit.min(budget_left);
            let Some(w) = run.workers[i].as_mut() else {
                break;
            };
            let mut reply = w.request_sample(iters).and_then(|_| w.recv(wait, run.stop));
            // Silent but runnable: starved by a busy machine, not hung — it gets more time,
            // within the budget.
            let mut waited = wait;
            while matches!(reply, Err(WorkerError::Timeout(_)))
                && waited < limit * STARVED_WAITS
                && w.runnable()
            {
                let more = limit.min(deadline.saturating_duration_since(Instant::now()));
                if more.is_zero() {
                    break;
                }
                waited += more;
                reply = w.recv(more, run.stop);
            }
            if let Err(WorkerError::Timeout(_)) = reply {
                reply = Err(WorkerError::Timeout(waited));
            }

            match reply {
                Ok(Reply::Batch(sample)) => {
                    crate::engine::quiet::after(&*run.scenarios[i]);
                    run.sample_wall[i] = Some(asked.elapsed());
                    if let Some(settle) = sample.settle_ns {
                        run.ready_at[i] = Instant::now() + Duration::from_nanos(settle);
                    }
                    let again = sample.preempted && tries < retakes;
                    let before = run.pending.len();
                    run.take_sample(i, round, sample);
                    // Verified like any other, then set aside: another task ran in it.
                    if again && run.pending.len() > before {
                        run.pending.pop();
                        run.retaken.push(i);
                        tries += 1;
                        continue;
                    }
                }
                Ok(Reply::RunFailed(why)) => {
                    run.fail(i, Status::Failed, format!("in round {round}: {why}"))
                }
                Ok(other) => run.fail(i, Status::Failed, format!("unexpected reply {other:?}")),
                Err(WorkerError::Interrupted) => return RoundEnd::Interrupted,
                // Cut short by the end of the budget, not hung.
                Err(WorkerError::Timeout(_)) if Instant::now() + BUDGET_SLACK >= deadline => {
                    run.pending.clear();
                    run.retaken.clear();
                    return RoundEnd::OutOfBudget(i);
                }
                Err(e) => run.fail(i, Status::Failed, format!("in round {round}: {e}")),
            }
            break;
        }
    }
    if run.interrupted() {
        return RoundEnd::Interrupted;
    }
    RoundEnd::Complete
}
