//! The chart blocks of the architecture, series and metric pages: one metric over kernel
//! versions, one line per series, with the numbers as a table beside the SVG. Runs of
//! different series are never pooled into one point.

use crate::model::groups::Groups;
use crate::model::metrics::{usable_point, Point, Registry, Val};
use crate::model::series::SeriesKey;
use crate::model::summary::RunInfo;
use crate::view::chart::{self, legend_marker, Line, Trend, MAX_LINES};
use crate::view::links::Links;
use serde::Serialize;
use std::sync::Arc;

/// One metric over kernel versions, per series.
struct TrendData {
    /// Version labels, ascending.
    kernels: Vec<String>,
    lines: Vec<TrendLine>,
}

/// A series with the number of runs behind it and one point per kernel.
type TrendLine = (Arc<SeriesKey>, usize, Vec<Option<Point>>);

/// What a chart is of: a metric, and how the page names it.
pub struct ChartSpec {
    pub metric: u32,
    pub label: String,
    pub short: String,
    pub title: String,
    pub anchor: String,
    /// Series drawn at most, best covered first; the others are named as not drawn.
    pub max_lines: usize,
}

/// The anchor of an architecture's chart on a metric page: its measured runs', or its
/// instruction counts' (a chart of their own: never drawn with times).
pub fn chart_anchor(arch: &str, instructions: bool) -> String {
    if instructions {
        crate::view::format::slug(&format!("{arch} instructions"))
    } else {
        crate::view::format::slug(arch)
    }
}

/// How an architecture's chart of instruction counts is named beside its measured one.
pub fn counted_title(arch: &str) -> String {
    format!("{arch}, instruction counts (emulated)")
}

impl ChartSpec {
    /// A chart of registry metric `m`, named as its headline name when it has one.
    pub fn of(reg: &Registry, m: u32, title: String, anchor: String) -> ChartSpec {
        let k = reg.key(m);
        let (label, short) = match crate::model::metrics::headline_of(k) {
            Some(h) => (h.label.to_string(), h.short.to_string()),
            None => (k.label(), k.label()),
        };
        ChartSpec {
            metric: m,
            label,
            short,
            title,
            anchor,
            max_lines: MAX_LINES,
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
    let dots: Vec<Dot> = idx
        .iter()
        .filter_map(|&i| runs[i].values.get(m).and_then(|v| Dot::of(runs, g, i, v)))
        .collect();
    trend_of_dots(g, &dots)
}

fn trend_of_dots(g: &Groups, dots: &[Dot]) -> TrendData {
    // By series rank (the order of the keys, without comparing them), then version: one sort
    // instead of a map lookup per dot (a metric page's charts have every run's value). Stable,
    // so the values of a cell keep the runs' order. The dots stay where they are; their order
    // is a list of positions (a dot is 64 bytes, a position 4).
    let order = by_series_and_version(dots, g.versions.len());
    let mut present = vec![false; g.versions.len()];
    for d in dots {
        if let Some(p) = present.get_mut(d.version as usize) {
            *p = true;
        }
    }
    let versions: Vec<u32> = (0..present.len() as u32)
        .filter(|&v| present[v as usize])
        .collect();
    let at = |i: &u32| &dots[*i as usize];
    let mut vals: Vec<(Val, bool)> = Vec::new();
    let mut lines: Vec<TrendLine> = order
        .chunk_by(|a, b| at(a).rank == at(b).rank)
        .map(|series| {
            let mut pts: Vec<Option<Point>> = vec![None; versions.len()];
            for cell in series.chunk_by(|a, b| at(a).version == at(b).version) {
                vals.clear();
                vals.extend(cell.iter().map(|i| (at(i).val, at(i).low)));
                if let Ok(k) = versions.binary_search(&at(&cell[0]).version) {
                    pts[k] = usable_point(&vals);
                }
            }
            (Arc::clone(at(&series[0]).series), series.len(), pts)
        })
        .collect();
    // The best-covered series are drawn first; ties keep key order (stable sort).
    lines.sort_by_key(|l| std::cmp::Reverse(l.1));
    TrendData {
        kernels: (versions.iter())
            .map(|&k| g.versions[k as usize].clone())
            .collect(),
        lines,
    }
}

/// The positions of `dots` ordered by series rank, then version, keeping their order within a
/// cell (a stable sort). Counted into place when the (rank, version) cells are not many more
/// than the dots: a comparison sort of a metric page's chart (every run of an architecture)
/// was most of the time its chart took.
fn by_series_and_version(dots: &[Dot<'_>], versions: usize) -> Vec<u32> {
    let ranks = dots.iter().map(|d| d.rank as usize + 1).max().unwrap_or(0);
    let cells = ranks.saturating_mul(versions);
    let fits = dots.iter().all(|d| (d.version as usize) < versions);
    let mut order: Vec<u32> = (0..dots.len() as u32).collect();
    if !fits || cells > 4 * dots.len() + 4096 {
        order.sort_by_key(|&i| (dots[i as usize].rank, dots[i as usize].version));
        return order;
    }
    let cell = |d: &Dot| d.rank as usize * versions + d.version as usize;
    // starts[c]: where cell c's dots begin in the result.
    let mut starts = vec![0usize; cells + 1];
    for d in dots {
        starts[cell(d) + 1] += 1;
    }
    for c in 1..starts.len() {
        starts[c] += starts[c - 1];
    }
    for (i, d) in (0u32..).zip(dots) {
        let at = &mut starts[cell(d)];
        order[*at] = i;
        *at += 1;
    }
    order
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
pub struct Chart {
    title: String,
    short: String,
    slug: String,
    svg: Option<String>,
    caption: String,
    /// What its numbers are: `ns per operation`, or instructions per operation.
    unit: &'static str,
    legend: Vec<LegendItem>,
    hidden: usize,
    /// Series drawn at most.
    max_lines: usize,
    heads: Vec<ChartHead>,
    /// The table: a row per kernel version, a cell per drawn series.
    rows: Vec<ChartRow>,
    /// Where the numbers are instead of a table of its own (a page of many charts links each
    /// to its metric's page).
    numbers_href: Option<String>,
}

impl Chart {
    /// The chart without its table, whose numbers are at `href`: a page of many charts stays
    /// within its size however many kernel versions there are.
    pub fn numbers_at(mut self, href: String) -> Chart {
        self.heads.clear();
        self.rows.clear();
        self.numbers_href = Some(href);
        self
    }
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
    chart_of(trend_of_dots(g, dots), spec, root)
}

fn chart_of(t: TrendData, spec: ChartSpec, root: &str) -> Chart {
    let ChartSpec {
        metric: _,
        label,
        short,
        title,
        anchor,
        max_lines,
    } = spec;
    let links = Links;
    let drawn = t.lines.len().min(max_lines.min(MAX_LINES));
    // A chart's series share one unit: instruction counts are never drawn with times.
    let (unit, unit_words) = match t.lines.first() {
        Some((s, ..)) if s.instructions => (
            "instructions",
            "instructions per operation (emulated: path length, not time)",
        ),
        _ => ("ns", "ns per operation"),
    };
    let desc = format!(
        "{} in {unit_words} over {} kernel version{} ({} to {}), {} series{}. The same numbers are in a table.",
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
        y_label: format!("{short} ({unit})"),
    };
    // Each drawn series by its name in a few words; where two share one, their ids tell them
    // apart (the whole key is on the series page the legend links to).
    let names: Vec<String> = {
        let plain: Vec<String> = t.lines[..drawn].iter().map(|(s, ..)| s.name()).collect();
        plain
            .iter()
            .zip(&t.lines[..drawn])
            .map(|(n, (s, ..))| {
                if plain.iter().filter(|x| *x == n).count() > 1 {
                    format!("{n} · {}", s.id())
                } else {
                    n.clone()
                }
            })
            .collect()
    };
    let drawn_lines = &t.lines[..drawn];
    let rows = table_rows(&t.kernels, drawn_lines, root);
    let heads = drawn_lines
        .iter()
        .enumerate()
        .map(|(i, (s, _, _))| ChartHead {
            marker: legend_marker(i),
            label: names[i].clone(),
            href: format!("{root}{}", links.series(s)),
        })
        .collect();
    Chart {
        svg: chart::trend_svg(&trend),
        caption: format!("{label} — {unit_words}, by kernel version"),
        unit: unit_words,
        legend: t.lines[..drawn]
            .iter()
            .enumerate()
            .map(|(i, (s, n, _))| LegendItem {
                marker: legend_marker(i),
                label: format!("{} ({n} run{})", names[i], if *n == 1 { "" } else { "s" }),
                href: Some(format!("{root}{}", links.series(s))),
            })
            .collect(),
        hidden: t.lines.len() - drawn,
        max_lines: max_lines.min(MAX_LINES),
        heads,
        rows,
        numbers_href: None,
        title,
        short,
        slug: anchor,
    }
}

/// A kernel version's row of a chart's table: its value in each drawn series, empty where the
/// series has none.
#[derive(Serialize)]
struct ChartRow {
    kernel: String,
    href: String,
    cells: Vec<String>,
}

/// The table pivots the drawn series: one row per kernel, one cell per series.
fn table_rows(kernels: &[String], lines: &[TrendLine], root: &str) -> Vec<ChartRow> {
    let links = Links;
    kernels
        .iter()
        .enumerate()
        .map(|(ki, k)| ChartRow {
            kernel: k.clone(),
            href: format!("{root}{}", links.kernel(k)),
            cells: lines
                .iter()
                .map(|(_, _, pts)| {
                    pts[ki]
                        .map(|p| crate::view::format::point(&p))
                        .unwrap_or_default()
                })
                .collect(),
        })
        .collect()
}

pub fn has_metric(runs: &[RunInfo], idx: &[usize], m: Option<u32>) -> bool {
    m.is_some_and(|m| {
        idx.iter()
            .any(|&i| runs[i].is_placed() && runs[i].values.get(m).is_some())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(cpu: &str) -> Arc<SeriesKey> {
        Arc::new(crate::model::series::test_key(cpu))
    }

    fn val(median: f64, lo: f64, hi: f64) -> Val {
        Val {
            median,
            lo: Some(lo),
            hi: Some(hi),
        }
    }

    #[test]
    fn a_trend_groups_values_by_series_and_version_whatever_their_order() {
        let mut g = Groups::new(&[]);
        g.versions = ["5.10", "6.1", "6.6"].map(String::from).to_vec();
        let (a, b) = (key("a"), key("b"));
        let dot = |rank, series, version, v, low| Dot {
            rank,
            series,
            version,
            val: v,
            low,
        };
        // Series b (rank 1) has three runs on two versions, series a (rank 0) one; out of order.
        let dots = vec![
            dot(1, &b, 2, val(30.0, 29.0, 31.0), false),
            dot(0, &a, 0, val(10.0, 9.0, 11.0), false),
            dot(1, &b, 0, val(12.0, 11.0, 13.0), false),
            dot(1, &b, 2, val(34.0, 33.0, 36.0), false),
            // Low quality, beside a good run: left out of the point.
            dot(1, &b, 2, val(99.0, 98.0, 100.0), true),
        ];
        let t = trend_of_dots(&g, &dots);
        // Only versions with a value, ascending.
        assert_eq!(t.kernels, ["5.10", "6.6"]);
        // The best-covered series first.
        assert_eq!(t.lines.len(), 2);
        assert_eq!((t.lines[0].0.cpu.as_str(), t.lines[0].1), ("b", 4));
        assert_eq!((t.lines[1].0.cpu.as_str(), t.lines[1].1), ("a", 1));
        let p = t.lines[0].2[1].expect("b on 6.6");
        assert_eq!((p.n, p.median, p.interval), (2, 32.0, Some((29.0, 36.0))));
        let p = t.lines[0].2[0].expect("b on 5.10");
        assert_eq!((p.n, p.median, p.interval), (1, 12.0, Some((11.0, 13.0))));
        assert!(t.lines[1].2[1].is_none(), "a has no run on 6.6");
    }

    /// Counted into place or sorted, the dots come out as a stable sort by (rank, version)
    /// puts them: over many cells, and over ranks too sparse to count.
    #[test]
    fn dots_are_ordered_as_a_stable_sort_orders_them() {
        let k = key("a");
        let mut state = 7u64;
        let mut next = |n: u64| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % n
        };
        for (ranks, versions, n) in [(40, 30, 5000), (3, 2, 50), (1_000_000, 4, 100), (5, 9, 1)] {
            let dots: Vec<Dot> = (0..n)
                .map(|i| Dot {
                    rank: next(ranks) as u32,
                    series: &k,
                    version: next(versions) as u32,
                    // The median tells the dots apart: it is their order of arrival.
                    val: val(i as f64, 0.0, 0.0),
                    low: false,
                })
                .collect();
            let mut want = dots.clone();
            want.sort_by_key(|d| (d.rank, d.version));
            let got: Vec<Dot> = by_series_and_version(&dots, versions as usize)
                .into_iter()
                .map(|i| dots[i as usize])
                .collect();
            let order = |v: &[Dot]| {
                v.iter()
                    .map(|d| (d.rank, d.version, d.val.median))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                order(&got),
                order(&want),
                "{ranks} ranks, {versions} versions"
            );
        }
        assert!(by_series_and_version(&[], 3).is_empty());
    }
}
