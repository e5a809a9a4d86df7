//! The steps found between kernel versions, newest first, paginated: grouped by series and
//! pair of versions (a kernel release moves many metrics of a series at once), each group with
//! its largest steps, where to read the upstream commits in between, and a page of its own
//! listing every step with its interval and the runs on both sides.

use crate::model::changes::trends::Change;
use crate::model::changes::{
    COUNT_MATERIAL, COUNT_MATERIAL_REL, MIN_HISTORY, PRACTICAL_NS, PRACTICAL_REL,
};
use crate::model::metrics::headline_of;
use crate::model::upstream;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::{self, root_of};
use crate::view::links::Links;
use crate::view::pager::{pager, Pager, PAGE_SIZE};
use crate::view::rows::short_date;
use serde::Serialize;
use std::sync::Arc;

/// Steps shown per group on the changes pages and the home page; the group's page has them all.
const GROUP_TOP: usize = 5;

/// Runs linked per side of a change; the kernel page lists the rest.
const RUN_LINKS: usize = 3;

#[derive(Serialize)]
pub struct RunLink {
    pub id: String,
    pub href: String,
}

#[derive(Serialize)]
pub struct Side {
    pub version: String,
    pub href: String,
    pub value: String,
    pub runs: Vec<RunLink>,
    pub more: usize,
}

#[derive(Serialize)]
pub struct ChangeRow {
    pub date: String,
    pub metric: String,
    pub metric_href: String,
    pub series_id: String,
    pub series_href: String,
    pub series_label: String,
    pub arch: String,
    pub from: Side,
    pub to: Side,
    pub size: String,
    pub size_v: String,
    pub floor: String,
    pub class: &'static str,
    pub shortlog: Vec<(String, String)>,
    pub command: String,
}

fn side(d: &Data, version: &str, value: String, runs: &[usize], root: &str) -> Side {
    Side {
        version: version.to_string(),
        href: format!("{root}{}", Links.kernel(version)),
        value,
        runs: runs
            .iter()
            .rev()
            .take(RUN_LINKS)
            .map(|&i| RunLink {
                id: d.runs[i].id.clone(),
                href: format!("{root}{}", Links.run(&d.runs[i])),
            })
            .collect(),
        more: runs.len().saturating_sub(RUN_LINKS),
    }
}

pub fn change_rows(d: &Data, changes: &[&Change], root: &str) -> Vec<ChangeRow> {
    changes
        .iter()
        .map(|c| {
            let k = d.reg.key(c.metric);
            let log = upstream::shortlog(&c.series.arch, &c.from, &c.to);
            ChangeRow {
                date: short_date(&c.date),
                metric: match headline_of(k) {
                    Some(h) => format!("{} ({})", h.label, k.label()),
                    None => k.label(),
                },
                metric_href: format!("{root}{}", Links.series_metric(&c.series, &k.slug())),
                series_id: c.series.id(),
                series_href: format!("{root}{}", Links.series(&c.series)),
                series_label: c.series.short_label(),
                arch: c.series.arch.clone(),
                from: side(d, &c.from, format::point(&c.from_point), &c.from_runs, root),
                to: side(d, &c.to, format::point(&c.to_point), &c.to_runs, root),
                size: format::difference_in(&c.pair.diff, c.series.number_unit()),
                size_v: c.pair.diff.delta.to_string(),
                floor: format!("{} {}", format::ns(c.pair.floor), c.series.number_unit()),
                class: if c.pair.diff.delta > 0.0 {
                    "step-up"
                } else {
                    "step-down"
                },
                shortlog: log.links,
                command: log.command,
            }
        })
        .collect()
}

/// The steps of one series between one pair of versions.
#[derive(Serialize)]
pub struct Group {
    pub date: String,
    pub arch: String,
    pub series_id: String,
    pub series_href: String,
    pub series_label: String,
    pub from: String,
    pub from_href: String,
    pub to: String,
    pub to_href: String,
    pub href: String,
    pub steps: usize,
    pub up: usize,
    pub down: usize,
    /// The largest steps, headline metrics first.
    pub top: Vec<ChangeRow>,
    pub shortlog: Vec<(String, String)>,
    pub command: String,
}

/// The steps of `d.changes` grouped by series and pair of versions, in the order of their
/// first step (newest first); each group's steps with the headline metrics first, then the
/// largest relative moves.
pub fn groups<'a>(d: &'a Data) -> Vec<Vec<&'a Change>> {
    let mut order: Vec<(Arc<crate::model::series::SeriesKey>, &str, &str)> = Vec::new();
    let mut at: std::collections::HashMap<_, usize> = std::collections::HashMap::new();
    let mut out: Vec<Vec<&Change>> = Vec::new();
    for c in &d.changes {
        let k = (Arc::clone(&c.series), c.from.as_str(), c.to.as_str());
        let i = *at.entry(k.clone()).or_insert_with(|| {
            order.push(k);
            out.push(Vec::new());
            out.len() - 1
        });
        out[i].push(c);
    }
    let size = |c: &Change| c.pair.diff.pct.unwrap_or(0.0).abs();
    for g in &mut out {
        g.sort_by(|a, b| {
            let h = |c: &Change| headline_of(d.reg.key(c.metric)).is_none();
            h(a).cmp(&h(b)).then(size(b).total_cmp(&size(a)))
        });
    }
    out
}

fn group(d: &Data, steps: &[&Change], root: &str) -> Group {
    let c = steps[0];
    let log = upstream::shortlog(&c.series.arch, &c.from, &c.to);
    let up = steps.iter().filter(|c| c.pair.diff.delta > 0.0).count();
    Group {
        date: steps
            .iter()
            .filter_map(|c| c.date.clone())
            .max()
            .map_or_else(String::new, |x| short_date(&Some(x))),
        arch: c.series.arch.clone(),
        series_id: c.series.id(),
        series_href: format!("{root}{}", Links.series(&c.series)),
        series_label: c.series.short_label(),
        from: c.from.clone(),
        from_href: format!("{root}{}", Links.kernel(&c.from)),
        to: c.to.clone(),
        to_href: format!("{root}{}", Links.kernel(&c.to)),
        href: format!("{root}{}", Links.change_group(&c.series, &c.from, &c.to)),
        steps: steps.len(),
        up,
        down: steps.len() - up,
        top: change_rows(d, &steps[..steps.len().min(GROUP_TOP)], root),
        shortlog: log.links,
        command: log.command,
    }
}

/// The newest `n` groups, for the home page.
pub fn latest_groups(d: &Data, n: usize, root: &str) -> Vec<Group> {
    groups(d)
        .iter()
        .take(n)
        .map(|g| group(d, g, root))
        .collect()
}

#[derive(Serialize)]
struct ChangesPage {
    root: String,
    title: String,
    total: usize,
    groups_total: usize,
    undated: usize,
    min_history: usize,
    practical_pct: f64,
    practical_ns: f64,
    count_material: f64,
    count_material_pct: f64,
    nav: Pager,
    groups: Vec<Group>,
}

#[derive(Serialize)]
struct GroupPage {
    root: String,
    title: String,
    group: Group,
    rows: Vec<ChangeRow>,
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let all = groups(d);
    let pages = all.len().div_ceil(PAGE_SIZE).max(1);
    for n in 1..=pages {
        let path = Links.changes(n);
        let root = root_of(&path);
        let chunk = all.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
        let page = ChangesPage {
            title: if n == 1 {
                "Changes between kernel versions".to_string()
            } else {
                format!("Changes between kernel versions, page {n}")
            },
            total: d.changes.len(),
            groups_total: all.len(),
            undated: d.changes.iter().filter(|c| c.date.is_none()).count(),
            min_history: MIN_HISTORY,
            practical_pct: PRACTICAL_REL * 100.0,
            practical_ns: PRACTICAL_NS,
            count_material: COUNT_MATERIAL,
            count_material_pct: COUNT_MATERIAL_REL * 100.0,
            nav: pager(n, pages, &root, |k| Links.changes(k)),
            groups: chunk.iter().map(|g| group(d, g, &root)).collect(),
            root,
        };
        ctx.page(&path, "changes.html", &page)?;
    }
    for steps in &all {
        let c = steps[0];
        let path = Links.change_group(&c.series, &c.from, &c.to);
        let root = root_of(&path);
        let page = GroupPage {
            title: format!("{}: {} → {}", c.series.short_label(), c.from, c.to),
            group: group(d, steps, &root),
            rows: change_rows(d, steps, &root),
            root,
        };
        ctx.page(&path, "change_group.html", &page)?;
    }
    Ok(())
}
