//! Pages that summarise many runs: home, run lists, kernels, architectures, series, metrics
//! and the kernel × architecture matrix. They work from the compact [`RunInfo`]s only.

use super::common::{key_columns, pager, point_cell, run_row, Cell, Column, Links, RunRow};
use super::Ctx;
use crate::chart::{self, legend_marker, Line, Trend, MAX_LINES};
use crate::fmt::{self, root_of};
use crate::info::{RunInfo, SeriesKey};
use crate::kver::{label_key, KernelVersion};
use crate::metrics::{aggregate, Point, Val, METRICS};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Rows per page of every paginated list.
pub const PAGE_SIZE: usize = 200;

/// Runs grouped the ways the pages need them (indices into the run list).
pub struct Groups {
    pub newest: Vec<usize>,
    pub by_arch: BTreeMap<String, Vec<usize>>,
    /// Kernel base labels in ascending version order, with their runs.
    pub by_kernel: BTreeMap<KernelVersion, (String, Vec<usize>)>,
    pub by_series: BTreeMap<SeriesKey, Vec<usize>>,
}

impl Groups {
    pub fn new(runs: &[RunInfo]) -> Groups {
        let mut newest: Vec<usize> = (0..runs.len()).collect();
        newest.sort_by(|&a, &b| RunInfo::newest_first(&runs[a], &runs[b]));
        let mut g = Groups {
            newest,
            by_arch: BTreeMap::new(),
            by_kernel: BTreeMap::new(),
            by_series: BTreeMap::new(),
        };
        // Fill in newest-first order so every group lists its runs newest first too.
        for &i in &g.newest {
            let r = &runs[i];
            g.by_arch.entry(r.arch.clone()).or_default().push(i);
            g.by_kernel
                .entry(label_key(&r.kbase))
                .or_insert_with(|| (r.kbase.clone(), Vec::new()))
                .1
                .push(i);
            g.by_series.entry(r.series.clone()).or_default().push(i);
        }
        g
    }
}

/// Distinct machines among runs that carry a machine identity (imports usually do not).
fn machines(runs: &[RunInfo], idx: &[usize]) -> usize {
    idx.iter()
        .filter_map(|&i| runs[i].machine.as_deref())
        .collect::<BTreeSet<_>>()
        .len()
}

fn kernel_count(runs: &[RunInfo], idx: &[usize]) -> usize {
    idx.iter()
        .map(|&i| runs[i].kbase.as_str())
        .collect::<BTreeSet<_>>()
        .len()
}

/// One metric over kernel versions, per comparable series.
struct TrendData {
    /// (sort key, label) ascending.
    kernels: Vec<String>,
    /// Series with the number of runs behind them and one point per kernel.
    lines: Vec<(SeriesKey, usize, Vec<Option<Point>>)>,
}

fn trend(runs: &[RunInfo], idx: &[usize], m: usize) -> TrendData {
    let mut cells: BTreeMap<&SeriesKey, BTreeMap<KernelVersion, Vec<Val>>> = BTreeMap::new();
    let mut labels: BTreeMap<KernelVersion, &str> = BTreeMap::new();
    for &i in idx {
        let r = &runs[i];
        if let Some(v) = r.metrics[m] {
            let k = label_key(&r.kbase);
            labels.entry(k.clone()).or_insert(r.kbase.as_str());
            cells
                .entry(&r.series)
                .or_default()
                .entry(k)
                .or_default()
                .push(v);
        }
    }
    let keys: Vec<&KernelVersion> = labels.keys().collect();
    let mut lines: Vec<(SeriesKey, usize, Vec<Option<Point>>)> = cells
        .into_iter()
        .map(|(s, per_k)| {
            let n = per_k.values().map(Vec::len).sum();
            let pts = keys
                .iter()
                .map(|k| per_k.get(*k).and_then(|v| aggregate(v)))
                .collect();
            (s.clone(), n, pts)
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
    short: &'static str,
    slug: String,
    svg: Option<String>,
    caption: String,
    legend: Vec<LegendItem>,
    hidden: usize,
    heads: Vec<ChartHead>,
    rows: Vec<ChartRow>,
}

fn chart_for(
    runs: &[RunInfo],
    idx: &[usize],
    m: usize,
    title: String,
    anchor: String,
    root: &str,
    _conf: &str,
) -> Chart {
    let metric = &METRICS[m];
    let t = trend(runs, idx, m);
    let links = Links;
    let drawn = t.lines.len().min(MAX_LINES);
    let desc = format!(
        "{} in ns per operation over {} kernel versions ({} to {}), {} series{}. The same numbers are in the table next to the chart.",
        metric.label,
        t.kernels.len(),
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
        y_label: format!("{} (ns)", metric.short),
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
        caption: format!("{} — ns per operation, by kernel version", metric.label),
        legend: t.lines[..drawn]
            .iter()
            .enumerate()
            .map(|(i, (s, n, _))| LegendItem {
                marker: legend_marker(i),
                label: format!("{} ({} runs)", s.label(), n),
                href: Some(format!("{root}{}", links.series(s))),
            })
            .collect(),
        hidden: t.lines.len() - drawn,
        heads,
        rows,
        title,
        short: metric.short,
        slug: anchor,
    }
}

fn has_metric(runs: &[RunInfo], idx: &[usize], m: usize) -> bool {
    idx.iter().any(|&i| runs[i].metrics[m].is_some())
}

/// Confidence level as shown ("95%"): the most common one among the runs.
pub fn confidence_label(runs: &[RunInfo]) -> String {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for r in runs {
        *counts
            .entry(format!("{}%", r.confidence * 100.0))
            .or_default() += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|(k, _)| k)
        .unwrap_or_else(|| "95%".to_string())
}

// ---------------------------------------------------------------- home

#[derive(Serialize)]
struct HomeRow {
    metric: &'static str,
    metric_href: String,
    kernel: String,
    value: String,
    n: usize,
    before: String,
}

#[derive(Serialize)]
struct HomeArch {
    arch: String,
    href: String,
    runs: usize,
    machines: usize,
    kernels: usize,
    latest: String,
    latest_href: String,
    rows: Vec<HomeRow>,
}

#[derive(Serialize)]
struct Totals {
    runs: usize,
    machines: usize,
    kernels: usize,
    arches: usize,
}

#[derive(Serialize)]
struct Home {
    root: &'static str,
    title: &'static str,
    empty: bool,
    synthetic: usize,
    skipped: usize,
    confidence: String,
    totals: Totals,
    arches: Vec<HomeArch>,
    columns: Vec<Column>,
    recent: Vec<RunRow>,
}

/// Pooled values of one metric per kernel (ascending) for a set of runs.
fn per_kernel(
    runs: &[RunInfo],
    idx: &[usize],
    m: usize,
) -> BTreeMap<KernelVersion, (String, Vec<Val>)> {
    let mut out: BTreeMap<KernelVersion, (String, Vec<Val>)> = BTreeMap::new();
    for &i in idx {
        if let Some(v) = runs[i].metrics[m] {
            out.entry(label_key(&runs[i].kbase))
                .or_insert_with(|| (runs[i].kbase.clone(), Vec::new()))
                .1
                .push(v);
        }
    }
    out
}

pub fn home(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups, skipped: usize) -> Result<(), String> {
    let links = Links;
    let mut arches = Vec::new();
    for (arch, idx) in &g.by_arch {
        let mut rows = Vec::new();
        for (m, metric) in METRICS.iter().enumerate() {
            let pk = per_kernel(runs, idx, m);
            let mut it = pk.values().rev();
            let Some((label, vals)) = it.next() else {
                continue;
            };
            let Some(p) = aggregate(vals) else { continue };
            let before = match it.next().and_then(|(l, v)| aggregate(v).map(|q| (l, q))) {
                Some((l, q)) => {
                    let d = p.median - q.median;
                    format!(
                        "{l}: {} (now {})",
                        fmt::point(&q),
                        if d >= 0.0 {
                            format!("+{}", fmt::ns(d))
                        } else {
                            fmt::ns(d)
                        }
                    )
                }
                None => String::new(),
            };
            rows.push(HomeRow {
                metric: metric.label,
                metric_href: links.metric(metric.slug),
                kernel: label.clone(),
                value: fmt::point(&p),
                n: p.n,
                before,
            });
        }
        let latest = idx
            .iter()
            .map(|&i| label_key(&runs[i].kbase))
            .max()
            .map(|k| k.base_label())
            .unwrap_or_default();
        arches.push(HomeArch {
            arch: arch.clone(),
            href: links.arch(arch),
            runs: idx.len(),
            machines: machines(runs, idx),
            kernels: kernel_count(runs, idx),
            latest_href: links.kernel(&latest),
            latest,
            rows,
        });
    }
    let all: Vec<usize> = (0..runs.len()).collect();
    let home = Home {
        root: "",
        title: "Home",
        empty: runs.is_empty(),
        synthetic: runs
            .iter()
            .filter(|r| r.kind == syscost_record::SourceKind::Synthetic)
            .count(),
        skipped,
        confidence: confidence_label(runs),
        totals: Totals {
            runs: runs.len(),
            machines: machines(runs, &all),
            kernels: g.by_kernel.len(),
            arches: g.by_arch.len(),
        },
        arches,
        columns: key_columns(),
        recent: g
            .newest
            .iter()
            .take(20)
            .map(|&i| run_row(&runs[i], ""))
            .collect(),
    };
    ctx.page("index.html", "home.html", &home)
}

// ---------------------------------------------------------------- run list

#[derive(Serialize)]
struct RunsPage {
    root: String,
    title: String,
    total: usize,
    page: usize,
    pages: usize,
    nav: super::common::Pager,
    columns: Vec<Column>,
    rows: Vec<RunRow>,
}

fn runs_page_path(n: usize) -> String {
    if n <= 1 {
        "runs/index.html".to_string()
    } else {
        format!("runs/page-{n}.html")
    }
}

pub fn run_list(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups) -> Result<(), String> {
    let pages = g.newest.len().div_ceil(PAGE_SIZE).max(1);
    for n in 1..=pages {
        let path = runs_page_path(n);
        let root = root_of(&path);
        let chunk = g.newest.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
        let page = RunsPage {
            title: if n == 1 {
                "All runs".into()
            } else {
                format!("All runs, page {n}")
            },
            total: runs.len(),
            page: n,
            pages,
            nav: pager(n, pages, &root, runs_page_path),
            columns: key_columns(),
            rows: chunk.iter().map(|&i| run_row(&runs[i], &root)).collect(),
            root,
        };
        ctx.page(&path, "runs.html", &page)?;
    }
    Ok(())
}

// ---------------------------------------------------------------- kernels

#[derive(Serialize)]
struct KernelIndexRow {
    label: String,
    href: String,
    runs: usize,
    arches: String,
    releases: String,
}

#[derive(Serialize)]
struct KernelIndex {
    root: String,
    title: String,
    total: usize,
    nav: super::common::Pager,
    rows: Vec<KernelIndexRow>,
}

fn kernels_page_path(n: usize) -> String {
    if n <= 1 {
        "kernels/index.html".to_string()
    } else {
        format!("kernels/page-{n}.html")
    }
}

#[derive(Serialize)]
struct KernelSummary {
    arch: String,
    href: String,
    runs: usize,
    cells: Vec<Cell>,
}

#[derive(Serialize)]
struct KernelGroup {
    arch: String,
    arch_href: String,
    machine: String,
    rows: Vec<RunRow>,
}

#[derive(Serialize)]
struct KernelPage {
    root: String,
    title: String,
    kernel: String,
    total: usize,
    prev_href: Option<String>,
    prev_label: String,
    next_href: Option<String>,
    next_label: String,
    columns: Vec<Column>,
    summary: Vec<KernelSummary>,
    nav: super::common::Pager,
    groups: Vec<KernelGroup>,
}

fn machine_label(r: &RunInfo) -> String {
    match &r.machine {
        Some(m) => format!("machine {m}"),
        None => "machine not identified".to_string(),
    }
}

pub fn kernel_pages(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups) -> Result<(), String> {
    let links = Links;
    let desc: Vec<&(String, Vec<usize>)> = g.by_kernel.values().rev().collect();
    let pages = desc.len().div_ceil(PAGE_SIZE).max(1);
    for n in 1..=pages {
        let path = kernels_page_path(n);
        let root = root_of(&path);
        let chunk = desc.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
        let rows = chunk
            .iter()
            .map(|(label, idx)| {
                let arches: BTreeSet<&str> = idx.iter().map(|&i| runs[i].arch.as_str()).collect();
                let releases: BTreeSet<&str> = idx
                    .iter()
                    .map(|&i| runs[i].kernel.release.as_str())
                    .collect();
                let rel: Vec<&str> = releases.iter().copied().take(8).collect();
                let more = releases.len().saturating_sub(rel.len());
                let mut releases_text = rel.join(", ");
                if more > 0 {
                    releases_text.push_str(&format!(" and {more} more"));
                }
                KernelIndexRow {
                    href: format!("{root}{}", links.kernel(label)),
                    label: label.clone(),
                    runs: idx.len(),
                    arches: arches.into_iter().collect::<Vec<_>>().join(", "),
                    releases: releases_text,
                }
            })
            .collect();
        let page = KernelIndex {
            title: "Kernel versions".to_string(),
            total: desc.len(),
            nav: pager(n, pages, &root, kernels_page_path),
            rows,
            root,
        };
        ctx.page(&path, "kernels.html", &page)?;
    }

    let asc: Vec<&(String, Vec<usize>)> = g.by_kernel.values().collect();
    for (ki, (label, idx)) in asc.iter().enumerate() {
        // Runs by architecture, then machine, newest first within a machine.
        let mut order = idx.clone();
        order.sort_by(|&a, &b| {
            let (ra, rb) = (&runs[a], &runs[b]);
            ra.arch
                .cmp(&rb.arch)
                .then_with(|| ra.machine.is_none().cmp(&rb.machine.is_none()))
                .then_with(|| ra.machine.cmp(&rb.machine))
                .then_with(|| RunInfo::newest_first(ra, rb))
        });
        let mut by_arch: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for &i in idx.iter() {
            by_arch.entry(runs[i].arch.as_str()).or_default().push(i);
        }
        let pages = order.len().div_ceil(PAGE_SIZE).max(1);
        let summary_for = |root: &str| -> Vec<KernelSummary> {
            by_arch
                .iter()
                .map(|(arch, ids)| KernelSummary {
                    arch: arch.to_string(),
                    href: format!("{root}{}", links.arch(arch)),
                    runs: ids.len(),
                    cells: crate::metrics::KEY_COLUMNS
                        .iter()
                        .map(|&m| {
                            let vals: Vec<Val> =
                                ids.iter().filter_map(|&i| runs[i].metrics[m]).collect();
                            point_cell(aggregate(&vals))
                        })
                        .collect(),
                })
                .collect()
        };
        for n in 1..=pages {
            let path = links.kernel_page(label, n);
            let root = root_of(&path);
            let chunk = order.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
            let mut groups: Vec<KernelGroup> = Vec::new();
            for &i in chunk {
                let r = &runs[i];
                let ml = machine_label(r);
                let same = groups
                    .last()
                    .is_some_and(|gr| gr.arch == r.arch && gr.machine == ml);
                if !same {
                    groups.push(KernelGroup {
                        arch: r.arch.clone(),
                        arch_href: format!("{root}{}", links.arch(&r.arch)),
                        machine: ml,
                        rows: Vec::new(),
                    });
                }
                if let Some(gr) = groups.last_mut() {
                    gr.rows.push(run_row(r, &root));
                }
            }
            let (prev_href, prev_label) = match ki.checked_sub(1).and_then(|p| asc.get(p)) {
                Some((l, _)) => (Some(format!("{root}{}", links.kernel(l))), l.clone()),
                None => (None, String::new()),
            };
            let (next_href, next_label) = match asc.get(ki + 1) {
                Some((l, _)) => (Some(format!("{root}{}", links.kernel(l))), l.clone()),
                None => (None, String::new()),
            };
            let page = KernelPage {
                title: if n == 1 {
                    format!("Linux {label}")
                } else {
                    format!("Linux {label}, page {n}")
                },
                kernel: label.clone(),
                total: idx.len(),
                prev_href,
                prev_label,
                next_href,
                next_label,
                columns: key_columns(),
                summary: summary_for(&root),
                nav: pager(n, pages, &root, |k| links.kernel_page(label, k)),
                groups,
                root,
            };
            ctx.page(&path, "kernel.html", &page)?;
        }
    }
    Ok(())
}

// ---------------------------------------------------------------- architectures and series

#[derive(Serialize)]
struct SeriesRow {
    id: String,
    href: String,
    cpu: String,
    virt: String,
    mitigations: String,
    runs: usize,
    kernels: usize,
}

#[derive(Serialize)]
struct ArchPage {
    root: String,
    title: String,
    arch: String,
    runs: usize,
    machines: usize,
    kernels: usize,
    confidence: String,
    charts: Vec<Chart>,
    series: Vec<SeriesRow>,
}

pub fn arches(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups, conf: &str) -> Result<(), String> {
    let links = Links;
    for (arch, idx) in &g.by_arch {
        let path = links.arch(arch);
        let root = root_of(&path);
        let charts = (0..METRICS.len())
            .filter(|&m| has_metric(runs, idx, m))
            .map(|m| {
                chart_for(
                    runs,
                    idx,
                    m,
                    format!("{} on {arch}", METRICS[m].label),
                    METRICS[m].slug.to_string(),
                    &root,
                    conf,
                )
            })
            .collect();
        let series = g
            .by_series
            .iter()
            .filter(|(s, _)| &s.arch == arch)
            .map(|(s, ids)| SeriesRow {
                id: s.id(),
                href: format!("{root}{}", links.series(s)),
                cpu: s.cpu.clone(),
                virt: s.virt.clone(),
                mitigations: s.mitigations.clone(),
                runs: ids.len(),
                kernels: kernel_count(runs, ids),
            })
            .collect();
        let page = ArchPage {
            title: arch.clone(),
            arch: arch.clone(),
            runs: idx.len(),
            machines: machines(runs, idx),
            kernels: kernel_count(runs, idx),
            confidence: conf.to_string(),
            charts,
            series,
            root,
        };
        ctx.page(&path, "arch.html", &page)?;
    }
    Ok(())
}

#[derive(Serialize)]
struct SeriesPage {
    root: String,
    title: String,
    id: String,
    arch: String,
    arch_href: String,
    cpu: String,
    virt: String,
    mitigations: String,
    example_href: Option<String>,
    runs: usize,
    kernels: usize,
    confidence: String,
    charts: Vec<Chart>,
}

pub fn series(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups, conf: &str) -> Result<(), String> {
    let links = Links;
    for (s, idx) in &g.by_series {
        let path = links.series(s);
        let root = root_of(&path);
        let charts = (0..METRICS.len())
            .filter(|&m| has_metric(runs, idx, m))
            .map(|m| {
                chart_for(
                    runs,
                    idx,
                    m,
                    format!("{} — series {}", METRICS[m].label, s.id()),
                    METRICS[m].slug.to_string(),
                    &root,
                    conf,
                )
            })
            .collect();
        let page = SeriesPage {
            title: format!("Series {} ({})", s.id(), s.arch),
            id: s.id(),
            arch_href: format!("{root}{}", links.arch(&s.arch)),
            arch: s.arch.clone(),
            cpu: s.cpu.clone(),
            virt: s.virt.clone(),
            mitigations: s.mitigations.clone(),
            example_href: idx
                .first()
                .map(|&i| format!("{root}{}.html#environment", runs[i].page)),
            runs: idx.len(),
            kernels: kernel_count(runs, idx),
            confidence: conf.to_string(),
            charts,
            root,
        };
        ctx.page(&path, "series.html", &page)?;
    }
    Ok(())
}

// ---------------------------------------------------------------- metrics and matrix

#[derive(Serialize)]
struct MetricIndexRow {
    label: &'static str,
    href: String,
    source: String,
    runs: usize,
    matrix_href: String,
}

#[derive(Serialize)]
struct MetricIndex {
    root: &'static str,
    title: &'static str,
    metrics: Vec<MetricIndexRow>,
}

#[derive(Serialize)]
struct MetricPage {
    root: String,
    title: String,
    label: &'static str,
    source: String,
    matrix_href: String,
    confidence: String,
    charts: Vec<Chart>,
}

#[derive(Serialize)]
struct MatrixArch {
    arch: String,
    href: String,
}

#[derive(Serialize)]
struct MatrixCell {
    text: String,
    sub: String,
    title: String,
}

#[derive(Serialize)]
struct MatrixRow {
    kernel: String,
    href: String,
    cells: Vec<MatrixCell>,
}

#[derive(Serialize)]
struct MatrixOther {
    short: &'static str,
    href: String,
}

#[derive(Serialize)]
struct MatrixPage {
    root: String,
    title: String,
    label: &'static str,
    metric_href: String,
    confidence: String,
    others: Vec<MatrixOther>,
    arches: Vec<MatrixArch>,
    rows: Vec<MatrixRow>,
}

pub fn metrics(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups, conf: &str) -> Result<(), String> {
    let links = Links;
    let index = MetricIndex {
        root: "../",
        title: "Metrics",
        metrics: METRICS
            .iter()
            .enumerate()
            .map(|(m, metric)| MetricIndexRow {
                label: metric.label,
                href: format!("{}.html", metric.slug),
                source: metric.source_id(),
                runs: runs.iter().filter(|r| r.metrics[m].is_some()).count(),
                matrix_href: format!("../{}", links.matrix(metric.slug)),
            })
            .collect(),
    };
    ctx.page("metrics/index.html", "metrics.html", &index)?;

    for (m, metric) in METRICS.iter().enumerate() {
        let path = links.metric(metric.slug);
        let root = root_of(&path);
        let charts = g
            .by_arch
            .iter()
            .filter(|(_, idx)| has_metric(runs, idx, m))
            .map(|(arch, idx)| {
                chart_for(
                    runs,
                    idx,
                    m,
                    format!("{} on {arch}", metric.label),
                    fmt::slug(arch),
                    &root,
                    conf,
                )
            })
            .collect();
        let page = MetricPage {
            title: metric.label.to_string(),
            label: metric.label,
            source: metric.source_id(),
            matrix_href: format!("{root}{}", links.matrix(metric.slug)),
            confidence: conf.to_string(),
            charts,
            root,
        };
        ctx.page(&path, "metric.html", &page)?;

        // Matrix: kernels (newest first) × architectures, runs pooled per cell.
        let path = links.matrix(metric.slug);
        let root = root_of(&path);
        let arch_names: Vec<&String> = g.by_arch.keys().collect();
        let mut cells: BTreeMap<KernelVersion, (String, BTreeMap<&str, Vec<Val>>)> =
            BTreeMap::new();
        for r in runs {
            if let Some(v) = r.metrics[m] {
                cells
                    .entry(label_key(&r.kbase))
                    .or_insert_with(|| (r.kbase.clone(), BTreeMap::new()))
                    .1
                    .entry(r.arch.as_str())
                    .or_default()
                    .push(v);
            }
        }
        let rows = cells
            .values()
            .rev()
            .map(|(label, per_arch)| MatrixRow {
                kernel: label.clone(),
                href: format!("{root}{}", links.kernel(label)),
                cells: arch_names
                    .iter()
                    .map(
                        |a| match per_arch.get(a.as_str()).and_then(|v| aggregate(v)) {
                            Some(p) => MatrixCell {
                                text: fmt::ns(p.median),
                                sub: format!(
                                    "{} run{}{}",
                                    p.n,
                                    if p.n == 1 { "" } else { "s" },
                                    p.interval
                                        .map(|(l, h)| format!(" {}", fmt::interval(l, h)))
                                        .unwrap_or_else(|| ", no CI".to_string())
                                ),
                                title: format!("{a}, Linux {label}: {}", fmt::point(&p)),
                            },
                            None => MatrixCell {
                                text: String::new(),
                                sub: String::new(),
                                title: String::new(),
                            },
                        },
                    )
                    .collect(),
            })
            .collect();
        let page = MatrixPage {
            title: format!("Matrix: {}", metric.label),
            label: metric.label,
            metric_href: format!("{root}{}", links.metric(metric.slug)),
            confidence: conf.to_string(),
            others: METRICS
                .iter()
                .filter(|o| o.slug != metric.slug)
                .map(|o| MatrixOther {
                    short: o.short,
                    href: format!("{root}{}", links.matrix(o.slug)),
                })
                .collect(),
            arches: arch_names
                .iter()
                .map(|a| MatrixArch {
                    arch: a.to_string(),
                    href: format!("{root}{}", links.arch(a)),
                })
                .collect(),
            rows,
            root,
        };
        ctx.page(&path, "matrix.html", &page)?;
    }
    Ok(())
}
