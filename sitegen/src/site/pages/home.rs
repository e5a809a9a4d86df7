//! The home page: headline numbers per architecture at its latest kernel and the kernel
//! before, totals, and the newest runs.

use crate::fmt;
use crate::info::RunInfo;
use crate::kver::{label_key, KernelVersion};
use crate::metrics::{aggregate, Metric, Val, METRICS};
use crate::site::ctx::Ctx;
use crate::site::error::BuildError;
use crate::site::groups::{confidence_label, kernel_count, machines, Groups};
use crate::site::links::Links;
use crate::site::rows::{key_columns, run_row, Column, RunRow};
use serde::Serialize;
use std::collections::BTreeMap;

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

pub fn write(
    ctx: &mut Ctx,
    runs: &[RunInfo],
    g: &Groups,
    skipped: usize,
) -> Result<(), BuildError> {
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
        arches: g
            .by_arch
            .iter()
            .map(|(arch, idx)| arch_card(runs, arch, idx))
            .collect(),
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

/// One architecture: each metric at the latest kernel that has it.
fn arch_card(runs: &[RunInfo], arch: &str, idx: &[usize]) -> HomeArch {
    let latest = idx
        .iter()
        .map(|&i| label_key(&runs[i].kbase))
        .max()
        .map(|k| k.base_label())
        .unwrap_or_default();
    HomeArch {
        arch: arch.to_string(),
        href: Links.arch(arch),
        runs: idx.len(),
        machines: machines(runs, idx),
        kernels: kernel_count(runs, idx),
        latest_href: Links.kernel(&latest),
        latest,
        rows: METRICS
            .iter()
            .enumerate()
            .filter_map(|(m, metric)| headline(runs, idx, m, metric))
            .collect(),
    }
}

/// A metric's pooled value at the latest kernel, and the kernel before for what changed;
/// `None` when no run has it.
fn headline(runs: &[RunInfo], idx: &[usize], m: usize, metric: &Metric) -> Option<HomeRow> {
    let pk = per_kernel(runs, idx, m);
    let mut it = pk.values().rev();
    let (label, vals) = it.next()?;
    let p = aggregate(vals)?;
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
    Some(HomeRow {
        metric: metric.label,
        metric_href: Links.metric(metric.slug),
        kernel: label.clone(),
        value: fmt::point(&p),
        n: p.n,
        before,
    })
}
