//! One series' runs on one kernel version set against the rest of their series there ("is my
//! run inside its series' spread?"), and the series against the other machines measured on that
//! version, with `syscost compare`'s verdict (the arithmetic of `syscost_stats`, as on the
//! pages comparing two versions). A page for each page of the series' runs on the version
//! (`runs/<arch>/<version>/<series>[-n].html` has `compare/<arch>/<version>/machines/<series>[-n].html`),
//! holding the same runs, so a run's page links to its own; the machines are compared on the
//! first.

use crate::model::groups::SeriesRuns;
use crate::model::metrics::{usable_point, METRICS};
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::{self, root_of, slug};
use crate::view::links::Links;
use crate::view::pages::compare::{self, SeriesPart};
use serde::Serialize;

/// Other series a series is set against on a version, the best covered there first.
const PEERS: usize = 3;

/// The page of the runs on page `n` of a series' runs on `kbase`.
pub fn path(arch: &str, kbase: &str, series_id: &str, n: usize) -> String {
    let (a, k) = (slug(arch), slug(kbase));
    if n <= 1 {
        format!("compare/{a}/{k}/machines/{series_id}.html")
    } else {
        format!("compare/{a}/{k}/machines/{series_id}-{n}.html")
    }
}

/// The page that goes with the page of a series' runs at `runs_page`
/// (`runs/<arch>/<version>/<series>[-n].html`, see [`Links::runs_of`]).
pub fn of_runs_page(runs_page: &str) -> Option<String> {
    let rest = runs_page.strip_prefix("runs/")?;
    let (dir, file) = rest.rsplit_once('/')?;
    Some(format!("compare/{dir}/machines/{file}"))
}

#[derive(Serialize)]
struct Row {
    metric: String,
    href: String,
    run: String,
    rest: String,
    spread: String,
    /// Where the run's median lies against the other runs' medians.
    place: &'static str,
    diff: String,
    verdict: &'static str,
    class: &'static str,
}

#[derive(Serialize)]
struct RunPart {
    id: String,
    href: String,
    date: Option<String>,
    quality: &'static str,
    rows: Vec<Row>,
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
    /// Runs of the series on the version, all pages together.
    total: usize,
    runs: Vec<RunPart>,
    /// Set against the other series on the first page only; later pages link there.
    first_href: Option<String>,
    peers: Vec<Peer>,
    peers_more: usize,
    /// Why no other series is set against it, when none is.
    no_peers: &'static str,
}

#[derive(Serialize)]
struct Peer {
    cpu: String,
    virt: String,
    #[serde(flatten)]
    part: SeriesPart,
}

pub fn write(ctx: &mut Ctx, d: &Data, part: usize, parts: usize) -> Result<(), BuildError> {
    for s in d.g.by_series.values().skip(part).step_by(parts.max(1)) {
        for (kbase, idx) in &s.versions {
            let mut pages: Vec<u32> = idx.iter().map(|&i| d.runs[i].shown_on).collect();
            pages.sort_unstable();
            pages.dedup();
            for n in pages.into_iter().filter(|&n| n > 0) {
                page(ctx, d, s, kbase, idx, n)?;
            }
        }
    }
    Ok(())
}

/// The headline metrics, as (registry id, label, slug of its metric page).
fn headline(d: &Data) -> Vec<(u32, String, String)> {
    METRICS
        .iter()
        .zip(&d.headline)
        .filter_map(|(h, m)| {
            let m = (*m)?;
            Some((m, h.label.to_string(), d.reg.key(m).slug()))
        })
        .collect()
}

fn page(
    ctx: &mut Ctx,
    d: &Data,
    s: &SeriesRuns,
    kbase: &str,
    idx: &[usize],
    n: u32,
) -> Result<(), BuildError> {
    let runs = d.runs;
    let arch = runs[idx[0]].arch.as_str();
    let id = s.key.id();
    let p = path(arch, kbase, &id, n as usize);
    let root = root_of(&p);
    let unit = s.key.number_unit();
    let metrics = headline(d);
    let here: Vec<usize> = idx
        .iter()
        .copied()
        .filter(|&i| runs[i].shown_on == n)
        .collect();
    let run_parts = here
        .iter()
        .map(|&i| {
            let others: Vec<usize> = idx.iter().copied().filter(|&j| j != i).collect();
            RunPart {
                id: runs[i].id.clone(),
                href: format!("{root}{}", Links.run(&runs[i])),
                date: runs[i].date.clone(),
                quality: runs[i].quality.grade.label(),
                rows: if others.is_empty() {
                    Vec::new()
                } else {
                    metrics
                        .iter()
                        .filter_map(|(m, label, mslug)| {
                            against_rest(d, i, &others, *m, unit, s.key.instructions).map(
                                |(run, rest, spread, place, diff, (verdict, class))| Row {
                                    metric: label.clone(),
                                    href: format!("{root}{}", Links.metric(mslug)),
                                    run,
                                    rest,
                                    spread,
                                    place,
                                    diff,
                                    verdict,
                                    class,
                                },
                            )
                        })
                        .collect()
                },
            }
        })
        .collect();
    let (peers, peers_more, no_peers) = if n == 1 {
        peers(d, s, kbase, idx, &root)
    } else {
        (Vec::new(), 0, "")
    };
    let page = AgainstPage {
        title: format!("Series {id} on Linux {kbase}: against its runs and other machines"),
        series_id: id.clone(),
        series_href: format!("{root}{}", Links.series(&s.key)),
        series_label: s.key.short_label(),
        arch: arch.to_string(),
        arch_href: format!("{root}{}", Links.arch(arch)),
        kbase: kbase.to_string(),
        kernel_href: format!("{root}{}", Links.kernel(kbase)),
        runs_href: format!("{root}{}", Links.runs_of(arch, kbase, &s.key, n as usize)),
        unit,
        total: idx.len(),
        runs: run_parts,
        first_href: (n > 1).then(|| format!("{root}{}#machines", path(arch, kbase, &id, 1))),
        peers,
        peers_more,
        no_peers,
        root,
    };
    ctx.page(&p, "against.html", &page)
}

type Judged = (
    String,
    String,
    String,
    &'static str,
    String,
    (&'static str, &'static str),
);

/// Run `i`'s value of metric `m` against the other runs' point (`others`): both values, the
/// others' spread (lowest to highest median), where the run lies in it, and the difference
/// with compare's verdict. `None` when the run or the others lack the metric.
fn against_rest(
    d: &Data,
    i: usize,
    others: &[usize],
    m: u32,
    unit: &str,
    counted: bool,
) -> Option<Judged> {
    let runs = d.runs;
    let mine = usable_point(&[(runs[i].values.get(m)?, false)])?;
    let vals: Vec<_> = others
        .iter()
        .filter_map(|&j| runs[j].values.get(m).map(|v| (v, runs[j].is_low())))
        .collect();
    let rest = usable_point(&vals)?;
    let (lo, hi) = vals
        .iter()
        .map(|(v, _)| v.median)
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    let place = if mine.median < lo {
        "below"
    } else if mine.median > hi {
        "above"
    } else {
        "inside"
    };
    let diff =
        crate::model::changes::difference(rest.median, rest.interval, mine.median, mine.interval);
    Some((
        format::point(&mine),
        format::point(&rest),
        if vals.len() == 1 {
            format!("one run: {}", format::ns(lo))
        } else {
            format!(
                "{} to {} ({} runs)",
                format::ns(lo),
                format::ns(hi),
                vals.len()
            )
        },
        place,
        format::difference_in(&diff, unit),
        compare::verdict_of(&diff, rest.median, counted),
    ))
}

/// The other series on `kbase` this one can be set against: same architecture and unit, never
/// an emulator's times, the best covered first.
fn peers(
    d: &Data,
    s: &SeriesRuns,
    kbase: &str,
    idx: &[usize],
    root: &str,
) -> (Vec<Peer>, usize, &'static str) {
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
    let list: Vec<Peer> = others
        .into_iter()
        .map(|(o, on)| Peer {
            cpu: o.key.cpu.clone(),
            virt: o.key.virt.clone(),
            // The other series first: a verdict of "slower" says this one is slower. The
            // headline metrics only: every overhead of five series made these pages 40 % of a
            // site of 3,000 runs (the kernel's page has every path side by side).
            part: compare::part(d, o, (on, idx), true, root),
        })
        .collect();
    let why = if list.is_empty() {
        "no other series of this architecture and unit has runs on this version"
    } else {
        ""
    };
    (list, more, why)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_page_of_runs_has_its_page_against_the_rest() {
        let key_id = "0123456789ab";
        for n in [1, 2] {
            let runs = format!(
                "runs/x86_64/6.8/{key_id}{}.html",
                if n == 1 {
                    String::new()
                } else {
                    format!("-{n}")
                }
            );
            assert_eq!(
                of_runs_page(&runs).as_deref(),
                Some(path("x86_64", "6.8", key_id, n).as_str())
            );
        }
        assert_eq!(of_runs_page("kernels/6.8/index.html"), None);
    }
}
