//! The newest runs, and every run by the month of its date (`runs/2026-11.html`, then
//! `…-2.html`, 100 a page, newest first; undated runs on `runs/undated.html`). Paged by month
//! rather than in one list of all: a new run changes its month's pages only, where it shifted
//! every page of one list. Every run is also listed on its kernel version's pages (or on the
//! page of the runs that are not placed).

use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::root_of;
use crate::view::links::Links;
use crate::view::pager::{pager, Pager, PAGE_SIZE};
use crate::view::rows::{run_row, RunCols, RunsTable};
use serde::Serialize;

#[derive(Serialize)]
struct RunsPage {
    root: String,
    title: String,
    total: usize,
    unplaced: usize,
    unplaced_href: String,
    rows: RunsTable,
    /// The files of every run (JSON and CSV), as `exports` splits them.
    files: Vec<RunFiles>,
    /// Every run, by month, newest first.
    months: Vec<MonthLink>,
}

#[derive(Serialize)]
struct MonthLink {
    label: String,
    href: String,
    runs: usize,
}

#[derive(Serialize)]
struct MonthPage {
    root: String,
    title: String,
    label: String,
    total: usize,
    index_href: String,
    rows: RunsTable,
    nav: Pager,
}

/// The month of a run's date (`2026-11` of `2026-11-29T20:37:18Z`), `None` when undated.
fn month(date: Option<&str>) -> Option<&str> {
    let m = date?.get(..7)?;
    let b = m.as_bytes();
    (b[4] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || c.is_ascii_digit()))
    .then_some(m)
}

/// Page `n` (1-based) of the runs of `month` (`None`: the undated ones).
fn month_path(month: Option<&str>, n: usize) -> String {
    let m = month.unwrap_or("undated");
    if n <= 1 {
        format!("runs/{m}.html")
    } else {
        format!("runs/{m}-{n}.html")
    }
}

/// The runs newest first, cut where the month changes: newest month first, undated last.
fn by_month<'a>(d: &Data<'a>) -> Vec<(Option<&'a str>, Vec<usize>)> {
    let mut out: Vec<(Option<&str>, Vec<usize>)> = Vec::new();
    for &i in &d.g.newest {
        let m = month(d.runs[i].date.as_deref());
        match out.iter_mut().find(|(k, _)| *k == m) {
            Some((_, v)) => v.push(i),
            None => out.push((m, vec![i])),
        }
    }
    out
}

fn months(ctx: &mut Ctx, d: &Data, list: &[(Option<&str>, Vec<usize>)]) -> Result<(), BuildError> {
    for (m, idx) in list {
        let pages = idx.len().div_ceil(PAGE_SIZE);
        for (k, chunk) in idx.chunks(PAGE_SIZE).enumerate() {
            let path = month_path(*m, k + 1);
            let root = root_of(&path);
            let label = m.map_or_else(|| "undated".to_string(), str::to_string);
            let page = MonthPage {
                title: match m {
                    Some(m) => format!("Runs dated {m}"),
                    None => "Runs without a date".to_string(),
                },
                label,
                total: idx.len(),
                index_href: format!("{root}runs/index.html#months"),
                rows: RunsTable::new(
                    chunk
                        .iter()
                        .map(|&i| run_row(&d.runs[i], &d.headline, &root)),
                    RunCols {
                        arch: true,
                        kernel: true,
                        machine: false,
                        numbers: false,
                    },
                ),
                nav: pager(k + 1, pages, &root, |n| month_path(*m, n)),
                root,
            };
            ctx.page(&path, "runs_month.html", &page)?;
        }
    }
    Ok(())
}

#[derive(Serialize)]
struct RunFiles {
    /// The first digits of the ids of its runs; empty when one file holds them all.
    prefix: String,
    runs: usize,
    json: String,
    csv: String,
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let path = "runs/index.html";
    let root = root_of(path);
    let list = by_month(d);
    months(ctx, d, &list)?;
    let page = RunsPage {
        title: "Newest runs".into(),
        total: d.runs.len(),
        unplaced: d.g.unplaced.len(),
        unplaced_href: format!("{root}{}", Links.unplaced()),
        rows: RunsTable::new(
            (d.g.newest.iter().take(PAGE_SIZE)).map(|&i| run_row(&d.runs[i], &d.headline, &root)),
            RunCols {
                arch: true,
                kernel: true,
                machine: false,
                numbers: true,
            },
        ),
        files: crate::view::exports::shards(d.runs, &d.g.newest)
            .into_iter()
            .map(|s| RunFiles {
                json: format!("{root}{}", s.json()),
                csv: format!("{root}{}", s.csv()),
                prefix: s.prefix,
                runs: s.runs.len(),
            })
            .collect(),
        months: list
            .iter()
            .map(|(m, idx)| MonthLink {
                label: m.unwrap_or("undated").to_string(),
                href: format!("{root}{}", month_path(*m, 1)),
                runs: idx.len(),
            })
            .collect(),
        root,
    };
    ctx.page(path, "runs.html", &page)
}
