//! Table rows shared by the list pages: a run's row with the key metrics, and number cells.

use crate::model::metrics::{Point, KEY_COLUMNS, METRICS};
use crate::model::summary::{kind_label, RunInfo};
use crate::view::format;
use serde::Serialize;

#[derive(Serialize, Clone)]
pub struct Column {
    pub short: &'static str,
    pub label: &'static str,
}

pub fn key_columns() -> Vec<Column> {
    KEY_COLUMNS
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
}

impl Cell {
    pub fn empty() -> Cell {
        Cell {
            text: String::new(),
        }
    }
}

/// A run's quality, as a badge.
#[derive(Serialize, Clone)]
pub struct Badge {
    pub label: &'static str,
    pub class: &'static str,
}

pub fn quality_badge(r: &RunInfo) -> Badge {
    Badge {
        label: r.quality.grade.label(),
        class: r.quality.grade.class(),
    }
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
    /// The machine's pseudonym, empty when the record has none.
    pub machine: String,
    /// What one operation is: runs of different probes are listed together here, never pooled
    /// (how each was measured is its series' and its page's to say).
    pub probe: String,
    pub kind: &'static str,
    /// Not (yet) accepted by a maintainer in data/triage.tsv.
    pub unverified: bool,
    pub quality: Badge,
    /// Why the run is not on the version axis, if it is not.
    pub unplaced: String,
    pub cells: Vec<Cell>,
}

/// The date part of an RFC 3339 timestamp, for compact tables.
pub fn short_date(d: &Option<String>) -> String {
    d.as_deref()
        .map(|s| s.chars().take(10).collect())
        .unwrap_or_default()
}

/// `headline` maps each headline metric to its registry id.
pub fn run_row(r: &RunInfo, headline: &[Option<u32>], root: &str) -> RunRow {
    RunRow {
        href: format!("{root}{}", crate::view::links::Links.run(r)),
        id: r.id.clone(),
        date: short_date(&r.date),
        arch: r.arch.clone(),
        kernel: r.kernel.release.clone(),
        cpu: r.series.cpu_short().to_string(),
        virt: r.series.virt.clone(),
        machine: r.machine.clone().unwrap_or_default(),
        probe: r.series.per_op_words(),
        kind: kind_label(r.kind),
        unverified: !r.accepted,
        quality: quality_badge(r),
        unplaced: r
            .placed
            .as_ref()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
        cells: KEY_COLUMNS
            .iter()
            .map(|&i| match headline[i].and_then(|m| r.values.get(m)) {
                // A count in a column of times says what it is.
                Some(v) if r.series.instructions => Cell {
                    text: format!("{} instructions", format::val(&v)),
                },
                Some(v) => Cell {
                    text: format::val(&v),
                },
                None => Cell::empty(),
            })
            .collect(),
    }
}

/// The optional columns of a list of runs.
#[derive(Clone, Copy)]
pub struct RunCols {
    pub arch: bool,
    pub kernel: bool,
    pub machine: bool,
    /// The key metrics' columns. The lists of every run by month leave them to the run's page
    /// and its kernel's list: at 100,000 runs they were 15 MB of a site that must fit in 1 GB.
    pub numbers: bool,
}

/// A list of runs, for `macros.html`'s `runs_table`: its optional columns and its rows. A
/// column with no value in any row is not written (a list of bpf-bench runs has none of the
/// seccomp and SUD columns).
#[derive(Serialize)]
pub struct RunsTable {
    show_arch: bool,
    show_kernel: bool,
    show_machine: bool,
    /// The key-metric columns, each cell of a row in the same order.
    columns: Vec<Column>,
    count: usize,
    rows: Vec<RunRow>,
}

impl RunsTable {
    pub fn new(rows: impl IntoIterator<Item = RunRow>, cols: RunCols) -> RunsTable {
        let mut rows: Vec<RunRow> = rows.into_iter().collect();
        if !cols.numbers {
            rows.iter_mut().for_each(|r| r.cells.clear());
        }
        let keep: Vec<bool> = (0..KEY_COLUMNS.len())
            .map(|c| {
                rows.iter()
                    .any(|r| r.cells.get(c).is_some_and(|x| !x.text.is_empty()))
            })
            .collect();
        for r in &mut rows {
            let mut c = 0;
            r.cells.retain(|_| {
                c += 1;
                keep[c - 1]
            });
        }
        let columns = (key_columns().into_iter().zip(&keep))
            .filter_map(|(col, &k)| k.then_some(col))
            .collect();
        RunsTable {
            show_arch: cols.arch,
            show_kernel: cols.kernel,
            show_machine: cols.machine && rows.iter().any(|r| !r.machine.is_empty()),
            columns,
            count: rows.len(),
            rows,
        }
    }
}

pub fn point_cell(p: Option<Point>) -> Cell {
    match p {
        Some(p) => Cell {
            text: format::point(&p),
        },
        None => Cell::empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(cells: &[&str], machine: &str) -> RunRow {
        RunRow {
            href: "r.html".into(),
            id: "r".into(),
            date: String::new(),
            arch: "x86_64".into(),
            kernel: "6.1".into(),
            cpu: "cpu".into(),
            virt: "bare metal".into(),
            machine: machine.into(),
            probe: "one getpid call".into(),
            kind: "collected",
            unverified: false,
            quality: Badge {
                label: "good",
                class: "q-good",
            },
            unplaced: String::new(),
            cells: cells
                .iter()
                .map(|t| Cell {
                    text: t.to_string(),
                })
                .collect(),
        }
    }

    /// A key column, or the machine column, with no value in any row is not written; a column
    /// with one value keeps its place and its empty cells.
    #[test]
    fn columns_without_a_value_in_any_row_are_left_out() {
        assert_eq!(
            KEY_COLUMNS.len(),
            5,
            "the rows below have a cell per key column"
        );
        let cols = RunCols {
            arch: false,
            kernel: true,
            machine: true,
            numbers: true,
        };
        let t = RunsTable::new(
            [
                row(&["", "1", "", "", "2"], ""),
                row(&["", "", "", "", "3"], ""),
            ],
            cols,
        );
        let shorts: Vec<&str> = t.columns.iter().map(|c| c.short).collect();
        let all = key_columns();
        assert_eq!(shorts, [all[1].short, all[4].short]);
        let cells: Vec<Vec<&str>> = (t.rows.iter())
            .map(|r| r.cells.iter().map(|c| c.text.as_str()).collect())
            .collect();
        assert_eq!(cells, [["1", "2"], ["", "3"]]);
        assert!(!t.show_machine, "no row has a machine");
        let t = RunsTable::new([row(&["", "", "", "", ""], "m1")], cols);
        assert!(t.columns.is_empty() && t.rows[0].cells.is_empty());
        assert!(t.show_machine);
    }
}
