//! The depth sweep: `seccomp.depth.N` (N uncacheable filters) drawn as N against its overhead
//! over `native`, with intervals and the fitted line `depth.entry + depth.per_filter × N`, for
//! each series on one kernel version (the kernel's page; a run page has the numbers only).

use crate::model::metrics::{median_of, usable_point, Kind, Point, Registry, Val};
use crate::model::summary::RunInfo;
use crate::view::chart::{legend_marker, sweep_svg, Sweep, SweepLine, MAX_LINES};
use crate::view::format;
use crate::view::rows::{point_cell, Cell};
use serde::Serialize;
use syscost_record::EstimateId;

const PREFIX: &str = "seccomp.depth.";
const BASELINE: &str = "native";

#[derive(Serialize)]
pub struct SweepLegend {
    pub marker: String,
    pub label: String,
    pub href: Option<String>,
    pub fit: String,
}

#[derive(Serialize)]
pub struct SweepRow {
    pub n: String,
    pub cells: Vec<Cell>,
}

#[derive(Serialize)]
pub struct SweepBlock {
    pub title: String,
    /// What its numbers count: `ns`, or `instructions`.
    pub unit: &'static str,
    pub svg: String,
    pub legend: Vec<SweepLegend>,
    pub heads: Vec<String>,
    pub rows: Vec<SweepRow>,
    pub hidden: usize,
}

/// N of a depth scenario id.
fn depth(id: &str) -> Option<u32> {
    id.strip_prefix(PREFIX)?.parse().ok().filter(|n| *n > 0)
}

/// One line's data: (N, point) by N, and the fit.
struct Data {
    label: String,
    /// Column header of its numbers.
    head: String,
    href: Option<String>,
    points: Vec<(u32, Point)>,
    fit: Option<(f64, f64)>,
}

fn fit_words(fit: Option<(f64, f64)>, several: bool, unit: &str) -> String {
    match fit {
        Some((a, b)) => format!(
            "fit{}: {} {unit} + {} {unit} × N",
            if several {
                " (medians of the runs' fits)"
            } else {
                ""
            },
            format::ns(a),
            format::ns(b)
        ),
        None => "no fit in the record".to_string(),
    }
}

fn block(
    title: String,
    desc: String,
    (per_op, unit): (&str, &'static str),
    lines: Vec<Data>,
) -> Option<SweepBlock> {
    let hidden = lines.len().saturating_sub(MAX_LINES);
    let lines: Vec<Data> = lines.into_iter().take(MAX_LINES).collect();
    let svg = sweep_svg(&Sweep {
        title: title.clone(),
        desc,
        lines: lines
            .iter()
            .map(|l| SweepLine {
                label: l.label.clone(),
                points: l.points.iter().map(|(n, p)| (f64::from(*n), *p)).collect(),
                fit: l.fit,
            })
            .collect(),
        y_label: format!("overhead over native ({unit} per {per_op})"),
    })?;
    let mut ns: Vec<u32> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .collect();
    ns.sort_unstable();
    ns.dedup();
    let several = lines.iter().any(|l| l.points.iter().any(|p| p.1.n > 1));
    Some(SweepBlock {
        legend: lines
            .iter()
            .enumerate()
            .map(|(i, l)| SweepLegend {
                marker: legend_marker(i),
                label: l.label.clone(),
                href: l.href.clone(),
                fit: fit_words(l.fit, several, unit),
            })
            .collect(),
        heads: lines.iter().map(|l| l.head.clone()).collect(),
        rows: ns
            .iter()
            .map(|&n| SweepRow {
                n: n.to_string(),
                cells: lines
                    .iter()
                    .map(|l| point_cell(l.points.iter().find(|p| p.0 == n).map(|p| p.1)))
                    .collect(),
            })
            .collect(),
        svg,
        title,
        unit,
        hidden,
    })
}

/// The registry ids of the depth overheads (with their N) and of the two fit estimates.
pub struct Ids {
    depths: Vec<(u32, u32)>,
    entry: Option<u32>,
    slope: Option<u32>,
}

impl Ids {
    pub fn new(reg: &Registry) -> Ids {
        Ids {
            depths: reg
                .ids()
                .filter_map(|m| {
                    let k = reg.key(m);
                    (k.kind == Kind::Overhead && k.vs == BASELINE)
                        .then(|| depth(&k.id).map(|n| (n, m)))
                        .flatten()
                })
                .collect(),
            entry: reg.find(Kind::Estimate, EstimateId::DepthEntry.id(), ""),
            slope: reg.find(Kind::Estimate, EstimateId::DepthPerFilter.id(), ""),
        }
    }
}

/// One series' runs on one kernel, for [`of_series`].
pub struct SeriesAt<'a> {
    pub label: String,
    pub head: String,
    pub href: String,
    pub per_op: String,
    /// What the series' numbers count (`ns`, `instructions`): one for all of a sweep's series.
    pub unit: &'static str,
    pub runs: &'a [usize],
}

/// The sweeps of several series on one kernel version, all measured per the same operation:
/// one line per series, each point the median of its usable runs with the span of their
/// intervals.
pub fn of_series(
    runs: &[RunInfo],
    ids: &Ids,
    title: String,
    series: &[SeriesAt],
) -> Option<SweepBlock> {
    let (per_op, unit) = series.first().map(|s| (s.per_op.clone(), s.unit))?;
    let lines: Vec<Data> = series
        .iter()
        .filter_map(|s| {
            let vals = |m: u32| -> Vec<(Val, bool)> {
                s.runs
                    .iter()
                    .filter_map(|&i| runs[i].values.get(m).map(|v| (v, runs[i].is_low())))
                    .collect()
            };
            let points: Vec<(u32, Point)> = ids
                .depths
                .iter()
                .filter_map(|&(n, m)| usable_point(&vals(m)).map(|p| (n, p)))
                .collect();
            // The fit of the same runs the points are made of.
            let fit_of = |m: Option<u32>| -> Option<f64> {
                let v = vals(m?);
                let good: Vec<f64> = v.iter().filter(|x| !x.1).map(|x| x.0.median).collect();
                let mut use_ = if good.is_empty() {
                    v.iter().map(|x| x.0.median).collect()
                } else {
                    good
                };
                median_of(&mut use_)
            };
            let fit = fit_of(ids.entry).zip(fit_of(ids.slope));
            (points.len() >= 2).then(|| Data {
                label: s.label.clone(),
                head: s.head.clone(),
                href: Some(s.href.clone()),
                points,
                fit,
            })
        })
        .collect();
    if lines.is_empty() {
        return None;
    }
    block(
        title,
        format!(
            "seccomp.depth.N: overhead over native against N for {} series on this kernel version, with the span of their runs' intervals and the fitted lines.",
            lines.len()
        ),
        (&per_op, unit),
        lines,
    )
}
