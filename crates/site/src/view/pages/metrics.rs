//! The metric index, and one page per metric (every scenario's median and overhead, every
//! estimate) with a chart per architecture, one line per series.

use crate::model::metrics::{headline_of, Kind, METRICS};
use crate::model::summary::RunInfo;
use crate::view::charts::{chart_anchor, chart_of_dots, counted_title, Chart, ChartSpec, Dot};
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::root_of;
use crate::view::links::Links;
use serde::Serialize;

#[derive(Serialize)]
struct MetricIndexRow {
    label: String,
    headline: String,
    href: String,
    source: String,
    description: String,
    runs: usize,
    matrix_href: Option<String>,
}

#[derive(Serialize)]
struct Family {
    name: String,
    rows: Vec<MetricIndexRow>,
    /// Some metric of the family has a matrix: the column is written.
    any_matrix: bool,
}

#[derive(Serialize)]
struct MetricIndex {
    root: &'static str,
    title: &'static str,
    families: Vec<Family>,
}

#[derive(Serialize)]
struct MetricPage {
    root: String,
    title: String,
    label: String,
    source: String,
    description: String,
    matrix_href: Option<String>,
    confidence: String,
    charts: Vec<Chart>,
}

/// The metric pages of batches `part`, `part + parts`, …, so that `parts` tasks can make them
/// side by side; the first also writes the index.
pub fn write(ctx: &mut Ctx, d: &Data, part: usize, parts: usize) -> Result<(), BuildError> {
    let links = Links;
    let runs = d.runs;
    // Placed runs with each metric, and the placed runs of each architecture with it.
    let mut counts = vec![0usize; d.reg.len()];
    for r in runs.iter().filter(|r| r.is_placed()) {
        for (m, _) in r.values.iter() {
            counts[m as usize] += 1;
        }
    }
    let mut families: Vec<Family> = Vec::new();
    for m in d.reg.ids().filter(|&m| counts[m as usize] > 0) {
        let k = d.reg.key(m);
        let meta = d.reg.meta(m);
        let h = headline_of(k);
        let row = MetricIndexRow {
            label: k.label(),
            headline: h.map(|h| h.label.to_string()).unwrap_or_default(),
            href: format!("{}.html", k.slug()),
            source: k.source(),
            description: meta.description.clone(),
            runs: counts[m as usize],
            matrix_href: h.map(|h| format!("../{}", links.matrix(h.slug))),
        };
        match families.last_mut() {
            Some(f) if f.name == meta.family => {
                f.any_matrix |= row.matrix_href.is_some();
                f.rows.push(row);
            }
            _ => families.push(Family {
                name: meta.family.clone(),
                any_matrix: row.matrix_href.is_some(),
                rows: vec![row],
            }),
        }
    }
    if part == 0 {
        let index = MetricIndex {
            root: "../",
            title: "Metrics",
            families,
        };
        ctx.page("metrics/index.html", "metrics.html", &index)?;
    }

    // A chart per architecture on every metric page. Each architecture's runs are gone
    // through once for a batch of metrics, gathering their values, rather than once per chart
    // (thousands of runs, each looked up again for every metric); the batch bounds the memory.
    let shown: Vec<u32> = d.reg.ids().filter(|&m| counts[m as usize] > 0).collect();
    // Each architecture's measured runs, then its instruction counts: charts of their own.
    let arches: Vec<(String, String, Vec<usize>)> =
        d.g.by_arch
            .iter()
            .flat_map(|(arch, idx)| {
                [
                    (
                        arch.clone(),
                        chart_anchor(arch, false),
                        RunInfo::measured(runs, idx),
                    ),
                    (
                        counted_title(arch),
                        chart_anchor(arch, true),
                        RunInfo::counted(runs, idx),
                    ),
                ]
            })
            .filter(|(_, _, idx)| !idx.is_empty())
            .collect();
    for batch in shown.chunks(BATCH).skip(part).step_by(parts.max(1)) {
        let mut charts: Vec<Vec<Chart>> = batch.iter().map(|_| Vec::new()).collect();
        for (arch, anchor, idx) in &arches {
            let mut dots: Vec<Vec<Dot>> = batch.iter().map(|_| Vec::new()).collect();
            // A run's value of a metric is looked up by the metric (a table of its shape),
            // not found by going through all of the run's values for each batch.
            for &i in idx {
                for (&m, dots) in batch.iter().zip(&mut dots) {
                    if let Some(v) = runs[i].values.get(m) {
                        dots.extend(Dot::of(runs, &d.g, i, v));
                    }
                }
            }
            for ((&m, dots), charts) in batch.iter().zip(&dots).zip(&mut charts) {
                if dots.is_empty() {
                    continue;
                }
                let title = format!("{} on {arch}", metric_label(d, m));
                let spec = ChartSpec::of(d.reg, m, title, anchor.clone());
                let root = root_of(&links.metric(&d.reg.key(m).slug()));
                charts.push(chart_of_dots(&d.g, dots, spec, &root));
            }
        }
        for (&m, charts) in batch.iter().zip(charts) {
            metric_page(ctx, d, m, charts)?;
        }
    }
    // Headline pages exist even before any run has their metric: other pages link to them.
    for (h, m) in METRICS.iter().zip(&d.headline).filter(|_| part == 0) {
        if m.is_some_and(|m| counts[m as usize] > 0) {
            continue;
        }
        let path = links.metric(h.slug);
        let root = root_of(&path);
        let k = h.key();
        let page = MetricPage {
            title: h.label.to_string(),
            label: h.label.to_string(),
            source: k.source(),
            description: String::new(),
            matrix_href: Some(format!("{root}{}", links.matrix(h.slug))),
            confidence: d.conf.clone(),
            charts: Vec::new(),
            root,
        };
        ctx.page(&path, "metric.html", &page)?;
    }
    Ok(())
}

/// Metrics whose charts are made together (see [`write`]).
const BATCH: usize = 8;

fn metric_label(d: &Data, m: u32) -> String {
    let k = d.reg.key(m);
    headline_of(k).map_or_else(|| k.label(), |h| h.label.to_string())
}

fn metric_page(ctx: &mut Ctx, d: &Data, m: u32, charts: Vec<Chart>) -> Result<(), BuildError> {
    let links = Links;
    let k = d.reg.key(m);
    let h = headline_of(k);
    let label = metric_label(d, m);
    let path = links.metric(&k.slug());
    let root = root_of(&path);
    let page = MetricPage {
        title: label.clone(),
        label,
        source: k.source(),
        description: match k.kind {
            Kind::Overhead => format!(
                "{} — paired against {} in every round",
                d.reg.meta(m).description,
                k.vs
            ),
            _ => d.reg.meta(m).description.clone(),
        },
        matrix_href: h.map(|h| format!("{root}{}", links.matrix(h.slug))),
        confidence: d.conf.clone(),
        charts,
        root,
    };
    ctx.page(&path, "metric.html", &page)
}
