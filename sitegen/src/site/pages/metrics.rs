//! The metric index, and one page per headline metric with a chart per architecture.

use crate::fmt::{self, root_of};
use crate::info::RunInfo;
use crate::metrics::METRICS;
use crate::site::charts::{chart_for, has_metric, Chart};
use crate::site::ctx::Ctx;
use crate::site::error::BuildError;
use crate::site::groups::Groups;
use crate::site::links::Links;
use serde::Serialize;

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

pub fn write(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups, conf: &str) -> Result<(), BuildError> {
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
            .map(|(arch, idx)| (arch, RunInfo::measured(runs, idx)))
            .filter(|(_, idx)| has_metric(runs, idx, m))
            .map(|(arch, idx)| {
                chart_for(
                    runs,
                    &idx,
                    m,
                    format!("{} on {arch}", metric.label),
                    fmt::slug(arch),
                    &root,
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
    }
    Ok(())
}
