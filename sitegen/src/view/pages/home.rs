//! The home page: per architecture, its best-covered series with their headline numbers at the
//! latest kernel version and the move from the version before; the latest steps; totals; the
//! newest runs.

use crate::model::changes::trends::series_trend;
use crate::model::groups::VersionCount;
use crate::model::groups::{machines, SeriesRuns};
use crate::model::metrics::METRICS;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format;
use crate::view::links::Links;
use crate::view::pages::changes::{latest_groups, Group};
use crate::view::rows::{key_columns, run_row, Column, RunCols, RunsTable};
use serde::Serialize;

/// Series shown per architecture; the architecture page lists them all.
const SERIES_PER_ARCH: usize = 4;
/// Latest steps shown.
const CHANGES: usize = 5;

#[derive(Serialize)]
struct HomeRow {
    /// Made only of low-quality runs: named, not shown as a headline number.
    #[serde(skip)]
    low: bool,
    metric: &'static str,
    metric_href: String,
    kernel: String,
    value: String,
    n: usize,
    before: String,
    class: &'static str,
}

#[derive(Serialize)]
struct HomeSeries {
    id: String,
    href: String,
    label: String,
    /// What its numbers count: `ns`, or `instructions`.
    unit: &'static str,
    runs: usize,
    rows: Vec<HomeRow>,
    /// Headline metrics whose latest version has only low-quality runs.
    low_only: Vec<&'static str>,
}

#[derive(Serialize)]
struct HomeArch {
    arch: String,
    href: String,
    runs: usize,
    machines: usize,
    kernels: String,
    latest: String,
    latest_href: String,
    series: Vec<HomeSeries>,
    more_series: usize,
}

/// An instruction-count series: one architecture's path lengths over every kernel version
/// the lab booted, which the home page leads to first.
#[derive(Serialize)]
struct History {
    arch: String,
    series_id: String,
    series_href: String,
    charts_href: String,
    /// The emulator and CPU model (the series' virtualisation part).
    emulator: String,
    runs: usize,
    versions: usize,
    first: String,
    last: String,
    steps: usize,
}

#[derive(Serialize)]
struct Totals {
    runs: usize,
    placed: usize,
    machines: usize,
    kernels: String,
    arches: usize,
    series: usize,
    unplaced: usize,
    changes: usize,
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
    history: Vec<History>,
    arches: Vec<HomeArch>,
    changes: Vec<Group>,
    columns: Vec<Column>,
    recent: RunsTable,
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let runs = d.runs;
    let placed: Vec<usize> = (0..runs.len()).filter(|&i| runs[i].is_placed()).collect();
    let home = Home {
        root: "",
        title: "Home",
        empty: runs.is_empty(),
        synthetic: runs
            .iter()
            .filter(|r| r.kind == syscost_record::SourceKind::Synthetic)
            .count(),
        skipped: d.rejected,
        confidence: d.conf.clone(),
        totals: Totals {
            runs: runs.len(),
            placed: placed.len(),
            machines: machines(runs, &placed),
            kernels: VersionCount::of(d.g.by_kernel.values().map(|(l, _)| l.as_str())).words(),
            arches: d.g.by_arch.len(),
            series: d.g.by_series.len(),
            unplaced: d.g.unplaced.len(),
            changes: d.changes.len(),
        },
        history: history(d),
        arches: d
            .g
            .by_arch
            .iter()
            .map(|(arch, idx)| arch_card(d, arch, idx))
            .collect(),
        changes: latest_groups(d, CHANGES, ""),
        columns: key_columns(),
        recent: RunsTable::new(
            (d.g.newest.iter().take(20)).map(|&i| run_row(&runs[i], &d.headline, "")),
            RunCols {
                arch: true,
                kernel: true,
                machine: false,
            },
        ),
    };
    ctx.page("index.html", "home.html", &home)
}

/// The instruction-count series, best covered first.
fn history(d: &Data) -> Vec<History> {
    let mut out: Vec<History> =
        d.g.by_series
            .values()
            .filter(|s| s.key.instructions && s.versions.len() > 1)
            .map(|s| History {
                arch: s.key.arch.clone(),
                series_id: s.key.id(),
                series_href: Links.series(&s.key),
                charts_href: format!(
                    "{}#{}",
                    Links.arch(&s.key.arch),
                    crate::view::charts::chart_anchor(&s.key.arch, true)
                ),
                emulator: s.key.virt.clone(),
                runs: s.runs.len(),
                versions: s.versions.len(),
                first: s.versions.first().map(|v| v.0.clone()).unwrap_or_default(),
                last: s.versions.last().map(|v| v.0.clone()).unwrap_or_default(),
                steps: d
                    .changes
                    .iter()
                    .filter(|c| std::sync::Arc::ptr_eq(&c.series, &s.key))
                    .count(),
            })
            .collect();
    out.sort_by(|a, b| b.versions.cmp(&a.versions).then(a.arch.cmp(&b.arch)));
    out
}

/// One architecture: its best-covered series, each with its headline numbers.
fn arch_card(d: &Data, arch: &str, idx: &[usize]) -> HomeArch {
    let runs = d.runs;
    let latest =
        d.g.by_kernel
            .values()
            .rev()
            .find(|(_, k)| k.iter().any(|&i| runs[i].arch == arch))
            .map(|(l, _)| l.clone())
            .unwrap_or_default();
    let mut all = d.g.series_of(arch);
    // Series with a headline number first (stable: best covered first within each part).
    all.sort_by_key(|s| {
        !d.headline
            .iter()
            .flatten()
            .any(|&m| s.runs.iter().any(|&i| runs[i].values.get(m).is_some()))
    });
    HomeArch {
        arch: arch.to_string(),
        href: Links.arch(arch),
        runs: idx.len(),
        machines: machines(runs, idx),
        kernels: VersionCount::of(
            d.g.by_kernel
                .values()
                .filter(|(_, k)| k.iter().any(|&i| runs[i].arch == arch))
                .map(|(l, _)| l.as_str()),
        )
        .words(),
        latest_href: Links.kernel(&latest),
        latest,
        more_series: all.len().saturating_sub(SERIES_PER_ARCH),
        series: all
            .into_iter()
            .take(SERIES_PER_ARCH)
            .map(|s| {
                let (rows, low): (Vec<HomeRow>, Vec<HomeRow>) =
                    headlines(d, s).into_iter().partition(|r| !r.low);
                HomeSeries {
                    id: s.key.id(),
                    href: Links.series(&s.key),
                    label: s.key.label(),
                    unit: s.key.number_unit(),
                    runs: s.runs.len(),
                    rows,
                    low_only: low.into_iter().map(|r| r.metric).collect(),
                }
            })
            .collect(),
    }
}

/// Each headline metric of a series at its latest version with a usable point, and the move
/// from the version before, as the change rule judges it.
fn headlines(d: &Data, s: &SeriesRuns) -> Vec<HomeRow> {
    METRICS
        .iter()
        .zip(&d.headline)
        .filter_map(|(h, m)| {
            let t = series_trend(d.runs, s, (*m)?)?;
            let (vi, p) = t
                .points
                .iter()
                .enumerate()
                .rev()
                .find_map(|(vi, p)| p.filter(|p| !p.low).map(|p| (vi, p)))
                .or_else(|| {
                    // Only low-quality runs: say so rather than show their number as a headline.
                    t.points
                        .iter()
                        .enumerate()
                        .rev()
                        .find_map(|(vi, p)| p.map(|p| (vi, p)))
                })?;
            if p.low {
                return Some(HomeRow {
                    low: true,
                    metric: h.label,
                    metric_href: String::new(),
                    kernel: String::new(),
                    value: String::new(),
                    n: 0,
                    before: String::new(),
                    class: "note",
                });
            }
            let (before, class) = match t.pair_into(vi) {
                Some((from, pair)) => (
                    format!(
                        "{}: {} — {}",
                        s.versions[from].0,
                        format::difference_in(&pair.diff, s.key.number_unit()),
                        pair.verdict.words()
                    ),
                    match pair.verdict {
                        crate::model::changes::Verdict::Step if pair.diff.delta > 0.0 => "step-up",
                        crate::model::changes::Verdict::Step => "step-down",
                        _ => "note",
                    },
                ),
                None => (String::new(), "note"),
            };
            Some(HomeRow {
                low: false,
                metric: h.label,
                metric_href: Links.series_metric(&s.key, h.slug),
                kernel: s.versions[vi].0.clone(),
                value: format::point(&p),
                n: p.n,
                before,
                class,
            })
        })
        .collect()
}
