//! A series' metrics over its kernel versions, and the steps found between consecutive
//! versions ([`crate::model::changes`]). Computed from the run summaries, one series at a time.

use crate::model::changes::{self, Pair, Verdict, VersionPoint};
use crate::model::groups::{Groups, SeriesRuns};
use crate::model::metrics::{usable_point, Point, Val};
use crate::model::series::SeriesKey;
use crate::model::summary::RunInfo;
use std::sync::Arc;

/// One metric of one series over the series' versions.
pub struct MetricTrend {
    pub metric: u32,
    /// Per version of the series: the point of its usable runs (low-quality ones only when
    /// there is nothing else, marked `low`), or none.
    pub points: Vec<Option<Point>>,
    /// Versions (indices) whose point is made of usable runs, in order: what change detection
    /// compares.
    pub judged: Vec<usize>,
    /// One judgement per consecutive pair of `judged`.
    pub pairs: Vec<Pair>,
}

impl MetricTrend {
    /// The judgement of the move into version `v`, if `v` was compared with an earlier one.
    pub fn pair_into(&self, v: usize) -> Option<(usize, &Pair)> {
        let k = self.judged.iter().position(|&x| x == v)?;
        let p = self.pairs.get(k.checked_sub(1)?)?;
        Some((self.judged[k - 1], p))
    }
}

/// Per version of a series: (value, low quality) of each run, oldest first.
type Slots = Vec<Vec<(Val, bool)>>;

/// Every metric of a series, in registry order.
fn series_trends(runs: &[RunInfo], s: &SeriesRuns) -> Vec<MetricTrend> {
    // metric → per version: (value, low quality) of each run, oldest first.
    // Indexed by metric id (a registry has a few hundred), in id order as the map was.
    let mut per: Vec<Option<Slots>> = Vec::new();
    for (vi, (_, idx)) in s.versions.iter().enumerate() {
        for &i in idx {
            let r = &runs[i];
            for (m, v) in r.values.iter() {
                let m = m as usize;
                if per.len() <= m {
                    per.resize_with(m + 1, || None);
                }
                per[m].get_or_insert_with(|| vec![Vec::new(); s.versions.len()])[vi]
                    .push((v, r.is_low()));
            }
        }
    }
    let approx = approximate(s);
    per.into_iter()
        .enumerate()
        .filter_map(|(metric, slots)| {
            Some(trend_of(
                metric as u32,
                &slots?,
                &approx,
                s.key.instructions,
            ))
        })
        .collect()
}

/// The trend of one metric in a series (for pages that need one).
pub fn series_trend(runs: &[RunInfo], s: &SeriesRuns, metric: u32) -> Option<MetricTrend> {
    let mut slots = vec![Vec::new(); s.versions.len()];
    let mut any = false;
    for (vi, (_, idx)) in s.versions.iter().enumerate() {
        for &i in idx {
            if let Some(v) = runs[i].values.get(metric) {
                slots[vi].push((v, runs[i].is_low()));
                any = true;
            }
        }
    }
    any.then(|| trend_of(metric, &slots, &approximate(s), s.key.instructions))
}

/// Which of a series' versions are known only approximately (`≈5.9-rc`).
fn approximate(s: &SeriesRuns) -> Vec<bool> {
    s.versions
        .iter()
        .map(|(label, _)| label.starts_with(crate::model::kver::APPROX))
        .collect()
}

/// Versions known only approximately are drawn but never judged: a step into or out of one
/// could not say between which releases it happened. Instruction counts are judged by their
/// own rule ([`changes::judge_counts`]).
fn trend_of(
    metric: u32,
    slots: &[Vec<(Val, bool)>],
    approx: &[bool],
    counted: bool,
) -> MetricTrend {
    let points: Vec<Option<Point>> = slots.iter().map(|v| usable_point(v)).collect();
    let mut judged = Vec::new();
    let mut input = Vec::new();
    for (vi, p) in points.iter().enumerate() {
        if approx.get(vi).copied().unwrap_or(false) {
            continue;
        }
        if let Some(p) = p.filter(|p| !p.low) {
            judged.push(vi);
            input.push(VersionPoint {
                point: p,
                runs: slots[vi]
                    .iter()
                    .filter(|v| !v.1)
                    .map(|v| v.0.median)
                    .collect(),
            });
        }
    }
    MetricTrend {
        metric,
        points,
        pairs: if counted {
            changes::judge_counts(&input)
        } else {
            changes::judge(&input)
        },
        judged,
    }
}

/// A detected step.
pub struct Change {
    pub series: Arc<SeriesKey>,
    pub metric: u32,
    pub from: String,
    pub to: String,
    pub from_point: Point,
    pub to_point: Point,
    pub pair: Pair,
    /// The usable runs behind each side, oldest first.
    pub from_runs: Vec<usize>,
    pub to_runs: Vec<usize>,
    /// When the last of those runs was taken (collection date, or the published log's date):
    /// the change could be seen from then on. `None` when none of them is dated.
    pub date: Option<String>,
}

impl Change {
    /// Stable id for the feed.
    pub fn id(&self, reg: &crate::model::metrics::Registry) -> String {
        format!(
            "{}:{}:{}..{}",
            self.series.id(),
            reg.key(self.metric).slug(),
            self.from,
            self.to
        )
    }
}

/// What a series' pages say of one metric: its row of the series' overview and, when the
/// metric has a page of its own there, its whole trend. Only those are kept from the step
/// detection to the series pages: every metric's whole trend was 160 MB at 100,000 runs.
pub struct Kept {
    pub metric: u32,
    /// How many versions have a point.
    pub versions: usize,
    /// The newest version with a point, and the point.
    pub latest: Option<(usize, Point)>,
    /// The judgement of the move into the newest version, and the version it is from.
    pub into: Option<(usize, Pair)>,
    /// How many moves were judged steps.
    pub steps: usize,
    /// The whole trend of a metric with a page of its own in the series: a headline metric, or
    /// one with a step between kernel versions (the page every change links to). Every other
    /// metric is a row of the overview and a line of the metric's page: pages per series ×
    /// metric (over a hundred metrics) were most of the site's bytes.
    pub full: Option<MetricTrend>,
}

impl Kept {
    fn of(t: MetricTrend, full: bool) -> Kept {
        let last = t.points.iter().rposition(Option::is_some);
        Kept {
            metric: t.metric,
            versions: t.points.iter().filter(|p| p.is_some()).count(),
            latest: last.and_then(|v| Some((v, t.points[v]?))),
            into: last
                .and_then(|v| t.pair_into(v))
                .map(|(from, p)| (from, *p)),
            steps: t
                .pairs
                .iter()
                .filter(|p| p.verdict == Verdict::Step)
                .count(),
            full: full.then_some(t),
        }
    }
}

/// Every step of every series: newest first (undated last), then by series and metric; and
/// what each series' pages say of its metrics, in `g.by_series` order, the whole trend of a
/// metric with a step or for which `paged` holds. Worked out once, on all cores, for the steps
/// and the series pages alike.
pub fn detect(
    runs: &[RunInfo],
    g: &Groups,
    paged: &(dyn Fn(u32) -> bool + Sync),
) -> (Vec<Change>, Vec<Vec<Kept>>) {
    let series: Vec<&SeriesRuns> = g.by_series.values().collect();
    let found = crate::parallel::par_map(series, crate::parallel::jobs(), |s| {
        let mut steps = Vec::new();
        let kept = series_trends(runs, s)
            .into_iter()
            .map(|t| {
                let before = steps.len();
                steps.extend(steps_of(runs, s, &t));
                let full = steps.len() > before || paged(t.metric);
                Kept::of(t, full)
            })
            .collect();
        (kept, steps)
    });
    let (kept, steps): (Vec<Vec<Kept>>, Vec<Vec<Change>>) = found.into_iter().unzip();
    let mut out: Vec<Change> = steps.into_iter().flatten().collect();
    out.sort_by(|a, b| {
        b.date
            .cmp(&a.date)
            .then_with(|| a.series.cmp(&b.series))
            .then_with(|| a.metric.cmp(&b.metric))
            .then_with(|| a.from.cmp(&b.from))
    });
    (out, kept)
}

/// The steps of one metric of a series.
fn steps_of(runs: &[RunInfo], s: &SeriesRuns, t: &MetricTrend) -> Vec<Change> {
    let mut out = Vec::new();
    for p in t.pairs.iter().filter(|p| p.verdict == Verdict::Step) {
        let (a, b) = (t.judged[p.from], t.judged[p.to]);
        let usable = |v: usize| -> Vec<usize> {
            s.versions[v]
                .1
                .iter()
                .copied()
                .filter(|&i| !runs[i].is_low() && runs[i].values.get(t.metric).is_some())
                .collect()
        };
        let (from_runs, to_runs) = (usable(a), usable(b));
        let date = from_runs
            .iter()
            .chain(&to_runs)
            .filter_map(|&i| runs[i].date.as_deref().and_then(atom_date))
            .max();
        if let (Some(fp), Some(tp)) = (t.points[a], t.points[b]) {
            out.push(Change {
                series: Arc::clone(&s.key),
                metric: t.metric,
                from: s.versions[a].0.clone(),
                to: s.versions[b].0.clone(),
                from_point: fp,
                to_point: tp,
                pair: *p,
                from_runs,
                to_runs,
                date,
            });
        }
    }
    out
}

/// A record's date as Atom's `updated` wants it: an RFC 3339 time as it is, a plain
/// `YYYY-MM-DD` (what the source of an imported log states: the day the log was published) as
/// the start of that day in UTC. Anything else is no date.
pub fn atom_date(s: &str) -> Option<String> {
    let s = s.trim();
    if rfc3339_like(s) {
        return Some(s.to_string());
    }
    let b = s.as_bytes();
    let day = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && [0, 1, 2, 3, 5, 6, 8, 9]
            .iter()
            .all(|&i| b[i].is_ascii_digit());
    let (m, d) = (s.get(5..7)?, s.get(8..10)?);
    (day && ("01"..="12").contains(&m) && ("01"..="31").contains(&d))
        .then(|| format!("{s}T00:00:00Z"))
}

/// `YYYY-MM-DDTHH:MM:SS…(Z|±HH:MM)`: good enough to put in Atom's `updated`.
pub fn rfc3339_like(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        r.into_iter()
            .all(|i| b.get(i).is_some_and(u8::is_ascii_digit))
    };
    b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && (b[10] == b'T' || b[10] == b't')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && (s.ends_with('Z')
            || s.ends_with('z')
            || b[b.len() - 6] == b'+'
            || b[b.len() - 6] == b'-')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || ":-+.".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_for_atom() {
        assert!(rfc3339_like("2024-05-01T12:00:00Z"));
        assert!(rfc3339_like("2024-05-01T12:00:00.123+02:00"));
        assert!(!rfc3339_like("2024-05-01"));
        assert!(!rfc3339_like("2024-05-01T12:00:00Z<x>"));
        assert!(!rfc3339_like("yesterday at noon, roughly Z"));
        assert_eq!(
            atom_date("2021-02-07").as_deref(),
            Some("2021-02-07T00:00:00Z")
        );
        assert_eq!(
            atom_date("2024-05-01T12:00:00Z").as_deref(),
            Some("2024-05-01T12:00:00Z")
        );
        for bad in ["2021-13-07", "2021-02-7", "21-02-07", "2021-02-07<", "soon"] {
            assert_eq!(atom_date(bad), None, "{bad}");
        }
    }
}
