//! The chart's scales: the y range (robust, or logarithmic) with its clipped points, and the kernel versions' positions on the x axis.

use super::*;

/// Width and height of the plot area.
pub(super) const PW: f64 = W - ML - MR;
pub(super) const PH: f64 = H - MT - MB;

/// Above this ratio of the largest to the smallest median (all of them positive) the y axis is
/// logarithmic: on a linear one the cheaper series would be a flat line at the bottom.
pub(super) const LOG_RATIO: f64 = 10.0;
/// How far a y range may reach beyond the medians to take in interval bounds: this many times
/// the chart's median half-width, or [`REACH_SPAN`] of the medians' own span, whichever is more.
/// A bound further out is drawn to the edge and marked as clipped, so that one wide interval
/// cannot squash every other point into a line.
pub(super) const REACH_HALF_WIDTHS: f64 = 3.0;
pub(super) const REACH_SPAN: f64 = 0.25;
/// The smallest span of a linear axis, as a share of its largest magnitude: a flat series is
/// not magnified until its noise looks like steps.
pub(super) const MIN_SPAN: f64 = 0.04;
/// Between the plot's sides and the first and last kernel version.
pub(super) const X_PAD: f64 = 14.0;
/// Between two x-axis labels (11 px text turned by 45° needs 11 × √2).
pub(super) const LABEL_GAP: f64 = 16.0;

/// The y axis: linear or logarithmic (base 10), its range in axis units (the logarithm on a
/// log axis) and its ticks (as values).
pub(super) struct YScale {
    pub(super) log: bool,
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) ticks: Vec<f64>,
}

/// Where a value lies against the axis range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Clip {
    Below,
    In,
    Above,
}

impl YScale {
    pub(super) fn unit(log: bool, v: f64) -> f64 {
        match (log, v > 0.0) {
            (false, _) => v,
            (true, true) => v.log10(),
            (true, false) => f64::NEG_INFINITY,
        }
    }

    /// The pixel row of `v`, at the edge when `v` is outside the range.
    pub(super) fn at(&self, v: f64) -> (f64, Clip) {
        let u = Self::unit(self.log, v);
        let eps = (self.hi - self.lo) * 1e-9;
        let (f, clip) = if u < self.lo - eps {
            (0.0, Clip::Below)
        } else if u > self.hi + eps {
            (1.0, Clip::Above)
        } else {
            ((u - self.lo) / (self.hi - self.lo), Clip::In)
        };
        (MT + PH - f * PH, clip)
    }

    pub(super) fn y(&self, v: f64) -> f64 {
        self.at(v).0
    }

    /// The axis of a trend: every median in view; interval bounds as far as
    /// [`REACH_HALF_WIDTHS`] and [`REACH_SPAN`] allow; logarithmic past [`LOG_RATIO`]. `None`
    /// without a finite median.
    pub(super) fn robust(points: &[&Point]) -> Option<YScale> {
        let meds = points.iter().map(|p| p.median).filter(|v| v.is_finite());
        let (mlo, mhi) = meds.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        if !mlo.is_finite() {
            return None;
        }
        let log = mlo > 0.0 && mhi / mlo > LOG_RATIO;
        let unit = |v: f64| Self::unit(log, v);
        let (ulo, uhi) = (unit(mlo), unit(mhi));
        let mut half: Vec<f64> = points
            .iter()
            .filter(|p| p.kind != IntervalKind::None)
            .filter_map(|p| p.interval)
            .map(|(a, b)| (unit(b) - unit(a)) / 2.0)
            .filter(|w| w.is_finite())
            .collect();
        let h = crate::model::metrics::median_of(&mut half).unwrap_or(0.0);
        let reach = (REACH_HALF_WIDTHS * h).max(REACH_SPAN * (uhi - ulo));
        let (mut lo, mut hi) = (ulo, uhi);
        for (a, b) in points.iter().filter_map(|p| p.interval) {
            for u in [unit(a), unit(b)].into_iter().filter(|u| u.is_finite()) {
                lo = lo.min(u.max(ulo - reach));
                hi = hi.max(u.min(uhi + reach));
            }
        }
        Some(if log {
            YScale::logarithmic(lo, hi)
        } else {
            YScale::linear(lo, hi, false)
        })
    }

    /// A linear axis over `lo..hi` on whole tick steps. Zero, the reference of an overhead, is
    /// taken in when `keep_zero` or when it is near (within half the span); a range of one
    /// value reaches to zero.
    pub(super) fn linear(mut lo: f64, mut hi: f64, keep_zero: bool) -> YScale {
        let near = if keep_zero {
            f64::INFINITY
        } else {
            0.5 * (hi - lo)
        };
        if lo > 0.0 && (lo <= near || hi - lo < 1e-9) {
            lo = 0.0;
        }
        if hi < 0.0 && (-hi <= near || hi - lo < 1e-9) {
            hi = 0.0;
        }
        if hi - lo < 1e-9 {
            hi = lo + 1.0;
        }
        let min_span = MIN_SPAN * lo.abs().max(hi.abs());
        if hi - lo < min_span {
            let mid = (lo + hi) / 2.0;
            (lo, hi) = (mid - min_span / 2.0, mid + min_span / 2.0);
        }
        let step = nice_step(hi - lo, 5.0);
        let (lo, hi) = ((lo / step).floor() * step, (hi / step).ceil() * step);
        let n = ((hi - lo) / step).round().min(50.0) as usize;
        YScale {
            log: false,
            lo,
            hi,
            ticks: (0..=n).map(|k| lo + step * k as f64).collect(),
        }
    }

    /// A log axis over `lo..hi` (decimal logarithms), from the tick at or below `lo` to the
    /// tick at or above `hi`: 1, 2 and 5 × 10^k over up to 2.5 decades, powers of ten beyond.
    pub(super) fn logarithmic(lo: f64, hi: f64) -> YScale {
        let mults: &[f64] = if hi - lo <= 2.5 {
            &[1.0, 2.0, 5.0]
        } else {
            &[1.0]
        };
        let candidates: Vec<f64> = ((lo.floor() as i32 - 1)..=(hi.ceil() as i32 + 1))
            .flat_map(|d| mults.iter().map(move |m| m * 10f64.powi(d)))
            .collect();
        let eps = 1e-9;
        let lo = candidates
            .iter()
            .map(|v| v.log10())
            .filter(|u| *u <= lo + eps)
            .fold(f64::NEG_INFINITY, f64::max);
        let hi = candidates
            .iter()
            .map(|v| v.log10())
            .filter(|u| *u >= hi - eps)
            .fold(f64::INFINITY, f64::min);
        YScale {
            log: true,
            lo,
            hi,
            ticks: candidates
                .into_iter()
                .filter(|v| (lo - eps..=hi + eps).contains(&v.log10()))
                .collect(),
        }
    }
}

/// A point's median and interval bounds.
pub(super) fn bounds(p: &Point) -> [f64; 3] {
    let (a, b) = p.interval.unwrap_or((p.median, p.median));
    [p.median, a, b]
}

/// Where values and kernel versions land in the plot area.
pub(super) struct Scale {
    pub(super) y: YScale,
    /// The pixel column of each kernel version.
    pub(super) xs: Vec<f64>,
    /// The smallest distance between two neighbouring versions, in pixels.
    pub(super) gap: f64,
    pub(super) lines: usize,
}

impl Scale {
    /// `None` when no line has a point (or there are no versions).
    pub(super) fn new(t: &Trend) -> Option<Scale> {
        if t.x.is_empty() {
            return None;
        }
        let points: Vec<&Point> = t
            .lines
            .iter()
            .flat_map(|l| l.points.iter().flatten())
            .collect();
        let y = YScale::robust(&points)?;
        let xs = x_positions(&t.x);
        let gap = xs.windows(2).map(|w| w[1] - w[0]).fold(PW, f64::min);
        Some(Scale {
            y,
            xs,
            gap,
            lines: t.lines.len(),
        })
    }

    /// Sideways offset of series `li`, so overlapping intervals stay readable (within the
    /// padding at the ends of the axis).
    pub(super) fn dodge(&self, li: usize) -> f64 {
        let w = (self.gap * 0.5)
            .min(6.0 * self.lines as f64)
            .min(2.0 * (X_PAD - 2.0));
        if self.lines <= 1 {
            0.0
        } else {
            -w / 2.0 + w * li as f64 / (self.lines - 1) as f64
        }
    }
}

/// The pixel column of each version label (ascending), by [`crate::model::kver::Base::axis_position`]:
/// one unit per upstream release, so releases without data are gaps on the axis. Labels
/// without a version number follow the last, one release apart.
pub(super) fn x_positions(labels: &[String]) -> Vec<f64> {
    let known: Vec<Option<f64>> = labels
        .iter()
        .map(|l| {
            crate::model::kver::label_key(l)
                .base
                .map(|b| b.axis_position())
        })
        .collect();
    let mut next = known
        .iter()
        .flatten()
        .fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    if !next.is_finite() {
        next = -1.0;
    }
    let pos: Vec<f64> = known
        .into_iter()
        .map(|p| {
            p.unwrap_or_else(|| {
                next += 1.0;
                next
            })
        })
        .collect();
    let (p0, p1) = pos
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &p| {
            (a.min(p), b.max(p))
        });
    pos.iter()
        .map(|p| {
            if p1 - p0 < 1e-9 {
                ML + PW / 2.0
            } else {
                ML + X_PAD + (p - p0) / (p1 - p0) * (PW - 2.0 * X_PAD)
            }
        })
        .collect()
}

/// Of ascending columns `xs`, the ones to label: as many as fit `gap` apart, always the first
/// and the last.
pub(super) fn spaced(xs: &[f64], gap: f64) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for (i, &x) in xs.iter().enumerate() {
        if out.last().is_none_or(|&j| x - xs[j] >= gap) {
            out.push(i);
        }
    }
    let last = xs.len().saturating_sub(1);
    if !xs.is_empty() && out.last() != Some(&last) {
        while out.len() > 1 && out.last().is_some_and(|&j| xs[last] - xs[j] < gap) {
            out.pop();
        }
        out.push(last);
    }
    out
}
