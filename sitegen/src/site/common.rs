//! Pieces shared by several pages: where pages live, run-list rows, pagination.

use crate::fmt::{self, slug};
use crate::info::{kind_label, RunInfo, SeriesKey};
use crate::metrics::{Point, METRICS};
use serde::Serialize;

/// Site paths (relative to the site root) of the pages every other page links to.
pub struct Links;

impl Links {
    pub fn arch(&self, arch: &str) -> String {
        format!("arch/{}/index.html", slug(arch))
    }
    pub fn kernel(&self, kbase: &str) -> String {
        format!("kernels/{}/index.html", slug(kbase))
    }
    /// Page `n` (1-based) of a kernel's run list.
    pub fn kernel_page(&self, kbase: &str, n: usize) -> String {
        if n <= 1 {
            self.kernel(kbase)
        } else {
            format!("kernels/{}/page-{n}.html", slug(kbase))
        }
    }
    pub fn series(&self, s: &SeriesKey) -> String {
        format!("series/{}.html", s.id())
    }
    pub fn metric(&self, metric_slug: &str) -> String {
        format!("metrics/{metric_slug}.html")
    }
    pub fn matrix(&self, metric_slug: &str) -> String {
        format!("matrix/{metric_slug}.html")
    }
}

#[derive(Serialize, Clone)]
pub struct Column {
    pub short: &'static str,
    pub label: &'static str,
}

pub fn key_columns() -> Vec<Column> {
    crate::metrics::KEY_COLUMNS
        .iter()
        .map(|&i| Column {
            short: METRICS[i].short,
            label: METRICS[i].label,
        })
        .collect()
}

#[derive(Serialize, Clone)]
pub struct Cell {
    pub text: String,
    /// Sort value for the optional table sorter.
    pub v: String,
}

#[derive(Serialize)]
pub struct RunRow {
    pub href: String,
    pub id: String,
    pub date: String,
    pub arch: String,
    pub kernel: String,
    pub cpu: String,
    pub virt: String,
    pub kind: &'static str,
    pub cells: Vec<Cell>,
}

/// The date part of an RFC 3339 timestamp, for compact tables.
pub fn short_date(d: &Option<String>) -> String {
    d.as_deref()
        .map(|s| s.chars().take(10).collect())
        .unwrap_or_default()
}

pub fn run_row(r: &RunInfo, root: &str) -> RunRow {
    RunRow {
        href: format!("{root}{}.html", r.page),
        id: r.id.clone(),
        date: short_date(&r.date),
        arch: r.arch.clone(),
        kernel: r.kernel.release.clone(),
        cpu: r.series.cpu.clone(),
        virt: r.series.virt.clone(),
        kind: kind_label(r.kind),
        cells: crate::metrics::KEY_COLUMNS
            .iter()
            .map(|&i| match &r.metrics[i] {
                Some(v) => Cell {
                    text: fmt::val(v),
                    v: v.median.to_string(),
                },
                None => Cell {
                    text: String::new(),
                    v: String::new(),
                },
            })
            .collect(),
    }
}

pub fn point_cell(p: Option<Point>) -> Cell {
    match p {
        Some(p) => Cell {
            text: fmt::point(&p),
            v: p.median.to_string(),
        },
        None => Cell {
            text: String::new(),
            v: String::new(),
        },
    }
}

#[derive(Serialize, Default)]
pub struct PagerItem {
    pub label: String,
    pub href: Option<String>,
    pub current: bool,
}

#[derive(Serialize, Default)]
pub struct Pager {
    pub items: Vec<PagerItem>,
    pub prev: Option<String>,
    pub next: Option<String>,
}

/// Navigation for page `cur` of `total` (1-based). `path(n)` gives page n's site path; links
/// are made relative to `root`. Shows the first, last and nearby pages so that the pager stays
/// small however many pages there are.
pub fn pager(cur: usize, total: usize, root: &str, path: impl Fn(usize) -> String) -> Pager {
    let mut p = Pager::default();
    if total <= 1 {
        return p;
    }
    let href = |n: usize| Some(format!("{root}{}", path(n)));
    let mut last_shown = 0;
    for n in 1..=total {
        let show = n == 1 || n == total || n.abs_diff(cur) <= 3;
        if !show {
            continue;
        }
        if n > last_shown + 1 {
            p.items.push(PagerItem::default());
        }
        p.items.push(PagerItem {
            label: n.to_string(),
            href: if n == cur { None } else { href(n) },
            current: n == cur,
        });
        last_shown = n;
    }
    if cur > 1 {
        p.prev = href(cur - 1);
    }
    if cur < total {
        p.next = href(cur + 1);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pager_is_bounded_and_links_neighbours() {
        let p = pager(50, 500, "../", |n| format!("runs/page-{n}.html"));
        // first, …, 47..53, …, last
        assert_eq!(p.items.len(), 1 + 1 + 7 + 1 + 1);
        assert_eq!(p.prev.as_deref(), Some("../runs/page-49.html"));
        assert_eq!(p.next.as_deref(), Some("../runs/page-51.html"));
        assert!(p.items.iter().any(|i| i.current && i.label == "50"));
        assert!(pager(1, 1, "", |n| n.to_string()).items.is_empty());
    }
}
