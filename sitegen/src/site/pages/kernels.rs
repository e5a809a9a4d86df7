//! The kernel versions: a paginated index, and one (paginated) page per upstream version with
//! its runs grouped by architecture and machine.

use crate::fmt::root_of;
use crate::info::RunInfo;
use crate::metrics::{aggregate, Val, KEY_COLUMNS};
use crate::site::ctx::Ctx;
use crate::site::error::BuildError;
use crate::site::groups::Groups;
use crate::site::links::Links;
use crate::site::pager::{pager, Pager, PAGE_SIZE};
use crate::site::rows::{key_columns, point_cell, run_row, Cell, Column, RunRow};
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
    total: usize,
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
    nav: Pager,
    groups: Vec<KernelGroup>,
}

fn machine_label(r: &RunInfo) -> String {
    match &r.machine {
        Some(m) => format!("machine {m}"),
        None => "machine not identified".to_string(),
    }
}

pub fn write(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups) -> Result<(), BuildError> {
    index(ctx, runs, g)?;
    let asc: Vec<&(String, Vec<usize>)> = g.by_kernel.values().collect();
    for (ki, (label, idx)) in asc.iter().enumerate() {
        let neighbour = |k: Option<usize>| k.and_then(|k| asc.get(k)).map(|(l, _)| l.as_str());
        let around = (neighbour(ki.checked_sub(1)), neighbour(Some(ki + 1)));
        version(ctx, runs, label, idx, around)?;
    }
    Ok(())
}

/// The list of kernel versions, newest first.
fn index(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups) -> Result<(), BuildError> {
    let desc: Vec<&(String, Vec<usize>)> = g.by_kernel.values().rev().collect();
    let pages = desc.len().div_ceil(PAGE_SIZE).max(1);
    for n in 1..=pages {
        let path = kernels_page_path(n);
        let root = root_of(&path);
        let chunk = desc.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
        let page = KernelIndex {
            title: "Kernel versions".to_string(),
            total: desc.len(),
            nav: pager(n, pages, &root, kernels_page_path),
            rows: chunk
                .iter()
                .map(|(label, idx)| index_row(runs, label, idx, &root))
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

/// The (paginated) page of one upstream version; `around` are the versions before and after.
fn version(
    ctx: &mut Ctx,
    runs: &[RunInfo],
    label: &str,
    idx: &[usize],
    around: (Option<&str>, Option<&str>),
) -> Result<(), BuildError> {
    let links = Links;
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
    let mut by_arch: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &i in idx {
        by_arch.entry(runs[i].arch.as_str()).or_default().push(i);
    }
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
        let page = KernelPage {
            title: if n == 1 {
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
            summary: by_arch
                .iter()
                .map(|(arch, ids)| summary(runs, arch, ids, &root))
                .collect(),
            nav: pager(n, pages, &root, |k| links.kernel_page(label, k)),
            groups: machine_groups(runs, chunk, &root),
            root,
        };
        ctx.page(&path, "kernel.html", &page)?;
    }
    Ok(())
}

/// One architecture's key metrics on this version, its runs pooled.
fn summary(runs: &[RunInfo], arch: &str, ids: &[usize], root: &str) -> KernelSummary {
    let measured = RunInfo::measured(runs, ids);
    KernelSummary {
        arch: arch.to_string(),
        href: format!("{root}{}", Links.arch(arch)),
        runs: measured.len(),
        cells: KEY_COLUMNS
            .iter()
            .map(|&m| {
                let vals: Vec<Val> = measured
                    .iter()
                    .filter_map(|&i| runs[i].metrics[m])
                    .collect();
                point_cell(aggregate(&vals))
            })
            .collect(),
    }
}

/// Consecutive runs of one architecture and machine become one group (the runs are sorted so).
fn machine_groups(runs: &[RunInfo], chunk: &[usize], root: &str) -> Vec<KernelGroup> {
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
                arch_href: format!("{root}{}", Links.arch(&r.arch)),
                machine: ml,
                rows: Vec::new(),
            });
        }
        if let Some(gr) = groups.last_mut() {
            gr.rows.push(run_row(r, root));
        }
    }
    groups
}
