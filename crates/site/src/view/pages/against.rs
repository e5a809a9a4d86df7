//! One series on one kernel version set against the other machines measured there, with
//! `syscost compare`'s verdict (the arithmetic of the pages comparing two versions), and each of
//! its runs set against the rest of its runs there: within the spread the others predict of a
//! further run, or outside it ([`crate::model::spread`]). One page per series and version
//! (`compare/<arch>/<version>/machines/<series>.html`), linked from the pages of its runs, its
//! series page and its machine's page.
//!
//! A run gets a row, not a table: a table of every headline number per run was 45 KB a page
//! and 751 MB of a site of 100,000 runs, three quarters of it.

use crate::model::changes::point_difference;
use crate::model::groups::SeriesRuns;
use crate::model::metrics::{usable_point, Val, METRICS};
use crate::model::spread::{self, Place};
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::{self, root_of, slug};
use crate::view::links::Links;
use crate::view::pages::compare;
use serde::Serialize;

/// Other series a series is set against on a version, the best covered there first.
const PEERS: usize = 3;
/// A version's runs listed one by one up to this many; beyond, only those outside the others'
/// spread are, so the page keeps a bound.
const ROWS: usize = 200;

/// The page of series `series_id` on `kbase`.
pub fn path(arch: &str, kbase: &str, series_id: &str) -> String {
    format!(
        "compare/{}/{}/machines/{series_id}.html",
        slug(arch),
        slug(kbase)
    )
}

/// A headline metric of the page: registry id, label, short label, slug of its page.
struct Metric {
    id: u32,
    label: &'static str,
    short: &'static str,
    slug: String,
}

#[derive(Serialize)]
struct PeerHead {
    id: String,
    href: String,
    label: String,
    runs: usize,
}

#[derive(Serialize)]
struct Cell {
    diff: String,
    verdict: &'static str,
    class: &'static str,
}

#[derive(Serialize)]
struct MetricRow {
    metric: &'static str,
    href: String,
    this: String,
    /// One per peer, in the peers' order; None where that series lacks the metric.
    cells: Vec<Option<Cell>>,
}

/// A headline number of a run outside what the other runs predict.
#[derive(Serialize)]
struct Outside {
    metric: &'static str,
    place: &'static str,
    class: &'static str,
    value: String,
    range: String,
}

#[derive(Serialize)]
struct RunRow {
    id: String,
    href: String,
    date: String,
    quality: &'static str,
    outside: Vec<Outside>,
    /// How many headline numbers were set against the others (the rest lack a spread).
    judged: usize,
}

#[derive(Serialize)]
struct AgainstPage {
    root: String,
    title: String,
    series_id: String,
    series_href: String,
    series_label: String,
    arch: String,
    arch_href: String,
    kbase: String,
    kernel_href: String,
    runs_href: String,
    unit: &'static str,
    /// Runs of the series on the version.
    total: usize,
    peers: Vec<PeerHead>,
    rows: Vec<MetricRow>,
    peers_more: usize,
    /// Why no other series is set against it, when none is.
    no_peers: &'static str,
    runs: Vec<RunRow>,
    /// Runs within on every number, not listed one by one (beyond [`ROWS`]).
    unlisted: usize,
}

pub fn write(ctx: &mut Ctx, d: &Data, part: usize, parts: usize) -> Result<(), BuildError> {
    let metrics = headline(d);
    for s in d.g.by_series.values().skip(part).step_by(parts.max(1)) {
        for (kbase, idx) in &s.versions {
            if idx.iter().any(|&i| d.runs[i].shown_on > 0) {
                page(ctx, d, &metrics, s, kbase, idx)?;
            }
        }
    }
    Ok(())
}

/// The headline metrics some run has.
fn headline(d: &Data) -> Vec<Metric> {
    METRICS
        .iter()
        .zip(&d.headline)
        .filter_map(|(h, m)| {
            let m = (*m)?;
            Some(Metric {
                id: m,
                label: h.label,
                short: h.short,
                slug: d.reg.key(m).slug(),
            })
        })
        .collect()
}

fn page(
    ctx: &mut Ctx,
    d: &Data,
    metrics: &[Metric],
    s: &SeriesRuns,
    kbase: &str,
    idx: &[usize],
) -> Result<(), BuildError> {
    let runs = d.runs;
    let arch = runs[idx[0]].arch.as_str();
    let id = s.key.id();
    let p = path(arch, kbase, &id);
    let root = root_of(&p);
    let unit = s.key.number_unit();
    let counted = s.key.instructions;
    let (peers, peers_more, no_peers) = peers(d, s, kbase, idx);
    let rows = metrics
        .iter()
        .filter_map(|m| {
            let this = point(d, idx, m.id)?;
            let cells: Vec<Option<Cell>> = peers
                .iter()
                .map(|(_, on)| {
                    // The other series first: "slower" says this one is slower.
                    let other = point(d, on, m.id)?;
                    let diff = point_difference(&other, &this);
                    let (verdict, class) = compare::verdict_of(&diff, other.center(), counted);
                    Some(Cell {
                        diff: format::difference_in(&diff, unit),
                        verdict,
                        class,
                    })
                })
                .collect();
            cells.iter().any(Option::is_some).then(|| MetricRow {
                metric: m.label,
                href: format!("{root}{}", Links.metric(&m.slug)),
                this: format::side(&this),
                cells,
            })
        })
        .collect();
    let mut all: Vec<RunRow> = idx
        .iter()
        .map(|&i| run_row(d, metrics, idx, i, counted, unit, &root))
        .collect();
    // Newest first: a visitor looks for the run just made.
    all.reverse();
    let unlisted = if all.len() > ROWS {
        let before = all.len();
        all.retain(|r| !r.outside.is_empty());
        before - all.len()
    } else {
        0
    };
    let page = AgainstPage {
        title: format!("Series {id} on Linux {kbase}: against other machines and its own runs"),
        series_id: id.clone(),
        series_href: format!("{root}{}", Links.series(&s.key)),
        series_label: s.key.short_label(),
        arch: arch.to_string(),
        arch_href: format!("{root}{}", Links.arch(arch)),
        kbase: kbase.to_string(),
        kernel_href: format!("{root}{}", Links.kernel(kbase)),
        runs_href: format!("{root}{}", Links.runs_of(arch, kbase, &s.key, 1)),
        unit,
        total: idx.len(),
        peers: peers
            .iter()
            .map(|(o, on)| PeerHead {
                id: o.key.id(),
                href: format!("{root}{}", Links.series(&o.key)),
                label: format!("{} · {}", o.key.cpu_short(), o.key.virt),
                runs: on.len(),
            })
            .collect(),
        rows,
        peers_more,
        no_peers,
        runs: all,
        unlisted,
        root,
    };
    ctx.page(&p, "against.html", &page)
}

/// The values of metric `m` of runs `idx`, each with whether its run is of low quality.
fn values(d: &Data, idx: &[usize], m: u32) -> Vec<(Val, bool)> {
    idx.iter()
        .filter_map(|&i| d.runs[i].values.get(m).map(|v| (v, d.runs[i].is_low())))
        .collect()
}

fn point(d: &Data, idx: &[usize], m: u32) -> Option<crate::model::metrics::Point> {
    usable_point(&values(d, idx, m))
}

/// Run `i` against the other runs of `idx` on each headline metric.
fn run_row(
    d: &Data,
    metrics: &[Metric],
    idx: &[usize],
    i: usize,
    counted: bool,
    unit: &str,
    root: &str,
) -> RunRow {
    let r = &d.runs[i];
    let others: Vec<usize> = idx.iter().copied().filter(|&j| j != i).collect();
    let mut judged = 0;
    let mut outside = Vec::new();
    for m in metrics {
        let Some(mine) = r.values.get(m.id) else {
            continue;
        };
        let vals = values(d, &others, m.id);
        // As a point is made: the runs of good quality, when there are any.
        let good: Vec<Val> = vals.iter().filter(|v| !v.1).map(|v| v.0).collect();
        let set: Vec<Val> = if good.is_empty() {
            vals.iter().map(|v| v.0).collect()
        } else {
            good
        };
        let Some(mean) =
            (!set.is_empty()).then(|| set.iter().map(|v| v.median).sum::<f64>() / set.len() as f64)
        else {
            continue;
        };
        let margin = if counted {
            syscost_stats::count_margin()
        } else {
            syscost_stats::time_margin(mean, syscost_stats::DEFAULT_MARGIN_PCT)
        };
        let Some(a) = spread::against(mine.median, &set, margin) else {
            continue;
        };
        judged += 1;
        let (place, class) = match a.place {
            Place::Within => continue,
            Place::Above => ("above", "step-up"),
            Place::Below => ("below", "step-down"),
        };
        outside.push(Outside {
            metric: m.short,
            place,
            class,
            value: format!("{} {unit}", format::ns(mine.median)),
            range: format!(
                "{} to {} ({} runs)",
                format::ns(a.range.0),
                format::ns(a.range.1),
                a.n
            ),
        });
    }
    RunRow {
        id: r.id.clone(),
        href: format!("{root}{}", Links.run(r)),
        date: r
            .date
            .as_deref()
            .map(|d| d.get(..10).unwrap_or(d).to_string())
            .unwrap_or_default(),
        quality: r.quality.grade.label(),
        outside,
        judged,
    }
}

/// The other series on `kbase` this one can be set against, with their runs there: same
/// architecture and unit, never an emulator's times, the best covered first.
fn peers<'a>(
    d: &'a Data,
    s: &SeriesRuns,
    kbase: &str,
    idx: &[usize],
) -> (Vec<(&'a SeriesRuns, &'a [usize])>, usize, &'static str) {
    let runs = d.runs;
    let emulated = |ix: &[usize]| ix.iter().any(|&i| runs[i].emulated);
    if emulated(idx) {
        return (
            Vec::new(),
            0,
            "an emulator's times are set against no other machine",
        );
    }
    let arch = &runs[idx[0]].arch;
    let mut others: Vec<(&SeriesRuns, &[usize])> =
        d.g.series_of(arch)
            .into_iter()
            .filter(|o| o.key != s.key && o.key.instructions == s.key.instructions)
            .filter_map(|o| {
                let (_, on) = o.versions.iter().find(|(l, _)| l == kbase)?;
                (!emulated(on)).then_some((o, on.as_slice()))
            })
            .collect();
    others.sort_by_key(|(o, on)| (std::cmp::Reverse(on.len()), o.key.id()));
    let more = others.len().saturating_sub(PEERS);
    others.truncate(PEERS);
    let why = if others.is_empty() {
        "no other series of this architecture and unit has runs on this version"
    } else {
        ""
    };
    (others, more, why)
}
