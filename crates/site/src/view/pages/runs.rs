//! The newest runs. Every run is listed once, on its kernel version's pages (or on the page of
//! the runs that are not placed); a second, chronological list of all of them would double the
//! bytes of the lists, and a new run would shift every one of its pages.

use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format::root_of;
use crate::view::links::Links;
use crate::view::pager::PAGE_SIZE;
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
        rows: RunsTable::new(
            (d.g.newest.iter().take(PAGE_SIZE)).map(|&i| run_row(&d.runs[i], &d.headline, &root)),
            RunCols {
                arch: true,
                kernel: true,
                machine: false,
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
        root,
    };
    ctx.page(path, "runs.html", &page)
}
