//! One page per series (its key in words, its steps, its headline charts and a kernel-vs-kernel
//! table over every metric), and one page per metric of the series: its trend and the judgement
//! of every move from one kernel version to the next.

use crate::model::changes::trends::{Kept, MetricTrend};
use crate::model::changes::{Floor, Verdict, KERNEL_NS, KERNEL_REL};
use crate::model::groups::{machines, SeriesRuns};
use crate::model::metrics::{headline_of, Point, METRICS};
use crate::view::chart::{self, legend_marker, Line, Trend};
use crate::view::charts::{chart_anchor, chart_for, has_metric, Chart, ChartSpec};
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::{self, root_of};
use crate::view::links::Links;
use crate::view::pages::changes::{change_rows, ChangeRow};
use crate::view::rows::{run_row, RunCols, RunsTable};
use serde::Serialize;

/// Runs listed on a series page (the kernel pages list them all).
const RECENT: usize = 20;

/// Steps listed on a series page: its page stays bounded however long its history is.
const STEPS_SHOWN: usize = 50;

#[derive(Serialize)]
struct VersionRow {
    label: String,
    href: String,
    /// Its runs against each other and the series against other machines on the version.
    against: Option<String>,
    runs: usize,
    low: usize,
    machines: usize,
}

#[derive(Serialize)]
struct MetricRow {
    label: String,
    headline: String,
    /// Its page in this series, or its chart of the architecture; none for a metric of an
    /// emulated series without a page of its own.
    href: Option<String>,
    versions: usize,
    latest: String,
    latest_value: String,
    change: String,
    verdict: String,
    class: &'static str,
    steps: usize,
}

#[derive(Serialize)]
struct SeriesPage {
    root: String,
    title: String,
    id: String,
    /// What its numbers count: `ns`, or `instructions`.
    unit: &'static str,
    arch: String,
    arch_href: String,
    words: Vec<(&'static str, String)>,
    sentence: String,
    runs: usize,
    machines: usize,
    kernels: usize,
    confidence: String,
    versions: Vec<VersionRow>,
    changes: Vec<ChangeRow>,
    /// Steps beyond the newest [`STEPS_SHOWN`], on the series' metric pages and the changes pages.
    changes_more: usize,
    charts: Vec<Chart>,
    metrics: Vec<MetricRow>,
    /// Some metric moved from a version before: the change and verdict columns are written
    /// (a series on one version has none, and no empty columns).
    any_change: bool,
    recent: RunsTable,
}

#[derive(Serialize)]
struct KvRow {
    kernel: String,
    kernel_href: String,
    value: String,
    runs: String,
    from: String,
    change: String,
    floor: String,
    verdict: String,
    class: &'static str,
}

#[derive(Serialize)]
struct SeriesMetricPage {
    root: String,
    title: String,
    /// What its numbers count: `ns`, or `instructions`.
    unit: &'static str,
    label: String,
    source: String,
    description: String,
    series_id: String,
    series_href: String,
    sentence: String,
    /// The metric's chart of the architecture; none for an emulated series (not drawn there).
    metric_href: Option<String>,
    confidence: String,
    svg: Option<String>,
    marker: String,
    rows: Vec<KvRow>,
    kernel_rule: String,
}

fn verdict_class(v: Verdict, delta: f64) -> &'static str {
    match v {
        Verdict::Step if delta > 0.0 => "step-up",
        Verdict::Step => "step-down",
        _ => "skip",
    }
}

fn floor_words(basis: Floor, floor: f64) -> String {
    match basis {
        // What the parts are is said once, above the table: this is one cell per version.
        Floor::History { n, median, k } => {
            format!(
                "{} = {k} × {} (m = {n})",
                format::ns(floor),
                format::ns(median)
            )
        }
        Floor::Kernel => format!("{} (kernel rule)", format::ns(floor)),
        Floor::Counted => format!("{} (smallest step of a count listed)", format::ns(floor)),
    }
}

fn point_text(p: &Option<Point>) -> String {
    p.as_ref().map(format::point).unwrap_or_default()
}

/// The series' kernel versions, newest first, each with its page against the rest of the
/// series and other machines when its runs have a series page there.
fn version_rows(
    s: &SeriesRuns,
    runs: &[crate::model::summary::RunInfo],
    root: &str,
) -> Vec<VersionRow> {
    let links = Links;
    s.versions
        .iter()
        .rev()
        .map(|(label, idx)| VersionRow {
            label: label.clone(),
            href: format!("{root}{}", links.kernel(label)),
            against: idx.iter().any(|&i| runs[i].shown_on > 0).then(|| {
                format!(
                    "{root}{}",
                    crate::view::pages::against::path(&s.key.arch, label, &s.key.id())
                )
            }),
            runs: idx.len(),
            low: idx.iter().filter(|&&i| runs[i].is_low()).count(),
            machines: machines(runs, idx),
        })
        .collect()
}

/// Writes the pages of every `parts`-th series starting at `part`, so the work can be shared.
pub fn write(ctx: &mut Ctx, d: &Data, part: usize, parts: usize) -> Result<(), BuildError> {
    let all = d.g.by_series.values().zip(&d.trends);
    for (s, trends) in all.skip(part).step_by(parts.max(1)) {
        series_pages(ctx, d, s, trends)?;
    }
    Ok(())
}

fn series_pages(
    ctx: &mut Ctx,
    d: &Data,
    s: &SeriesRuns,
    trends: &[Kept],
) -> Result<(), BuildError> {
    overview(ctx, d, s, trends)?;
    for t in trends.iter().filter_map(|t| t.full.as_ref()) {
        metric_page(ctx, d, s, t)?;
    }
    Ok(())
}

fn overview(ctx: &mut Ctx, d: &Data, s: &SeriesRuns, trends: &[Kept]) -> Result<(), BuildError> {
    let links = Links;
    let runs = d.runs;
    let key = &s.key;
    let path = links.series(key);
    let root = root_of(&path);
    let charts = METRICS
        .iter()
        .zip(&d.headline)
        .filter(|(_, m)| has_metric(runs, &s.runs, **m))
        .filter_map(|(h, m)| {
            let spec = ChartSpec::of(
                d.reg,
                (*m)?,
                format!("{} — series {}", h.label, key.id()),
                h.slug.to_string(),
            );
            Some(chart_for(runs, &d.g, &s.runs, spec, &root))
        })
        .collect();
    // A series of emulated runs is not drawn on the metric pages: there is no chart to link.
    let drawn = s.runs.iter().any(|&i| !runs[i].emulated);
    let metrics: Vec<MetricRow> = trends
        .iter()
        .map(|t| {
            let k = d.reg.key(t.metric);
            let into = t.into.as_ref();
            MetricRow {
                label: k.label(),
                headline: headline_of(k)
                    .map(|h| h.label.to_string())
                    .unwrap_or_default(),
                href: if t.full.is_some() {
                    Some(format!("{root}{}", links.series_metric(key, &k.slug())))
                } else {
                    drawn.then(|| {
                        format!(
                            "{root}{}#{}",
                            links.metric(&k.slug()),
                            chart_anchor(&key.arch, key.instructions)
                        )
                    })
                },
                versions: t.versions,
                latest: t
                    .latest
                    .map(|(v, _)| s.versions[v].0.clone())
                    .unwrap_or_default(),
                latest_value: t.latest.map(|(_, p)| format::point(&p)).unwrap_or_default(),
                change: into
                    .map(|(from, p)| {
                        format!(
                            "{} from {}",
                            format::difference_in(&p.diff, key.number_unit()),
                            s.versions[*from].0
                        )
                    })
                    .unwrap_or_default(),
                verdict: into
                    .map(|(_, p)| p.verdict.words().to_string())
                    .unwrap_or_default(),
                class: into.map_or("skip", |(_, p)| verdict_class(p.verdict, p.diff.delta)),
                steps: t.steps,
            }
        })
        .collect();
    let series_changes: Vec<&crate::model::changes::trends::Change> = d
        .series_changes
        .get(key)
        .map(|v| v.iter().map(|&i| &d.changes[i]).collect())
        .unwrap_or_default();
    let page = SeriesPage {
        title: format!("Series {} ({})", key.id(), key.arch),
        id: key.id(),
        unit: key.number_unit(),
        arch_href: format!("{root}{}", links.arch(&key.arch)),
        arch: key.arch.clone(),
        words: key.words(),
        sentence: key.sentence(),
        runs: s.runs.len(),
        machines: machines(runs, &s.runs),
        kernels: s.versions.len(),
        confidence: d.conf.clone(),
        versions: version_rows(s, runs, &root),
        changes: change_rows(
            d,
            &series_changes[..series_changes.len().min(STEPS_SHOWN)],
            &root,
        ),
        changes_more: series_changes.len().saturating_sub(STEPS_SHOWN),
        charts,
        any_change: metrics.iter().any(|m| !m.change.is_empty()),
        metrics,
        recent: RunsTable::new(
            (s.runs.iter().take(RECENT)).map(|&i| run_row(&runs[i], &d.headline, &root)),
            RunCols {
                arch: false,
                kernel: true,
                machine: false,
                numbers: true,
            },
        ),
        root,
    };
    ctx.page(&path, "series.html", &page)
}

fn metric_page(ctx: &mut Ctx, d: &Data, s: &SeriesRuns, t: &MetricTrend) -> Result<(), BuildError> {
    let links = Links;
    let key = &s.key;
    let k = d.reg.key(t.metric);
    let label = headline_of(k)
        .map(|h| format!("{} ({})", h.label, k.label()))
        .unwrap_or_else(|| k.label());
    let path = links.series_metric(key, &k.slug());
    let root = root_of(&path);
    let title = format!("{label} — series {}", key.id());
    let svg = chart::trend_svg(&Trend {
        title: title.clone(),
        desc: format!(
            "{label} in {} per operation over the {} kernel version{} of series {}. The same numbers are in the table below.",
            key.number_unit(),
            s.versions.len(),
            if s.versions.len() == 1 { "" } else { "s" },
            key.id()
        ),
        x: s.versions.iter().map(|v| v.0.clone()).collect(),
        lines: vec![Line {
            label: key.label(),
            points: t.points.clone(),
        }],
        y_label: format!("{} ({})", k.label(), key.number_unit()),
    });
    let rows = s
        .versions
        .iter()
        .enumerate()
        .rev()
        .map(|(vi, (v, idx))| {
            let p = &t.points[vi];
            let into = t.pair_into(vi);
            let with = p.map_or(0, |p| p.n);
            let total = idx
                .iter()
                .filter(|&&i| d.runs[i].values.get(t.metric).is_some())
                .count();
            KvRow {
                kernel: v.clone(),
                kernel_href: format!("{root}{}", links.kernel(v)),
                value: point_text(p),
                runs: if total > with {
                    format!("{with} of {total} (the others are low quality)")
                } else {
                    total.to_string()
                },
                from: into
                    .map(|(f, _)| s.versions[f].0.clone())
                    .unwrap_or_default(),
                change: into
                    .map(|(_, x)| format::difference_in(&x.diff, key.number_unit()))
                    .unwrap_or_default(),
                floor: into
                    .map(|(_, x)| floor_words(x.floor_basis, x.floor))
                    .unwrap_or_default(),
                verdict: match (into, p) {
                    (Some((_, x)), _) => x.verdict.words().to_string(),
                    (None, Some(p)) if p.low => "not compared: low-quality runs only".to_string(),
                    (None, Some(_)) => "first version with data".to_string(),
                    (None, None) => String::new(),
                },
                class: into.map_or("skip", |(_, x)| verdict_class(x.verdict, x.diff.delta)),
            }
        })
        .filter(|r| !r.value.is_empty())
        .collect();
    let page = SeriesMetricPage {
        title,
        unit: key.number_unit(),
        source: k.source(),
        description: d.reg.meta(t.metric).description.clone(),
        series_id: key.id(),
        series_href: format!("{root}{}", links.series(key)),
        sentence: key.sentence(),
        metric_href: s.runs.iter().any(|&i| !d.runs[i].emulated).then(|| {
            format!(
                "{root}{}#{}",
                links.metric(&k.slug()),
                chart_anchor(&key.arch, key.instructions)
            )
        }),
        kernel_rule: format!("{:.0} % or {KERNEL_NS} ns", KERNEL_REL * 100.0),
        confidence: d.conf.clone(),
        svg,
        marker: legend_marker(0),
        rows,
        label,
        root,
    };
    ctx.page(&path, "series_metric.html", &page)
}
