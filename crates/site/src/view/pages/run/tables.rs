//! The tables of a page of runs: a row per scenario (estimate, expectation), and in it each
//! run's cells, as plain texts the template writes. Rows and cells are tuples, which the
//! template unpacks (`{% for label, cells in results %}`); a run without an entry in a row has
//! empty texts there, which the template writes as empty cells.

use super::*;
use syscost_record::{Estimate, Expectation};

/// A measured scenario of one run: what its row is keyed by, and its cells.
pub(super) struct ResultEntry {
    pub(super) id: String,
    /// What its overhead is over; empty when it has none.
    pub(super) vs: String,
    pub(super) cell: ResultCell,
}

/// The median and CI in one cell (the sorter reads the leading number), with its sample count
/// when it is not the run's usual one and its share of preempted samples when there were; the
/// overhead and CI. Both empty where a run has no such scenario.
pub(super) type ResultCell = (String, String);

impl ResultEntry {
    /// A measured scenario; `usual`, the run's usual sample count.
    pub(super) fn of(res: &ScenarioResult, usual: Option<u64>) -> ResultEntry {
        let o = res.overhead.as_ref();
        let mut median = String::new();
        median_cell(&mut median, res, usual);
        let mut overhead = String::new();
        if let Some(o) = o {
            with_ci(&mut overhead, Some(o.median_ns), o.ci_low_ns, o.ci_high_ns);
        }
        ResultEntry {
            id: res.id.clone(),
            vs: o.map_or_else(String::new, |o| o.vs.clone()),
            cell: (median, overhead),
        }
    }
}

pub(super) struct EstimateEntry {
    pub(super) id: String,
    pub(super) cell: EstimateCell,
}

/// Median and CI in one cell, and where the value comes from when it is not measured.
pub(super) type EstimateCell = (String, &'static str);

impl EstimateEntry {
    pub(super) fn of(e: &Estimate) -> EstimateEntry {
        let mut median = String::new();
        with_ci(&mut median, Some(e.median_ns), e.ci_low_ns, e.ci_high_ns);
        EstimateEntry {
            id: e.id.clone(),
            cell: (median, origin_words(e.origin)),
        }
    }
}

pub(super) struct ExpectationEntry {
    pub(super) label: String,
    pub(super) cell: ExpectationCell,
}

/// The paired difference and its CI, and the tolerance, in one cell; the verdict; the kernel
/// rule's verdict.
pub(super) type ExpectationCell = (String, &'static str, &'static str);

impl ExpectationEntry {
    pub(super) fn of(e: &Expectation) -> ExpectationEntry {
        let mut diff = String::new();
        with_ci(
            &mut diff,
            e.diff_median_ns,
            e.diff_ci_low_ns,
            e.diff_ci_high_ns,
        );
        diff.push_str(", tol ");
        format::ns_into(&mut diff, e.tolerance_ns);
        ExpectationEntry {
            label: e.label.clone(),
            cell: (
                diff,
                verdict_name(e.verdict),
                verdict_name(e.kernel_verdict),
            ),
        }
    }
}

/// A table row as the template writes it: its label and each run's cells, empty where the
/// run has no entry.
pub(super) type TableRow<C> = (String, Vec<C>);

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
    pub(super) fn fill<C: Default>(
        rows: Vec<Row>,
        runs: &mut [RunPage],
        mut cell: impl FnMut(&mut RunPage, usize) -> C,
    ) -> Vec<TableRow<C>> {
        rows.into_iter()
            .map(|r| {
                let cells = (r.cells.iter().zip(runs.iter_mut()))
                    .map(|(at, run)| at.map(|j| cell(run, j)).unwrap_or_default())
                    .collect();
                (r.label, cells)
            })
            .collect()
    }
}

/// The runs' own facts side by side, a column a run (compared at a glance, their labels said
/// once), taken out of their sections; none for one run, whose facts stay in its section.
pub(super) fn facts_table(runs: &mut [RunPage]) -> Vec<TableRow<String>> {
    let n = runs.len();
    if n == 1 {
        return Vec::new();
    }
    let mut rows: Vec<Row> = Vec::new();
    for (k, r) in runs.iter().enumerate() {
        for (j, (label, _)) in r.part.facts.iter().enumerate() {
            Row::of(&mut rows, label, n).cells[k] = Some(j);
        }
    }
    let rows = Row::fill(rows, runs, |r, j| std::mem::take(&mut r.part.facts[j].1));
    runs.iter_mut().for_each(|r| r.part.facts.clear());
    rows
}
