//! The steps found between kernel versions, newest first, paginated: what changed, in which
//! series, between which versions, by how much (with its interval), the runs on both sides and
//! where to read the upstream commits in between.

use crate::model::changes::trends::Change;
use crate::model::changes::{MIN_HISTORY, PRACTICAL_NS, PRACTICAL_REL};
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

#[derive(Serialize)]
struct ChangesPage {
    root: String,
    title: String,
    total: usize,
    undated: usize,
    min_history: usize,
    practical_pct: f64,
    practical_ns: f64,
    nav: Pager,
    rows: Vec<ChangeRow>,
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let all: Vec<&Change> = d.changes.iter().collect();
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
            total: all.len(),
            undated: all.iter().filter(|c| c.date.is_none()).count(),
            min_history: MIN_HISTORY,
            practical_pct: PRACTICAL_REL * 100.0,
            practical_ns: PRACTICAL_NS,
            nav: pager(n, pages, &root, |k| Links.changes(k)),
            rows: change_rows(d, chunk, &root),
            root,
        };
        ctx.page(&path, "changes.html", &page)?;
    }
    Ok(())
}
