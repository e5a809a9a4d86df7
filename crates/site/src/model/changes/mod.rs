//! Change detection between consecutive kernel versions of one series and one metric. Pure
//! functions over the version points; the site gathers the points (usable runs only) and lists
//! what is found.
//!
//! The rule (also on the methodology page) is `syscost compare`'s, from the same arithmetic
//! (`syscost_stats`): the change from version a to the next version b that has data is judged
//! on the difference b − a and its interval, the two points' standard errors added in
//! quadrature (each point's interval read as a 95 % interval). The difference is **no change**
//! when its whole interval lies within ± the margin (2 % of a, at least 1 ns: compare's default),
//! **inconclusive** when its interval holds zero, and otherwise a change. A change is a **step**
//! — listed on the changes page — when it is also larger than the series' **floor**.
//!
//! For times the floor is the **noise floor**, learned from the series' own history: the median
//! of its other version-to-version moves and of the differences between repeated runs on one
//! version, times a factor [`k_for`] that depends on how many such observations there are. The
//! intervals of single runs miss the variation between boots, which the history sees. The
//! factor is the 99.99th percentile of "a move ÷ the median of the other m moves" for Gaussian
//! noise (by simulation; a test re-checks it), so noise alone makes a step about once in 10,000
//! comparisons however short the history: 23 with 6 observations, 12 with 12, 8.5 with 24, 6.4
//! with 96 or more. That is stricter than Apache Otava's p ≤ 0.001 because a pair of versions is
//! judged on a hundred metrics at once. With fewer than [`MIN_HISTORY`] observations there is
//! nothing to learn from, and the difference must exceed the kernel benchmark's own tolerance
//! for "≈" instead: 10 % of the smaller value or 2 ns, whichever is larger. Either way it must
//! exceed [`PRACTICAL_REL`] of the earlier value and [`PRACTICAL_NS`]: smaller changes are not
//! worth a kernel developer's time even when they are real.
//!
//! A series of instruction counts ([`judge_counts`]) has no noise: its numbers repeat exactly
//! from one boot to the next, so compare's margin is one instruction and any whole instruction
//! is a change. Between two kernel releases almost every count moves by a few instructions
//! (an unrelated line of the entry path is enough), and listing each is listing every pair of
//! versions a hundred times. Its floor is **materiality** instead: a step must move by at least
//! [`COUNT_MATERIAL`] instructions and by at least [`COUNT_MATERIAL_REL`] of the earlier count.
//! Ten instructions are about the 1 ns of a time's floor on a core retiring three or four
//! instructions a cycle at 3 GHz; 5 % is the smallest change a time measured across boots shows
//! with confidence (the noise floors of time series are several percent), so a smaller move of a
//! count is one no time could confirm. Every change stays on the series' pages with its verdict.

use crate::model::metrics::{usable_point, Point, Val};
use syscost_stats::{Outcome, Side, Value};

pub(crate) mod trends;

/// The factor on the median observation, by number of observations: (at least m, factor).
/// Between entries the smaller m's factor applies (the factor falls with m, so that errs high).
pub const K_TABLE: &[(usize, f64)] = &[
    (6, 23.0),
    (8, 17.0),
    (10, 14.0),
    (12, 12.0),
    (14, 11.5),
    (16, 10.5),
    (18, 10.0),
    (20, 9.5),
    (24, 8.5),
    (28, 8.1),
    (32, 7.8),
    (40, 7.4),
    (64, 6.8),
    (96, 6.4),
];

/// Observations (other moves and repeat differences) needed to learn a floor.
pub const MIN_HISTORY: usize = 6;

/// The factor for `m` observations; `None` below [`MIN_HISTORY`].
pub fn k_for(m: usize) -> Option<f64> {
    K_TABLE
        .iter()
        .rev()
        .find(|(at, _)| m >= *at)
        .map(|(_, k)| *k)
}
/// The smallest change reported, relative to the earlier value (compare's default margin)...
pub const PRACTICAL_REL: f64 = syscost_stats::DEFAULT_MARGIN_PCT / 100.0;
/// ...and in ns per operation.
pub const PRACTICAL_NS: f64 = syscost_stats::MARGIN_FLOOR_NS;
/// The kernel benchmark's "≈" tolerance, used when there is no history.
pub const KERNEL_REL: f64 = 0.10;
pub const KERNEL_NS: f64 = 2.0;
/// The smallest step of an instruction count listed as a step, in instructions per operation...
pub const COUNT_MATERIAL: f64 = 10.0;
/// ...and relative to the earlier count.
pub const COUNT_MATERIAL_REL: f64 = 0.05;
/// The confidence a point's interval is read at: the records' default (a single run's CI is
/// 95 %; several runs pooled make a 95 % interval too).
pub use crate::model::metrics::CONFIDENCE;

/// One kernel version's point of a series and metric, and its runs' medians in time order.
#[derive(Debug, Clone)]
pub struct VersionPoint {
    pub point: Point,
    pub runs: Vec<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A change larger than the floor: listed.
    Step,
    /// A change of a time within its noise floor.
    WithinNoise,
    /// A change of an instruction count below materiality.
    Immaterial,
    /// The difference's interval holds zero and reaches past the margin.
    Inconclusive,
    /// The difference's interval lies within ± the margin.
    NoChange,
    /// A point has no interval (single-sample imports): nothing can be said.
    NotJudged,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Step => "step",
            Verdict::WithinNoise => "within the noise floor",
            Verdict::Immaterial => "below the smallest step listed",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoChange => "no change",
            Verdict::NotJudged => "not judged (no interval)",
        }
    }
}

/// Where a floor comes from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Floor {
    /// `k` × the median of `n` observations (`median`, ns).
    History { n: usize, median: f64, k: f64 },
    /// Too little history: the kernel benchmark's tolerance.
    Kernel,
    /// Instruction counts: materiality ([`COUNT_MATERIAL`], [`COUNT_MATERIAL_REL`]).
    Counted,
}

/// The difference between two numbers with their intervals, `b − a`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    pub delta: f64,
    /// Its interval at [`CONFIDENCE`]: the two points' standard errors added in quadrature.
    pub delta_interval: Option<(f64, f64)>,
    /// The difference in percent of `a`'s magnitude, where a ratio means something
    /// ([`syscost_stats::relative`]).
    pub pct: Option<f64>,
    /// Its interval (`a`'s own uncertainty left out, as compare does).
    pub pct_interval: Option<(f64, f64)>,
}

fn value(m: f64, i: (f64, f64)) -> Value {
    Value {
        median: m,
        low: i.0,
        high: i.1,
    }
}

/// The difference `b − a` as `syscost compare` works it out; relative to `a` where `a` is at
/// least `floor` (1 ns, or one instruction).
pub fn difference(a: f64, ai: Option<(f64, f64)>, b: f64, bi: Option<(f64, f64)>) -> Difference {
    let z = syscost_stats::z_of(CONFIDENCE);
    let (base, diff) = match (ai, bi) {
        (Some(ai), Some(bi)) => {
            let base = value(a, ai);
            (
                base,
                Some(syscost_stats::difference(
                    base,
                    value(b, bi),
                    z,
                    z,
                    CONFIDENCE,
                )),
            )
        }
        _ => (Value::exact(a), None),
    };
    let delta = b - a;
    let rel = syscost_stats::relative(base, diff.unwrap_or(Value::exact(delta)), 1.0);
    Difference {
        delta,
        delta_interval: diff.map(|d| (d.low, d.high)),
        pct: rel.map(|r| r.median),
        pct_interval: diff.and(rel).map(|r| (r.low, r.high)),
    }
}

/// A point as one side of a difference, and the value a relative difference is taken of: its
/// runs pooled when it has them ([`Point::pooled`]), else its one interval read back as a
/// standard error (a single run's CI; the span of several runs when one of them has none, as
/// before pooling). None without an interval.
fn side(p: &Point) -> Option<(Side, Value)> {
    match (p.pooled, p.interval) {
        (Some(pool), _) => Some((pool.side(), pool.interval)),
        (None, Some(i)) => {
            let v = value(p.median, i);
            Some((Side::single(v, syscost_stats::z_of(CONFIDENCE)), v))
        }
        (None, None) => None,
    }
}

/// The difference `b − a` of two points: `syscost compare`'s with single runs, and with a side
/// of several runs `syscost compare --pool`'s (each such side the mean of its runs with a
/// standard error from their spread, the interval Welch's). What verdicts between points use:
/// the span a chart draws holds every run's interval and judges almost nothing.
pub fn point_difference(a: &Point, b: &Point) -> Difference {
    let (Some((sa, base)), Some((sb, _))) = (side(a), side(b)) else {
        return difference(a.center(), None, b.center(), None);
    };
    let diff = syscost_stats::welch(sa, sb, CONFIDENCE);
    let rel = syscost_stats::relative(base, diff, 1.0);
    Difference {
        delta: diff.median,
        delta_interval: Some((diff.low, diff.high)),
        pct: rel.map(|r| r.median),
        pct_interval: rel.map(|r| (r.low, r.high)),
    }
}

/// The difference `b − a` of two sets of runs' `(value, low quality)` (as [`usable_point`]
/// takes them), by [`point_difference`]: a side of several runs pooled, a single run its own
/// interval. None when a side has no value.
pub fn runs_difference(a: &[(Val, bool)], b: &[(Val, bool)]) -> Option<Difference> {
    Some(point_difference(&usable_point(a)?, &usable_point(b)?))
}

impl Difference {
    /// What compare's rule says of it against `margin`; `None` without an interval.
    fn outcome(&self, margin: f64) -> Option<Outcome> {
        let (low, high) = self.delta_interval?;
        Some(syscost_stats::outcome(
            Value {
                median: self.delta,
                low,
                high,
            },
            margin,
        ))
    }
}

/// The verdict of a difference, given compare's margin and the floor a step must exceed.
fn verdict(diff: &Difference, margin: f64, floor: f64, below: Verdict) -> Verdict {
    match diff.outcome(margin) {
        None => Verdict::NotJudged,
        Some(Outcome::NoChange) => Verdict::NoChange,
        Some(Outcome::Inconclusive) => Verdict::Inconclusive,
        Some(_) if diff.delta.abs() < floor => below,
        Some(_) => Verdict::Step,
    }
}

/// The judgement of one pair of consecutive versions (indices into the points).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pair {
    pub from: usize,
    pub to: usize,
    pub diff: Difference,
    pub floor: f64,
    pub floor_basis: Floor,
    pub verdict: Verdict,
}

/// Median of a sorted slice without the element at `skip` (if any).
fn median_without(sorted: &[f64], skip: Option<usize>) -> Option<f64> {
    let n = sorted.len() - usize::from(skip.is_some());
    if n == 0 {
        return None;
    }
    let at = |k: usize| match skip {
        Some(s) if k >= s => sorted[k + 1],
        _ => sorted[k],
    };
    Some(if n % 2 == 1 {
        at(n / 2)
    } else {
        (at(n / 2 - 1) + at(n / 2)) / 2.0
    })
}

/// Judges every pair of consecutive points (ascending kernel versions, usable runs only).
pub fn judge(points: &[VersionPoint]) -> Vec<Pair> {
    let moves: Vec<f64> = points
        .windows(2)
        .map(|w| (w[1].point.median - w[0].point.median).abs())
        .collect();
    let mut hist: Vec<f64> = moves.clone();
    for p in points {
        hist.extend(p.runs.windows(2).map(|w| (w[1] - w[0]).abs()));
    }
    hist.retain(|x| x.is_finite());
    hist.sort_by(f64::total_cmp);
    points
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let skip = hist.binary_search_by(|x| x.total_cmp(&moves[i])).ok();
            let n = hist.len() - usize::from(skip.is_some());
            pair(i, &w[0].point, &w[1].point, median_without(&hist, skip), n)
        })
        .collect()
}

/// Judges every pair of consecutive points of a series of instruction counts (ascending
/// kernel versions, usable runs only): compare's verdict with a margin of one instruction, and
/// a step when the move is material ([`count_floor`]).
pub fn judge_counts(points: &[VersionPoint]) -> Vec<Pair> {
    points
        .windows(2)
        .enumerate()
        .map(|(i, w)| {
            let (a, b) = (&w[0].point, &w[1].point);
            let diff = point_difference(a, b);
            let floor = count_floor(a.median);
            Pair {
                from: i,
                to: i + 1,
                diff,
                floor,
                floor_basis: Floor::Counted,
                verdict: verdict(
                    &diff,
                    syscost_stats::count_margin(),
                    floor,
                    Verdict::Immaterial,
                ),
            }
        })
        .collect()
}

/// The smallest move of an instruction count from `a` listed as a step.
pub fn count_floor(a: f64) -> f64 {
    (COUNT_MATERIAL_REL * a.abs()).max(COUNT_MATERIAL)
}

fn pair(i: usize, a: &Point, b: &Point, hist_median: Option<f64>, n: usize) -> Pair {
    let diff = point_difference(a, b);
    let delta = diff.delta;
    let practical = (PRACTICAL_REL * a.median.abs()).max(PRACTICAL_NS);
    let (floor, floor_basis) = match (hist_median, k_for(n)) {
        (Some(m), Some(k)) => ((k * m).max(practical), Floor::History { n, median: m, k }),
        _ => {
            let smaller = a.median.abs().min(b.median.abs());
            (
                (KERNEL_REL * smaller).max(KERNEL_NS).max(practical),
                Floor::Kernel,
            )
        }
    };
    let margin = syscost_stats::time_margin(a.center(), syscost_stats::DEFAULT_MARGIN_PCT);
    let mut verdict = verdict(&diff, margin, floor, Verdict::WithinNoise);
    // A move equal to the floor is not above it.
    if verdict == Verdict::Step && delta.abs() <= floor {
        verdict = Verdict::WithinNoise;
    }
    Pair {
        from: i,
        to: i + 1,
        diff,
        floor,
        floor_basis,
        verdict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::metrics::IntervalKind;
    use syscost_synth::Rng;

    fn vp(m: f64, half: Option<f64>) -> VersionPoint {
        VersionPoint {
            point: Point {
                n: 1,
                median: m,
                interval: half.map(|h| (m - h, m + h)),
                kind: if half.is_some() {
                    IntervalKind::Ci
                } else {
                    IntervalKind::None
                },
                low: false,
                pooled: None,
            },
            runs: vec![m],
        }
    }

    /// A series of `n` versions around `level` with Gaussian noise of `sd` between runs and
    /// CIs of ±`ci` (which may be narrower than the noise, as real CIs often are), plus `step`
    /// from version `at` on.
    fn series(
        rng: &mut Rng,
        n: usize,
        level: f64,
        sd: f64,
        ci: f64,
        step: f64,
        at: usize,
    ) -> Vec<VersionPoint> {
        (0..n)
            .map(|i| {
                let m = level + sd * rng.gauss() + if i >= at { step } else { 0.0 };
                vp(m, Some(ci))
            })
            .collect()
    }

    fn steps(p: &[Pair]) -> Vec<usize> {
        p.iter()
            .filter(|x| x.verdict == Verdict::Step)
            .map(|x| x.to)
            .collect()
    }

    #[test]
    fn a_known_step_is_found_where_it_is() {
        let mut rng = Rng::new(1);
        for trial in 0..200 {
            let at = 3 + trial % 10;
            // A 30 ns step on a 150 ns metric with 1 ns run-to-run noise and ±1.5 ns CIs, in
            // 16 versions: the floor is about 12 × the median move (≈ 1 ns).
            let s = series(&mut rng, 16, 150.0, 1.0, 1.5, 30.0, at);
            assert_eq!(steps(&judge(&s)), vec![at], "trial {trial}");
        }
        // Two versions, no history: a 20 % step is beyond the kernel's tolerance.
        let s = series(&mut rng, 2, 150.0, 1.0, 1.5, 30.0, 1);
        assert_eq!(steps(&judge(&s)), vec![1]);
    }

    /// Instruction counts: compare's verdict with a margin of one instruction, and a step
    /// only when material (10 instructions and 5 %); no history is needed.
    #[test]
    fn instruction_counts_step_when_the_move_is_material() {
        let exact = |m: f64| vp(m, Some(0.0));
        let s = [
            exact(231.0),
            exact(314.0),
            exact(314.02),
            exact(313.0),
            exact(300.0),
            vp(320.0, Some(3.0)),
            vp(322.0, Some(0.5)),
            vp(400.0, Some(0.5)),
        ];
        let v: Vec<Verdict> = judge_counts(&s).iter().map(|p| p.verdict).collect();
        assert_eq!(
            v,
            [
                Verdict::Step,
                // A fraction of an instruction (the harness's) is no change.
                Verdict::NoChange,
                // One instruction is a change, as in compare, but not one worth listing...
                Verdict::Immaterial,
                // ...nor is 13 of 313 (4 %).
                Verdict::Immaterial,
                Verdict::Step,
                // 2 instructions within an interval measured in a run: not known.
                Verdict::Inconclusive,
                Verdict::Step,
            ]
        );
        let j = judge_counts(&s);
        assert!(j.iter().all(|p| p.floor_basis == Floor::Counted));
        assert_eq!(j[0].floor, 0.05 * 231.0);
        assert_eq!(count_floor(150.0), COUNT_MATERIAL);
        assert!((j[3].floor - 0.05 * 313.0).abs() < 1e-9);
        assert_eq!(
            judge_counts(&[exact(1.0), vp(2.0, None)])[0].verdict,
            Verdict::NotJudged
        );
        // The same points judged as times: too little history, 83 of 231 ns is a step and a
        // fiftieth of a nanosecond is no change.
        assert_eq!(judge(&s[..2])[0].verdict, Verdict::Step);
        assert_eq!(judge(&s[..3])[1].verdict, Verdict::NoChange);
    }

    #[test]
    fn noise_alone_is_not_reported() {
        let mut rng = Rng::new(2);
        let (mut pairs, mut found) = (0, 0);
        for n in [4, 8, 12, 20] {
            for _ in 0..1000 {
                // CIs that are honest (±2 sd) and CIs three times too narrow, as real ones
                // often are between boots.
                for ci in [2.0, 0.66] {
                    let j = judge(&series(&mut rng, n, 150.0, 1.0, ci, 0.0, 0));
                    pairs += j.len();
                    found += steps(&j).len();
                }
            }
        }
        // One in 10,000 by construction (the factors); allow twice that.
        assert!(
            found * 5_000 <= pairs,
            "{found} false steps in {pairs} pairs"
        );
    }

    /// The factors of [`K_TABLE`] keep noise alone at about one step in 10,000 comparisons:
    /// re-derived here by simulation for a few history lengths (a factor much too small, as a
    /// plain 5 would be, gives hundreds).
    #[test]
    fn the_factors_hold_noise_to_one_step_in_ten_thousand() {
        let mut rng = Rng::new(3);
        for m in [6, 9, 16, 30] {
            let trials = 100_000;
            let k = k_for(m).unwrap();
            let mut over = 0;
            let mut other = vec![0.0; m];
            for t in 0..trials {
                // m + 2 points give m + 1 moves: the judged one and m others.
                let x: Vec<f64> = (0..m + 2).map(|_| rng.gauss()).collect();
                let i = t % (m + 1);
                let mut o = 0;
                for j in 0..=m {
                    if j != i {
                        other[o] = (x[j + 1] - x[j]).abs();
                        o += 1;
                    }
                }
                other.sort_by(f64::total_cmp);
                let med = median_without(&other, None).unwrap();
                if (x[i + 1] - x[i]).abs() > k * med {
                    over += 1;
                }
            }
            // 10 expected at 1e-4; the Poisson tail makes 30 very unlikely.
            assert!(over <= 30, "m = {m}: {over} of {trials} over {k}");
        }
        assert_eq!(k_for(5), None);
        assert_eq!(k_for(7), Some(23.0));
        assert_eq!(k_for(500), Some(6.4));
    }

    #[test]
    fn without_history_the_kernel_tolerance_decides() {
        let j = judge(&[vp(100.0, Some(1.0)), vp(109.0, Some(1.0))]);
        assert_eq!(j[0].verdict, Verdict::WithinNoise);
        assert_eq!(j[0].floor_basis, Floor::Kernel);
        assert_eq!(j[0].floor, 10.0);
        let j = judge(&[vp(100.0, Some(1.0)), vp(111.0, Some(1.0))]);
        assert_eq!(j[0].verdict, Verdict::Step);
        assert_eq!(j[0].diff.delta, 11.0);
        // compare's interval: the two ±1 intervals added in quadrature, ±√2.
        let (lo, hi) = j[0].diff.delta_interval.unwrap();
        let r2 = std::f64::consts::SQRT_2;
        assert!((lo - (11.0 - r2)).abs() < 1e-6 && (hi - (11.0 + r2)).abs() < 1e-6);
        assert_eq!(j[0].diff.pct, Some(11.0));
        let (lo, hi) = j[0].diff.pct_interval.unwrap();
        assert!((lo - (11.0 - r2)).abs() < 1e-6 && (hi - (11.0 + r2)).abs() < 1e-6);
        // Small values: at least 2 ns.
        let j = judge(&[vp(5.0, Some(0.1)), vp(6.5, Some(0.1))]);
        assert_eq!(j[0].verdict, Verdict::WithinNoise);
    }

    #[test]
    fn the_interval_of_the_difference_decides_not_disjoint_intervals() {
        // 30 ± 42: inconclusive.
        let j = judge(&[vp(100.0, Some(30.0)), vp(130.0, Some(30.0))]);
        assert_eq!(j[0].verdict, Verdict::Inconclusive);
        // Intervals that overlap ([90, 110], [108, 128]) but a difference of 18 ± 14 that
        // excludes zero, beyond the kernel tolerance: a step, as compare would say.
        let j = judge(&[vp(100.0, Some(10.0)), vp(118.0, Some(10.0))]);
        assert_eq!(j[0].verdict, Verdict::Step);
        // Without intervals nothing is judged.
        let j = judge(&[vp(100.0, None), vp(300.0, None)]);
        assert_eq!(j[0].verdict, Verdict::NotJudged);
        assert_eq!(j[0].diff.delta_interval, None);
        assert_eq!(j[0].diff.pct_interval, None);
    }

    #[test]
    fn the_floor_excludes_the_move_it_judges_and_counts_repeats() {
        let mut pts: Vec<VersionPoint> = [100.0, 101.0, 100.0, 101.0, 100.0, 101.0, 100.0, 140.0]
            .iter()
            .map(|&m| vp(m, Some(0.2)))
            .collect();
        let j = judge(&pts);
        // The six other moves are all 1 ns: floor max(23 × 1, 2 % of 100) = 23 ns; the 40 ns
        // move is a step.
        assert_eq!(
            j[6].floor_basis,
            Floor::History {
                n: 6,
                median: 1.0,
                k: 23.0
            }
        );
        assert_eq!(steps(&j), vec![7]);
        // Repeated runs at one version that disagree by 10 ns raise the floor above the move:
        // eight repeat differences of 10 ns outnumber the six moves of 1 ns.
        pts[7].runs = vec![
            140.0, 150.0, 140.0, 150.0, 140.0, 150.0, 140.0, 150.0, 140.0,
        ];
        let j = judge(&pts);
        assert!(j[6].floor > 40.0, "{:?}", j[6]);
        assert!(steps(&j).is_empty());
        // Too little history (4 other moves, no repeats): the kernel tolerance.
        let short: Vec<VersionPoint> = pts[2..]
            .iter()
            .map(|p| vp(p.point.median, Some(0.2)))
            .collect();
        let j = judge(&short);
        assert_eq!(j[4].floor_basis, Floor::Kernel);
        assert_eq!(steps(&j), vec![5]);
    }

    /// `n` runs of a metric around `level`: the runs' values spread evenly over ±`spread` (a
    /// fixed draw), each with its own interval of ±`ci`.
    fn runs(n: usize, level: f64, spread: f64, ci: f64) -> Vec<(Val, bool)> {
        (0..n)
            .map(|i| {
                let m = level - spread + 2.0 * spread * i as f64 / (n - 1) as f64;
                let v = Val {
                    median: m,
                    lo: Some(m - ci),
                    hi: Some(m + ci),
                };
                (v, false)
            })
            .collect()
    }

    fn outcome_of(d: &Difference, base: f64) -> Option<Outcome> {
        d.outcome(syscost_stats::time_margin(
            base,
            syscost_stats::DEFAULT_MARGIN_PCT,
        ))
    }

    /// Two sides of 20 runs each whose spans overlap ([95, 105] and [100, 110]) but whose
    /// means are 5 ns apart, about six standard errors: the span called it inconclusive, the
    /// runs pooled call it a change, and so does the judgement of consecutive versions.
    #[test]
    fn several_runs_a_side_are_pooled_not_spanned() {
        let (a, b) = (runs(20, 100.0, 4.0, 1.0), runs(20, 105.0, 4.0, 1.0));
        let (pa, pb) = (usable_point(&a).unwrap(), usable_point(&b).unwrap());
        assert_eq!(pa.interval, Some((95.0, 105.0)));
        assert_eq!(pb.interval, Some((100.0, 110.0)));
        let spanned = difference(pa.median, pa.interval, pb.median, pb.interval);
        assert_eq!(outcome_of(&spanned, 100.0), Some(Outcome::Inconclusive));

        let pooled = runs_difference(&a, &b).unwrap();
        assert_eq!(pooled, point_difference(&pa, &pb));
        assert!((pooled.delta - 5.0).abs() < 1e-9);
        let (lo, hi) = pooled.delta_interval.unwrap();
        // Each side: sd of 20 evenly spread values over ±4 is 2.43, se 0.54; the difference's
        // se 0.77 with 38 df, t 2.02: ±1.6.
        assert!(lo > 3.0 && hi < 7.0, "{pooled:?}");
        assert_eq!(outcome_of(&pooled, 100.0), Some(Outcome::Higher));
        assert!(pooled.pct.is_some_and(|p| (p - 5.0).abs() < 1e-9));

        let vp = |p: Point| VersionPoint {
            point: p,
            runs: vec![p.median],
        };
        let j = judge(&[vp(pa), vp(pb)]);
        assert_eq!(j[0].diff, pooled);

        // A single run against several: the run's own interval against the pooled side.
        let one = runs_difference(&b[..1], &a).unwrap();
        assert!(one.delta_interval.is_some());
        // Sides whose runs lack an interval are not pooled: their spans stand, as before.
        let bare = |x: &[(Val, bool)]| -> Point {
            let v: Vec<(Val, bool)> = x
                .iter()
                .map(|(v, l)| {
                    (
                        Val {
                            lo: None,
                            hi: None,
                            ..*v
                        },
                        *l,
                    )
                })
                .collect();
            usable_point(&v).unwrap()
        };
        let (qa, qb) = (bare(&a), bare(&b));
        assert_eq!((qa.pooled, qb.pooled), (None, None));
        assert_eq!(
            point_difference(&qa, &qb),
            difference(qa.median, qa.interval, qb.median, qb.interval)
        );
    }

    /// Runs drawn from one distribution (between-run noise three times wider than their own
    /// intervals, as on a shared host) are not called slower or faster more often than a
    /// 95 % interval allows, and with many runs a side they are "no change".
    #[test]
    fn runs_of_one_distribution_are_not_a_change() {
        let mut rng = Rng::new(4);
        let draw = |rng: &mut Rng, n: usize| -> Vec<(Val, bool)> {
            (0..n)
                .map(|_| {
                    let m = 100.0 + 1.5 * rng.gauss();
                    let v = Val {
                        median: m,
                        lo: Some(m - 1.0),
                        hi: Some(m + 1.0),
                    };
                    (v, false)
                })
                .collect()
        };
        for n in [2, 3, 10, 50] {
            let trials = 2000;
            let (mut changed, mut none) = (0, 0);
            for _ in 0..trials {
                let (a, b) = (draw(&mut rng, n), draw(&mut rng, n));
                let d = runs_difference(&a, &b).unwrap();
                match outcome_of(&d, 100.0) {
                    Some(Outcome::Higher | Outcome::Lower) => changed += 1,
                    Some(Outcome::NoChange) => none += 1,
                    _ => {}
                }
            }
            // 5 % at most by construction (two-sided, less what the margin takes); allow
            // for the draw.
            assert!(
                changed * 100 <= 6 * trials,
                "n = {n}: {changed} of {trials} changed"
            );
            if n == 50 {
                assert!(
                    none * 100 >= 95 * trials,
                    "n = {n}: {none} of {trials} no change"
                );
            }
        }
    }

    #[test]
    fn median_without_one() {
        let s = [1.0, 2.0, 3.0, 10.0];
        assert_eq!(median_without(&s, None), Some(2.5));
        assert_eq!(median_without(&s, Some(3)), Some(2.0));
        assert_eq!(median_without(&s, Some(0)), Some(3.0));
        assert_eq!(median_without(&[1.0], Some(0)), None);
    }
}
