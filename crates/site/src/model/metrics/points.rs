//! How the values of several runs are summarised into one point.

use super::Val;
use syscost_stats::{Pooled, Value};

/// The confidence a run's interval is read at: the records' default.
pub const CONFIDENCE: f64 = 0.95;

/// Several runs' values of one metric at one point (a series at a kernel) summarised without
/// inventing precision: the median of the runs' medians and an interval that is the run's own
/// CI for a single run, or the span of all runs' CIs (or medians, where a run has none) for
/// several — what a chart draws, the spread of the runs. `low` marks a point made only of
/// low-quality runs (drawn hollow, never a headline).
///
/// A verdict does not use the span: several runs that all have an interval are also pooled
/// (`pooled`: the mean, its standard error from the runs' spread, never below their own, and
/// Student's t with runs − 1 degrees of freedom), as `syscost compare --pool` pools reruns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub n: usize,
    pub median: f64,
    pub interval: Option<(f64, f64)>,
    pub kind: IntervalKind,
    pub low: bool,
    /// The runs pooled ([`syscost_stats::pool`]): with at least two runs, every one with an
    /// interval; None otherwise (a single run is its own side; a run without an interval says
    /// nothing of its own uncertainty).
    pub pooled: Option<Pooled>,
}

impl Point {
    /// What a verdict takes the point to be: its runs' mean where they are pooled, else its
    /// median.
    pub fn center(&self) -> f64 {
        self.pooled.map_or(self.median, |p| p.mean)
    }
}

/// The runs `vals` pooled, when there are at least two and each has an interval.
pub fn pooled(vals: &[Val]) -> Option<Pooled> {
    let values = vals
        .iter()
        .map(|v| {
            v.ci().map(|(low, high)| Value {
                median: v.median,
                low,
                high,
            })
        })
        .collect::<Option<Vec<Value>>>()?;
    syscost_stats::pool(&values, syscost_stats::z_of(CONFIDENCE))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalKind {
    /// One run, its own confidence interval.
    Ci,
    /// One run without an interval (single sample): no bar may be drawn.
    None,
    /// Several runs: from the lowest to the highest bound among them.
    Span,
}

/// The median of `v` (reordered), None for none: the project's one median.
pub fn median_of(v: &mut [f64]) -> Option<f64> {
    (!v.is_empty()).then(|| syscost_stats::median::median_in(v))
}

pub fn aggregate(vals: &[Val]) -> Option<Point> {
    let mut medians: Vec<f64> = vals.iter().map(|v| v.median).collect();
    let median = median_of(&mut medians)?;
    let n = vals.len();
    if n == 1 {
        let v = vals[0];
        return Some(match v.ci() {
            Some(ci) => Point {
                n,
                median,
                interval: Some(ci),
                kind: IntervalKind::Ci,
                low: false,
                pooled: None,
            },
            None => Point {
                n,
                median,
                interval: None,
                kind: IntervalKind::None,
                low: false,
                pooled: None,
            },
        });
    }
    let lo = vals
        .iter()
        .map(|v| v.lo.unwrap_or(v.median).min(v.median))
        .fold(f64::INFINITY, f64::min);
    let hi = vals
        .iter()
        .map(|v| v.hi.unwrap_or(v.median).max(v.median))
        .fold(f64::NEG_INFINITY, f64::max);
    Some(Point {
        n,
        median,
        interval: Some((lo, hi)),
        kind: IntervalKind::Span,
        low: false,
        pooled: pooled(vals),
    })
}

/// The point of a set of runs' values, `(value, low quality)`: the runs of good enough quality
/// when there are any; otherwise the low-quality ones, marked `low`.
pub fn usable_point(vals: &[(Val, bool)]) -> Option<Point> {
    let good: Vec<Val> = vals.iter().filter(|v| !v.1).map(|v| v.0).collect();
    if !good.is_empty() {
        return aggregate(&good);
    }
    let low: Vec<Val> = vals.iter().map(|v| v.0).collect();
    aggregate(&low).map(|p| Point { low: true, ..p })
}
