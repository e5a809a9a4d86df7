//! Where the next round goes: the engine's sequential allocation of the budget between
//! comparison groups ([`super::driver`] runs the rounds).
//!
//! Every group first takes [`MIN_ROUNDS`] rounds (a warm-up in turn, so each has an interval to
//! judge). After that, between rounds, every group that has not met its target is ranked by what
//! it still needs:
//!
//! - its key ratio ρ: the widest CI half-width among the quantities it measures, over that
//!   quantity's target (ρ ≤ 1: the target is met, and the group is sampled no more);
//! - its cost c: the mean wall time of one of its rounds so far;
//! - its need: the time it would still take to reach the target, c · n · (ρ² − 1), since a CI
//!   half-width shrinks as 1/√n over its n rounds;
//! - its yield: what a second of its rounds takes off ρ², ρ² / (n · c) (ρ² falls as 1/n, so one
//!   more round takes about ρ²/n off it, and costs c).
//!
//! The groups whose needs, smallest first, add up to no more than the budget left can all still
//! meet their targets: they come first. The others share what they leave. Within each tier the
//! round goes to the group of highest yield — the one furthest from its target per unit of cost.
//! So the budget is never sunk into targets it cannot reach while others can still be met; and
//! where targets cannot all be met, each second goes where it narrows an interval (relative to
//! its target) the most, which gives a group rounds in proportion to √(ρ²·n / c): a cheap group
//! takes more rounds than an expensive one of the same precision, and neither is starved.

use std::time::Duration;

/// Rounds a group takes before it is first judged (an interval from fewer is too unstable).
pub const MIN_ROUNDS: usize = 10;

/// What the allocation knows of one group.
#[derive(Debug, Clone, Default)]
pub struct GroupState {
    /// Rounds completed.
    pub rounds: usize,
    /// Wall time of those rounds.
    pub spent: Duration,
    /// Key ratio (widest half-width over its target) at the last judgement; None before the
    /// first, or when nothing could be judged from the rounds so far.
    pub ratio: Option<f64>,
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

    /// What a second of its rounds takes off ρ² (infinite when ρ is unknown: it must be sampled
    /// to be judged).
    pub fn yield_per_second(&self) -> f64 {
        match (self.ratio, self.cost()) {
            (Some(r), Some(c)) if r.is_finite() => {
                r * r / (self.rounds.max(1) as f64 * c.as_secs_f64().max(1e-9))
            }
            _ => f64::INFINITY,
        }
    }
}

/// The candidates (groups still to be sampled), best first: warm-up first (fewest rounds
/// first), then the groups that can all still meet their targets within `remaining`, then the
/// others; within each, highest yield first.
pub fn rank(states: &[GroupState], candidates: &[usize], remaining: Duration) -> Vec<usize> {
    let (mut warm, mut judged): (Vec<usize>, Vec<usize>) = candidates
        .iter()
        .partition(|&&g| states[g].rounds < MIN_ROUNDS);
    warm.sort_by_key(|&g| (states[g].rounds, g));
    judged.sort_by(|&a, &b| {
        states[a]
            .need()
            .total_cmp(&states[b].need())
            .then(a.cmp(&b))
    });
    let mut left = remaining.as_secs_f64();
    let feasible = judged
        .iter()
        .take_while(|&&g| {
            left -= states[g].need();
            left >= 0.0
        })
        .count();
    let by_yield = |v: &mut Vec<usize>| {
        v.sort_by(|&a, &b| {
            states[b]
                .yield_per_second()
                .total_cmp(&states[a].yield_per_second())
                .then(a.cmp(&b))
        })
    };
    let mut rest = judged.split_off(feasible);
    by_yield(&mut judged);
    by_yield(&mut rest);
    warm.into_iter().chain(judged).chain(rest).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(rounds: usize, ms_per_round: u64, ratio: f64) -> GroupState {
        GroupState {
            rounds,
            spent: Duration::from_millis(ms_per_round * rounds as u64),
            ratio: Some(ratio),
        }
    }

    #[test]
    fn warm_up_comes_first_fewest_rounds_first() {
        let s = vec![state(20, 1, 5.0), state(3, 1, 9.0), GroupState::default()];
        assert_eq!(rank(&s, &[0, 1, 2], Duration::from_secs(10)), vec![2, 1, 0]);
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
    fn reachable_targets_come_before_unreachable_ones() {
        // Group 0 can reach its target in 0.3 s, group 1 needs 990 s: with 10 s left, group 0
        // goes first although a second of group 1 narrows its ratio more.
        let s = vec![state(100, 1, 2.0), state(100, 1, 100.0)];
        assert_eq!(rank(&s, &[0, 1], Duration::from_secs(10)), vec![0, 1]);
        // Among reachable ones: the furthest from its target per unit of cost first.
        let s = vec![state(100, 1, 1.5), state(100, 1, 3.0), state(100, 4, 3.0)];
        assert_eq!(
            rank(&s, &[0, 1, 2], Duration::from_secs(100)),
            vec![1, 0, 2]
        );
        // When none can make it, the same order: group 1 (ρ² = 2500 over 100 rounds of 1 ms)
        // before group 0 (ρ² = 10000 over 100 rounds of 10 ms).
        let s = vec![state(100, 10, 100.0), state(100, 1, 50.0)];
        assert_eq!(rank(&s, &[0, 1], Duration::from_secs(1)), vec![1, 0]);
    }

    #[test]
    fn unreachable_targets_share_the_budget_by_cost() {
        // Simulate the allocation: two groups of the same noise, one 16 times as expensive;
        // neither can reach its target. Rounds go as √(1/c): the cheap one takes about four
        // times as many, and the dear one is not starved.
        let cost = [1u64, 16];
        let mut s: Vec<GroupState> = (0..2).map(|g| state(MIN_ROUNDS, cost[g], 1.0)).collect();
        let ratio = |n: usize| 100.0 / (n as f64).sqrt();
        for _ in 0..5000 {
            let g = rank(&s, &[0, 1], Duration::from_millis(1))[0];
            s[g].rounds += 1;
            s[g].spent += Duration::from_millis(cost[g]);
            s[g].ratio = Some(ratio(s[g].rounds));
        }
        let (cheap, dear) = (s[0].rounds as f64, s[1].rounds as f64);
        assert!(cheap / dear > 3.0 && cheap / dear < 5.0, "{cheap} {dear}");
    }
}
