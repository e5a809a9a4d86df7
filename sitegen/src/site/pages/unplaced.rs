//! The runs that cannot be put on the kernel-version axis, with why.

use crate::site::ctx::Ctx;
use crate::site::error::BuildError;
use crate::site::links::Links;
use crate::site::rows::{run_row, RunRow};
use crate::site::Data;
use serde::Serialize;

#[derive(Serialize)]
struct UnplacedPage {
    root: &'static str,
    title: &'static str,
    rows: Vec<RunRow>,
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let page = UnplacedPage {
        root: "",
        title: "Unplaced runs",
        rows: d
            .g
            .unplaced
            .iter()
            .map(|&i| run_row(&d.runs[i], &d.headline, ""))
            .collect(),
    };
    ctx.page(&Links.unplaced(), "unplaced.html", &page)
}
