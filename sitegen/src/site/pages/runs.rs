//! The list of all runs, newest first, paginated.

use crate::fmt::root_of;
use crate::site::ctx::Ctx;
use crate::site::error::BuildError;
use crate::site::pager::{pager, Pager, PAGE_SIZE};
use crate::site::rows::{key_columns, run_row, Column, RunRow};
use crate::site::Data;
use serde::Serialize;

#[derive(Serialize)]
struct RunsPage {
    root: String,
    title: String,
    total: usize,
    page: usize,
    pages: usize,
    nav: Pager,
    columns: Vec<Column>,
    rows: Vec<RunRow>,
}

fn runs_page_path(n: usize) -> String {
    if n <= 1 {
        "runs/index.html".to_string()
    } else {
        format!("runs/page-{n}.html")
    }
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let (runs, g) = (d.runs, &d.g);
    let pages = g.newest.len().div_ceil(PAGE_SIZE).max(1);
    for n in 1..=pages {
        let path = runs_page_path(n);
        let root = root_of(&path);
        let chunk = g.newest.chunks(PAGE_SIZE).nth(n - 1).unwrap_or(&[]);
        let page = RunsPage {
            title: if n == 1 {
                "All runs".into()
            } else {
                format!("All runs, page {n}")
            },
            total: runs.len(),
            page: n,
            pages,
            nav: pager(n, pages, &root, runs_page_path),
            columns: key_columns(),
            rows: chunk
                .iter()
                .map(|&i| run_row(&runs[i], &d.headline, &root))
                .collect(),
            root,
        };
        ctx.page(&path, "runs.html", &page)?;
    }
    Ok(())
}
