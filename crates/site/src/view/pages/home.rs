//! The home page: per architecture, its best-covered series with their headline numbers at the
//! latest kernel version and the move from the version before; the latest steps; totals; the
//! newest runs.

use crate::model::changes::trends::series_trend;
use crate::model::groups::VersionCount;
use crate::model::groups::{arch_order, machines, SeriesRuns};
use crate::model::metrics::METRICS;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format;
use crate::view::links::Links;
use crate::view::pages::changes::{latest_groups, Group};
use crate::view::rows::{run_row, RunCols, RunsTable};
use serde::Serialize;

/// Series shown per architecture; the architecture page lists them all.
const SERIES_PER_ARCH: usize = 4;
/// The headline metric the first question is about: what one more seccomp filter costs.
const PER_FILTER: &str = "seccomp-per-filter";
/// Latest steps shown.
const CHANGES: usize = 5;

#[derive(Serialize)]
struct HomeRow {
    /// Made only of low-quality runs: named, not shown as a headline number.
    #[serde(skip)]
    low: bool,
    /// The version's index in its series.
    #[serde(skip)]
    vi: usize,
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

/// One column of the first screen's table: an architecture's best-covered series of a unit.
#[derive(Serialize)]
struct NumCol {
    arch: String,
    series_id: String,
    href: String,
    label: String,
    /// The newest version among its headline numbers.
    kernel: String,
}

#[derive(Serialize)]
struct NumCell {
    median: String,
    interval: String,
    /// The version, when older than the column's.
    kernel: String,
    href: String,
}

#[derive(Serialize)]
struct NumRow {
    metric: &'static str,
    href: String,
    cells: Vec<Option<NumCell>>,
}

/// The headline numbers of every architecture side by side, for one unit (times and
/// instruction counts are never in one table).
#[derive(Serialize)]
struct Numbers {
    unit: &'static str,
    cols: Vec<NumCol>,
    rows: Vec<NumRow>,
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
    numbers: Vec<Numbers>,
    /// The newest kernel version with runs, and its page (the paths side by side).
    newest: Option<(String, String)>,
    /// The page of the per-filter headline metric (every series).
    per_filter_href: String,
    /// Per architecture, the chooser of two kernel versions to compare.
    compare: Vec<(String, String)>,
    arches: Vec<HomeArch>,
    changes: Vec<Group>,
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
        numbers: numbers(d),
        newest: d
            .g
            .by_kernel
            .values()
            .next_back()
            .map(|(l, _)| (l.clone(), format!("{}#paths", Links.kernel(l)))),
        per_filter_href: Links.metric(PER_FILTER),
        compare: crate::view::pages::compare::choosers(d),
        arches: {
            let mut a: Vec<(&String, &Vec<usize>)> = d.g.by_arch.iter().collect();
            a.sort_by(|x, y| arch_order(x.0).cmp(&arch_order(y.0)));
            a.into_iter()
                .map(|(arch, idx)| arch_card(d, arch, idx))
                .collect()
        },
        changes: latest_groups(d, CHANGES, ""),
        recent: RunsTable::new(
            (d.g.newest.iter().take(20)).map(|&i| run_row(&runs[i], &d.headline, "")),
            RunCols {
                arch: true,
                kernel: true,
                machine: false,
                numbers: true,
            },
        ),
    };
    ctx.page("index.html", "home.html", &home)
}

/// The first screen: per unit (instructions counted first: every architecture has them), one
/// column per architecture — its best-covered series of that unit with a headline number —
/// and one row per headline metric.
fn numbers(d: &Data) -> Vec<Numbers> {
    let mut arches: Vec<&String> = d.g.by_arch.keys().collect();
    arches.sort_by(|x, y| arch_order(x).cmp(&arch_order(y)));
    ["instructions", "ns"]
        .into_iter()
        .filter_map(|unit| {
            let mut cols = Vec::new();
            let mut found: Vec<Vec<HomeRow>> = Vec::new();
            for arch in &arches {
                let best = d
                    .g
                    .series_of(arch)
                    .into_iter()
                    // An emulator's times are no machine's: never beside measurements.
                    .filter(|s| {
                        s.key.number_unit() == unit && !s.runs.iter().any(|&i| d.runs[i].emulated)
                    })
                    .map(|s| (s, headlines(d, s)))
                    .find(|(_, rows)| rows.iter().any(|r| !r.low));
                let Some((s, rows)) = best else { continue };
                let kernel = rows
                    .iter()
                    .filter(|r| !r.low)
                    .map(|r| r.vi)
                    .max()
                    .map(|v| s.versions[v].0.clone())
                    .unwrap_or_default();
                cols.push(NumCol {
                    arch: arch.to_string(),
                    series_id: s.key.id(),
                    href: Links.series(&s.key),
                    label: s.key.short_label(),
                    kernel,
                });
                found.push(rows);
            }
            if cols.is_empty() {
                return None;
            }
            let rows = METRICS
                .iter()
                .zip(&d.headline)
                .filter_map(|(h, m)| {
                    let m = (*m)?;
                    let cells: Vec<Option<NumCell>> = found
                        .iter()
                        .zip(&cols)
                        .map(|(rows, col)| {
                            let r = rows.iter().find(|r| r.metric == h.label && !r.low)?;
                            let (median, interval) = match r.value.split_once(' ') {
                                Some((a, b)) => (a.to_string(), b.to_string()),
                                None => (r.value.clone(), String::new()),
                            };
                            Some(NumCell {
                                median,
                                interval,
                                kernel: if r.kernel == col.kernel {
                                    String::new()
                                } else {
                                    r.kernel.clone()
                                },
                                href: r.metric_href.clone(),
                            })
                        })
                        .collect();
                    cells.iter().any(Option::is_some).then(|| NumRow {
                        metric: h.label,
                        href: Links.metric(&d.reg.key(m).slug()),
                        cells,
                    })
                })
                .collect();
            Some(Numbers { unit, cols, rows })
        })
        .collect()
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
                    vi,
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
                vi,
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
