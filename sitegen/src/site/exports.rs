//! Machine-readable exports: every run as one JSON index and as CSV, and an Atom feed of the
//! newest runs. Rows are in the same newest-first order as the run list.

use super::ctx::Ctx;
use super::error::BuildError;
use crate::fmt;
use crate::info::{kind_label, RunInfo};
use crate::metrics::METRICS;
use serde::Serialize;
use std::collections::BTreeMap;

/// Entries in the Atom feed.
const FEED_ENTRIES: usize = 50;

#[derive(Serialize)]
struct MetricOut {
    median_ns: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    ci_low_ns: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ci_high_ns: Option<f64>,
}

#[derive(Serialize)]
struct RunOut<'a> {
    id: &'a str,
    record: String,
    page: String,
    kind: &'static str,
    date: Option<&'a str>,
    arch: &'a str,
    kernel_release: &'a str,
    kernel_base: &'a str,
    cpu: &'a str,
    virtualization: &'a str,
    mitigation_profile: &'a str,
    series: String,
    machine: Option<&'a str>,
    tool: &'a str,
    metrics: BTreeMap<&'static str, MetricOut>,
}

#[derive(Serialize)]
struct Index<'a> {
    generator: &'static str,
    record_schema: u32,
    metrics: Vec<(&'static str, &'static str)>,
    runs: Runs<'a>,
}

/// The runs of the index, turned into [`RunOut`] one at a time as they are serialised.
struct Runs<'a> {
    runs: &'a [RunInfo],
    order: &'a [usize],
}

impl Serialize for Runs<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.order.iter().map(|&i| run_out(&self.runs[i])))
    }
}

fn run_out(r: &RunInfo) -> RunOut<'_> {
    RunOut {
        id: &r.id,
        record: format!("{}.json", r.page),
        page: format!("{}.html", r.page),
        kind: kind_label(r.kind),
        date: r.date.as_deref(),
        arch: &r.arch,
        kernel_release: &r.kernel.release,
        kernel_base: &r.kbase,
        cpu: &r.series.cpu,
        virtualization: &r.series.virt,
        mitigation_profile: &r.series.mitigations,
        series: r.series.id(),
        machine: r.machine.as_deref(),
        tool: &r.tool,
        metrics: METRICS
            .iter()
            .zip(&r.metrics)
            .filter_map(|(m, v)| {
                v.map(|v| {
                    (
                        m.slug,
                        MetricOut {
                            median_ns: v.median,
                            ci_low_ns: v.lo,
                            ci_high_ns: v.hi,
                        },
                    )
                })
            })
            .collect(),
    }
}

/// One CSV field. Text that a spreadsheet would run as a formula is prefixed with `'`.
fn csv_text(s: &str) -> String {
    // Control characters other than line breaks (NUL, escapes) break CSV readers.
    let s: String = s
        .chars()
        .map(|c| {
            if c.is_control() && !matches!(c, '\n' | '\r' | '\t') {
                '\u{FFFD}'
            } else {
                c
            }
        })
        .collect();
    let s = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s
    };
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s
    }
}

fn csv_num(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// The CSV export, one line per run, streamed into `w`.
pub fn write_csv(
    w: &mut dyn std::io::Write,
    runs: &[RunInfo],
    order: &[usize],
) -> std::io::Result<()> {
    let mut out = String::from(
        "id,date,kind,arch,kernel_release,kernel_base,cpu,virtualization,mitigation_profile,series,machine,record",
    );
    for m in METRICS {
        out.push_str(&format!(
            ",{0}_median_ns,{0}_ci_low_ns,{0}_ci_high_ns",
            m.slug
        ));
    }
    out.push('\n');
    w.write_all(out.as_bytes())?;
    for &i in order {
        out.clear();
        let r = &runs[i];
        let fields = [
            r.id.as_str(),
            r.date.as_deref().unwrap_or(""),
            kind_label(r.kind),
            &r.arch,
            &r.kernel.release,
            &r.kbase,
            &r.series.cpu,
            &r.series.virt,
            &r.series.mitigations,
            &r.series.id(),
            r.machine.as_deref().unwrap_or(""),
            &format!("{}.json", r.page),
        ]
        .map(csv_text);
        out.push_str(&fields.join(","));
        for v in &r.metrics {
            out.push(',');
            out.push_str(&csv_num(v.map(|v| v.median)));
            out.push(',');
            out.push_str(&csv_num(v.and_then(|v| v.lo)));
            out.push(',');
            out.push_str(&csv_num(v.and_then(|v| v.hi)));
        }
        out.push('\n');
        w.write_all(out.as_bytes())?;
    }
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SS…(Z|±HH:MM)`: good enough to put in Atom's `updated`.
fn rfc3339_like(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        r.into_iter()
            .all(|i| b.get(i).is_some_and(u8::is_ascii_digit))
    };
    b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && (b[10] == b'T' || b[10] == b't')
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && (s.ends_with('Z')
            || s.ends_with('z')
            || b[b.len() - 6] == b'+'
            || b[b.len() - 6] == b'-')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || ":-+.".contains(c))
}

const EPOCH: &str = "1970-01-01T00:00:00Z";

#[derive(Serialize)]
struct FeedEntry {
    id: String,
    title: String,
    updated: String,
    href: String,
    summary: String,
}

#[derive(Serialize)]
struct Feed {
    feed_id: String,
    updated: String,
    self_href: Option<String>,
    home_href: String,
    entries: Vec<FeedEntry>,
}

/// All three exports.
pub fn all(
    ctx: &mut Ctx,
    runs: &[RunInfo],
    order: &[usize],
    base_url: Option<&str>,
) -> Result<(), BuildError> {
    let index = Index {
        generator: concat!("syscost-site ", env!("CARGO_PKG_VERSION")),
        record_schema: syscost_record::SCHEMA_VERSION,
        metrics: METRICS.iter().map(|m| (m.slug, m.label)).collect(),
        runs: Runs { runs, order },
    };
    ctx.out.write_with("index.json", |w| {
        serde_json::to_writer(w, &index).map_err(std::io::Error::other)
    })?;
    ctx.out
        .write_with("runs.csv", |w| write_csv(w, runs, order))?;

    feed(ctx, runs, order, base_url)
}

/// The Atom feed of the newest runs.
fn feed(
    ctx: &mut Ctx,
    runs: &[RunInfo],
    order: &[usize],
    base_url: Option<&str>,
) -> Result<(), BuildError> {
    // Feed readers need absolute links; without --base-url they are relative to the feed.
    let base = base_url.map(|b| format!("{}/", b.trim_end_matches('/')));
    let abs = |p: &str| format!("{}{p}", base.as_deref().unwrap_or(""));
    let entries: Vec<FeedEntry> = order
        .iter()
        .take(FEED_ENTRIES)
        .map(|&i| {
            let r = &runs[i];
            let updated = r
                .date
                .as_deref()
                .filter(|d| rfc3339_like(d))
                .unwrap_or(EPOCH)
                .to_string();
            let summary = METRICS
                .iter()
                .zip(&r.metrics)
                .filter_map(|(m, v)| v.map(|v| format!("{}: {} ns", m.short, fmt::val(&v))))
                .take(6)
                .collect::<Vec<_>>()
                .join("; ");
            FeedEntry {
                id: r.id.clone(),
                title: format!(
                    "{} · Linux {} · {} ({})",
                    r.arch,
                    r.kernel.release,
                    r.series.cpu,
                    kind_label(r.kind)
                ),
                updated,
                href: abs(&format!("{}.html", r.page)),
                summary,
            }
        })
        .collect();
    let updated = entries
        .iter()
        .map(|e| e.updated.clone())
        .max()
        .unwrap_or_else(|| EPOCH.to_string());
    let feed = Feed {
        feed_id: base
            .as_deref()
            .map(|b| format!("{b}feed.xml"))
            .unwrap_or_else(|| "urn:syscost:feed".to_string()),
        updated,
        self_href: base.as_deref().map(|b| format!("{b}feed.xml")),
        home_href: abs("index.html"),
        entries,
    };
    ctx.page("feed.xml", "feed.xml", &feed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_and_defuses_formulas() {
        assert_eq!(csv_text("a\u{0}b\u{1b}"), "a\u{FFFD}b\u{FFFD}");
        assert_eq!(csv_text("plain"), "plain");
        assert_eq!(csv_text("a,b"), "\"a,b\"");
        assert_eq!(csv_text("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_text("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_text("line\nbreak"), "\"line\nbreak\"");
    }

    #[test]
    fn dates_for_atom() {
        assert!(rfc3339_like("2024-05-01T12:00:00Z"));
        assert!(rfc3339_like("2024-05-01T12:00:00.123+02:00"));
        assert!(!rfc3339_like("2024-05-01"));
        assert!(!rfc3339_like("2024-05-01T12:00:00Z<x>"));
        assert!(!rfc3339_like("yesterday at noon, roughly Z"));
    }
}
