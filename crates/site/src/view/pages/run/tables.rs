//! The bodies of a page of runs' tables, and each run's cells.

use super::*;

/// The table bodies of a page of runs, written here rather than by the template: they are
/// most of a page (a row per scenario, a cell per run and number). Each run's cells are one
/// string ([`Cells`]); every text is escaped as the template would ([`format::esc_into`]).
pub(super) struct Bodies;

impl Bodies {
    pub(super) fn results(rows: &[Row], runs: &[RunPage]) -> String {
        Self::body(
            rows,
            runs,
            |r| &r.results,
            "<td><td>",
            |out, cells, c| {
                Self::cell(out, "<td>", cells.get(c.median));
                Self::cell(out, "<td>", cells.get(c.overhead));
            },
        )
    }

    pub(super) fn estimates(rows: &[Row], runs: &[RunPage]) -> String {
        Self::body(
            rows,
            runs,
            |r| &r.estimates,
            "<td>",
            |out, cells, e| {
                Self::cell(out, "<td>", cells.get(e.median));
                if !e.origin.is_empty() {
                    Self::cell(out, " <span class=\"note\">(", e.origin);
                    out.push_str(")</span>");
                }
            },
        )
    }

    pub(super) fn expectations(rows: &[Row], runs: &[RunPage]) -> String {
        let empty = "<td><td class=\"v \">";
        Self::body(
            rows,
            runs,
            |r| &r.expectations,
            empty,
            |out, cells, e| {
                Self::cell(out, "<td>", cells.get(e.diff));
                Self::cell(out, "<td class=\"v ", e.verdict);
                Self::cell(out, "\">", e.verdict);
                if e.kernel != e.verdict {
                    Self::cell(out, ", kernel: ", e.kernel);
                }
            },
        )
    }

    /// A table body: a row per label, and in it each run's cells, written by `cells` from the
    /// run's entry of the row (in `list`), or `empty` when it has none.
    pub(super) fn body<T>(
        rows: &[Row],
        runs: &[RunPage],
        list: fn(&RunPage) -> &[T],
        empty: &str,
        cells: impl Fn(&mut String, &Cells, &T),
    ) -> String {
        let mut out = Self::sized(rows.len(), runs.len());
        for row in rows {
            Self::cell(&mut out, "<tr><td>", &row.label);
            for (at, run) in row.cells.iter().zip(runs) {
                match at.map(|j| &list(run)[j]) {
                    Some(x) => cells(&mut out, &run.cells, x),
                    None => out.push_str(empty),
                }
            }
        }
        out
    }

    /// A body sized for its rows (a little over the usual cell), so it is not grown and
    /// copied a dozen times.
    pub(super) fn sized(rows: usize, runs: usize) -> String {
        String::with_capacity(rows * (48 + 96 * runs))
    }

    /// `markup`, then `text` escaped.
    pub(super) fn cell(out: &mut String, markup: &str, text: &str) {
        out.push_str(markup);
        // Writing to a String cannot fail.
        let _ = format::esc_into(out, text);
    }
}

/// A run's table cells, one text after another in one string, written while its record is at
/// hand, so the record is freed as soon as the run is summarised.
#[derive(Default)]
pub(super) struct Cells(pub(super) String);

/// Where a cell's text is in its [`Cells`].
#[derive(Clone, Copy)]
pub(super) struct Span(pub(super) usize, pub(super) usize);

impl Cells {
    /// The text `write` appends, as a cell.
    pub(super) fn push(&mut self, write: impl FnOnce(&mut String)) -> Span {
        let from = self.0.len();
        write(&mut self.0);
        Span(from, self.0.len())
    }

    pub(super) fn text(&mut self, s: &str) -> Span {
        self.push(|out| out.push_str(s))
    }

    pub(super) fn get(&self, s: Span) -> &str {
        self.0.get(s.0..s.1).unwrap_or_default()
    }
}

pub(super) struct ResultCells {
    pub(super) id: Span,
    /// What its overhead is over; empty when it has none.
    pub(super) vs: Span,
    /// Median and CI in one cell (the sorter reads the leading number), with its sample count
    /// when it is not the run's usual one and its share of preempted samples when there were.
    pub(super) median: Span,
    pub(super) overhead: Span,
}

pub(super) struct EstimateCells {
    pub(super) id: Span,
    /// Median and CI in one cell.
    pub(super) median: Span,
    pub(super) origin: &'static str,
}

pub(super) struct ExpectationCells {
    pub(super) label: Span,
    /// The paired difference and its CI, and the tolerance, in one cell.
    pub(super) diff: Span,
    pub(super) verdict: &'static str,
    pub(super) kernel: &'static str,
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
}
