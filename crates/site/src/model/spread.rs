//! Is one run within the spread of the other runs of its series on a version?
//!
//! Not `syscost compare`'s question. A run's interval holds only what varied within the run;
//! reruns of one machine differ by more (docs/benchmarks.md: single runs of one binary are
//! called different in 19–50 % of pairs on a shared VM). Set against the others' mean with its
//! interval, most runs would look "changed". What a visitor asks of a run is whether it is one
//! the series' other runs predict: the 95 % prediction interval of a further run,
//! mean ± t(n−1) · s · √(1 + 1/n), from the others' values. s is never taken below what the
//! runs' own intervals say of one run (their mean squared standard error), so exact counts or
//! runs that agree by chance do not make every other run an outlier; and a run is outside only
//! beyond compare's margin too (2 %, at least 1 ns; one instruction for counts).

use crate::model::changes::CONFIDENCE;
use crate::model::metrics::Val;

/// Where a run lies against the others.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    Within,
    Above,
    Below,
}

/// A run's value against the other runs of its series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Against {
    pub place: Place,
    /// The others' mean.
    pub mean: f64,
    /// The range a further run of the series falls in (95 %), never narrower than the margin.
    pub range: (f64, f64),
    /// Other runs it was set against.
    pub n: usize,
}

/// `mine` against `others` (at least two; with fewer there is no spread to learn), `margin`
/// in the values' unit. None when there are too few others or a value is not finite.
pub fn against(mine: f64, others: &[Val], margin: f64) -> Option<Against> {
    if !mine.is_finite() {
        return None;
    }
    // A run without an interval says nothing of its own noise: it adds none.
    let values: Vec<syscost_stats::Value> = others
        .iter()
        .map(|v| {
            let (low, high) = v.ci().unwrap_or((v.median, v.median));
            syscost_stats::Value {
                median: v.median,
                low,
                high,
            }
        })
        .collect();
    // Pooled as reruns are: se = s / √n, s never below the runs' own; a further run's
    // spread about the mean is then s · √(1 + 1/n) = se · √(n + 1).
    let p = syscost_stats::pool(&values, syscost_stats::z_of(CONFIDENCE))?;
    let half = (syscost_stats::t975(p.df) * p.se * ((p.n + 1) as f64).sqrt()).max(margin);
    if !half.is_finite() || !p.mean.is_finite() {
        return None;
    }
    let place = if mine > p.mean + half {
        Place::Above
    } else if mine < p.mean - half {
        Place::Below
    } else {
        Place::Within
    };
    Some(Against {
        place,
        mean: p.mean,
        range: (p.mean - half, p.mean + half),
        n: p.n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(median: f64, half: f64) -> Val {
        Val {
            median,
            lo: Some(median - half),
            hi: Some(median + half),
        }
    }

    #[test]
    fn a_run_the_others_predict_is_within_one_far_from_them_is_not() {
        // Five runs around 50 ns, spread ~1 ns, each interval ±0.5 ns.
        let others = [
            v(49.0, 0.5),
            v(50.0, 0.5),
            v(51.0, 0.5),
            v(50.5, 0.5),
            v(49.5, 0.5),
        ];
        let a = against(51.8, &others, 1.0).unwrap();
        assert_eq!(a.place, Place::Within, "{a:?}");
        assert_eq!(a.n, 5);
        // s = 0.79, t(4) = 2.776, √1.2: ±2.40 around 50.
        assert!((a.range.1 - 52.40).abs() < 0.01, "{a:?}");
        assert_eq!(against(55.0, &others, 1.0).unwrap().place, Place::Above);
        assert_eq!(against(45.0, &others, 1.0).unwrap().place, Place::Below);
    }

    #[test]
    fn the_runs_own_intervals_and_the_margin_bound_the_range_from_below() {
        // Three runs that agree exactly, each ±3 ns: the range is what one run's noise allows.
        let others = [v(50.0, 3.0), v(50.0, 3.0), v(50.0, 3.0)];
        let a = against(53.0, &others, 1.0).unwrap();
        assert_eq!(a.place, Place::Within, "{a:?}");
        // Exact instruction counts: any instruction beyond the margin of one is outside.
        let counts = [v(400.0, 0.0), v(400.0, 0.0)];
        assert_eq!(against(400.5, &counts, 1.0).unwrap().place, Place::Within);
        assert_eq!(against(402.0, &counts, 1.0).unwrap().place, Place::Above);
    }

    #[test]
    fn one_other_run_is_no_spread() {
        assert!(against(50.0, &[v(50.0, 1.0)], 1.0).is_none());
        assert!(against(f64::NAN, &[v(50.0, 1.0), v(51.0, 1.0)], 1.0).is_none());
    }

    /// What the range promises: a further run of the same distribution falls outside it in
    /// about 5 % of trials, whatever the number of other runs.
    #[test]
    fn a_run_of_the_same_machine_is_outside_one_time_in_twenty() {
        let mut rng = syscost_synth::Rng::new(5);
        for n in [2, 3, 10, 50] {
            let trials = 4000;
            let mut outside = 0;
            for _ in 0..trials {
                // Runs of 100 ns whose value moves by 3 ns from run to run, each measured to
                // ±0.5 ns: the spread between runs is what the range must hold.
                let others: Vec<Val> = (0..n).map(|_| v(100.0 + 3.0 * rng.gauss(), 0.5)).collect();
                let a = against(100.0 + 3.0 * rng.gauss(), &others, 0.0).unwrap();
                outside += usize::from(a.place != Place::Within);
            }
            let share = outside as f64 / trials as f64;
            // With two others, the floor of the runs' own intervals widens the range in the
            // trials where the two agree by chance: fewer are outside, never more.
            let low = if n == 2 { 0.015 } else { 0.035 };
            assert!((low..0.07).contains(&share), "n = {n}: {share}");
        }
    }
}
