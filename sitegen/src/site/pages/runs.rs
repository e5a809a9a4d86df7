//! The newest runs. Every run is listed once, on its kernel version's pages (or on the page of
//! the runs that are not placed); a second, chronological list of all of them would double the
//! bytes of the lists, and a new run would shift every one of its pages.

use crate::fmt::root_of;
use crate::site::ctx::Ctx;
use crate::site::error::BuildError;
use crate::site::links::Links;
use crate::site::pager::PAGE_SIZE;
use crate::site::rows::{key_columns, run_row, Column, RunCols, RunsTable};
use crate::site::Data;
use serde::Serialize;

#[derive(Serialize)]
struct RunsPage {
    root: String,
    title: String,
    total: usize,
    unplaced: usize,
    unplaced_href: String,
    columns: Vec<Column>,
    rows: RunsTable,
    /// The files of every run (JSON and CSV), as `exports` splits them.
    files: Vec<RunFiles>,
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
    let page = RunsPage {
        title: "Newest runs".into(),
        total: d.runs.len(),
        unplaced: d.g.unplaced.len(),
        unplaced_href: format!("{root}{}", Links.unplaced()),
        columns: key_columns(),
        rows: RunsTable::new(
            (d.g.newest.iter().take(PAGE_SIZE)).map(|&i| run_row(&d.runs[i], &d.headline, &root)),
            RunCols {
                arch: true,
                kernel: true,
                machine: false,
            },
        ),
        files: crate::site::exports::shards(d.runs, &d.g.newest)
            .into_iter()
            .map(|s| RunFiles {
                json: format!("{root}{}", s.json()),
                csv: format!("{root}{}", s.csv()),
                prefix: s.prefix,
                runs: s.runs.len(),
            })
            .collect(),
        root,
    };
    ctx.page(path, "runs.html", &page)
}
