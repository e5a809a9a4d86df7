//! One page per architecture: a trend chart per headline metric and its comparable series.

use crate::fmt::root_of;
use crate::info::RunInfo;
use crate::metrics::METRICS;
use crate::site::charts::{chart_for, has_metric, Chart};
use crate::site::ctx::Ctx;
use crate::site::error::BuildError;
use crate::site::groups::{kernel_count, machines, Groups};
use crate::site::links::Links;
use serde::Serialize;

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

pub fn write(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups, conf: &str) -> Result<(), BuildError> {
    let links = Links;
    for (arch, idx) in &g.by_arch {
        let path = links.arch(arch);
        let root = root_of(&path);
        let measured = RunInfo::measured(runs, idx);
        let charts = (0..METRICS.len())
            .filter(|&m| has_metric(runs, &measured, m))
            .map(|m| {
                chart_for(
                    runs,
                    &measured,
                    m,
                    format!("{} on {arch}", METRICS[m].label),
                    METRICS[m].slug.to_string(),
                    &root,
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
