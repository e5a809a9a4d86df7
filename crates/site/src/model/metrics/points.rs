//! How the values of several runs are summarised into one point.

use super::Val;

/// Several runs' values of one metric at one point (a series at a kernel) summarised without
/// inventing precision: the median of the runs' medians and an interval that is the run's own
/// CI for a single run, or the span of all runs' CIs (or medians, where a run has none) for
/// several. `low` marks a point made only of low-quality runs (drawn hollow, never a headline).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub n: usize,
    pub median: f64,
    pub interval: Option<(f64, f64)>,
    pub kind: IntervalKind,
    pub low: bool,
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
            },
            None => Point {
                n,
                median,
                interval: None,
                kind: IntervalKind::None,
                low: false,
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
