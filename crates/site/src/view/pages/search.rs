//! One page to find a series by what it is: every series with its architecture, CPU,
//! virtualisation, operation, method and kernel versions, as a table that works as it is
//! (sorted by architecture, then coverage) and that `sort.js` filters as one types. No server,
//! no index file: the page is the index.

use crate::model::groups::arch_order;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::links::Links;
use serde::Serialize;

#[derive(Serialize)]
struct Row {
    id: String,
    href: String,
    arch: String,
    name: String,
    label: String,
    unit: &'static str,
    first: String,
    last: String,
    kernels: usize,
    runs: usize,
}

#[derive(Serialize)]
struct SearchPage {
    root: &'static str,
    title: &'static str,
    rows: Vec<Row>,
}

pub fn write(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let mut series: Vec<_> = d.g.by_series.values().collect();
    series.sort_by(|a, b| {
        arch_order(&a.key.arch)
            .cmp(&arch_order(&b.key.arch))
            .then(b.runs.len().cmp(&a.runs.len()))
    });
    let rows = series
        .into_iter()
        .map(|s| Row {
            id: s.key.id(),
            href: Links.series(&s.key),
            arch: s.key.arch.clone(),
            name: s.key.name(),
            label: s.key.label(),
            unit: s.key.number_unit(),
            first: s.versions.first().map(|v| v.0.clone()).unwrap_or_default(),
            last: s.versions.last().map(|v| v.0.clone()).unwrap_or_default(),
            kernels: s.versions.len(),
            runs: s.runs.len(),
        })
        .collect();
    ctx.page(
        "search.html",
        "search.html",
        &SearchPage {
            root: "",
            title: "Find a series",
            rows,
        },
    )
}
