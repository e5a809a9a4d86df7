//! The driver: scenarios that are compared with each other are sampled together, in short
//! rounds, and the budget goes, between rounds, to the groups whose targets are not met yet.
//!
//! A [`Group`] is the set of scenarios one or more reported quantities need (an overhead: a
//! scenario and its baseline; the kernel benchmark's estimates: its five scenarios; ...). A
//! round samples every member of one group once, back to back, in an order that changes every
//! round (see [`round_order`]): the samples a quantity is computed from were taken within a few
//! milliseconds of each other, so slow drift (frequency, host load, thermal) cancels in their
//! per-round differences. A group with a system-wide member (a BPF program attached to a
//! syscall tracepoint for the length of its samples) samples its baseline right before and
//! right after the other members; the baseline's value in that round is the mean of the two
//! (ABA), which cancels drift across the long sample too.
//!
//! Which group takes the next round is [`super::allocate`]'s rule; the caller's [`Judge`] says
//! how far each group is from its target. The run ends when every group has met its target, or
//! before the next round would cross the budget — whichever is first.
//!
//! One sample is in flight at a time: a worker is asked for its next sample only once the
//! previous one has answered, and a system-wide scenario answers only once its program is
//! detached. So no scenario is ever measured while another's program is attached.
//!
//! By phase, a module each: `spawn` (a worker per scenario, set up; later instances replace
//! them), `calibrate`, `rounds` (which group next, its round, the epochs of instances, the
//! judge asked again before a stop for the targets), `shutdown`; `run` holds the state they
//! share and takes one round's samples.

pub use super::allocate::MIN_ROUNDS;

mod calibrate;
mod rounds;
mod run;
mod shutdown;
mod spawn;

use crate::scenarios::Scenario;
use crate::stats::Summary;
use rounds::Rounds;
use run::Run;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use syscost_record::{Status, StopReason};

/// Longest wait for the workers' exit when a run ends: a worker holding BPF links takes up to
/// about 0.3 s on the reference VM (the links are released on the way out).
pub const REAP_BOUND: Duration = Duration::from_secs(3);

#[derive(Debug, Clone)]
pub struct Options {
    /// When the budget began: the command's start, so what it did before measuring (probing
    /// the machine) counts against it too.
    pub started: Instant,
    pub budget: Duration,
    /// Target CI half-width, percent (what of is the [`Judge`]'s business).
    pub target_ci_pct: f64,
    /// Intended duration of one sample.
    pub sample_ns: u64,
    pub cpu: u32,
    /// How many instances of every worker the run creates at least, when the budget allows
    /// (fewer when the budget does not fit them, none below three); 1: one worker per scenario
    /// for the whole run.
    pub instances: usize,
}

/// Scenarios sampled together, one round at a time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// Names the group in the record (its quantities' ids, or a family's).
    pub id: String,
    /// Indices into the scenarios.
    pub members: Vec<usize>,
    /// The member the others are compared with: sampled first and last in a round of a group
    /// with a system-wide member.
    pub baseline: Option<usize>,
    /// How many reported quantities its rounds measure: its share of a budget that cannot meet
    /// every target (see [`super::allocate`]).
    pub weight: usize,
}

/// How far a group is from its target, as the [`Judge`] sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Need {
    /// Nothing can be judged yet (too few samples for an interval).
    Unknown,
    /// The widest CI half-width among its quantities, over that quantity's target: at most 1
    /// when every target of the group is met.
    Ratio(f64),
    /// None of its quantities can be computed any more (a member failed): sample it no more.
    Nothing,
}

impl Need {
    pub fn met(self) -> bool {
        matches!(self, Need::Ratio(r) if r <= 1.0)
    }
}

/// Says how far a group is from its target, from the samples so far.
pub trait Judge {
    fn need(&self, group: usize, groups: &[Group], slots: &[Slot]) -> Need;

    /// The variance components of the group's widest quantity, once it was measured in at least
    /// two instances: (within, between), the variance of one instance's estimate from its own
    /// samples and the variance between instances, ns². None when not known: the run's
    /// instances are then spread evenly.
    fn components(&self, _group: usize, _groups: &[Group], _slots: &[Slot]) -> Option<(f64, f64)> {
        None
    }
}

/// The rule of [`measure`]: every member's own CI half-width within `target_ci_pct` percent of
/// its median.
pub struct OwnMedians {
    pub target_ci_pct: f64,
}

impl Judge for OwnMedians {
    fn need(&self, group: usize, groups: &[Group], slots: &[Slot]) -> Need {
        let mut worst: Option<f64> = None;
        for &i in &groups[group].members {
            if slots[i].status != Status::Measured {
                continue;
            }
            match Summary::of(&slots[i].raw).and_then(|s| s.ci_half_width_pct()) {
                Some(pct) => worst = Some(worst.unwrap_or(0.0).max(pct / self.target_ci_pct)),
                None => return Need::Unknown,
            }
        }
        worst.map_or(Need::Nothing, Need::Ratio)
    }
}

/// One scenario's outcome.
#[derive(Debug, Clone)]
pub struct Slot {
    pub status: Status,
    pub reason: Option<String>,
    /// ns per operation, indexed by round; None where the scenario took no sample. A scenario
    /// sampled twice in a round (the baseline around a system-wide member) has the mean of the
    /// two here.
    pub samples: Vec<Option<f64>>,
    /// Every sample, ns per operation, in the order taken (the scenario's own distribution).
    pub raw: Vec<f64>,
    pub iters_per_sample: u64,
    /// Untimed work per sample (ns), indexed by round, for scenarios that report it.
    pub untimed: Vec<Option<f64>>,
    /// Samples during which the worker was involuntarily switched out.
    pub preempted: u64,
    /// Samples set aside and taken again because another task ran during them.
    pub retaken: u64,
    /// Interceptions expected and observed, summed over samples.
    pub verified: Option<(u64, u64)>,
    /// The instance of its worker (0, 1, ...) in each round, indexed by round as `samples`.
    pub instance: Vec<u32>,
}

/// What became of one group.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupOutcome {
    pub rounds: usize,
    /// Wall time its rounds took.
    pub elapsed: Duration,
    /// The judge's last word on it.
    pub need: Need,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub slots: Vec<Slot>,
    /// Rounds completed, over all groups.
    pub rounds: usize,
    /// The group of each round.
    pub round_group: Vec<usize>,
    pub groups: Vec<GroupOutcome>,
    pub stop_reason: StopReason,
    pub interrupted: bool,
    pub elapsed: Duration,
    /// Instances created (the first one included).
    pub instances: usize,
    /// Wall time spent replacing the workers by fresh instances (ending the old ones, setting
    /// up, warming up the new ones).
    pub renewing: Duration,
}

/// What the progress display is told.
#[derive(Debug, Clone)]
pub struct Progress {
    pub phase: &'static str,
    pub elapsed: Duration,
    pub rounds: usize,
    /// Groups that met their targets, of all groups.
    pub met: usize,
    pub groups: usize,
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

/// Measures the scenarios within the budget as one group (every scenario sampled once per
/// round), until every scenario's own CI is within `target_ci_pct` percent of its median.
pub fn measure(
    scenarios: &mut [Box<dyn Scenario>],
    opts: &Options,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Outcome {
    let all = Group {
        id: "all".into(),
        members: (0..scenarios.len()).collect(),
        baseline: None,
        weight: scenarios.len(),
    };
    let judge = OwnMedians {
        target_ci_pct: opts.target_ci_pct,
    };
    measure_groups(scenarios, &[all], &judge, opts, stop, progress)
}

/// Measures the scenarios within the budget, group by group. `stop` is raised by
/// SIGINT/SIGTERM.
pub fn measure_groups(
    scenarios: &mut [Box<dyn Scenario>],
    groups: &[Group],
    judge: &dyn Judge,
    opts: &Options,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(&Progress),
) -> Outcome {
    let t0 = opts.started;
    let deadline = t0 + opts.budget;
    // Time kept back for shutting workers down and writing the record.
    let reserve = opts
        .budget
        .mul_f64(0.01)
        .clamp(Duration::from_millis(15), Duration::from_millis(200));
    let all: Vec<usize> = (0..scenarios.len()).collect();
    let mut run = Run::new(scenarios, stop, t0);
    let mut say = Reporter {
        t0,
        groups: groups.len(),
        progress,
    };

    // Setup: fork everything first, then collect the verdicts (setups run concurrently).
    say.say("setting up", 0, 0);
    // Setup may take at most half the budget (BPF verification can be slow).
    let setup_deadline = t0 + opts.budget.mul_f64(0.5);
    let setup_start = Instant::now();
    run.set_up(&all, opts, setup_deadline, 0);
    // What a fresh instance of every worker costs, until one was made: its setup, twice (for
    // ending the old ones and warming up the new).
    let renew_cost = setup_start.elapsed() * 2;

    // Calibration, one worker at a time: they share the CPU.
    say.say("calibrating", 0, 0);
    calibrate::calibrate(&mut run, deadline, reserve);

    let mut rounds = Rounds::new(groups, judge, opts, deadline, reserve, renew_cost);
    rounds.sample(&mut run, &mut say);

    let interrupted = run.interrupted();
    shutdown::shut_down(&mut run, rounds.in_flight, interrupted, deadline);
    rounds.outcome(run, interrupted, t0)
}

/// Tells the progress display where the run is.
struct Reporter<'p> {
    t0: Instant,
    groups: usize,
    progress: &'p mut dyn FnMut(&Progress),
}

impl Reporter<'_> {
    fn say(&mut self, phase: &'static str, rounds: usize, met: usize) {
        (self.progress)(&Progress {
            phase,
            elapsed: self.t0.elapsed(),
            rounds,
            met,
            groups: self.groups,
        })
    }
}

/// Instances a run makes at least, when its budget allows: the t interval over them needs a
/// few (its multiplier is 3.18 with 4, 2.57 with 6, 2.36 with 8), and each costs a setup.
pub const INSTANCES: usize = 6;

/// Fewest instances a run makes when it makes more than one.
const MIN_INSTANCES: usize = 3;

/// Least measuring time an instance is planned with.
const MIN_INSTANCE_TIME: Duration = Duration::from_millis(500);

/// The share of the budget renewals beyond [`Options::instances`] may take together.
const MAX_RENEWING_SHARE: f64 = 0.1;

/// The shortest epoch: an instance measured for less is mostly its warm-up.
const MIN_EPOCH: Duration = Duration::from_millis(100);

/// How long the epoch that begins now lasts: with `left` the time left for measuring and
/// `more` the instances still to be made at least, each costing `cost`, an even share of what
/// is left — or `best`, the optimum from the variance components, when it is shorter (the
/// between-instance part dominates: more instances narrow the intervals more than more rounds
/// in fewer), but never below [`MIN_EPOCH`] or the cost of an instance.
fn epoch_length(left: Duration, more: usize, cost: Duration, best: Option<Duration>) -> Duration {
    let even = left.saturating_sub(cost * more as u32) / (more as u32 + 1);
    match best {
        Some(b) if b < even => b.max(cost).max(MIN_EPOCH).min(even),
        _ => even,
    }
}

/// The optimum epoch length (Kalibera and Jones 2013, in time): an epoch of length T gives a
/// group n ∝ T rounds, so an instance's estimate has variance B + W·T₀/T (W: its within part
/// at the epochs so far, of mean length T₀; B: between instances), and what is left buys
/// left / (T + S) instances at cost S each. The variance of their mean, (B + W·T₀/T)(T + S) up
/// to a constant, is least at T* = √(S · T₀ · W / B). `parts` holds each unmet group's weight and
/// (W, B); T* is their weighted geometric mean, each capped at `left` (B = 0: the longest).
/// None when no group's components are known.
fn optimal_epoch(
    parts: &[(usize, Option<(f64, f64)>)],
    mean_epoch: Duration,
    cost: Duration,
    left: Duration,
) -> Option<Duration> {
    let cap = left.as_secs_f64().max(1e-3);
    let (mut sum, mut weights) = (0.0, 0.0);
    for &(weight, comp) in parts {
        let Some((w, b)) = comp else { continue };
        let t = if b > 0.0 {
            (cost.as_secs_f64() * mean_epoch.as_secs_f64() * w / b)
                .sqrt()
                .clamp(1e-3, cap)
        } else {
            cap
        };
        sum += weight.max(1) as f64 * t.ln();
        weights += weight.max(1) as f64;
    }
    (weights > 0.0).then(|| Duration::from_secs_f64((sum / weights).exp()))
}

/// Times a sample is taken again when another task ran during it: a preempted sample holds
/// that task's time, and preemption is not evenly spread over processes on a busy machine (one
/// worker may be switched out twice as often as another for a whole run), so keeping such
/// samples biases paired differences, not only widens them.
pub const RETAKES: u32 = 3;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Batch;
    use crate::scenarios::{RunError, SetupError};
    use crate::stats::instances::{pool, Pooled};
    use crate::sys::shared::Shared;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Events the scripted workers write, in the order they happen: (scenario tag, start or end
    /// of a sample), from every worker process at once.
    #[repr(C)]
    struct Log {
        next: AtomicU64,
        /// Set while a system-wide scenario's sample runs.
        attached: AtomicU64,
        /// Samples of other scenarios that began or ended while it was set.
        overlaps: AtomicU64,
        events: [AtomicU64; LOG_EVENTS],
    }

    const LOG_EVENTS: usize = 1 << 16;
    const START: u64 = 1 << 32;

    impl Log {
        fn new() -> &'static Log {
            // Shared with the forked workers; lives as long as the test process.
            let shm: &'static Shared<Log> = Box::leak(Box::new(Shared::new().unwrap()));
            shm
        }
        fn push(&self, tag: u64) {
            let i = self.next.fetch_add(1, Ordering::SeqCst) as usize;
            if i < LOG_EVENTS {
                self.events[i].store(tag, Ordering::SeqCst);
            }
        }
        /// (tag, is start) of every event so far.
        fn events(&self) -> Vec<(u64, bool)> {
            let n = (self.next.load(Ordering::SeqCst) as usize).min(LOG_EVENTS);
            self.events[..n]
                .iter()
                .map(|e| {
                    let v = e.load(Ordering::SeqCst);
                    (v & (START - 1), v & START != 0)
                })
                .collect()
        }
    }

    /// A scenario whose behaviour is scripted: it "costs" `ns_per_op` by spinning, and can
    /// refuse setup, crash, fail, or lie about its verification after `after` batches. With
    /// `noise`, it reports `ns_per_op` spread by that fraction (a fixed pseudo-random sequence)
    /// instead of the time it spun; `extra_ns` is untimed work per sample (an attach cycle).
    #[derive(Clone)]
    struct Scripted {
        id: &'static str,
        ns_per_op: u64,
        setup: Result<(), SetupError>,
        fault: Fault,
        after: u32,
        batches: u32,
        noise: Option<f64>,
        extra_ns: u64,
        system_wide: bool,
        log: Option<(&'static Log, u64)>,
        rng: u64,
        /// Each instance (worker process) draws the next of these offsets, ns per operation,
        /// from a counter shared with the test: instances that differ by a known amount.
        per_instance: Option<(&'static AtomicU64, &'static [f64])>,
        offset: f64,
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
                noise: None,
                extra_ns: 0,
                system_wide: false,
                log: None,
                rng: 0x2545_f491_4f6c_dd1d ^ ns_per_op,
                per_instance: None,
                offset: 0.0,
            }
        }
        fn noisy(id: &'static str, ns_per_op: u64, noise: f64) -> Scripted {
            Scripted {
                noise: Some(noise),
                ..Scripted::new(id, ns_per_op)
            }
        }
        fn logged(mut self, log: &'static Log, tag: u64) -> Scripted {
            self.log = Some((log, tag));
            self.rng ^= tag.wrapping_mul(0x9e37_79b9_7f4a_7c15);
            self
        }
        fn spin(ns: u64) {
            let t0 = crate::harness::clock::now_ns();
            while crate::harness::clock::now_ns() - t0 < ns {}
        }
        fn batch(&mut self, iters: u64) -> Batch {
            let t0 = crate::harness::clock::now_ns();
            Scripted::spin(iters * self.ns_per_op);
            let spun = crate::harness::clock::now_ns() - t0;
            let elapsed = match self.noise {
                Some(a) => {
                    self.rng ^= self.rng << 13;
                    self.rng ^= self.rng >> 7;
                    self.rng ^= self.rng << 17;
                    let u = (self.rng >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0;
                    ((iters * self.ns_per_op) as f64 * (1.0 + a * u) + self.offset * iters as f64)
                        as u64
                }
                None => spun + (self.offset * iters as f64) as u64,
            };
            Batch {
                iters,
                elapsed_ns: elapsed,
                bad: 0,
                verified: Some(iters),
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
            if let Some((next, offsets)) = self.per_instance {
                let k = next.fetch_add(1, Ordering::SeqCst) as usize;
                self.offset = offsets[k % offsets.len()];
            }
            self.setup.clone()
        }
        fn calibration_run(&mut self, iters: u64) -> Result<Batch, RunError> {
            // The fault scripts count calibration batches; logged ones must not log them.
            match self.log {
                Some(_) => Ok(self.batch(iters)),
                None => self.run(iters),
            }
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
            if let Some((log, tag)) = self.log {
                log.push(tag | START);
                if self.system_wide {
                    log.attached.store(1, Ordering::SeqCst);
                } else if log.attached.load(Ordering::SeqCst) != 0 {
                    log.overlaps.fetch_add(1, Ordering::SeqCst);
                }
            }
            Scripted::spin(self.extra_ns / 2);
            let mut b = self.batch(iters);
            Scripted::spin(self.extra_ns / 2);
            if let Some((log, tag)) = self.log {
                if self.system_wide {
                    // Detached before answering, as a system-wide scenario must be.
                    log.attached.store(0, Ordering::SeqCst);
                } else if log.attached.load(Ordering::SeqCst) != 0 {
                    log.overlaps.fetch_add(1, Ordering::SeqCst);
                }
                log.push(tag);
            }
            if faulty && self.fault == Fault::WrongCount {
                b.verified = Some(iters - 1);
            }
            if faulty && self.fault == Fault::BadReturn {
                b.bad = 1;
            }
            Ok(b)
        }
        fn verification(&self) -> Option<&'static str> {
            Some("scripted events")
        }
        fn system_wide(&self) -> bool {
            self.system_wide
        }
        fn preemption_is_noise(&self) -> bool {
            // Its times are scripted: a busy machine must not change how many samples it takes.
            false
        }
    }

    fn options(budget_ms: u64) -> Options {
        Options {
            started: Instant::now(),
            budget: Duration::from_millis(budget_ms),
            target_ci_pct: 0.0001,
            sample_ns: 500_000,
            cpu: *crate::sys::affinity::allowed_cpus().last().unwrap(),
            instances: 1,
        }
    }

    fn boxed(list: Vec<Scripted>) -> Vec<Box<dyn Scenario>> {
        list.into_iter()
            .map(|s| Box::new(s) as Box<dyn Scenario>)
            .collect()
    }

    /// The scripted runs share the measurement CPU: one at a time, or each would see a fraction
    /// of its budget.
    static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

    fn measure_scripted(list: Vec<Scripted>, budget_ms: u64) -> Outcome {
        let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
        let mut scenarios = boxed(list);
        measure(
            &mut scenarios,
            &options(budget_ms),
            &AtomicBool::new(false),
            &mut |_| {},
        )
    }

    /// Judges each group by the paired difference of its last member over its first: CI
    /// half-width over `target_ns`.
    struct Pairs {
        target_ns: f64,
    }

    impl Judge for Pairs {
        fn need(&self, group: usize, groups: &[Group], slots: &[Slot]) -> Need {
            let m = &groups[group].members;
            let (a, b) = (&slots[m[0]], &slots[m[m.len() - 1]]);
            if a.status != Status::Measured || b.status != Status::Measured {
                return Need::Nothing;
            }
            let d = crate::stats::per_round(&[&b.samples, &a.samples], |x| x[1] - x[0]);
            match Summary::of(&d).and_then(|s| s.ci) {
                Some((lo, hi)) => Need::Ratio((hi - lo) / 2.0 / self.target_ns),
                None => Need::Unknown,
            }
        }
    }

    fn group(id: &str, members: &[usize]) -> Group {
        Group {
            id: id.into(),
            members: members.to_vec(),
            baseline: Some(members[0]),
            weight: 1,
        }
    }

    fn measure_grouped(
        list: Vec<Scripted>,
        groups: &[Group],
        target_ns: f64,
        budget_ms: u64,
    ) -> Outcome {
        let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
        let mut scenarios = boxed(list);
        let o = measure_groups(
            &mut scenarios,
            groups,
            &Pairs { target_ns },
            &options(budget_ms),
            &AtomicBool::new(false),
            &mut |_| {},
        );
        for (i, s) in o.slots.iter().enumerate() {
            assert_eq!(s.status, Status::Measured, "{i}: {:?}", s.reason);
        }
        o
    }

    fn samples(o: &Outcome, i: usize) -> usize {
        o.slots[i].samples.iter().flatten().count()
    }

    #[test]
    fn a_groups_members_are_sampled_together_within_its_round() {
        let log = Log::new();
        let list = vec![
            Scripted::noisy("a", 100, 0.05).logged(log, 0),
            Scripted::noisy("b", 100, 0.05).logged(log, 1),
            Scripted::noisy("c", 100, 0.05).logged(log, 2),
            Scripted::noisy("d", 100, 0.05).logged(log, 3),
            Scripted::noisy("e", 100, 0.05).logged(log, 4),
        ];
        let groups = [group("ab", &[0, 1]), group("acde", &[0, 2, 3, 4])];
        let o = measure_grouped(list, &groups, 1e-6, 1200);
        assert!(
            o.groups.iter().all(|g| g.rounds >= MIN_ROUNDS),
            "{:?}",
            o.groups
        );
        // Every round holds a sample of each member of its group and of nothing else.
        for (r, &g) in o.round_group.iter().enumerate() {
            for (i, slot) in o.slots.iter().enumerate() {
                let member = groups[g].members.contains(&i);
                assert_eq!(slot.samples[r].is_some(), member, "round {r}, scenario {i}");
            }
        }
        // And those samples were taken back to back: the log, in the order things happened,
        // is the rounds one after the other, each a run of its members' samples with nothing
        // in between.
        let events = log.events();
        let mut at = 0;
        for &g in &o.round_group {
            let mut seen: Vec<u64> = Vec::new();
            for _ in &groups[g].members {
                let (tag, start) = events[at];
                assert!(start && events[at + 1] == (tag, false), "event {at}");
                seen.push(tag);
                at += 2;
            }
            seen.sort();
            let want: Vec<u64> = groups[g].members.iter().map(|&i| i as u64).collect();
            assert_eq!(seen, want);
        }
        assert_eq!(at, events.len());
    }

    #[test]
    fn a_group_that_met_its_target_is_no_longer_sampled() {
        // Group 0's difference is exact (no noise): its interval has no width once judged.
        // Group 1's is noisy, with a target it cannot reach: it takes every other round.
        let list = vec![
            Scripted::noisy("base", 100, 0.0),
            Scripted::noisy("exact", 150, 0.0),
            Scripted::noisy("base2", 100, 0.1),
            Scripted::noisy("noisy", 150, 0.1),
        ];
        let groups = [group("exact", &[0, 1]), group("noisy", &[2, 3])];
        let o = measure_grouped(list, &groups, 1e-6, 1000);
        assert_eq!(o.groups[0].rounds, MIN_ROUNDS);
        assert!(o.groups[0].need.met(), "{:?}", o.groups[0]);
        assert!(o.groups[1].rounds > 3 * MIN_ROUNDS, "{:?}", o.groups);
        // Its rounds are the first ones (warm-up in turn); none after it met its target.
        let last = o.round_group.iter().rposition(|&g| g == 0).unwrap();
        assert!(last < 2 * MIN_ROUNDS, "{last}");
        assert_eq!(o.stop_reason, StopReason::Budget);
    }

    /// Group 0's target moves with group 1's samples, as a target relative to native's median
    /// does with the rounds of the groups that sample native: within it while group 1 has
    /// fewer than its warm-up rounds, then not until group 0 has twice them.
    struct Moving;

    impl Judge for Moving {
        fn need(&self, group: usize, groups: &[Group], slots: &[Slot]) -> Need {
            let n = |g: usize| slots[groups[g].members[0]].samples.iter().flatten().count();
            let within = group != 0 || n(1) < MIN_ROUNDS || n(0) >= 2 * MIN_ROUNDS;
            Need::Ratio(if within { 0.5 } else { 2.0 })
        }
    }

    #[test]
    fn a_stop_for_the_targets_is_judged_on_the_samples_it_stops_with() {
        let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
        let mut scenarios = boxed(vec![
            Scripted::noisy("base", 100, 0.0),
            Scripted::noisy("a", 150, 0.0),
            Scripted::noisy("base2", 100, 0.0),
            Scripted::noisy("b", 150, 0.0),
        ]);
        let groups = [group("a", &[0, 1]), group("b", &[2, 3])];
        let o = measure_groups(
            &mut scenarios,
            &groups,
            &Moving,
            &options(3000),
            &AtomicBool::new(false),
            &mut |_| {},
        );
        assert_eq!(o.stop_reason, StopReason::Target, "{:?}", o.groups);
        // Every group is within its target on the samples the run ended with: group 0 was
        // sampled again once group 1's rounds had moved its target.
        for g in 0..groups.len() {
            assert!(
                Moving.need(g, &groups, &o.slots).met(),
                "{g}: {:?}",
                o.groups
            );
        }
        assert!(o.groups[0].rounds >= 2 * MIN_ROUNDS, "{:?}", o.groups);
    }

    #[test]
    fn every_group_meeting_its_target_ends_the_run() {
        let list = vec![
            Scripted::noisy("base", 100, 0.0),
            Scripted::noisy("x", 150, 0.0),
        ];
        let o = measure_grouped(list, &[group("x", &[0, 1])], 1.0, 3000);
        assert_eq!(o.stop_reason, StopReason::Target);
        assert_eq!(o.rounds, MIN_ROUNDS);
        assert!(o.elapsed < Duration::from_millis(3000) / 2);
    }

    #[test]
    fn an_expensive_group_gets_fewer_samples_than_a_cheap_one_at_equal_precision() {
        // Two pairs of the same noise and the same (unreachable) target; each sample of the
        // second carries untimed work (an attach cycle) 32 samples long. Rounds go as
        // 1 / cost: the cheap pair takes several times as many, the dear one is not starved.
        let mut dear = Scripted::noisy("dear", 150, 0.1);
        dear.extra_ns = 16_000_000;
        let list = vec![
            Scripted::noisy("base", 100, 0.1),
            Scripted::noisy("cheap", 150, 0.1),
            Scripted::noisy("base2", 100, 0.1),
            dear,
        ];
        let groups = [group("cheap", &[0, 1]), group("dear", &[2, 3])];
        let o = measure_grouped(list, &groups, 1e-6, 2000);
        let (cheap, dear) = (&o.groups[0], &o.groups[1]);
        assert!(dear.rounds >= 2 * MIN_ROUNDS, "{:?}", o.groups);
        assert!(cheap.rounds >= 2 * dear.rounds, "{:?}", o.groups);
        assert!(samples(&o, 1) >= 2 * samples(&o, 3));
        // A round of the dear group costs more: the allocation saw it, and gave both pairs
        // (one quantity each) about the same time.
        let per_round = |g: &GroupOutcome| g.elapsed.as_secs_f64() / g.rounds as f64;
        assert!(per_round(dear) > 4.0 * per_round(cheap), "{:?}", o.groups);
        let time = dear.elapsed.as_secs_f64() / cheap.elapsed.as_secs_f64();
        assert!(time > 0.5 && time < 2.0, "{:?}", o.groups);
    }

    #[test]
    fn nothing_is_sampled_while_a_system_wide_scenario_is_attached() {
        // `attached` is set for the whole of each sample of the system-wide scenario; every
        // other scenario checks it when its own sample begins and ends.
        let log = Log::new();
        let mut sw = Scripted::noisy("sw", 150, 0.05).logged(log, 1);
        sw.system_wide = true;
        let list = vec![
            Scripted::noisy("base", 100, 0.05).logged(log, 0),
            sw,
            Scripted::noisy("other", 100, 0.05).logged(log, 2),
            Scripted::noisy("other2", 120, 0.05).logged(log, 3),
        ];
        let groups = [group("sw", &[0, 1]), group("others", &[0, 2, 3])];
        let o = measure_grouped(list, &groups, 1e-6, 1200);
        assert!(o.groups[0].rounds >= MIN_ROUNDS, "{:?}", o.groups);
        assert_eq!(log.overlaps.load(Ordering::SeqCst), 0);
        // No sample begins between the system-wide one's start and end, and its baseline is
        // sampled right before and right after it.
        let events = log.events();
        let starts: Vec<usize> = (0..events.len())
            .filter(|&k| events[k] == (1, true))
            .collect();
        // The first is calibration's trial sample (it measures the attach cycle), alone.
        assert_eq!(starts.len(), samples(&o, 1) + 1);
        assert_eq!(events[starts[0] + 1], (1, false));
        for &k in &starts[1..] {
            assert_eq!(events[k + 1], (1, false), "event {k}");
            assert_eq!(events[k - 1], (0, false), "event {k}: no baseline before");
            assert_eq!(events[k + 2], (0, true), "event {k}: no baseline after");
        }
        // The baseline's value in those rounds is the mean of its two samples; it has one
        // sample per round of the other group.
        let base_raw = o.slots[0].raw.len();
        assert_eq!(base_raw, 2 * o.groups[0].rounds + o.groups[1].rounds);
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

    /// A pair whose second member's instances differ by known offsets (their mean 0, sd 5 ns,
    /// each instance's own noise 0.05 %), measured with `instances` instances: the overhead's
    /// pooled summary, the instances made, and the offsets the instances drew.
    fn offset_instances(instances: usize) -> (Pooled, usize) {
        static OFFSETS: [f64; 6] = [-6.0, 4.0, -2.0, 7.0, 1.0, -4.0];
        let next: &'static Shared<AtomicU64> = Box::leak(Box::new(Shared::new().unwrap()));
        let mut b = Scripted::noisy("b", 1100, 0.0005);
        b.per_instance = Some((next, &OFFSETS));
        let list = vec![Scripted::noisy("a", 1000, 0.0005), b];
        let _one = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
        let mut scenarios = boxed(list);
        let opts = Options {
            instances,
            ..options(3600)
        };
        let o = measure(&mut scenarios, &opts, &AtomicBool::new(false), &mut |_| {});
        let a = &o.slots[0];
        let b = &o.slots[1];
        assert_eq!(a.instance, b.instance);
        let (d, t) =
            crate::stats::per_round_tagged(&[&b.samples, &a.samples], &b.instance, |x| x[0] - x[1]);
        (pool(&d, &t).unwrap(), o.instances)
    }

    #[test]
    fn epochs_share_what_is_left_unless_the_components_ask_for_shorter() {
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        // 29 s left, 5 more instances at 0.5 s each: six epochs of 4.4 s.
        assert_eq!(
            epoch_length(s(29), 5, ms(500), None),
            Duration::from_nanos(4_416_666_666)
        );
        assert_eq!(epoch_length(s(29), 0, ms(500), None), s(29));
        // The optimum is taken when shorter, never below the renewal or MIN_EPOCH.
        assert_eq!(epoch_length(s(29), 5, ms(500), Some(s(2))), s(2));
        assert_eq!(
            epoch_length(s(29), 5, ms(500), Some(s(10))),
            epoch_length(s(29), 5, ms(500), None)
        );
        assert_eq!(epoch_length(s(29), 5, ms(500), Some(ms(50))), ms(500));
        assert_eq!(epoch_length(s(29), 5, ms(20), Some(ms(50))), MIN_EPOCH);
    }

    #[test]
    fn the_optimal_epoch_follows_the_components() {
        let s = Duration::from_secs;
        // T* = √(S · T₀ · W / B): S = 0.5 s, T₀ = 4 s, W = B: √2 s.
        let t = optimal_epoch(
            &[(1, Some((1.0, 1.0)))],
            s(4),
            Duration::from_millis(500),
            s(20),
        );
        assert!(
            (t.unwrap().as_secs_f64() - 2f64.sqrt()).abs() < 1e-6,
            "{t:?}"
        );
        // Between four times within: half that; nothing between: as long as what is left.
        let t = optimal_epoch(
            &[(1, Some((1.0, 4.0)))],
            s(4),
            Duration::from_millis(500),
            s(20),
        );
        assert!(
            (t.unwrap().as_secs_f64() - 2f64.sqrt() / 2.0).abs() < 1e-6,
            "{t:?}"
        );
        let t = optimal_epoch(
            &[(1, Some((1.0, 0.0)))],
            s(4),
            Duration::from_millis(500),
            s(20),
        );
        assert_eq!(t, Some(s(20)));
        // Weighted geometric mean over the groups; unknown components do not count.
        let t = optimal_epoch(
            &[(3, Some((1.0, 1.0))), (1, None), (1, Some((4.0, 1.0)))],
            s(4),
            Duration::from_millis(500),
            s(20),
        );
        let want = (3.0 * 2f64.sqrt().ln() + (2.0 * 2f64.sqrt()).ln()) / 4.0;
        assert!(
            (t.unwrap().as_secs_f64() - want.exp()).abs() < 1e-6,
            "{t:?}"
        );
        assert_eq!(optimal_epoch(&[(1, None)], s(4), s(1), s(20)), None);
    }

    #[test]
    fn an_interval_over_instances_covers_their_offsets_and_one_instance_cannot() {
        // The true overhead, over the instances a rerun could draw: 100 ns (the offsets' mean
        // is 0).
        let (p, made) = offset_instances(6);
        assert!(made >= 5, "{made} instances");
        assert_eq!(p.instances, made);
        let (lo, hi) = p.ci.unwrap();
        assert!(lo <= 100.0 && 100.0 <= hi, "{p:?}");
        // The between component is the offsets' spread (sd 5.0 over all six), and dominates.
        let between = p.between.unwrap();
        assert!((2.5..8.0).contains(&between), "{p:?}");
        assert!(p.within.unwrap() < between / 5.0, "{p:?}");
        // One instance: a narrow interval around its own offset (−6), which misses 100.
        let (one, made) = offset_instances(1);
        assert_eq!((made, one.instances, one.between), (1, 1, None));
        let (lo, hi) = one.ci.unwrap();
        assert!(hi < 100.0 && (lo..=hi).contains(&94.0), "{one:?}");
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
