//! The chart blocks of the architecture, series and metric pages: one metric over kernel
//! versions, one line per series, with the numbers as a table beside the SVG. Runs of
//! different series are never pooled into one point.

use super::groups::Groups;
use super::links::Links;
use super::rows::{point_cell, Cell};
use crate::chart::{self, legend_marker, Line, Trend, MAX_LINES};
use crate::info::RunInfo;
use crate::metrics::{usable_point, Point, Registry, Val};
use crate::series::SeriesKey;
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One metric over kernel versions, per series.
struct TrendData {
    /// Version labels, ascending.
    kernels: Vec<String>,
    /// Series with the number of runs behind them and one point per kernel.
    lines: Vec<(Arc<SeriesKey>, usize, Vec<Option<Point>>)>,
}

/// What a chart is of: a metric, and how the page names it.
pub struct ChartSpec {
    pub metric: u32,
    pub label: String,
    pub short: String,
    pub title: String,
    pub anchor: String,
}

impl ChartSpec {
    /// A chart of registry metric `m`, named as its headline name when it has one.
    pub fn of(reg: &Registry, m: u32, title: String, anchor: String) -> ChartSpec {
        let k = reg.key(m);
        let (label, short) = match crate::metrics::headline_of(k) {
            Some(h) => (h.label.to_string(), h.short.to_string()),
            None => (k.label(), k.label()),
        };
        ChartSpec {
            metric: m,
            label,
            short,
            title,
            anchor,
        }
    }
}

/// One run's value in a chart.
#[derive(Clone, Copy)]
pub struct Dot<'a> {
    /// Its series' rank in [`Groups::series_rank`] (the order of the keys) and its key.
    pub rank: u32,
    pub series: &'a Arc<SeriesKey>,
    /// Its version, as an index into [`Groups::versions`].
    pub version: u32,
    pub val: Val,
    pub low: bool,
}

impl<'a> Dot<'a> {
    /// Run `i`'s value `v`, if the run is placed.
    pub fn of(runs: &'a [RunInfo], g: &Groups, i: usize, v: Val) -> Option<Dot<'a>> {
        Some(Dot {
            rank: g.series_rank[i],
            series: &runs[i].series,
            version: g.version_of[i]?,
            val: v,
            low: runs[i].is_low(),
        })
    }
}

fn trend(runs: &[RunInfo], g: &Groups, idx: &[usize], m: u32) -> TrendData {
    let dots = idx
        .iter()
        .filter_map(|&i| runs[i].values.get(m).and_then(|v| Dot::of(runs, g, i, v)));
    trend_of_dots(g, dots)
}

fn trend_of_dots<'a>(g: &Groups, dots: impl Iterator<Item = Dot<'a>>) -> TrendData {
    type Cells = BTreeMap<u32, Vec<(Val, bool)>>;
    // By series rank: the order of the keys, without comparing them.
    let mut cells: BTreeMap<u32, (&Arc<SeriesKey>, Cells)> = BTreeMap::new();
    let mut labels: BTreeMap<u32, &str> = BTreeMap::new();
    for d in dots {
        let k = d.version;
        labels.entry(k).or_insert(g.versions[k as usize].as_str());
        cells
            .entry(d.rank)
            .or_insert_with(|| (d.series, Cells::new()))
            .1
            .entry(k)
            .or_default()
            .push((d.val, d.low));
    }
    let keys: Vec<&u32> = labels.keys().collect();
    let mut lines: Vec<(Arc<SeriesKey>, usize, Vec<Option<Point>>)> = cells
        .into_values()
        .map(|(s, per_k)| {
            let n = per_k.values().map(Vec::len).sum();
            let pts = keys
                .iter()
                .map(|k| per_k.get(*k).and_then(|v| usable_point(v)))
                .collect();
            (Arc::clone(s), n, pts)
        })
        .collect();
    // The best-covered series are drawn first; ties keep key order (stable sort).
    lines.sort_by_key(|l| std::cmp::Reverse(l.1));
    TrendData {
        kernels: labels.values().map(|s| s.to_string()).collect(),
        lines,
    }
}

#[derive(Serialize)]
struct LegendItem {
    marker: String,
    label: String,
    href: Option<String>,
}

#[derive(Serialize)]
struct ChartHead {
    marker: String,
    label: String,
    href: String,
}

#[derive(Serialize)]
struct ChartRow {
    kernel: String,
    kernel_href: String,
    cells: Vec<Cell>,
}

#[derive(Serialize)]
pub struct Chart {
    title: String,
    short: String,
    slug: String,
    svg: Option<String>,
    caption: String,
    legend: Vec<LegendItem>,
    hidden: usize,
    heads: Vec<ChartHead>,
    rows: Vec<ChartRow>,
}

pub fn chart_for(
    runs: &[RunInfo],
    g: &Groups,
    idx: &[usize],
    spec: ChartSpec,
    root: &str,
) -> Chart {
    let t = trend(runs, g, idx, spec.metric);
    chart_of(t, spec, root)
}

/// [`chart_for`] of values gathered beforehand (the metric pages gather many metrics' values
/// in one pass over an architecture's runs).
pub fn chart_of_dots(g: &Groups, dots: &[Dot], spec: ChartSpec, root: &str) -> Chart {
    chart_of(trend_of_dots(g, dots.iter().copied()), spec, root)
}

fn chart_of(t: TrendData, spec: ChartSpec, root: &str) -> Chart {
    let ChartSpec {
        metric: _,
        label,
        short,
        title,
        anchor,
    } = spec;
    let links = Links;
    let drawn = t.lines.len().min(MAX_LINES);
    let desc = format!(
        "{} in ns per operation over {} kernel version{} ({} to {}), {} series{}. The same numbers are in the table next to the chart.",
        label,
        t.kernels.len(),
        if t.kernels.len() == 1 { "" } else { "s" },
        t.kernels.first().map(String::as_str).unwrap_or("-"),
        t.kernels.last().map(String::as_str).unwrap_or("-"),
        drawn,
        if t.lines.len() > drawn {
            format!(" of {}", t.lines.len())
        } else {
            String::new()
        }
    );
    let trend = Trend {
        title: title.clone(),
        desc,
        x: t.kernels.clone(),
        lines: t.lines[..drawn]
            .iter()
            .map(|(s, _, pts)| Line {
                label: s.label(),
                points: pts.clone(),
            })
            .collect(),
        y_label: format!("{short} (ns)"),
    };
    // The table pivots the drawn series: one row per kernel, one column per series.
    let drawn_lines = &t.lines[..drawn];
    let rows = t
        .kernels
        .iter()
        .enumerate()
        .map(|(ki, k)| ChartRow {
            kernel: k.clone(),
            kernel_href: format!("{root}{}", links.kernel(k)),
            cells: drawn_lines
                .iter()
                .map(|(_, _, pts)| point_cell(pts[ki]))
                .collect(),
        })
        .collect();
    let heads = drawn_lines
        .iter()
        .enumerate()
        .map(|(i, (s, _, _))| ChartHead {
            marker: legend_marker(i),
            label: format!("series {}", s.id()),
            href: format!("{root}{}", links.series(s)),
        })
        .collect();
    Chart {
        svg: chart::trend_svg(&trend),
        caption: format!("{label} — ns per operation, by kernel version"),
        legend: t.lines[..drawn]
            .iter()
            .enumerate()
            .map(|(i, (s, n, _))| LegendItem {
                marker: legend_marker(i),
                label: format!("{} ({n} run{})", s.label(), if *n == 1 { "" } else { "s" }),
                href: Some(format!("{root}{}", links.series(s))),
            })
            .collect(),
        hidden: t.lines.len() - drawn,
        heads,
        rows,
        title,
        short,
        slug: anchor,
    }
}

pub fn has_metric(runs: &[RunInfo], idx: &[usize], m: Option<u32>) -> bool {
    m.is_some_and(|m| {
        idx.iter()
            .any(|&i| runs[i].is_placed() && runs[i].values.get(m).is_some())
    })
}
