//! Table rows shared by the list pages: a run's row with the key metrics, and number cells.

use crate::model::metrics::{Point, KEY_COLUMNS, METRICS};
use crate::model::summary::{kind_label, RunInfo};
use crate::view::format;
use crate::view::render::Html;
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
}

/// A list of runs, for `macros.html`'s `runs_table`: its optional columns, how many rows it has
/// and its body. The body is written here rather than by the template: a kernel version's pages
/// list every run of the site. Every text is escaped as the template would
/// ([`format::esc_into`]).
#[derive(Serialize)]
pub struct RunsTable {
    show_arch: bool,
    show_kernel: bool,
    show_machine: bool,
    count: usize,
    body: Html,
}

impl RunsTable {
    pub fn new(rows: impl IntoIterator<Item = RunRow>, cols: RunCols) -> RunsTable {
        let mut body = String::new();
        let mut count = 0;
        for r in rows {
            count += 1;
            // Writing into a String cannot fail.
            let _ = write_row(&mut body, &r, cols);
        }
        RunsTable {
            show_arch: cols.arch,
            show_kernel: cols.kernel,
            show_machine: cols.machine,
            count,
            body: Html::new(body),
        }
    }
}

/// One run's row: no class on its cells (the key-metric columns, the last ones, are
/// right-aligned by the table's class) and no tooltip on its badges (the methodology says what
/// they mean).
fn write_row(out: &mut String, r: &RunRow, cols: RunCols) -> std::fmt::Result {
    out.push_str("<tr><td>");
    format::esc_into(out, &r.date)?;
    out.push_str("<td><a class=\"mono\" href=\"");
    format::esc_into(out, &r.href)?;
    out.push_str("\">");
    format::esc_into(out, &r.id)?;
    out.push_str("</a>");
    match r.kind {
        "synthetic" => out.push_str(" <span class=\"badge synthetic\">synthetic</span>"),
        "imported" => out.push_str(" <span class=\"badge\">imported</span>"),
        _ => {}
    }
    if r.unverified {
        out.push_str(" <span class=\"badge unverified\">unverified</span>");
    }
    if !r.unplaced.is_empty() {
        out.push_str(" <span class=\"badge\" title=\"");
        format::esc_into(out, &r.unplaced)?;
        out.push_str("\">unplaced</span>");
    }
    out.push_str("<td><span class=\"badge ");
    format::esc_into(out, r.quality.class)?;
    out.push_str("\">");
    format::esc_into(out, r.quality.label)?;
    out.push_str("</span>");
    let optional = [
        (cols.arch, &r.arch),
        (cols.kernel, &r.kernel),
        (true, &r.cpu),
        (true, &r.virt),
        (cols.machine, &r.machine),
        (true, &r.probe),
    ];
    for (_, text) in optional.iter().filter(|(shown, _)| *shown) {
        out.push_str("<td>");
        format::esc_into(out, text)?;
    }
    for c in &r.cells {
        out.push_str("<td>");
        format::esc_into(out, &c.text)?;
    }
    Ok(())
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

    fn row(kind: &'static str, unverified: bool, unplaced: &str) -> RunRow {
        RunRow {
            href: "../runs/x86_64/6.1/abc.html#a&b".into(),
            id: "abc".into(),
            date: "2026-01-02".into(),
            arch: "x86_64".into(),
            kernel: "6.1.0-1-amd64".into(),
            cpu: "EPYC <7>".into(),
            virt: "vm (KVM)".into(),
            machine: "m'1".into(),
            probe: "one getppid call".into(),
            kind,
            unverified,
            quality: Badge {
                label: "good",
                class: "q-good",
            },
            unplaced: unplaced.into(),
            cells: vec![
                Cell {
                    text: "135 [133, 140]".into(),
                },
                Cell::empty(),
            ],
        }
    }

    /// Each optional column and badge, and every text escaped as the template escapes it.
    #[test]
    fn a_run_row_is_written_as_the_template_wrote_it() {
        let all = RunCols {
            arch: true,
            kernel: true,
            machine: true,
        };
        let mut out = String::new();
        write_row(&mut out, &row("synthetic", true, "kernel \"?\""), all).unwrap();
        assert_eq!(
            out,
            "<tr><td>2026-01-02<td><a class=\"mono\" href=\"../runs/x86_64/6.1/abc.html#a&amp;b\">abc</a> \
             <span class=\"badge synthetic\">synthetic</span> <span class=\"badge unverified\">unverified</span> \
             <span class=\"badge\" title=\"kernel &quot;?&quot;\">unplaced</span><td><span class=\"badge q-good\">good</span>\
             <td>x86_64<td>6.1.0-1-amd64<td>EPYC &lt;7&gt;<td>vm (KVM)<td>m&#39;1<td>one getppid call\
             <td>135 [133, 140]<td>"
        );
        let none = RunCols {
            arch: false,
            kernel: false,
            machine: false,
        };
        out.clear();
        write_row(&mut out, &row("imported", false, ""), none).unwrap();
        assert_eq!(
            out,
            "<tr><td>2026-01-02<td><a class=\"mono\" href=\"../runs/x86_64/6.1/abc.html#a&amp;b\">abc</a> \
             <span class=\"badge\">imported</span><td><span class=\"badge q-good\">good</span>\
             <td>EPYC &lt;7&gt;<td>vm (KVM)<td>one getppid call<td>135 [133, 140]<td>"
        );
        out.clear();
        write_row(&mut out, &row("collected", false, ""), none).unwrap();
        assert!(out.contains("abc</a><td><span"), "no badge: {out}");
    }
}
