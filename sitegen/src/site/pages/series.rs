//! One page per comparable series (same architecture, CPU model, mitigation profile and
//! virtualisation): its trend charts.

use crate::fmt::root_of;
use crate::info::RunInfo;
use crate::metrics::METRICS;
use crate::site::charts::{chart_for, has_metric, Chart};
use crate::site::ctx::Ctx;
use crate::site::error::BuildError;
use crate::site::groups::{kernel_count, Groups};
use crate::site::links::Links;
use serde::Serialize;

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

pub fn write(ctx: &mut Ctx, runs: &[RunInfo], g: &Groups, conf: &str) -> Result<(), BuildError> {
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
