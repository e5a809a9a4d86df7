//! Table rows shared by the list pages: a run's row with the key metrics, and number cells.

use crate::fmt;
use crate::info::{kind_label, RunInfo};
use crate::metrics::{Point, METRICS};
use serde::Serialize;

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
    /// Not (yet) accepted by a maintainer in data/triage.tsv.
    pub unverified: bool,
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
        unverified: !r.accepted,
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
