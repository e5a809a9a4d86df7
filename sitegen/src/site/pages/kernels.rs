//! The kernel versions: a paginated index, and one (paginated) page per upstream version with
//! its runs grouped by architecture and machine.

use crate::fmt::root_of;
use crate::info::RunInfo;
use crate::metrics::{aggregate, Val};
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
