//! Where the next round goes: the engine's sequential allocation of the budget between
//! comparison groups ([`super::driver`] runs the rounds).
//!
//! Every group first takes [`MIN_ROUNDS`] rounds (a warm-up in turn, so each has an interval to
//! judge; the groups that report more quantities take their turns more often). After that, between rounds, every group that has not met its target is ranked by what
//! it still needs:
//!
//! - its key ratio ρ: the widest CI half-width among the quantities it measures, over that
//!   quantity's target (ρ ≤ 1: the target is met, and the group is sampled no more);
//! - its cost c: the mean wall time of one of its rounds so far;
//! - its need: the time it would still take to reach the target, c · n · (ρ² − 1), since a CI
//!   half-width shrinks as 1/√n over its n rounds.
//!
//! The budget is shared so that every reported interval narrows as much as it can: a round of a
//! group narrows each of its k quantities' intervals by √(n / (n + 1)), which takes k / (2n) off
//! their Σ log ρ, at cost c. The round goes to the group where that is largest per second,
//! k / (n · c). Each group then gets time in proportion to the quantities it reports, and its
//! rounds in inverse proportion to their cost: a cheap group takes more rounds than an expensive
//! one, no group is starved, and a path too noisy to ever meet its target cannot swallow the
//! budget the others need.
//!
//! Before that share, one exception: a group whose need fits in its share of the budget left
//! (the budget left times k over the k of every group still sampled) goes first, the one
//! furthest from its target per unit of cost (largest ρ / c) first. It would meet its target
//! within its share anyway; finishing it early takes nothing from the others and hands its share
//! to them sooner. A group whose interval does not narrow as its need predicted drops out of
//! this tier by itself: its need grows with its rounds while its share shrinks.

use std::time::Duration;

/// Rounds a group takes before it is first judged (an interval from fewer is too unstable).
pub const MIN_ROUNDS: usize = 10;

/// Rounds a group takes in each instance of its workers before it is judged again: the
/// instance's estimate is their median.
pub const MIN_PER_INSTANCE: usize = 3;

/// What the allocation knows of one group.
#[derive(Debug, Clone, Default)]
pub struct GroupState {
    /// Rounds completed.
    pub rounds: usize,
    /// Rounds completed in the current instance of its workers.
    pub here: usize,
    /// Wall time of those rounds.
    pub spent: Duration,
    /// Key ratio (widest half-width over its target) at the last judgement; None before the
    /// first, or when nothing could be judged from the rounds so far.
    pub ratio: Option<f64>,
    /// Quantities its rounds measure (its share when targets cannot all be met); at least 1.
    pub weight: usize,
}

impl GroupState {
    /// Mean wall time of one round; None before the first.
    pub fn cost(&self) -> Option<Duration> {
        (self.rounds > 0).then(|| self.spent / self.rounds as u32)
    }

    /// Estimated time still needed to reach the target, seconds (infinite when unknown).
    pub fn need(&self) -> f64 {
        match (self.ratio, self.cost()) {
            (Some(r), Some(c)) if r.is_finite() => {
                let more = (self.rounds as f64 * (r * r - 1.0)).max(1.0);
                c.as_secs_f64() * more
            }
            _ => f64::INFINITY,
        }
    }

    /// Furthest from its target per second of its rounds: ρ / c (infinite when ρ is unknown:
    /// it must be sampled to be judged).
    fn urgency(&self) -> f64 {
        match (self.ratio, self.cost()) {
            (Some(r), Some(c)) if r.is_finite() => r / c.as_secs_f64().max(1e-9),
            _ => f64::INFINITY,
        }
    }

    /// What a second of its rounds takes off Σ log ρ of its quantities: k / (n · c), up to the
    /// constant ½ (infinite when ρ is unknown).
    fn narrowing(&self) -> f64 {
        match (self.ratio, self.cost()) {
            (Some(r), Some(c)) if r.is_finite() => {
                self.weight.max(1) as f64 / (self.rounds.max(1) as f64 * c.as_secs_f64().max(1e-9))
            }
            _ => f64::INFINITY,
        }
    }
}

/// The candidates (groups still to be sampled), best first: warm-up first (fewest rounds per
/// quantity first), then the groups that can meet their targets within their share of `remaining` by
/// urgency, then the others by narrowing.
pub fn rank(states: &[GroupState], candidates: &[usize], remaining: Duration) -> Vec<usize> {
    let (mut warm, judged): (Vec<usize>, Vec<usize>) = candidates
        .iter()
        .partition(|&&g| states[g].rounds < MIN_ROUNDS || states[g].here < MIN_PER_INSTANCE);
    // Warm-up in turn, in proportion to the quantities each group reports: a short budget
    // judges the groups that report most first.
    let per_weight = |g: usize| states[g].rounds as f64 / states[g].weight.max(1) as f64;
    warm.sort_by(|&a, &b| per_weight(a).total_cmp(&per_weight(b)).then(a.cmp(&b)));
    let weights: usize = candidates.iter().map(|&g| states[g].weight.max(1)).sum();
    let share =
        |g: usize| remaining.as_secs_f64() * states[g].weight.max(1) as f64 / weights.max(1) as f64;
    let (mut early, mut rest): (Vec<usize>, Vec<usize>) = judged
        .into_iter()
        .partition(|&g| states[g].need() <= share(g));
    let by = |v: &mut Vec<usize>, key: fn(&GroupState) -> f64| {
        v.sort_by(|&a, &b| key(&states[b]).total_cmp(&key(&states[a])).then(a.cmp(&b)))
    };
    by(&mut early, GroupState::urgency);
    by(&mut rest, GroupState::narrowing);
    warm.into_iter().chain(early).chain(rest).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(rounds: usize, ms_per_round: u64, ratio: f64) -> GroupState {
        GroupState {
            rounds,
            here: rounds,
            spent: Duration::from_millis(ms_per_round * rounds as u64),
            ratio: Some(ratio),
            weight: 1,
        }
    }

    #[test]
    fn warm_up_comes_first_fewest_rounds_per_quantity_first() {
        let s = vec![state(20, 1, 5.0), state(3, 1, 9.0), GroupState::default()];
        assert_eq!(rank(&s, &[0, 1, 2], Duration::from_secs(10)), vec![2, 1, 0]);
        // 6 rounds for 7 quantities come before 3 rounds for 1.
        let mut s = vec![state(3, 1, 9.0), state(6, 1, 9.0)];
        s[1].weight = 7;
        assert_eq!(rank(&s, &[0, 1], Duration::from_secs(10)), vec![1, 0]);
    }

    #[test]
    fn need_grows_with_cost_and_with_the_distance_to_the_target() {
        // 100 rounds at ratio 2 need 300 more rounds; at 10 ms each, 3 s.
        assert!((state(100, 10, 2.0).need() - 3.0).abs() < 1e-9);
        assert!(state(100, 20, 2.0).need() > state(100, 10, 2.0).need());
        assert!(state(100, 10, 3.0).need() > state(100, 10, 2.0).need());
        assert!(GroupState::default().need().is_infinite());
    }

    #[test]
    fn targets_reachable_within_their_share_come_first() {
        // Group 0 can reach its target in 0.3 s, group 1 needs 990 s: with 10 s left (5 s
        // each), group 0 goes first although a round of group 1 would narrow more.
        let s = vec![state(100, 1, 2.0), state(50, 1, 100.0)];
        assert_eq!(rank(&s, &[0, 1], Duration::from_secs(10)), vec![0, 1]);
        // With 0.4 s left its share (0.2 s) is too small: both by narrowing.
        assert_eq!(rank(&s, &[0, 1], Duration::from_millis(400)), vec![1, 0]);
        // Among reachable ones: the furthest from its target per unit of cost first.
        let s = vec![state(100, 1, 1.5), state(100, 1, 3.0), state(100, 4, 3.0)];
        assert_eq!(
            rank(&s, &[0, 1, 2], Duration::from_secs(100)),
            vec![1, 0, 2]
        );
    }

    #[test]
    fn the_rest_goes_where_a_second_narrows_most_intervals_most() {
        // Fewer rounds, cheaper rounds, more quantities — not the one furthest from its target.
        let s = vec![
            state(100, 10, 100.0),
            state(100, 1, 50.0),
            state(50, 1, 2.0),
        ];
        assert_eq!(
            rank(&s, &[0, 1, 2], Duration::from_millis(1)),
            vec![2, 1, 0]
        );
        let mut s = vec![state(100, 1, 3.0), state(100, 1, 3.0)];
        s[1].weight = 7;
        assert_eq!(rank(&s, &[0, 1], Duration::from_millis(1)), vec![1, 0]);
    }

    /// Simulates the allocation of `rounds` rounds to groups of the given costs (ms) and
    /// weights, none of which can reach its target; the rounds each got.
    fn share(cost: &[u64], weight: &[usize], rounds: usize) -> Vec<usize> {
        let mut s: Vec<GroupState> = (0..cost.len())
            .map(|g| GroupState {
                weight: weight[g],
                ..state(MIN_ROUNDS, cost[g], 100.0)
            })
            .collect();
        let all: Vec<usize> = (0..cost.len()).collect();
        for _ in 0..rounds {
            let g = rank(&s, &all, Duration::from_millis(1))[0];
            s[g].rounds += 1;
            s[g].here += 1;
            s[g].spent += Duration::from_millis(cost[g]);
            s[g].ratio = Some(1000.0 / (s[g].rounds as f64).sqrt());
        }
        s.iter().map(|g| g.rounds).collect()
    }

    #[test]
    fn unreachable_targets_share_the_budget_by_quantities_and_cost() {
        // Time in proportion to the quantities reported: a group 16 times as expensive takes
        // a sixteenth of the rounds; one reporting 7 quantities 7 times the rounds.
        let n = share(&[1, 16], &[1, 1], 5000);
        let r = n[0] as f64 / n[1] as f64;
        assert!(r > 14.0 && r < 18.0, "{n:?}");
        let n = share(&[2, 2], &[7, 1], 5000);
        let r = n[0] as f64 / n[1] as f64;
        assert!(r > 6.0 && r < 8.0, "{n:?}");
    }
}
