//! One kernel × architecture matrix per headline metric, runs pooled per cell.

use crate::fmt::{self, root_of};
use crate::info::RunInfo;
use crate::kver::{label_key, KernelVersion};
use crate::metrics::{aggregate, Val, METRICS};
use crate::site::ctx::Ctx;
use crate::site::error::BuildError;
use crate::site::groups::Groups;
use crate::site::links::Links;
use serde::Serialize;
use std::collections::BTreeMap;

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

pub fn write(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups, conf: &str) -> Result<(), BuildError> {
    let links = Links;
    for (m, metric) in METRICS.iter().enumerate() {
        // Kernels (newest first) × architectures.
        let path = links.matrix(metric.slug);
        let root = root_of(&path);
        let arch_names: Vec<&String> = g.by_arch.keys().collect();
        let mut cells: BTreeMap<KernelVersion, (String, BTreeMap<&str, Vec<Val>>)> =
            BTreeMap::new();
        for r in runs.iter().filter(|r| !r.emulated) {
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
                    .map(|a| cell(a, label, per_arch.get(a.as_str())))
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

/// The runs of one architecture on one kernel, pooled.
fn cell(arch: &str, kernel: &str, vals: Option<&Vec<Val>>) -> MatrixCell {
    match vals.and_then(|v| aggregate(v)) {
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
            title: format!("{arch}, Linux {kernel}: {}", fmt::point(&p)),
        },
        None => MatrixCell {
            text: String::new(),
            sub: String::new(),
            title: String::new(),
        },
    }
}
