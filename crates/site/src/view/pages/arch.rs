//! One page per architecture: a trend chart per headline metric with one line per series, its
//! series, and every metric it has.

use crate::model::groups::{kernel_count, machines};
use crate::model::metrics::METRICS;
use crate::model::summary::RunInfo;
use crate::view::charts::{chart_anchor, chart_for, counted_title, has_metric, Chart, ChartSpec};
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::root_of;
use crate::view::links::Links;
use serde::Serialize;

/// Series drawn per chart on an architecture's page (the best covered); its metric's page
/// draws more, with their numbers. Ten lines of 150 kernel versions each were 50 KB a chart,
/// five 30 KB.
const ARCH_LINES: usize = 3;

#[derive(Serialize)]
pub struct SeriesRow {
    pub id: String,
    pub href: String,
    pub label: String,
    pub runs: usize,
    pub kernels: usize,
    pub changes: usize,
}

#[derive(Serialize)]
struct MetricLink {
    label: String,
    /// Its chart of this architecture on the metric page; none when only emulated runs have it.
    href: Option<String>,
    runs: usize,
}

#[derive(Serialize)]
struct ArchPage {
    root: String,
    title: String,
    arch: String,
    runs: usize,
    machines: usize,
    kernels: String,
    confidence: String,
    charts: Vec<Chart>,
    series: Vec<SeriesRow>,
    metrics: Vec<MetricLink>,
}

/// The series of an architecture as table rows, best covered first.
pub fn series_rows(d: &Data, arch: &str, root: &str) -> Vec<SeriesRow> {
    d.g.series_of(arch)
        .into_iter()
        .map(|s| SeriesRow {
            id: s.key.id(),
            href: format!("{root}{}", Links.series(&s.key)),
            label: s.key.label(),
            runs: s.runs.len(),
            kernels: s.versions.len(),
            changes: d.series_changes.get(&s.key).map_or(0, Vec::len),
        })
        .collect()
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    for (arch, idx) in &d.g.by_arch {
        page(ctx, d, arch, idx)?;
    }
    Ok(())
}

fn page(ctx: &mut Ctx, d: &Data, arch: &str, idx: &[usize]) -> Result<(), BuildError> {
    let links = Links;
    let runs = d.runs;
    let path = links.arch(arch);
    let root = root_of(&path);
    // The headline charts of the measured runs and of the instruction counts (their own
    // charts: never drawn with times), the one with more kernel versions first: a page that
    // led with the times of one kernel put the counts' history of eleven below them.
    let mut groups = [
        (RunInfo::measured(runs, idx), arch.to_string(), false),
        (RunInfo::counted(runs, idx), counted_title(arch), true),
    ];
    groups.sort_by_key(|(picked, _, _)| {
        let n = kernel_count(runs, picked);
        std::cmp::Reverse(n.exact + n.approximate)
    });
    let mut charts = Vec::new();
    for (picked, on, counted) in groups {
        charts.extend(
            METRICS
                .iter()
                .zip(&d.headline)
                .filter(|(_, m)| has_metric(runs, &picked, **m))
                .filter_map(|(h, m)| {
                    let m = (*m)?;
                    // The counted charts' anchors differ from the measured ones'.
                    let anchor = if counted {
                        format!("{}-instructions", h.slug)
                    } else {
                        h.slug.to_string()
                    };
                    let spec = ChartSpec {
                        max_lines: ARCH_LINES,
                        ..ChartSpec::of(d.reg, m, format!("{} on {on}", h.label), anchor)
                    };
                    // The numbers of each chart are on its metric's page, under this
                    // architecture's chart: a table per chart made this page grow with every
                    // kernel version (928 KB at 3,000 runs).
                    let numbers = format!(
                        "{root}{}#{}",
                        links.metric(&d.reg.key(m).slug()),
                        chart_anchor(arch, counted)
                    );
                    Some(chart_for(runs, &d.g, &picked, spec, &root).numbers_at(numbers))
                }),
        );
    }
    // Runs with each metric, and of them the measured ones and the instruction counts: only
    // those are drawn on the metric page (an emulated run that timed is not), so only they
    // give its chart an anchor to link.
    let mut counts = vec![(0usize, 0usize, 0usize); d.reg.len()];
    for &i in idx {
        for (m, _) in runs[i].values.iter() {
            let c = &mut counts[m as usize];
            c.0 += 1;
            if runs[i].series.instructions {
                c.2 += 1;
            } else {
                c.1 += usize::from(!runs[i].emulated);
            }
        }
    }
    let metrics = d
        .reg
        .ids()
        .filter(|&m| counts[m as usize].0 > 0)
        .map(|m| {
            let (_, measured, counted) = counts[m as usize];
            MetricLink {
                label: d.reg.key(m).label(),
                href: (measured + counted > 0).then(|| {
                    format!(
                        "{root}{}#{}",
                        links.metric(&d.reg.key(m).slug()),
                        chart_anchor(arch, measured == 0)
                    )
                }),
                runs: counts[m as usize].0,
            }
        })
        .collect();
    let page = ArchPage {
        title: arch.to_string(),
        arch: arch.to_string(),
        runs: idx.len(),
        machines: machines(runs, idx),
        kernels: kernel_count(runs, idx).words(),
        confidence: d.conf.clone(),
        charts,
        series: series_rows(d, arch, &root),
        metrics,
        root,
    };
    ctx.page(&path, "arch.html", &page)
}
