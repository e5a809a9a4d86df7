//! The kernel versions: a paginated index, and one (paginated) page per upstream version with
//! a summary per series, the depth sweeps of its series, and its runs grouped by architecture
//! and machine. Only placed runs are on these pages.

use crate::model::groups::SeriesRuns;
use crate::model::groups::VersionCount;
use crate::model::metrics::{usable_point, KEY_COLUMNS};
use crate::model::summary::RunInfo;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::root_of;
use crate::view::links::Links;
use crate::view::pager::{pager, Pager, PAGE_SIZE};
use crate::view::rows::{key_columns, point_cell, run_row, Cell, Column, RunCols, RunsTable};
use crate::view::sweep::{self, SeriesAt, SweepBlock};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

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
    total: String,
    unplaced: usize,
    nav: Pager,
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
    series_id: String,
    series_label: String,
    runs: usize,
    low: usize,
    cells: Vec<Cell>,
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
    sweeps: Vec<SweepBlock>,
    nav: Pager,
    /// This page's runs, by architecture, then machine, newest first.
    rows: RunsTable,
}

/// A series with its runs on one version.
type SeriesOn<'a> = (&'a SeriesRuns, &'a [usize]);
/// The series that have runs on a version, with those runs.
type OnVersion<'a> = Vec<SeriesOn<'a>>;

/// The pages of versions `part`, `part + parts`, … (ascending), so that `parts` tasks can make
/// them side by side; the first also writes the list of versions.
pub fn write(ctx: &mut Ctx, d: &Data, part: usize, parts: usize) -> Result<(), BuildError> {
    if part == 0 {
        index(ctx, d)?;
    }
    let mut on: BTreeMap<&str, OnVersion> = BTreeMap::new();
    for s in d.g.by_series.values() {
        for (label, idx) in &s.versions {
            on.entry(label.as_str())
                .or_default()
                .push((s, idx.as_slice()));
        }
    }
    let asc: Vec<&(String, Vec<usize>)> = d.g.by_kernel.values().collect();
    let ids = sweep::Ids::new(d.reg);
    for (ki, (label, idx)) in asc.iter().enumerate().skip(part).step_by(parts.max(1)) {
        let neighbour = |k: Option<usize>| k.and_then(|k| asc.get(k)).map(|(l, _)| l.as_str());
        let around = (neighbour(ki.checked_sub(1)), neighbour(Some(ki + 1)));
        let series = on.get(label.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        version(ctx, d, &ids, (label, idx, series), around)?;
    }
    Ok(())
}

/// The list of kernel versions, newest first.
fn index(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let desc: Vec<&(String, Vec<usize>)> = d.g.by_kernel.values().rev().collect();
    let pages = desc.len().div_ceil(PAGE_SIZE).max(1);
    for n in 1..=pages {
        let path = kernels_page_path(n);
        let root = root_of(&path);
        let chunk = desc.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
        let page = KernelIndex {
            title: "Kernel versions".to_string(),
            total: VersionCount::of(desc.iter().map(|(l, _)| l.as_str())).words(),
            unplaced: d.g.unplaced.len(),
            nav: pager(n, pages, &root, kernels_page_path),
            rows: chunk
                .iter()
                .map(|(label, idx)| index_row(d.runs, label, idx, &root))
                .collect(),
            root,
        };
        ctx.page(&path, "kernels.html", &page)?;
    }
    Ok(())
}

fn index_row(runs: &[RunInfo], label: &str, idx: &[usize], root: &str) -> KernelIndexRow {
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
        href: format!("{root}{}", Links.kernel(label)),
        label: label.to_string(),
        runs: idx.len(),
        arches: arches.into_iter().collect::<Vec<_>>().join(", "),
        releases: releases_text,
    }
}

/// The (paginated) page of one upstream version, its runs and series; `around` are the
/// versions before and after.
fn version(
    ctx: &mut Ctx,
    d: &Data,
    ids: &sweep::Ids,
    (label, idx, series): (&str, &[usize], &[SeriesOn]),
    around: (Option<&str>, Option<&str>),
) -> Result<(), BuildError> {
    let links = Links;
    let runs = d.runs;
    // Runs by architecture, then machine, newest first within a machine.
    let mut order = idx.to_vec();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&runs[a], &runs[b]);
        ra.arch
            .cmp(&rb.arch)
            .then_with(|| ra.machine.is_none().cmp(&rb.machine.is_none()))
            .then_with(|| ra.machine.cmp(&rb.machine))
            .then_with(|| RunInfo::newest_first(ra, rb))
    });
    let pages = order.len().div_ceil(PAGE_SIZE).max(1);
    for n in 1..=pages {
        let path = links.kernel_page(label, n);
        let root = root_of(&path);
        let chunk = order.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
        let link = |l: Option<&str>| match l {
            Some(l) => (Some(format!("{root}{}", links.kernel(l))), l.to_string()),
            None => (None, String::new()),
        };
        let (prev_href, prev_label) = link(around.0);
        let (next_href, next_label) = link(around.1);
        // The summary and the sweeps are on the first page only.
        let first = n == 1;
        let page = KernelPage {
            title: if first {
                format!("Linux {label}")
            } else {
                format!("Linux {label}, page {n}")
            },
            kernel: label.to_string(),
            total: idx.len(),
            prev_href,
            prev_label,
            next_href,
            next_label,
            columns: key_columns(),
            summary: if first {
                summary(d, series, &root)
            } else {
                Vec::new()
            },
            sweeps: if first {
                sweeps(d, ids, label, series, &root)
            } else {
                Vec::new()
            },
            nav: pager(n, pages, &root, |k| links.kernel_page(label, k)),
            rows: RunsTable::new(
                chunk
                    .iter()
                    .map(|&i| run_row(&d.runs[i], &d.headline, &root)),
                RunCols {
                    arch: true,
                    kernel: true,
                    machine: true,
                },
            ),
            root,
        };
        ctx.page(&path, "kernel.html", &page)?;
    }
    Ok(())
}

/// Each series' key metrics on this version: the median of its usable runs, never pooled with
/// another series.
fn summary(d: &Data, series: &[SeriesOn], root: &str) -> Vec<KernelSummary> {
    let runs = d.runs;
    let mut rows: Vec<KernelSummary> = series
        .iter()
        .map(|(s, idx)| KernelSummary {
            arch: s.key.arch.clone(),
            href: format!("{root}{}", Links.series(&s.key)),
            series_id: s.key.id(),
            series_label: s.key.short_label(),
            runs: idx.len(),
            low: idx.iter().filter(|&&i| runs[i].is_low()).count(),
            cells: KEY_COLUMNS
                .iter()
                .map(|&h| {
                    let vals: Vec<_> = d.headline[h]
                        .map(|m| {
                            idx.iter()
                                .filter_map(|&i| {
                                    runs[i].values.get(m).map(|v| (v, runs[i].is_low()))
                                })
                                .collect()
                        })
                        .unwrap_or_default();
                    point_cell(usable_point(&vals))
                })
                .collect(),
        })
        .collect();
    rows.sort_by(|a, b| a.arch.cmp(&b.arch).then_with(|| b.runs.cmp(&a.runs)));
    rows
}

/// One depth-sweep chart per architecture, unit of operation and unit (ns or instructions), one
/// line per series.
fn sweeps(
    d: &Data,
    ids: &sweep::Ids,
    label: &str,
    series: &[SeriesOn],
    root: &str,
) -> Vec<SweepBlock> {
    let mut groups: BTreeMap<(String, String, &'static str), Vec<SeriesAt>> = BTreeMap::new();
    let mut sorted: Vec<&SeriesOn> = series.iter().collect();
    sorted.sort_by_key(|(_, idx)| std::cmp::Reverse(idx.len()));
    for (s, idx) in sorted {
        groups
            .entry((s.key.arch.clone(), s.key.unit(), s.key.number_unit()))
            .or_default()
            .push(SeriesAt {
                label: format!("series {} · {}", s.key.id(), s.key.label()),
                head: format!("series {}", s.key.id()),
                href: format!("{root}{}", Links.series(&s.key)),
                per_op: s.key.unit(),
                runs: idx,
            });
    }
    groups
        .into_iter()
        .filter_map(|((arch, per_op, unit), at)| {
            sweep::of_series(
                d.runs,
                ids,
                format!("Depth sweep on {arch}, Linux {label}, {unit} per {per_op}"),
                &at,
            )
        })
        .collect()
}
