//! Two kernel versions of one architecture side by side: for each series with usable runs on
//! both, every metric's difference with its interval and `syscost compare`'s verdict (the same
//! arithmetic, `syscost_stats`). Pages exist for each pair of neighbouring versions of a
//! series and for its oldest against its newest; a chooser per
//! architecture lists them (a form of two lists, with a few lines of script, picks one).

use crate::model::changes::{point_difference, Difference};
use crate::model::groups::{arch_order, SeriesRuns};
use crate::model::metrics::{headline_of, usable_point, Point};
use crate::model::upstream;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::{self, root_of, slug};
use crate::view::links::Links;
use serde::Serialize;
use syscost_stats::Outcome;

/// Series compared per page, the best covered on both versions first.
const SERIES: usize = 3;

/// The path of the comparison of `from` and `to` on `arch`.
pub fn path(arch: &str, from: &str, to: &str) -> String {
    format!("compare/{}/{}/{}.html", slug(arch), slug(from), slug(to))
}

/// The path of an architecture's chooser.
pub fn chooser(arch: &str) -> String {
    format!("compare/{}/index.html", slug(arch))
}

#[derive(Serialize)]
struct Row {
    metric: String,
    href: String,
    from: String,
    to: String,
    diff: String,
    verdict: &'static str,
    class: &'static str,
}

#[derive(Serialize)]
pub(crate) struct SeriesPart {
    id: String,
    href: String,
    label: String,
    unit: &'static str,
    from_runs: usize,
    to_runs: usize,
    /// Changes first, the largest relative ones first, then the inconclusive.
    moved: Vec<Row>,
    /// No change (within the margin), folded.
    same: Vec<Row>,
}

#[derive(Serialize)]
struct ComparePage {
    root: String,
    title: String,
    arch: String,
    from: String,
    from_href: String,
    to: String,
    to_href: String,
    chooser_href: String,
    series: Vec<SeriesPart>,
    more: usize,
    shortlog: Vec<(String, String)>,
    command: String,
}

#[derive(Serialize)]
struct Pair {
    from: String,
    to: String,
    href: String,
}

#[derive(Serialize)]
struct ChooserPage {
    root: String,
    title: String,
    arch: String,
    versions: Vec<String>,
    pairs: Vec<Pair>,
}

/// The pairs of versions of an architecture with a page, as indices into `d.g.versions`,
/// ascending: for each of its series (not an emulator's times), each pair of its neighbouring
/// exact versions and its oldest with its newest — two versions no series shares have nothing
/// to compare.
fn pairs_of(d: &Data, arch: &str) -> Vec<(usize, usize)> {
    let rank: std::collections::HashMap<&str, usize> =
        d.g.versions
            .iter()
            .enumerate()
            .map(|(i, v)| (v.as_str(), i))
            .collect();
    let mut set = std::collections::BTreeSet::new();
    for s in d.g.series_of(arch) {
        if s.runs.iter().any(|&i| d.runs[i].emulated) {
            continue;
        }
        let v: Vec<usize> = s
            .versions
            .iter()
            .filter(|(l, _)| !l.starts_with(crate::model::kver::APPROX))
            .filter_map(|(l, _)| rank.get(l.as_str()).copied())
            .collect();
        set.extend(pairs(&v));
    }
    set.into_iter().collect()
}

/// Of versions `v` (ascending), the pairs with a page: neighbours, and the oldest with the
/// newest. (Each with the newest as well made 2,198 pages, 362 MB, at 100,000 runs.)
fn pairs(v: &[usize]) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = v.windows(2).map(|w| (w[0], w[1])).collect();
    if v.len() > 2 {
        out.push((v[0], v[v.len() - 1]));
    }
    out
}

/// The choosers that exist, (architecture, path), x86_64 first.
pub fn choosers(d: &Data) -> Vec<(String, String)> {
    let mut arches: Vec<&String> = d.g.by_arch.keys().collect();
    arches.sort_by(|a, b| arch_order(a).cmp(&arch_order(b)));
    arches
        .into_iter()
        .filter(|a| !pairs_of(d, a).is_empty())
        .map(|a| (a.clone(), chooser(a)))
        .collect()
}

/// The nearest earlier version compared with `version` on `arch`, and the page comparing
/// them, if any.
pub fn previous(d: &Data, arch: &str, version: &str) -> Option<(String, String)> {
    let at = d.g.versions.iter().position(|x| x == version)?;
    let from = pairs_of(d, arch)
        .into_iter()
        .filter(|&(_, b)| b == at)
        .map(|(a, _)| a)
        .max()?;
    let prev = &d.g.versions[from];
    Some((prev.clone(), path(arch, prev, version)))
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let mut arches: Vec<&String> = d.g.by_arch.keys().collect();
    arches.sort_by(|a, b| arch_order(a).cmp(&arch_order(b)));
    for arch in arches {
        let list = pairs_of(d, arch);
        if list.is_empty() {
            continue;
        }
        let v = &d.g.versions;
        let series = d.g.series_of(arch);
        for &(a, b) in &list {
            page(ctx, d, arch, &series, (&v[a], &v[b]))?;
        }
        let mut used: Vec<usize> = list.iter().flat_map(|&(a, b)| [a, b]).collect();
        used.sort_unstable();
        used.dedup();
        let cpath = chooser(arch);
        let root = root_of(&cpath);
        ctx.page(
            &cpath,
            "compare_index.html",
            &ChooserPage {
                title: format!("Compare two kernel versions on {arch}"),
                arch: arch.to_string(),
                pairs: list
                    .iter()
                    .map(|&(a, b)| Pair {
                        from: v[a].clone(),
                        to: v[b].clone(),
                        href: format!("{root}{}", path(arch, &v[a], &v[b])),
                    })
                    .collect(),
                versions: used.iter().map(|&i| v[i].clone()).collect(),
                root,
            },
        )?;
    }
    Ok(())
}

fn page(
    ctx: &mut Ctx,
    d: &Data,
    arch: &str,
    series: &[&SeriesRuns],
    (from, to): (&str, &str),
) -> Result<(), BuildError> {
    let p = path(arch, from, to);
    let root = root_of(&p);
    // The series with usable runs on both versions, never an emulator's times.
    let mut both: Vec<(&SeriesRuns, &[usize], &[usize])> = series
        .iter()
        .filter_map(|s| {
            let on = |v: &str| {
                s.versions
                    .iter()
                    .find(|(l, _)| l == v)
                    .map(|(_, idx)| idx.as_slice())
            };
            let (a, b) = (on(from)?, on(to)?);
            let emulated = a.iter().chain(b).any(|&i| d.runs[i].emulated);
            (!emulated).then_some((*s, a, b))
        })
        .collect();
    both.sort_by_key(|(_, a, b)| std::cmp::Reverse(a.len().min(b.len())));
    let more = both.len().saturating_sub(SERIES);
    both.truncate(SERIES);
    let log = upstream::shortlog(arch, from, to);
    let page = ComparePage {
        title: format!("{arch}: Linux {from} → {to}"),
        arch: arch.to_string(),
        from: from.to_string(),
        from_href: format!("{root}{}", Links.kernel(from)),
        to: to.to_string(),
        to_href: format!("{root}{}", Links.kernel(to)),
        chooser_href: format!("{root}{}", chooser(arch)),
        series: both
            .iter()
            .map(|(s, a, b)| part(d, s, (a, b), false, &root))
            .collect(),
        more,
        shortlog: log.links,
        command: log.command,
        root,
    };
    ctx.page(&p, "compare.html", &page)
}

fn point(d: &Data, idx: &[usize], m: u32) -> Option<Point> {
    let vals: Vec<_> = idx
        .iter()
        .filter_map(|&i| d.runs[i].values.get(m).map(|v| (v, d.runs[i].is_low())))
        .collect();
    usable_point(&vals)
}

/// Every overhead and estimate (`headline`: only the headline metrics) of series `s` with runs
/// `a` against runs `b` (of `s`, or of another series on the same version): the difference
/// `b − a` and its verdict.
pub(crate) fn part(
    d: &Data,
    s: &SeriesRuns,
    (a, b): (&[usize], &[usize]),
    headline: bool,
    root: &str,
) -> SeriesPart {
    let counted = s.key.instructions;
    let unit = s.key.number_unit();
    let mut rows: Vec<(u8, f64, Row)> = Vec::new();
    for m in d.reg.ids() {
        let k = d.reg.key(m);
        // What a path adds (overheads) and the estimates: a scenario's median cost moves with
        // its baseline, which its overhead leaves out (and every median doubled the page).
        if k.is_replica()
            || k.kind == crate::model::metrics::Kind::Median
            || (headline && headline_of(k).is_none())
        {
            continue;
        }
        let (Some(pa), Some(pb)) = (point(d, a, m), point(d, b, m)) else {
            continue;
        };
        // Several runs on a side are pooled (the chart's span is no interval of anything).
        let diff = point_difference(&pa, &pb);
        let (verdict, class) = verdict_of(&diff, pa.center(), counted);
        let rank = match verdict {
            "slower" | "faster" => 0,
            "no change" => 2,
            _ => 1,
        };
        rows.push((
            rank,
            diff.pct.unwrap_or(0.0).abs(),
            Row {
                metric: match headline_of(k) {
                    Some(h) => format!("{} ({})", h.label, k.label()),
                    None => k.label(),
                },
                href: format!("{root}{}", Links.metric(&k.slug())),
                from: format::side(&pa),
                to: format::side(&pb),
                diff: format::difference_in(&diff, unit),
                verdict,
                class,
            },
        ));
    }
    rows.sort_by(|x, y| x.0.cmp(&y.0).then(y.1.total_cmp(&x.1)));
    let (same, moved): (Vec<_>, Vec<_>) = rows.into_iter().partition(|r| r.0 == 2);
    SeriesPart {
        id: s.key.id(),
        href: format!("{root}{}", Links.series(&s.key)),
        label: s.key.short_label(),
        unit,
        from_runs: a.len(),
        to_runs: b.len(),
        moved: moved.into_iter().map(|r| r.2).collect(),
        same: same.into_iter().map(|r| r.2).collect(),
    }
}

/// `syscost compare`'s verdict on `diff` (from a base of `base`: its margin is 2 % of it, at
/// least 1 ns; one instruction for counts) and the class it is shown with.
pub(crate) fn verdict_of(
    diff: &Difference,
    base: f64,
    counted: bool,
) -> (&'static str, &'static str) {
    let margin = if counted {
        syscost_stats::count_margin()
    } else {
        syscost_stats::time_margin(base, syscost_stats::DEFAULT_MARGIN_PCT)
    };
    match outcome(diff, margin) {
        Some(Outcome::Higher) => ("slower", "step-up"),
        Some(Outcome::Lower) => ("faster", "step-down"),
        Some(Outcome::Inconclusive) => ("inconclusive", "note"),
        Some(Outcome::NoChange) => ("no change", "note"),
        None => ("not judged (no interval)", "note"),
    }
}

fn outcome(diff: &Difference, margin: f64) -> Option<Outcome> {
    let (low, high) = diff.delta_interval?;
    Some(syscost_stats::outcome(
        syscost_stats::Value {
            median: diff.delta,
            low,
            high,
        },
        margin,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_pairs_and_each_with_the_newest() {
        let v = [0, 1, 3, 4];
        assert_eq!(pairs(&v), vec![(0, 1), (1, 3), (3, 4), (0, 4)]);
        assert_eq!(pairs(&v[..2]), vec![(0, 1)]);
        assert!(pairs(&v[..1]).is_empty());
    }

    /// Twelve runs a side, spans [98, 106] and [101, 109] overlapping, means 3 ns apart: the
    /// page says slower (pooled), where the span said inconclusive.
    #[test]
    fn sides_of_several_runs_are_judged_pooled() {
        use crate::model::metrics::Val;
        let side = |level: f64| -> Vec<(Val, bool)> {
            (0..12)
                .map(|i| {
                    let m = level - 3.0 + 6.0 * f64::from(i) / 11.0;
                    let v = Val {
                        median: m,
                        lo: Some(m - 1.0),
                        hi: Some(m + 1.0),
                    };
                    (v, false)
                })
                .collect()
        };
        let (a, b) = (side(102.0), side(105.0));
        let (pa, pb) = (usable_point(&a).unwrap(), usable_point(&b).unwrap());
        let spanned =
            crate::model::changes::difference(pa.median, pa.interval, pb.median, pb.interval);
        assert_eq!(verdict_of(&spanned, pa.median, false).0, "inconclusive");
        let pooled = point_difference(&pa, &pb);
        assert_eq!(verdict_of(&pooled, pa.center(), false).0, "slower");
        assert_eq!(
            verdict_of(&point_difference(&pb, &pa), pb.center(), false).0,
            "faster"
        );
        let shown = format::side(&pa);
        assert!(
            shown.ends_with("102 [101, 103] (12 runs pooled)"),
            "{shown}"
        );
    }
}
