//! The tables of a page of runs: a row per scenario (estimate, expectation), and in it each
//! run's cells, as plain texts the template writes.

use super::*;

/// A measured scenario of one run: what its row is keyed by, and its cells.
pub(super) struct ResultEntry {
    pub(super) id: String,
    /// What its overhead is over; empty when it has none.
    pub(super) vs: String,
    pub(super) cell: Option<ResultCell>,
}

#[derive(Serialize)]
pub(super) struct ResultCell {
    /// Median and CI in one cell (the sorter reads the leading number), with its sample count
    /// when it is not the run's usual one and its share of preempted samples when there were.
    pub(super) median: String,
    pub(super) overhead: String,
}

pub(super) struct EstimateEntry {
    pub(super) id: String,
    pub(super) cell: Option<EstimateCell>,
}

#[derive(Serialize)]
pub(super) struct EstimateCell {
    /// Median and CI in one cell.
    pub(super) median: String,
    pub(super) origin: &'static str,
}

pub(super) struct ExpectationEntry {
    pub(super) label: String,
    pub(super) cell: Option<ExpectationCell>,
}

#[derive(Serialize)]
pub(super) struct ExpectationCell {
    /// The paired difference and its CI, and the tolerance, in one cell.
    pub(super) diff: String,
    pub(super) verdict: &'static str,
    pub(super) kernel: &'static str,
}

/// A table row as the template writes it: its label and each run's cells, none where the run
/// has no entry.
#[derive(Serialize)]
pub(super) struct TableRow<C> {
    label: String,
    cells: Vec<Option<C>>,
}

/// A table row: its label and, per run of the page, the index of its entry in that run's list
/// (results, estimates or expectations), if it has one.
pub(super) struct Row {
    pub(super) label: String,
    pub(super) cells: Vec<Option<usize>>,
}

impl Row {
    /// The row of `rows` labelled `label`, added with `n` empty cells when there is none.
    pub(super) fn of<'r>(rows: &'r mut Vec<Row>, label: &str, n: usize) -> &'r mut Row {
        let at = match rows.iter().position(|q| q.label == label) {
            Some(at) => at,
            None => {
                rows.push(Row {
                    label: label.to_string(),
                    cells: vec![None; n],
                });
                rows.len() - 1
            }
        };
        &mut rows[at]
    }

    /// The rows with the runs' cells moved into them; `cell` takes entry `j` of a run's list.
    pub(super) fn fill<C>(
        rows: Vec<Row>,
        runs: &mut [RunPage],
        mut cell: impl FnMut(&mut RunPage, usize) -> Option<C>,
    ) -> Vec<TableRow<C>> {
        rows.into_iter()
            .map(|r| TableRow {
                label: r.label,
                cells: (r.cells.iter().zip(runs.iter_mut()))
                    .map(|(at, run)| at.and_then(|j| cell(run, j)))
                    .collect(),
            })
            .collect()
    }
}
