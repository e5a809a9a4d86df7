//! The interleaved-rounds driver: every worker takes one sample per round, in an order that
//! changes each round (see [`round_order`]). Slow drift (frequency, host load, thermal) then hits every scenario alike,
//! and each round yields *paired* samples, so overheads are per-round differences rather than
//! differences of two long runs taken minutes apart.
//!
//! Stopping: after each check the run ends when every measured scenario's 95% CI half-width is
//! below the target, or before the next round would cross the time budget — whichever is first.

use super::worker::{Reply, Sample, Worker, WorkerError};
use crate::harness::Batch;
use crate::scenarios::Scenario;
use crate::stats::Summary;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use syscost_record::{Status, StopReason};

/// Rounds before the stopping rule is first consulted (a CI from fewer is too unstable).
pub const MIN_ROUNDS: usize = 10;
/// Rounds between stopping-rule checks (each check sorts every scenario's samples).
const CHECK_EVERY: usize = 5;
/// Longest wait for the workers' exit when a run ends: a worker holding BPF links takes up to
/// about 0.3 s on the reference VM (the links are released on the way out).
const REAP_BOUND: Duration = Duration::from_secs(3);

#[derive(Debug, Clone)]
pub struct Options {
    pub budget: Duration,
    /// Target CI half-width, percent of the median.
    pub target_ci_pct: f64,
    /// Intended duration of one sample.
    pub sample_ns: u64,
    pub cpu: u32,
}

/// One scenario's outcome.
#[derive(Debug, Clone)]
pub struct Slot {
    pub status: Status,
    pub reason: Option<String>,
    /// ns per operation, indexed by round; None where the scenario took no sample.
    pub samples: Vec<Option<f64>>,
    pub iters_per_sample: u64,
    /// Untimed work per sample (ns), indexed by round, for scenarios that report it.
    pub untimed: Vec<Option<f64>>,
    /// Samples during which the worker was involuntarily switched out.
    pub preempted: u64,
    /// Interceptions expected and observed, summed over samples.
    pub verified: Option<(u64, u64)>,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub slots: Vec<Slot>,
    pub rounds: usize,
    pub stop_reason: StopReason,
    pub interrupted: bool,
    pub elapsed: Duration,
    /// Widest CI half-width (percent) and the scenario index it belongs to.
    pub worst_ci: Option<(usize, f64)>,
}

/// What the progress display is told.
#[derive(Debug, Clone)]
pub struct Progress {
    pub phase: &'static str,
    pub elapsed: Duration,
    pub rounds: usize,
    pub worst_ci_pct: Option<f64>,
}

struct Run<'a> {
    scenarios: &'a mut [Box<dyn Scenario>],
    workers: Vec<Option<Worker>>,
    slots: Vec<Slot>,
    stop: &'a AtomicBool,
    /// Counts of the round in progress, added to the slots once the round is complete: a round
    /// the budget cuts short is dropped with its samples, and so are its counts.
    pending: Vec<Tally>,
    /// Workers retired during the run (failed, or out of budget): killed, and reaped with the
    /// others at the end.
    retired: Vec<Worker>,
}

/// What one accepted sample adds to its slot's counts.
struct Tally {
    slot: usize,
    verified: Option<(u64, u64)>,
    preempted: bool,
}

impl Run<'_> {
    fn fail(&mut self, i: usize, status: Status, reason: String) {
        if let Some(mut w) = self.workers[i].take() {
            w.kill();
            self.retired.push(w);
        }
        let slot = &mut self.slots[i];
        slot.status = status;
        slot.reason = Some(reason);
    }

    fn active(&self) -> Vec<usize> {
        (0..self.workers.len())
            .filter(|&i| self.workers[i].is_some())
            .collect()
    }

    fn interrupted(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }

    /// Handles one reply to a sample request: the sample, or the scenario fails.
    fn take_sample(&mut self, i: usize, round: usize, sample: Sample) {
        let b: Batch = sample.batch;
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
        let slot = &mut self.slots[i];
        slot.samples[round] = Some(b.elapsed_ns as f64 / b.iters as f64);
        slot.untimed[round] = sample.untimed_ns.map(|u| u as f64);
        self.pending.push(Tally {
            slot: i,
            verified,
            preempted: sample.preempted,
        });
    }

    /// The round is complete: its counts join the slots'.
    fn commit_round(&mut self) {
        for t in self.pending.drain(..) {
            let slot = &mut self.slots[t.slot];
            slot.preempted += t.preempted as u64;
            if let Some((expected, observed)) = t.verified {
                let v = slot.verified.get_or_insert((0, 0));
                v.0 += expected;
                v.1 += observed;
            }
        }
    }

    fn worst_ci(&self) -> Option<(usize, f64)> {
        let mut worst: Option<(usize, f64)> = None;
        for i in self.active() {
            let v: Vec<f64> = self.slots[i].samples.iter().flatten().copied().collect();
            let pct = Summary::of(&v)
                .and_then(|s| s.ci_half_width_pct())
                .unwrap_or(f64::INFINITY);
            if worst.is_none_or(|(_, w)| pct > w) {
                worst = Some((i, pct));
            }
        }
        worst
    }
}

/// The order of one round: a fresh permutation every round (Fisher–Yates on a fixed-seed
/// xorshift, so runs are reproducible). A plain rotation would give each scenario almost always
/// the same predecessor, whose cache and branch-predictor footprint then biases short
/// operations; shuffling spreads both position and predecessor over all scenarios.
pub fn round_order(active: &[usize], round: usize) -> Vec<usize> {
    let mut order = active.to_vec();
    let mut x = (round as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    for i in (1..order.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        order.swap(i, (x % (i as u64 + 1)) as usize);
    }
    order
}

/// Measures the scenarios within the budget. `stop` is raised by SIGINT/SIGTERM.
pub fn measure(
    scenarios: &mut [Box<dyn Scenario>],
    opts: &Options,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Outcome {
    let t0 = Instant::now();
    let deadline = t0 + opts.budget;
    // Time kept back for shutting workers down and writing the record.
    let reserve = opts
        .budget
        .mul_f64(0.01)
        .clamp(Duration::from_millis(15), Duration::from_millis(200));
    let n = scenarios.len();
    let mut run = Run {
        workers: Vec::with_capacity(n),
        slots: vec![
            Slot {
                status: Status::Measured,
                reason: None,
                samples: Vec::new(),
                iters_per_sample: 0,
                untimed: Vec::new(),
                preempted: 0,
                verified: None,
            };
            n
        ],
        scenarios,
        stop,
        pending: Vec::new(),
        retired: Vec::new(),
    };
    let report = |phase, rounds, worst: Option<f64>, progress: &mut dyn FnMut(&Progress)| {
        progress(&Progress {
            phase,
            elapsed: t0.elapsed(),
            rounds,
            worst_ci_pct: worst,
        })
    };

    // Setup: fork everything first, then collect the verdicts (setups run concurrently).
    report("setting up", 0, None, progress);
    for i in 0..n {
        match Worker::spawn(run.scenarios[i].as_mut(), opts.cpu, opts.sample_ns) {
            Ok(w) => run.workers.push(Some(w)),
            Err(e) => {
                run.workers.push(None);
                run.slots[i].status = Status::Failed;
                run.slots[i].reason = Some(format!("cannot fork a worker: {e}"));
            }
        }
    }
    // Setup may take at most half the budget (BPF verification can be slow).
    let setup_deadline = t0 + opts.budget.mul_f64(0.5);
    for i in run.active() {
        let wait = setup_deadline
            .saturating_duration_since(Instant::now())
            .max(Duration::from_millis(20));
        let Some(w) = run.workers[i].as_mut() else {
            continue;
        };
        match w.recv(wait, stop) {
            Ok(Reply::Ready) => {}
            Ok(Reply::Skipped(why)) => run.fail(i, Status::Skipped, why),
            Ok(Reply::Failed(why)) => run.fail(i, Status::Failed, format!("setup failed: {why}")),
            Ok(other) => run.fail(i, Status::Failed, format!("unexpected reply {other:?}")),
            Err(WorkerError::Interrupted) => break,
            // Setup may use half the budget; beyond that it is the budget's doing (or a hang,
            // which the reason cannot tell apart, so it says both).
            Err(WorkerError::Timeout(_)) => run.fail(
                i,
                Status::Skipped,
                format!(
                    "its setup did not finish within {:.2} s, half of the budget (a larger \
                     --budget gives it more time; if it still does not finish, it hangs)",
                    opts.budget.as_secs_f64() / 2.0
                ),
            ),
            Err(e) => run.fail(i, Status::Failed, format!("during setup: {e}")),
        }
    }

    // Calibration, one worker at a time: they share the CPU.
    report("calibrating", 0, None, progress);
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
        let reply = match run.workers[i].as_mut() {
            Some(w) => w.request_calibration().and_then(|_| w.recv(wait, stop)),
            None => continue,
        };
        match reply {
            Ok(Reply::Calibrated { iters }) => run.slots[i].iters_per_sample = iters,
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

    // Rounds.
    // A worker silent this long is hung. Generous: on a loaded machine a pinned worker can be
    // starved for hundreds of milliseconds without anything being wrong with it.
    let sample_timeout =
        Duration::from_nanos(opts.sample_ns.saturating_mul(100)).max(Duration::from_secs(2));
    let mut rounds = 0usize;
    let mut out_of_budget = false;
    let mut in_flight = None;
    let mut recent: Vec<Duration> = Vec::new();
    let mut stop_reason = StopReason::Budget;
    let mut worst = None;
    loop {
        if run.interrupted() {
            break;
        }
        let active = run.active();
        if active.is_empty() {
            break;
        }
        let now = Instant::now();
        let remaining = deadline.saturating_duration_since(now + reserve);
        let predicted = recent.iter().max().copied().unwrap_or_else(|| {
            Duration::from_nanos(opts.sample_ns).mul_f64(1.5 * active.len() as f64)
        });
        if predicted > remaining {
            break;
        }
        let round_start = Instant::now();
        for slot in run.slots.iter_mut() {
            slot.samples.push(None);
            slot.untimed.push(None);
        }
        for i in round_order(&active, rounds) {
            let iters = run.slots[i].iters_per_sample;
            let limit = run.scenarios[i]
                .sample_timeout()
                .map_or(sample_timeout, |t| t.max(sample_timeout));
            // Never wait past the budget: a sample still running when it ends is dropped with
            // its round, and that is the budget's doing, not a hang.
            let budget_left = deadline
                .saturating_duration_since(Instant::now())
                .max(Duration::from_millis(20));
            let wait = limit.min(budget_left);
            let reply = match run.workers[i].as_mut() {
                Some(w) => w.request_sample(iters).and_then(|_| w.recv(wait, stop)),
                None => continue,
            };
            match reply {
                Ok(Reply::Batch(sample)) => run.take_sample(i, rounds, sample),
                Ok(Reply::RunFailed(why)) => {
                    run.fail(i, Status::Failed, format!("in round {rounds}: {why}"))
                }
                Ok(other) => run.fail(i, Status::Failed, format!("unexpected reply {other:?}")),
                Err(WorkerError::Interrupted) => break,
                Err(WorkerError::Timeout(_)) if wait < limit => {
                    out_of_budget = true;
                    in_flight = Some(i);
                    break;
                }
                Err(e) => run.fail(i, Status::Failed, format!("in round {rounds}: {e}")),
            }
        }
        if run.interrupted() || out_of_budget {
            break;
        }
        run.commit_round();
        rounds += 1;
        recent.push(round_start.elapsed());
        if recent.len() > 5 {
            recent.remove(0);
        }
        if rounds >= MIN_ROUNDS && rounds.is_multiple_of(CHECK_EVERY) {
            worst = run.worst_ci();
            if let Some((_, pct)) = worst {
                if pct <= opts.target_ci_pct {
                    stop_reason = StopReason::Target;
                    break;
                }
            }
        }
        report("measuring", rounds, worst.map(|w| w.1), progress);
    }
    let interrupted = run.interrupted();
    if stop_reason != StopReason::Target {
        worst = run.worst_ci();
    }
    if let Some(i) = in_flight {
        // Still running the sample the budget cut short: no need to wait for it.
        if let Some(w) = run.workers[i].as_mut() {
            w.kill();
        }
    }
    let mut left: Vec<&mut Worker> = run.workers.iter_mut().flatten().collect();
    if !interrupted {
        Worker::shutdown_all(&mut left, Duration::from_millis(100));
    }
    // Every worker is gone before measure() returns (bounded: an exit the kernel cannot finish
    // must not hang the command).
    left.extend(run.retired.iter_mut());
    Worker::kill_and_reap_all(&mut left, REAP_BOUND);
    // Scenarios that never got a sample (budget spent before the first round).
    for slot in run.slots.iter_mut() {
        slot.samples.truncate(rounds);
        slot.untimed.truncate(rounds);
        if slot.status == Status::Measured && slot.samples.iter().all(|s| s.is_none()) {
            slot.status = Status::Skipped;
            slot.reason = Some(format!(
                "the {:.1} s budget was spent before its first sample (raise --budget)",
                opts.budget.as_secs_f64()
            ));
        }
    }
    Outcome {
        slots: run.slots,
        rounds,
        stop_reason,
        interrupted,
        elapsed: t0.elapsed(),
        worst_ci: worst.filter(|w| w.1.is_finite()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenarios::{RunError, SetupError};

    /// A scenario whose behaviour is scripted: it "costs" `ns_per_op` by spinning, and can
    /// refuse setup, crash, fail, or lie about its verification after `after` batches.
    #[derive(Clone)]
    struct Scripted {
        id: &'static str,
        ns_per_op: u64,
        setup: Result<(), SetupError>,
        fault: Fault,
        after: u32,
        batches: u32,
    }

    #[derive(Clone, Copy, PartialEq)]
    enum Fault {
        None,
        Abort,
        Panic,
        WrongCount,
        BadReturn,
        RunError,
        /// The sample never ends (the worker is killed when the budget is spent).
        Stall,
    }

    impl Scripted {
        fn new(id: &'static str, ns_per_op: u64) -> Scripted {
            Scripted {
                id,
                ns_per_op,
                setup: Ok(()),
                fault: Fault::None,
                after: 0,
                batches: 0,
            }
        }
    }

    impl Scenario for Scripted {
        fn id(&self) -> String {
            self.id.into()
        }
        fn family(&self) -> &'static str {
            "test"
        }
        fn description(&self) -> String {
            "scripted".into()
        }
        fn setup(&mut self) -> Result<(), SetupError> {
            self.setup.clone()
        }
        fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
            self.batches += 1;
            let faulty = self.batches > self.after;
            if faulty && self.fault == Fault::RunError {
                return Err(RunError::Failed(format!(
                    "attaching the BPF program failed: scripted failure of batch {}",
                    self.batches
                )));
            }
            if faulty && self.fault == Fault::Stall {
                std::thread::sleep(Duration::from_secs(60));
            }
            if faulty && self.fault == Fault::Abort {
                std::process::abort();
            }
            if faulty && self.fault == Fault::Panic {
                panic!("scripted panic in a worker");
            }
            let t0 = crate::harness::clock::now_ns();
            while crate::harness::clock::now_ns() - t0 < iters * self.ns_per_op {}
            let elapsed = crate::harness::clock::now_ns() - t0;
            let lie = faulty && self.fault == Fault::WrongCount;
            Ok(Batch {
                iters,
                elapsed_ns: elapsed,
                bad: if faulty && self.fault == Fault::BadReturn {
                    1
                } else {
                    0
                },
                verified: Some(if lie { iters - 1 } else { iters }),
            })
        }
        fn verification(&self) -> Option<&'static str> {
            Some("scripted events")
        }
    }

    fn measure_scripted(list: Vec<Scripted>, budget_ms: u64) -> Outcome {
        let mut scenarios: Vec<Box<dyn Scenario>> = list
            .into_iter()
            .map(|s| Box::new(s) as Box<dyn Scenario>)
            .collect();
        let opts = Options {
            budget: Duration::from_millis(budget_ms),
            target_ci_pct: 0.0001,
            sample_ns: 500_000,
            cpu: *crate::sys::affinity::allowed_cpus().last().unwrap(),
        };
        measure(&mut scenarios, &opts, &AtomicBool::new(false), &mut |_| {})
    }

    #[test]
    fn faults_are_isolated_to_their_scenario() {
        let mut skip = Scripted::new("skip", 100);
        skip.setup = Err(SetupError::Unsupported("not on this kernel".into()));
        let mut broken = Scripted::new("broken", 100);
        broken.setup = Err(SetupError::Failed("boom".into()));
        let mut crash = Scripted::new("crash", 100);
        (crash.fault, crash.after) = (Fault::Abort, 3);
        let mut liar = Scripted::new("liar", 100);
        (liar.fault, liar.after) = (Fault::WrongCount, 4);
        let mut bad = Scripted::new("bad", 100);
        (bad.fault, bad.after) = (Fault::BadReturn, 5);
        let mut panics = Scripted::new("panics", 100);
        (panics.fault, panics.after) = (Fault::Panic, 4);
        let o = measure_scripted(
            vec![
                Scripted::new("good", 200),
                skip,
                broken,
                crash,
                liar,
                bad,
                panics,
            ],
            1500,
        );
        let s = |i: usize| {
            (
                &o.slots[i].status,
                o.slots[i].reason.clone().unwrap_or_default(),
            )
        };
        assert_eq!(*s(0).0, Status::Measured, "{}", s(0).1);
        assert!(o.slots[0].samples.iter().flatten().count() >= MIN_ROUNDS);
        assert_eq!(s(1), (&Status::Skipped, "not on this kernel".to_string()));
        assert_eq!(s(2), (&Status::Failed, "setup failed: boom".to_string()));
        assert_eq!(*s(3).0, Status::Failed);
        assert!(s(3).1.contains("signal 6"), "{}", s(3).1);
        assert_eq!(*s(4).0, Status::Failed);
        assert!(s(4).1.contains("verification failed"), "{}", s(4).1);
        assert_eq!(*s(5).0, Status::Failed);
        assert!(s(5).1.contains("unexpected value"), "{}", s(5).1);
        // A panic in a worker ends that worker (status 101), never unwinds into the engine.
        assert_eq!(*s(6).0, Status::Failed);
        assert!(s(6).1.contains("status 101"), "{}", s(6).1);
        // Samples taken before a fault are kept; none after it.
        let crash_samples = o.slots[3].samples.iter().flatten().count();
        assert!(crash_samples <= 2, "{crash_samples}"); // calibration used batches 1-2
        assert!(o.elapsed <= Duration::from_millis(1500).mul_f64(1.05));
    }

    #[test]
    fn a_run_error_fails_its_scenario_with_the_workers_reason() {
        // Fails in a round (after calibration's batches), or at once, during calibration.
        let mut late = Scripted::new("late", 100);
        (late.fault, late.after) = (Fault::RunError, 14);
        let mut early = Scripted::new("early", 100);
        (early.fault, early.after) = (Fault::RunError, 0);
        let o = measure_scripted(vec![Scripted::new("good", 100), late, early], 1000);
        let reason = |i: usize| o.slots[i].reason.clone().unwrap_or_default();
        assert_eq!(o.slots[0].status, Status::Measured, "{}", reason(0));
        assert_eq!(o.slots[1].status, Status::Failed);
        // The worker's own words reach the slot, with the round they happened in; the samples
        // taken before it are kept.
        let why = reason(1);
        let (round, rest) = why
            .strip_prefix("in round ")
            .and_then(|r| r.split_once(": "))
            .unwrap_or_else(|| panic!("{why}"));
        assert_eq!(
            rest,
            "attaching the BPF program failed: scripted failure of batch 15"
        );
        let round: usize = round.parse().unwrap();
        assert_eq!(o.slots[1].samples.iter().flatten().count(), round);
        assert_eq!(o.slots[2].status, Status::Failed);
        assert_eq!(
            reason(2),
            "during calibration: attaching the BPF program failed: scripted failure of batch 1"
        );
    }

    #[test]
    fn a_round_the_budget_cuts_short_leaves_no_counts_behind() {
        // The stalled sample holds its round until the budget is spent: the round is dropped,
        // and with it what the scenarios sampled before it in that round had counted.
        let mut stall = Scripted::new("stall", 100);
        (stall.fault, stall.after) = (Fault::Stall, 24);
        let mut list: Vec<Scripted> = ["a", "b", "c"]
            .into_iter()
            .map(|id| Scripted::new(id, 100))
            .collect();
        list.push(stall);
        let o = measure_scripted(list, 1000);
        assert_eq!(o.stop_reason, StopReason::Budget);
        for (i, slot) in o.slots.iter().enumerate() {
            assert_eq!(slot.status, Status::Measured, "{i}: {:?}", slot.reason);
            let n = slot.samples.iter().flatten().count() as u64;
            assert_eq!(n, o.rounds as u64, "{i}");
            let ops = n * slot.iters_per_sample;
            assert_eq!(slot.verified, Some((ops, ops)), "{i}: {n} samples");
            assert!(slot.preempted <= n, "{i}");
        }
    }

    #[test]
    fn round_order_is_a_permutation_that_varies_positions_and_predecessors() {
        let active: Vec<usize> = (0..6).collect();
        let mut first = [0usize; 6];
        let mut preds = std::collections::BTreeSet::new();
        for r in 0..600 {
            let o = round_order(&active, r);
            let mut sorted = o.clone();
            sorted.sort();
            assert_eq!(sorted, active);
            first[o[0]] += 1;
            preds.extend(o.windows(2).map(|w| (w[0], w[1])));
        }
        // Every scenario leads some rounds, and every ordered pair occurs as neighbours.
        assert!(first.iter().all(|&n| n > 50), "{first:?}");
        assert_eq!(preds.len(), 30);
        assert_eq!(round_order(&active, 7), round_order(&active, 7));
    }

    #[test]
    fn rounds_interleave_and_pair_samples() {
        let o = measure_scripted(vec![Scripted::new("a", 100), Scripted::new("b", 300)], 800);
        assert!(o.rounds >= MIN_ROUNDS);
        // Every round has both samples: the pairing the overheads rely on.
        for r in 0..o.rounds {
            assert!(o.slots[0].samples[r].is_some() && o.slots[1].samples[r].is_some());
        }
        let a = crate::stats::median(
            &o.slots[0]
                .samples
                .iter()
                .flatten()
                .copied()
                .collect::<Vec<_>>(),
        );
        let b = crate::stats::median(
            &o.slots[1]
                .samples
                .iter()
                .flatten()
                .copied()
                .collect::<Vec<_>>(),
        );
        // Spin-timed: b costs three times a (loose bounds: a shared, noisy machine).
        assert!(b / a > 2.0 && b / a < 4.0, "a {a} b {b}");
    }
}
