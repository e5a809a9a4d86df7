//! The runs that cannot be put on the kernel-version axis, with why.

use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::links::Links;
use crate::view::rows::{run_row, RunRow};
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
