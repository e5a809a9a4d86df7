//! The kernel versions: a paginated index, and one (paginated) page per upstream version with
//! a summary per series, the depth sweeps of its series, and its runs grouped by architecture
//! and machine. Only placed runs are on these pages.

use crate::model::groups::arch_order;
use crate::model::groups::SeriesRuns;
use crate::model::groups::VersionCount;
use crate::model::metrics::{headline_of, usable_point, Kind};
use crate::model::summary::RunInfo;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::root_of;
use crate::view::links::Links;
use crate::view::pager::{pager, Pager, PAGE_SIZE};
use crate::view::rows::{point_cell, run_row, Cell, RunCols, RunsTable};
use crate::view::sweep::{self, SeriesAt, SweepBlock};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Serialize)]
struct KernelIndexRow {
    label: String,
    href: String,
    runs: usize,
    arches: String,
    releases: String,
}

#[derive(Serialize)]
struct KernelIndex {
    root: String,
    title: String,
    total: String,
    unplaced: usize,
    nav: Pager,
    rows: Vec<KernelIndexRow>,
}

fn kernels_page_path(n: usize) -> String {
    if n <= 1 {
        "kernels/index.html".to_string()
    } else {
        format!("kernels/page-{n}.html")
    }
}

/// One series of a paths table: a column.
#[derive(Serialize)]
struct PathCol {
    href: String,
    series_id: String,
    series_label: String,
    runs: usize,
    low: usize,
}

#[derive(Serialize)]
struct PathRow {
    metric: String,
    href: String,
    cells: Vec<Cell>,
}

/// Every seccomp, SUD, interception and BPF path of one architecture's series of one unit on
/// one version, side by side: the metrics are rows, the series columns.
#[derive(Serialize)]
struct Paths {
    arch: String,
    arch_href: String,
    /// The architecture's previous version, its page and the page comparing it with this one.
    prev: Option<(String, String, String)>,
    unit: &'static str,
    per_op: String,
    cols: Vec<PathCol>,
    /// Series of this architecture and unit beyond the columns shown.
    more: usize,
    rows: Vec<PathRow>,
}

/// Series shown side by side per architecture and unit; the series pages have every one.
const PATH_COLUMNS: usize = 4;
/// The families whose costs the paths table compares, in its order (the estimates first).
const PATH_FAMILIES: &[&str] = &["estimate", "seccomp", "sud", "intercept", "bpf"];

#[derive(Serialize)]
struct KernelPage {
    root: String,
    title: String,
    kernel: String,
    total: usize,
    prev_href: Option<String>,
    prev_label: String,
    next_href: Option<String>,
    next_label: String,
    paths: Vec<Paths>,
    sweeps: Vec<SweepBlock>,
    nav: Pager,
    /// This page's runs, by architecture, then machine, newest first.
    rows: RunsTable,
}

/// A series with its runs on one version.
type SeriesOn<'a> = (&'a SeriesRuns, &'a [usize]);
/// The series that have runs on a version, with those runs.
type OnVersion<'a> = Vec<SeriesOn<'a>>;

/// The pages of versions `part`, `part + parts`, … (ascending), so that `parts` tasks can make
/// them side by side; the first also writes the list of versions.
pub fn write(ctx: &mut Ctx, d: &Data, part: usize, parts: usize) -> Result<(), BuildError> {
    if part == 0 {
        index(ctx, d)?;
    }
    let mut on: BTreeMap<&str, OnVersion> = BTreeMap::new();
    for s in d.g.by_series.values() {
        for (label, idx) in &s.versions {
            on.entry(label.as_str())
                .or_default()
                .push((s, idx.as_slice()));
        }
    }
    let asc: Vec<&(String, Vec<usize>)> = d.g.by_kernel.values().collect();
    let ids = sweep::Ids::new(d.reg);
    for (ki, (label, idx)) in asc.iter().enumerate().skip(part).step_by(parts.max(1)) {
        let neighbour = |k: Option<usize>| k.and_then(|k| asc.get(k)).map(|(l, _)| l.as_str());
        let around = (neighbour(ki.checked_sub(1)), neighbour(Some(ki + 1)));
        let series = on.get(label.as_str()).map(Vec::as_slice).unwrap_or(&[]);
        version(ctx, d, &ids, (label, idx, series), around)?;
    }
    Ok(())
}

/// The list of kernel versions, newest first.
fn index(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let desc: Vec<&(String, Vec<usize>)> = d.g.by_kernel.values().rev().collect();
    let pages = desc.len().div_ceil(PAGE_SIZE).max(1);
    for n in 1..=pages {
        let path = kernels_page_path(n);
        let root = root_of(&path);
        let chunk = desc.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
        let page = KernelIndex {
            title: "Kernel versions".to_string(),
            total: VersionCount::of(desc.iter().map(|(l, _)| l.as_str())).words(),
            unplaced: d.g.unplaced.len(),
            nav: pager(n, pages, &root, kernels_page_path),
            rows: chunk
                .iter()
                .map(|(label, idx)| index_row(d.runs, label, idx, &root))
                .collect(),
            root,
        };
        ctx.page(&path, "kernels.html", &page)?;
    }
    releases(ctx, d)
}

#[derive(Serialize)]
struct ReleaseVersion {
    label: String,
    href: String,
    runs: usize,
}

#[derive(Serialize)]
struct ReleasePage {
    root: String,
    title: String,
    release: String,
    versions: Vec<ReleaseVersion>,
}

/// The upstream release of an exact stable update (`6.1.170` → `6.1`); none for anything else.
fn release_of(label: &str) -> Option<&str> {
    let (release, stable) = label.rsplit_once('.')?;
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (major, minor) = release.split_once('.')?;
    (numeric(major) && numeric(minor) && numeric(stable)).then_some(release)
}

/// A page for each upstream release measured only on its stable updates, listing them: its
/// address (`kernels/6.1/`) is the one a reader guesses, and the one runs placed on the
/// release itself had before lab runs were placed on their package's exact release.
fn releases(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let own: BTreeSet<&str> = d.g.by_kernel.values().map(|(l, _)| l.as_str()).collect();
    let mut of: BTreeMap<&str, Vec<&(String, Vec<usize>)>> = BTreeMap::new();
    for k in d.g.by_kernel.values() {
        if let Some(r) = release_of(&k.0).filter(|r| !own.contains(r)) {
            of.entry(r).or_default().push(k);
        }
    }
    for (release, versions) in of {
        let path = Links.kernel(release);
        let root = root_of(&path);
        let page = ReleasePage {
            title: format!("Linux {release}"),
            release: release.to_string(),
            versions: versions
                .iter()
                .map(|(label, idx)| ReleaseVersion {
                    label: label.clone(),
                    href: format!("{root}{}", Links.kernel(label)),
                    runs: idx.len(),
                })
                .collect(),
            root,
        };
        ctx.page(&path, "kernel_release.html", &page)?;
    }
    Ok(())
}

fn index_row(runs: &[RunInfo], label: &str, idx: &[usize], root: &str) -> KernelIndexRow {
    let arches: BTreeSet<&str> = idx.iter().map(|&i| runs[i].arch.as_str()).collect();
    let releases: BTreeSet<&str> = idx
        .iter()
        .map(|&i| runs[i].kernel.release.as_str())
        .collect();
    let rel: Vec<&str> = releases.iter().copied().take(8).collect();
    let more = releases.len().saturating_sub(rel.len());
    let mut releases_text = rel.join(", ");
    if more > 0 {
        releases_text.push_str(&format!(" and {more} more"));
    }
    KernelIndexRow {
        href: format!("{root}{}", Links.kernel(label)),
        label: label.to_string(),
        runs: idx.len(),
        arches: arches.into_iter().collect::<Vec<_>>().join(", "),
        releases: releases_text,
    }
}

/// The (paginated) page of one upstream version, its runs and series; `around` are the
/// versions before and after.
fn version(
    ctx: &mut Ctx,
    d: &Data,
    ids: &sweep::Ids,
    (label, idx, series): (&str, &[usize], &[SeriesOn]),
    around: (Option<&str>, Option<&str>),
) -> Result<(), BuildError> {
    let links = Links;
    let runs = d.runs;
    // Runs by architecture, then machine, newest first within a machine.
    let mut order = idx.to_vec();
    order.sort_by(|&a, &b| {
        let (ra, rb) = (&runs[a], &runs[b]);
        ra.arch
            .cmp(&rb.arch)
            .then_with(|| ra.machine.is_none().cmp(&rb.machine.is_none()))
            .then_with(|| ra.machine.cmp(&rb.machine))
            .then_with(|| RunInfo::newest_first(ra, rb))
    });
    let pages = order.len().div_ceil(PAGE_SIZE).max(1);
    for n in 1..=pages {
        let path = links.kernel_page(label, n);
        let root = root_of(&path);
        let chunk = order.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
        let link = |l: Option<&str>| match l {
            Some(l) => (Some(format!("{root}{}", links.kernel(l))), l.to_string()),
            None => (None, String::new()),
        };
        let (prev_href, prev_label) = link(around.0);
        let (next_href, next_label) = link(around.1);
        // The summary and the sweeps are on the first page only.
        let first = n == 1;
        let page = KernelPage {
            title: if first {
                format!("Linux {label}")
            } else {
                format!("Linux {label}, page {n}")
            },
            kernel: label.to_string(),
            total: idx.len(),
            prev_href,
            prev_label,
            next_href,
            next_label,
            paths: if first {
                paths(d, label, series, &root)
            } else {
                Vec::new()
            },
            sweeps: if first {
                sweeps(d, ids, label, series, &root)
            } else {
                Vec::new()
            },
            nav: pager(n, pages, &root, |k| links.kernel_page(label, k)),
            rows: RunsTable::new(
                chunk
                    .iter()
                    .map(|&i| run_row(&d.runs[i], &d.headline, &root)),
                RunCols {
                    arch: true,
                    kernel: true,
                    machine: true,
                    numbers: true,
                },
            ),
            root,
        };
        ctx.page(&path, "kernel.html", &page)?;
    }
    Ok(())
}

/// A paths table's place: the architecture (in [`arch_order`]), the unit, the operation.
type PathsKey<'a> = ((usize, &'a str), &'static str, String);

/// Per architecture (x86_64 first) and unit, its series' costs of every path on this version:
/// the median of each series' usable runs, never pooled with another series. Emulated times are
/// left out, as from every view that sets series side by side.
fn paths(d: &Data, version: &str, series: &[SeriesOn], root: &str) -> Vec<Paths> {
    let runs = d.runs;
    let mut groups: BTreeMap<PathsKey, Vec<&SeriesOn>> = BTreeMap::new();
    for so in series {
        let (s, idx) = so;
        if idx.iter().any(|&i| runs[i].emulated) {
            continue;
        }
        groups
            .entry((arch_order(&s.key.arch), s.key.number_unit(), s.key.unit()))
            .or_default()
            .push(so);
    }
    groups
        .into_iter()
        .map(|(((_, arch), unit, per_op), mut list)| {
            list.sort_by_key(|(_, idx)| std::cmp::Reverse(idx.len()));
            let more = list.len().saturating_sub(PATH_COLUMNS);
            list.truncate(PATH_COLUMNS);
            let rows = d
                .reg
                .ids()
                .filter(|&m| {
                    let (k, meta) = (d.reg.key(m), d.reg.meta(m));
                    let family_ok = PATH_FAMILIES.contains(&meta.family.as_str());
                    let kind_ok = match k.kind {
                        Kind::Overhead => true,
                        Kind::Estimate => headline_of(k).is_some(),
                        Kind::Median => false,
                    };
                    family_ok && kind_ok && !k.is_replica()
                })
                .filter_map(|m| {
                    let cells: Vec<Cell> = list
                        .iter()
                        .map(|(_, idx)| {
                            let vals: Vec<_> = idx
                                .iter()
                                .filter_map(|&i| {
                                    runs[i].values.get(m).map(|v| (v, runs[i].is_low()))
                                })
                                .collect();
                            point_cell(usable_point(&vals))
                        })
                        .collect();
                    cells.iter().any(|c| !c.text.is_empty()).then(|| {
                        let k = d.reg.key(m);
                        PathRow {
                            metric: match headline_of(k) {
                                Some(h) => format!("{} ({})", h.label, k.label()),
                                None => k.label(),
                            },
                            href: format!("{root}{}", Links.metric(&k.slug())),
                            cells,
                        }
                    })
                })
                .collect();
            Paths {
                prev: crate::view::pages::compare::previous(d, arch, version).map(|(v, href)| {
                    let page = format!("{root}{}", Links.kernel(&v));
                    (v, page, format!("{root}{href}"))
                }),
                arch_href: format!("{root}{}", Links.arch(arch)),
                arch: arch.to_string(),
                unit,
                per_op,
                cols: list
                    .iter()
                    .map(|(s, idx)| PathCol {
                        href: format!("{root}{}", Links.series(&s.key)),
                        series_id: s.key.id(),
                        series_label: s.key.short_label(),
                        runs: idx.len(),
                        low: idx.iter().filter(|&&i| runs[i].is_low()).count(),
                    })
                    .collect(),
                more,
                rows,
            }
        })
        .filter(|p: &Paths| !p.rows.is_empty())
        .collect()
}

/// One depth-sweep chart per architecture, unit of operation and unit (ns or instructions), one
/// line per series.
fn sweeps(
    d: &Data,
    ids: &sweep::Ids,
    label: &str,
    series: &[SeriesOn],
    root: &str,
) -> Vec<SweepBlock> {
    let mut groups: BTreeMap<(String, String, &'static str), Vec<SeriesAt>> = BTreeMap::new();
    let mut sorted: Vec<&SeriesOn> = series.iter().collect();
    sorted.sort_by_key(|(_, idx)| std::cmp::Reverse(idx.len()));
    for (s, idx) in sorted {
        groups
            .entry((s.key.arch.clone(), s.key.unit(), s.key.number_unit()))
            .or_default()
            .push(SeriesAt {
                unit: s.key.number_unit(),
                label: format!("series {} · {}", s.key.id(), s.key.label()),
                head: format!("series {}", s.key.id()),
                href: format!("{root}{}", Links.series(&s.key)),
                per_op: s.key.unit(),
                runs: idx,
            });
    }
    groups
        .into_iter()
        .filter_map(|((arch, per_op, unit), at)| {
            sweep::of_series(
                d.runs,
                ids,
                format!("Depth sweep on {arch}, Linux {label}, {unit} per {per_op}"),
                &at,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_exact_stable_updates_have_a_release() {
        assert_eq!(release_of("6.1.170"), Some("6.1"));
        assert_eq!(release_of("6.12.95"), Some("6.12"));
        for other in [
            "6.1",
            "5.10-rc4",
            "≈5.9-rc",
            "_5.10-rc-a7eacd49",
            "6.1.0-rc1",
            "x.1.2",
        ] {
            assert_eq!(release_of(other), None, "{other}");
        }
    }
}
