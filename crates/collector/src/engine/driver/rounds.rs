//! The rounds: which group takes the next one ([`crate::engine::allocate`]'s rule), its round,
//! the judge's word after it; the epochs that cut the rounds into instances; and, before the
//! run stops for its targets, the judge asked again on all the samples.

use super::run::{sample_round, RoundEnd, Run};
use super::{
    epoch_length, optimal_epoch, Group, GroupOutcome, Judge, Need, Options, Outcome, Reporter,
    MAX_RENEWING_SHARE, MIN_EPOCH, MIN_INSTANCES, MIN_INSTANCE_TIME, MIN_ROUNDS,
};
use crate::engine::allocate::{self, GroupState};
use std::time::{Duration, Instant};
use syscost_record::{Status, StopReason};

/// The state of the rounds, group by group, and of the instances.
pub(super) struct Rounds<'g> {
    groups: &'g [Group],
    judge: &'g dyn Judge,
    opts: &'g Options,
    deadline: Instant,
    /// Time kept back for shutting workers down and writing the record.
    reserve: Duration,
    sample_timeout: Duration,
    states: Vec<GroupState>,
    needs: Vec<Need>,
    /// Durations of each group's last rounds: the next one is predicted from them.
    recent: Vec<Vec<Duration>>,
    judged_at: Vec<usize>,
    /// The group of each round.
    round_group: Vec<usize>,
    /// The worker whose sample the budget cut short.
    pub(super) in_flight: Option<usize>,
    stop_reason: StopReason,
    // Instances: the rounds are cut into epochs, each with a fresh instance of every worker.
    instance: u32,
    measuring_from: Instant,
    renewing: Duration,
    renewals: u32,
    /// What a fresh instance of every worker costs.
    renew_cost: Duration,
    planned: usize,
    epoch_end: Instant,
}

impl<'g> Rounds<'g> {
    /// Before the first round: `renew_cost` is what a fresh instance of every worker is
    /// expected to cost.
    pub(super) fn new(
        groups: &'g [Group],
        judge: &'g dyn Judge,
        opts: &'g Options,
        deadline: Instant,
        reserve: Duration,
        renew_cost: Duration,
    ) -> Rounds<'g> {
        // A worker silent this long is hung. Generous: on a loaded machine a pinned worker can
        // be starved for hundreds of milliseconds without anything being wrong with it.
        let sample_timeout =
            Duration::from_nanos(opts.sample_ns.saturating_mul(100)).max(Duration::from_secs(2));
        let measuring_from = Instant::now();
        let mut r = Rounds {
            groups,
            judge,
            opts,
            deadline,
            reserve,
            sample_timeout,
            states: groups
                .iter()
                .map(|g| GroupState {
                    weight: g.weight,
                    ..GroupState::default()
                })
                .collect(),
            needs: vec![Need::Unknown; groups.len()],
            recent: vec![Vec::new(); groups.len()],
            judged_at: vec![0usize; groups.len()],
            round_group: Vec::new(),
            in_flight: None,
            stop_reason: StopReason::Budget,
            instance: 0,
            measuring_from,
            renewing: Duration::ZERO,
            renewals: 0,
            renew_cost,
            planned: 1,
            epoch_end: deadline,
        };
        // As many as the budget fits, each with a few rounds at least; fewer than a t interval
        // can use (its multiplier is 12.7 with 2) are none: the run is then one instance, and
        // says so.
        let fit = r.left(measuring_from).as_secs_f64()
            / (renew_cost + MIN_INSTANCE_TIME).as_secs_f64().max(1e-3);
        r.planned = match opts.instances.min(fit as usize) {
            n if n >= MIN_INSTANCES => n,
            _ => 1,
        };
        if r.planned > 1 {
            r.epoch_end = measuring_from
                + epoch_length(r.left(measuring_from), r.planned - 1, renew_cost, None);
        }
        r
    }

    /// Time left for measuring at `now`.
    fn left(&self, now: Instant) -> Duration {
        self.deadline.saturating_duration_since(now + self.reserve)
    }

    /// Renewing is worth it while an epoch longer than the renewal would follow.
    fn affordable(&self, now: Instant, cost: Duration) -> bool {
        self.left(now) >= cost * 2 + MIN_EPOCH
    }

    /// Whether the run goes on after a round (or a renewal) ended so.
    fn goes_on(&mut self, end: RoundEnd) -> bool {
        match end {
            RoundEnd::Complete => true,
            RoundEnd::Interrupted => false,
            RoundEnd::OutOfBudget(i) => {
                self.in_flight = Some(i);
                false
            }
        }
    }

    /// Rounds until every target is met, the budget is spent or the run is interrupted.
    pub(super) fn sample(&mut self, run: &mut Run, say: &mut Reporter) {
        let mut last_report = Instant::now();
        loop {
            if run.interrupted() {
                break;
            }
            let now = Instant::now();
            if self.planned > 1 && now >= self.epoch_end && !self.next_epoch(run, say, now) {
                break;
            }
            let candidates = self.candidates(run);
            if candidates.is_empty() {
                if self.rejudge(run) {
                    continue;
                }
                // Every target met in this instance: the next one, while the minimum is not
                // made.
                let now = Instant::now();
                if (self.instance as usize + 1) < self.planned
                    && self.affordable(now, self.renew_cost)
                {
                    self.epoch_end = now;
                    continue;
                }
                if self.needs.iter().any(|n| n.met()) {
                    self.stop_reason = StopReason::Target;
                }
                break;
            }
            let Some(g) = self.pick(run, &candidates) else {
                break;
            };
            if !self.round(run, g) {
                break;
            }
            if last_report.elapsed() >= Duration::from_millis(50) {
                last_report = Instant::now();
                let met = self.needs.iter().filter(|n| n.met()).count();
                say.say("measuring", self.round_group.len(), met);
            }
        }
    }

    /// The epoch is over: a fresh instance of every worker, unless renewing costs more than
    /// it is worth (then this epoch lasts to the deadline). False: the run ends.
    fn next_epoch(&mut self, run: &mut Run, say: &mut Reporter, now: Instant) -> bool {
        let groups = self.groups;
        // Beyond the minimum, renewing may take at most a share of the budget.
        let capped = self.instance as usize + 1 >= self.planned
            && self.renewing + self.renew_cost > self.opts.budget.mul_f64(MAX_RENEWING_SHARE);
        if capped || !self.affordable(now, self.renew_cost) {
            self.epoch_end = self.deadline;
            return true;
        }
        // The optimum epoch from the components of the instances so far.
        let measured = now
            .saturating_duration_since(self.measuring_from)
            .saturating_sub(self.renewing);
        let best = (self.instance >= 1).then(|| {
            let unmet: Vec<usize> = (0..groups.len())
                .filter(|&g| !self.needs[g].met() && self.needs[g] != Need::Nothing)
                .collect();
            let parts: Vec<(usize, Option<(f64, f64)>)> = unmet
                .iter()
                .map(|&g| {
                    (
                        groups[g].weight,
                        self.judge.components(g, groups, &run.slots),
                    )
                })
                .collect();
            optimal_epoch(
                &parts,
                measured / (self.instance + 1),
                self.renew_cost,
                self.left(now),
            )
        });
        self.instance += 1;
        say.say("renewing", self.round_group.len(), 0);
        let t = Instant::now();
        let end = run.renew(
            self.opts,
            self.deadline,
            self.sample_timeout,
            self.instance,
            self.round_group.len(),
        );
        self.renewing += t.elapsed();
        self.renewals += 1;
        self.renew_cost = self.renewing / self.renewals;
        if !self.goes_on(end) {
            return false;
        }
        for g in 0..groups.len() {
            if self.needs[g] != Need::Nothing {
                self.needs[g] = Need::Unknown;
            }
            self.states[g].here = 0;
            self.judged_at[g] = 0;
        }
        let more = self.planned.saturating_sub(self.instance as usize + 1);
        let now = Instant::now();
        self.epoch_end = now + epoch_length(self.left(now), more, self.renew_cost, best.flatten());
        true
    }

    /// The groups that still need rounds and can still measure something.
    fn candidates(&self, run: &Run) -> Vec<usize> {
        let groups = self.groups;
        // A group whose members other than its baseline are all gone measures nothing — but
        // its baseline's own median when no other group samples it any more.
        let alive = |g: &Group, i: usize| run.workers[i].is_some() && Some(i) != g.baseline;
        let compares = |g: &Group| g.members.iter().any(|&i| alive(g, i));
        let measures = |g: &Group| {
            compares(g)
                || g.baseline.is_some_and(|b| {
                    run.workers[b].is_some()
                        && !groups.iter().any(|o| o.members.contains(&b) && compares(o))
                })
                || (g.baseline.is_none() && g.members.iter().any(|&i| run.workers[i].is_some()))
        };
        (0..groups.len())
            .filter(|&g| {
                !self.needs[g].met() && self.needs[g] != Need::Nothing && measures(&groups[g])
            })
            .collect()
    }

    /// Every group met its target as last judged. A group's targets can move after it was
    /// judged: a target relative to native's median follows the rounds of the other groups
    /// that sample native. Judged again on the samples as they are, so that a stop for the
    /// targets is one the record's analysis of the same samples agrees with; true when a group
    /// is no longer within them (it is sampled again).
    fn rejudge(&mut self, run: &Run) -> bool {
        let mut moved = false;
        for g in 0..self.groups.len() {
            if !self.needs[g].met() {
                continue;
            }
            let now = self.judge.need(g, self.groups, &run.slots);
            if !now.met() {
                self.needs[g] = now;
                self.states[g].ratio = match now {
                    Need::Ratio(r) => Some(r),
                    _ => None,
                };
                moved = true;
            }
        }
        moved
    }

    /// The group that takes the next round, of `candidates`: the allocation's first that fits
    /// in the budget left, preferring one whose workers are ready.
    fn pick(&self, run: &Run, candidates: &[usize]) -> Option<usize> {
        let groups = self.groups;
        let now = Instant::now();
        let remaining = self.deadline.saturating_duration_since(now + self.reserve);
        // The next round of a group lasts about as long as the longest of its last ones; before
        // its first, as long as its members' last samples (the baseline twice around a
        // system-wide member), with a margin.
        let predicted = |g: usize| {
            self.recent[g].iter().max().copied().unwrap_or_else(|| {
                let guess = |i: usize| {
                    run.sample_wall[i].unwrap_or(Duration::from_nanos(self.opts.sample_ns))
                };
                let order = run.order(&groups[g], 0);
                order
                    .iter()
                    .map(|&i| guess(i))
                    .sum::<Duration>()
                    .mul_f64(1.5)
            })
        };
        let ranked = allocate::rank(&self.states, candidates, remaining);
        let fits: Vec<usize> = ranked
            .into_iter()
            .filter(|&g| predicted(g) <= remaining)
            .collect();
        let ready = |g: usize| groups[g].members.iter().all(|&i| run.ready_at[i] <= now);
        fits.iter()
            .copied()
            .find(|&g| ready(g))
            .or(fits.first().copied())
    }

    /// One round of group `g`, then the judge's word on it when it is due. False: the run
    /// ends (interrupted, or the budget ran out during the round, which is dropped).
    fn round(&mut self, run: &mut Run, g: usize) -> bool {
        let round = self.round_group.len();
        let round_start = Instant::now();
        for slot in run.slots.iter_mut() {
            slot.samples.push(None);
            slot.untimed.push(None);
            slot.instance.push(self.instance);
        }
        let order = run.order(&self.groups[g], self.states[g].rounds);
        let end = sample_round(run, &order, round, self.deadline, self.sample_timeout);
        if !self.goes_on(end) {
            return false;
        }
        run.commit_round(round);
        self.round_group.push(g);
        let took = round_start.elapsed();
        let st = &mut self.states[g];
        st.rounds += 1;
        st.here += 1;
        st.spent += took;
        self.recent[g].push(took);
        if self.recent[g].len() > 5 {
            self.recent[g].remove(0);
        }
        // Judging sorts the group's per-round values: every round at first, then every
        // twentieth of its rounds so far.
        if st.rounds >= MIN_ROUNDS
            && st.here >= allocate::MIN_PER_INSTANCE.min(MIN_ROUNDS)
            && st.rounds - self.judged_at[g] >= (st.rounds / 20).max(1)
        {
            self.judged_at[g] = st.rounds;
            self.needs[g] = self.judge.need(g, self.groups, &run.slots);
            st.ratio = match self.needs[g] {
                Need::Ratio(r) => Some(r),
                _ => None,
            };
        }
        true
    }

    /// The outcome, once the workers are gone: rounds beyond the last complete one dropped, a
    /// scenario that never got a sample skipped with the reason.
    pub(super) fn outcome(self, mut run: Run, interrupted: bool, t0: Instant) -> Outcome {
        let rounds = self.round_group.len();
        // Scenarios that never got a sample (budget spent before their first round).
        for slot in run.slots.iter_mut() {
            slot.samples.truncate(rounds);
            slot.untimed.truncate(rounds);
            slot.instance.truncate(rounds);
            if slot.status == Status::Measured && slot.raw.is_empty() {
                slot.status = Status::Skipped;
                slot.reason = Some(format!(
                    "the {:.1} s budget was spent before its first sample (raise --budget)",
                    self.opts.budget.as_secs_f64()
                ));
            }
        }
        let group_outcomes = (0..self.groups.len())
            .map(|g| GroupOutcome {
                rounds: self.states[g].rounds,
                elapsed: self.states[g].spent,
                need: self.judge.need(g, self.groups, &run.slots),
            })
            .collect();
        Outcome {
            slots: run.slots,
            rounds,
            round_group: self.round_group,
            groups: group_outcomes,
            stop_reason: self.stop_reason,
            interrupted,
            elapsed: t0.elapsed(),
            instances: self.instance as usize + 1,
            renewing: self.renewing,
        }
    }
}
