//! The headline numbers the site tracks over kernel versions, and how each is read out of a
//! record. Ids are the stable ones of docs/ids.md.

use syscost_record::{EstimateId, RunRecord, Status};

/// Where a metric's number lives in a record.
#[derive(Debug, Clone, Copy)]
pub enum From {
    /// `estimates[id]`.
    Estimate(EstimateId),
    /// `results[id].overhead` (measured results only).
    Overhead(&'static str),
}

#[derive(Debug, Clone, Copy)]
pub struct Metric {
    /// File-name slug, stable across builds.
    pub slug: &'static str,
    pub label: &'static str,
    /// Short column header.
    pub short: &'static str,
    pub from: From,
}

impl Metric {
    pub fn source_id(&self) -> String {
        match self.from {
            From::Estimate(id) => format!("estimates: {}", id.id()),
            From::Overhead(id) => format!("results: {id} (overhead)"),
        }
    }
}

const fn est(
    slug: &'static str,
    label: &'static str,
    short: &'static str,
    id: EstimateId,
) -> Metric {
    Metric {
        slug,
        label,
        short,
        from: From::Estimate(id),
    }
}

const fn ovh(
    slug: &'static str,
    label: &'static str,
    short: &'static str,
    id: &'static str,
) -> Metric {
    Metric {
        slug,
        label,
        short,
        from: From::Overhead(id),
    }
}

/// Every headline metric, in display order.
pub const METRICS: &[Metric] = &[
    est(
        "seccomp-entry",
        "seccomp entry cost (kernel formula)",
        "entry",
        EstimateId::Entry,
    ),
    est(
        "seccomp-entry-fit",
        "seccomp entry cost (depth fit)",
        "entry (fit)",
        EstimateId::DepthEntry,
    ),
    est(
        "seccomp-per-filter",
        "seccomp per-filter cost (last 2 diff)",
        "per filter",
        EstimateId::PerFilterLast2,
    ),
    est(
        "seccomp-per-filter-fit",
        "seccomp per-filter cost (depth fit)",
        "per filter (fit)",
        EstimateId::DepthPerFilter,
    ),
    ovh(
        "sud-allow",
        "SUD on, selector ALLOW: overhead",
        "SUD allow",
        "sud.allow",
    ),
    ovh(
        "sud-block",
        "SUD on, selector BLOCK (SIGSYS round trip): overhead",
        "SUD block",
        "sud.block",
    ),
    ovh("bpf-tp", "BPF tracepoint: overhead", "BPF tp", "bpf.tp"),
    ovh(
        "bpf-rawtp",
        "BPF raw tracepoint: overhead",
        "BPF raw_tp",
        "bpf.rawtp",
    ),
    ovh(
        "bpf-kprobe",
        "BPF kprobe: overhead",
        "BPF kprobe",
        "bpf.kprobe",
    ),
    ovh(
        "bpf-kretprobe",
        "BPF kretprobe: overhead",
        "BPF kretprobe",
        "bpf.kretprobe",
    ),
    ovh(
        "bpf-kprobe-multi",
        "BPF kprobe.multi: overhead",
        "BPF kprobe.multi",
        "bpf.kprobe_multi",
    ),
    ovh(
        "bpf-fentry",
        "BPF fentry: overhead",
        "BPF fentry",
        "bpf.fentry",
    ),
    ovh("bpf-fexit", "BPF fexit: overhead", "BPF fexit", "bpf.fexit"),
    ovh(
        "bpf-fmodret",
        "BPF fmod_ret: overhead",
        "BPF fmod_ret",
        "bpf.fmodret",
    ),
    ovh(
        "bpf-uprobe",
        "BPF uprobe: overhead",
        "BPF uprobe",
        "bpf.uprobe",
    ),
    ovh(
        "bpf-uretprobe",
        "BPF uretprobe: overhead",
        "BPF uretprobe",
        "bpf.uretprobe",
    ),
];

/// Metrics shown as columns in run lists (a subset, to keep tables readable).
pub const KEY_COLUMNS: &[usize] = &[0, 2, 4, 5, 7];

/// One run's value of one metric, in ns per operation. `lo`/`hi` are its confidence interval,
/// absent for single-sample (imported) numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Val {
    pub median: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

impl Val {
    pub fn ci(&self) -> Option<(f64, f64)> {
        match (self.lo, self.hi) {
            (Some(l), Some(h)) => Some((l, h)),
            _ => None,
        }
    }
}

/// Reads one metric from a record; `None` when absent, not measured or not a finite number.
pub fn extract(r: &RunRecord, m: &Metric) -> Option<Val> {
    let v = match m.from {
        From::Estimate(id) => {
            let e = r.estimate(id.id())?;
            Val {
                median: e.median_ns,
                lo: e.ci_low_ns,
                hi: e.ci_high_ns,
            }
        }
        From::Overhead(id) => {
            let res = r.result(id)?;
            if res.status != Status::Measured {
                return None;
            }
            let o = res.overhead.as_ref()?;
            Val {
                median: o.median_ns,
                lo: o.ci_low_ns,
                hi: o.ci_high_ns,
            }
        }
    };
    let finite =
        v.median.is_finite() && v.lo.is_none_or(f64::is_finite) && v.hi.is_none_or(f64::is_finite);
    finite.then_some(v)
}

pub fn extract_all(r: &RunRecord) -> Vec<Option<Val>> {
    METRICS.iter().map(|m| extract(r, m)).collect()
}

/// Several runs' values of one metric at one point (a series at a kernel, an arch at a kernel)
/// summarised without inventing precision: the median of the runs' medians and an interval
/// that is the run's own CI for a single run, or the span of all runs' CIs (or medians, where a
/// run has none) for several.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub n: usize,
    pub median: f64,
    pub interval: Option<(f64, f64)>,
    pub kind: IntervalKind,
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

pub fn aggregate(vals: &[Val]) -> Option<Point> {
    if vals.is_empty() {
        return None;
    }
    let mut medians: Vec<f64> = vals.iter().map(|v| v.median).collect();
    medians.sort_by(f64::total_cmp);
    let n = medians.len();
    let median = if n % 2 == 1 {
        medians[n / 2]
    } else {
        (medians[n / 2 - 1] + medians[n / 2]) / 2.0
    };
    if n == 1 {
        let v = vals[0];
        return Some(match v.ci() {
            Some(ci) => Point {
                n,
                median,
                interval: Some(ci),
                kind: IntervalKind::Ci,
            },
            None => Point {
                n,
                median,
                interval: None,
                kind: IntervalKind::None,
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(m: f64, ci: Option<(f64, f64)>) -> Val {
        Val {
            median: m,
            lo: ci.map(|c| c.0),
            hi: ci.map(|c| c.1),
        }
    }

    #[test]
    fn single_run_keeps_its_ci_or_has_none() {
        let p = aggregate(&[val(5.0, Some((4.0, 6.0)))]).unwrap();
        assert_eq!((p.interval, p.kind), (Some((4.0, 6.0)), IntervalKind::Ci));
        let p = aggregate(&[val(5.0, None)]).unwrap();
        assert_eq!((p.interval, p.kind), (None, IntervalKind::None));
    }

    #[test]
    fn several_runs_span_all_bounds() {
        let p = aggregate(&[
            val(5.0, Some((4.0, 6.0))),
            val(9.0, None),
            val(7.0, Some((6.5, 7.5))),
        ])
        .unwrap();
        assert_eq!(p.n, 3);
        assert_eq!(p.median, 7.0);
        assert_eq!(p.interval, Some((4.0, 9.0)));
        assert_eq!(p.kind, IntervalKind::Span);
        let p = aggregate(&[val(2.0, None), val(4.0, None)]).unwrap();
        assert_eq!(p.median, 3.0);
        assert_eq!(p.interval, Some((2.0, 4.0)));
        assert!(aggregate(&[]).is_none());
    }

    #[test]
    fn slugs_are_unique_and_safe() {
        let mut seen = std::collections::BTreeSet::new();
        for m in METRICS {
            assert!(seen.insert(m.slug));
            assert!(m.slug.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
        }
        for &k in KEY_COLUMNS {
            assert!(k < METRICS.len());
        }
    }
}
