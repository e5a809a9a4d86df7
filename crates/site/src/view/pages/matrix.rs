//! One kernel × series matrix per headline metric, a table per architecture: each cell is one
//! series on one kernel, never runs of different series pooled.

use crate::model::groups::SeriesRuns;
use crate::model::kver::label_key;
use crate::model::metrics::{usable_point, Point, METRICS};
use crate::view::chart::MAX_LINES;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::{self, root_of};
use crate::view::links::Links;
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
struct MatrixHead {
    label: String,
    id: String,
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
struct MatrixArch {
    arch: String,
    href: String,
    heads: Vec<MatrixHead>,
    rows: Vec<MatrixRow>,
    hidden: usize,
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
}

#[derive(Serialize)]
struct MatrixIndex {
    root: String,
    title: String,
    matrices: Vec<MatrixOther>,
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let links = Links;
    // The list of matrices, what the site's navigation leads to.
    ctx.page(
        "matrix/index.html",
        "matrices.html",
        &MatrixIndex {
            root: "../".into(),
            title: "Matrices".into(),
            matrices: METRICS
                .iter()
                .zip(&d.headline)
                .filter(|(_, m)| m.is_some())
                .map(|(h, _)| MatrixOther {
                    short: h.label,
                    href: format!("../{}", links.matrix(h.slug)),
                })
                .collect(),
        },
    )?;
    for (h, m) in METRICS.iter().zip(&d.headline) {
        let path = links.matrix(h.slug);
        let root = root_of(&path);
        let arches = match m {
            Some(m) => {
                let mut arches: Vec<&String> = d.g.by_arch.keys().collect();
                arches.sort_by(|a, b| {
                    crate::model::groups::arch_order(a).cmp(&crate::model::groups::arch_order(b))
                });
                arches
                    .into_iter()
                    .filter_map(|arch| arch_table(d, arch, *m, &root))
                    .collect()
            }
            None => Vec::new(),
        };
        let page = MatrixPage {
            title: format!("Matrix: {}", h.label),
            label: h.label,
            metric_href: format!("{root}{}", links.metric(h.slug)),
            confidence: d.conf.clone(),
            others: METRICS
                .iter()
                .filter(|o| o.slug != h.slug)
                .map(|o| MatrixOther {
                    short: o.short,
                    href: format!("{root}{}", links.matrix(o.slug)),
                })
                .collect(),
            arches,
            root,
        };
        ctx.page(&path, "matrix.html", &page)?;
    }
    Ok(())
}

/// Kernel versions (newest first) × the best-covered series of one architecture that have the
/// metric.
fn arch_table(d: &Data, arch: &str, m: u32, root: &str) -> Option<MatrixArch> {
    let runs = d.runs;
    let with: Vec<&SeriesRuns> =
        d.g.series_of(arch)
            .into_iter()
            // An emulated series (its own virtualization kind) is never set beside hardware.
            .filter(|s| s.runs.iter().all(|&i| !runs[i].emulated))
            .filter(|s| s.runs.iter().any(|&i| runs[i].values.get(m).is_some()))
            .collect();
    if with.is_empty() {
        return None;
    }
    let shown = &with[..with.len().min(MAX_LINES)];
    // version → one cell per shown series
    let mut rows: BTreeMap<crate::model::kver::KernelVersion, (String, Vec<Option<Point>>)> =
        BTreeMap::new();
    for (si, s) in shown.iter().enumerate() {
        for (label, idx) in &s.versions {
            let vals: Vec<_> = idx
                .iter()
                .filter_map(|&i| runs[i].values.get(m).map(|v| (v, runs[i].is_low())))
                .collect();
            if let Some(p) = usable_point(&vals) {
                rows.entry(label_key(label))
                    .or_insert_with(|| (label.clone(), vec![None; shown.len()]))
                    .1[si] = Some(p);
            }
        }
    }
    Some(MatrixArch {
        arch: arch.to_string(),
        href: format!("{root}{}", Links.arch(arch)),
        heads: shown
            .iter()
            .map(|s| MatrixHead {
                label: s.key.label(),
                id: s.key.id(),
                href: format!("{root}{}", Links.series(&s.key)),
            })
            .collect(),
        rows: rows
            .into_values()
            .rev()
            .map(|(label, cells)| MatrixRow {
                href: format!("{root}{}", Links.kernel(&label)),
                cells: cells.iter().map(|p| cell(arch, &label, *p)).collect(),
                kernel: label,
            })
            .collect(),
        hidden: with.len() - shown.len(),
    })
}

fn cell(arch: &str, kernel: &str, p: Option<Point>) -> MatrixCell {
    match p {
        Some(p) => MatrixCell {
            text: format::ns(p.median),
            sub: format!(
                "{} run{}{}{}",
                p.n,
                if p.n == 1 { "" } else { "s" },
                p.interval
                    .map(|(l, h)| format!(" {}", format::interval(l, h)))
                    .unwrap_or_else(|| ", no CI".to_string()),
                if p.low { ", low quality" } else { "" }
            ),
            title: format!("{arch}, Linux {kernel}: {}", format::point(&p)),
        },
        None => MatrixCell {
            text: String::new(),
            sub: String::new(),
            title: String::new(),
        },
    }
}
