//! Machine-readable exports: a JSON index (the metrics, every series, the files of runs), every
//! run as JSON and as CSV in files of a few thousand runs each ([`shards`]), the detected changes
//! as JSON (the Atom feed is `feed`). A file of runs has them newest
//! first; unplaced runs are in them, marked.
//!
//! The runs are split by the first hex digits of their id (a content hash, so the split is
//! even and a run never moves): a file stays a size a reader can fetch whatever the number of
//! runs (one file of 100,000 runs was 42 MB of JSON and 33 MB of CSV), and a new run changes
//! only its own file, which a rebuild writes alone (the others are made from unchanged inputs).

use crate::model::changes::trends::Change;
use crate::model::metrics::METRICS;
use crate::model::quality::Grade;
use crate::model::series::SeriesKey;
use crate::model::summary::{kind_label, RunInfo};
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::error::BuildError;
use crate::view::format;
use crate::view::links::Links;
use serde::Serialize;
use std::collections::BTreeMap;

/// A headline metric of a run: `[median_ns, ci_low_ns, ci_high_ns]`, the bounds `null` when
/// the run has no interval.
type MetricOut = (f64, Option<f64>, Option<f64>);

/// What every run of a series shares, once per series rather than once per run.
#[derive(Serialize)]
struct SeriesOut<'a> {
    arch: &'a str,
    cpu: &'a str,
    virtualization: &'a str,
    mitigations: &'a str,
    kernel_parameters: &'a str,
    bpf_jit: &'a str,
    probe: &'a str,
    syscalls_per_op: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    operation: Option<&'a str>,
    method: &'a str,
    label: String,
}

fn series_out(s: &SeriesKey) -> SeriesOut<'_> {
    SeriesOut {
        arch: &s.arch,
        cpu: &s.cpu,
        virtualization: &s.virt,
        mitigations: &s.mitigations,
        kernel_parameters: &s.flags,
        bpf_jit: &s.bpf_jit,
        probe: &s.probe,
        syscalls_per_op: s.per_op,
        operation: s.operation.as_deref(),
        method: &s.method,
        label: s.sentence(),
    }
}

/// Every series of the runs, by id, in id order.
fn all_series(runs: &[RunInfo]) -> BTreeMap<String, &SeriesKey> {
    runs.iter().map(|r| (r.series.id(), &*r.series)).collect()
}

/// The names of a run's row in `index.json`, in order (the index says them once, as a record
/// of schema 3 does, rather than once per run: 100,000 runs would repeat them 100,000 times).
const RUN_FIELDS: [&str; 14] = [
    "id",
    "record",
    "kind",
    "date",
    "arch",
    "kernel_release",
    "kernel_base",
    "series",
    "placed",
    "unplaced_reason",
    "quality",
    "machine",
    "tool",
    "metrics",
];

/// A run of the index, its fields in the order of [`RUN_FIELDS`]; its `metrics` are the
/// headline metrics in the order of the index's `metrics`, `null` where the run has none.
#[derive(Serialize)]
struct RunOut<'a>(
    &'a str,
    /// The raw record: relative to `records_at` (the data directory's URL), or to the site.
    String,
    &'static str,
    Option<&'a str>,
    &'a str,
    &'a str,
    &'a str,
    /// Id of the run's series, a key of the index's `series`.
    String,
    bool,
    Option<String>,
    Grade,
    Option<&'a str>,
    &'a str,
    Vec<Option<MetricOut>>,
);

#[derive(Serialize)]
struct Index<'a> {
    generator: &'static str,
    record_schema: u32,
    metrics: Vec<(&'static str, &'static str)>,
    /// The names of the fields of each row of `runs`.
    run_fields: [&'static str; 14],
    /// Where `record` paths are relative to: the data directory's URL, or "" for the site root
    /// (the run's page is the record path with `.html` for `.json`).
    records_at: &'a str,
    series: BTreeMap<String, SeriesOut<'a>>,
    /// How many runs the files of runs hold together.
    runs: usize,
    shards: Vec<ShardOut>,
}

/// A file of runs as the index lists it.
#[derive(Serialize)]
struct ShardOut {
    /// The first hex digits of the ids of its runs ("" when one file holds them all).
    prefix: String,
    runs: usize,
    json: String,
    csv: String,
}

/// One file of runs (JSON): self-contained, so a reader can use it without the index.
#[derive(Serialize)]
struct ShardJson<'a> {
    metrics: Vec<&'static str>,
    run_fields: [&'static str; 14],
    records_at: &'a str,
    runs: Runs<'a>,
}

/// The runs a file of runs holds. The fewest hex digits of the id that keep a file at about
/// [`SHARD_RUNS`] runs or fewer: one file up to that many runs, 16 up to 16 times as many, ...
pub struct Shard {
    pub prefix: String,
    /// Indices into the runs, newest first.
    pub runs: Vec<usize>,
}

/// The size a file of runs is kept near: about 3.5 MB of JSON and 2.7 MB of CSV of real runs.
const SHARD_RUNS: usize = 8192;

impl Shard {
    pub fn json(&self) -> String {
        self.file("json")
    }

    pub fn csv(&self) -> String {
        self.file("csv")
    }

    fn file(&self, ext: &str) -> String {
        match self.prefix.as_str() {
            "" => format!("exports/runs.{ext}"),
            p => format!("exports/runs-{p}.{ext}"),
        }
    }
}

/// The files of runs: every run in one, by the first hex digits of its id, newest first within
/// each, in prefix order; files without runs are not made.
pub fn shards(runs: &[RunInfo], newest: &[usize]) -> Vec<Shard> {
    shard_by(newest.iter().map(|&i| (i, runs[i].id.as_str())), runs.len())
}

/// [`shards`] of `total` runs given as (index, id), in the order they are to be listed.
fn shard_by<'a>(ids: impl Iterator<Item = (usize, &'a str)>, total: usize) -> Vec<Shard> {
    let mut digits = 0;
    while total > SHARD_RUNS << (4 * digits) && digits < 4 {
        digits += 1;
    }
    let mut by: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, id) in ids {
        // A valid record's id is 16 hex digits; a shorter one is a prefix of its own.
        let cut = id.char_indices().nth(digits).map_or(id.len(), |(at, _)| at);
        by.entry(&id[..cut]).or_default().push(i);
    }
    by.into_iter()
        .map(|(p, runs)| Shard {
            prefix: p.to_string(),
            runs,
        })
        .collect()
}

/// The runs of the index, turned into [`RunOut`] one at a time as they are serialised.
struct Runs<'a> {
    runs: &'a [RunInfo],
    order: &'a [usize],
    headline: &'a [Option<u32>],
    linked: bool,
}

impl Serialize for Runs<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            self.order
                .iter()
                .map(|&i| run_out(&self.runs[i], self.headline, self.linked)),
        )
    }
}

fn run_out<'a>(r: &'a RunInfo, headline: &[Option<u32>], linked: bool) -> RunOut<'a> {
    RunOut(
        &r.id,
        // A copied record sits beside its page, at the canonical name.
        if linked {
            r.record_rel.clone()
        } else {
            format!("{}.json", r.page)
        },
        kind_label(r.kind),
        r.date.as_deref(),
        &r.arch,
        &r.kernel.release,
        &r.kbase,
        r.series.id(),
        r.is_placed(),
        r.placed.as_ref().err().map(|e| e.to_string()),
        r.quality.grade,
        r.machine.as_deref(),
        &r.tool,
        headline
            .iter()
            .map(|id| {
                id.and_then(|id| r.values.get(id))
                    .map(|v| (v.median, v.lo, v.hi))
            })
            .collect(),
    )
}

/// One CSV field. Text that a spreadsheet would run as a formula is prefixed with `'`.
fn csv_text(s: &str) -> String {
    // Most fields (ids, dates, kernels) need none of what follows.
    if !s.starts_with(['=', '+', '-', '@'])
        && !s.chars().any(|c| c.is_control() || matches!(c, ',' | '"'))
    {
        return s.to_string();
    }
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

fn csv_num(out: &mut String, v: Option<f64>) {
    if let Some(x) = v {
        format::plain_into(out, x);
    }
}

/// A file of runs as CSV, one line per run, streamed into `w`.
pub fn write_csv(
    w: &mut dyn std::io::Write,
    runs: &[RunInfo],
    order: &[usize],
    headline: &[Option<u32>],
    ctx: &Ctx,
) -> std::io::Result<()> {
    let mut out = String::from(
        "id,date,kind,arch,kernel_release,kernel_base,placed,unplaced_reason,series,quality,machine,record",
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
        let unplaced = r.placed.as_ref().err().map(|e| e.to_string());
        let fields = [
            r.id.as_str(),
            r.date.as_deref().unwrap_or(""),
            kind_label(r.kind),
            &r.arch,
            &r.kernel.release,
            if r.is_placed() { &r.kbase } else { "" },
            if r.is_placed() { "true" } else { "false" },
            unplaced.as_deref().unwrap_or(""),
            &r.series.id(),
            r.quality.grade.label(),
            r.machine.as_deref().unwrap_or(""),
            // From the file, which is one directory below the site's root.
            &ctx.raw_href(r, "../"),
        ]
        .map(csv_text);
        out.push_str(&fields.join(","));
        for v in headline.iter().map(|id| id.and_then(|id| r.values.get(id))) {
            out.push(',');
            csv_num(&mut out, v.map(|v| v.median));
            out.push(',');
            csv_num(&mut out, v.and_then(|v| v.lo));
            out.push(',');
            csv_num(&mut out, v.and_then(|v| v.hi));
        }
        out.push('\n');
        w.write_all(out.as_bytes())?;
    }
    Ok(())
}

/// `series.csv`: what the runs of each series share (a file of runs names the series).
fn write_series_csv(w: &mut dyn std::io::Write, runs: &[RunInfo]) -> std::io::Result<()> {
    w.write_all(
        b"series,arch,cpu,virtualization,mitigations,kernel_parameters,probe,syscalls_per_op,operation,method\n",
    )?;
    for (id, s) in all_series(runs) {
        let fields = [
            id.as_str(),
            &s.arch,
            &s.cpu,
            &s.virt,
            &s.mitigations,
            &s.flags,
            &s.probe,
            &s.per_op.map(|n| n.to_string()).unwrap_or_default(),
            s.operation.as_deref().unwrap_or(""),
            &s.method,
        ]
        .map(csv_text);
        w.write_all(fields.join(",").as_bytes())?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

#[derive(Serialize)]
struct ChangeOut<'a> {
    date: Option<&'a str>,
    arch: &'a str,
    series: String,
    metric: String,
    from: &'a str,
    to: &'a str,
    /// What the `*_ns` numbers count: `ns`, or `instructions` (an instruction-count series).
    unit: &'static str,
    from_median_ns: f64,
    to_median_ns: f64,
    delta_ns: f64,
    delta_interval_ns: Option<(f64, f64)>,
    pct: Option<f64>,
    pct_interval: Option<(f64, f64)>,
    noise_floor_ns: f64,
    from_runs: Vec<&'a str>,
    to_runs: Vec<&'a str>,
    page: String,
}

fn change_out<'a>(d: &'a Data, c: &'a Change) -> ChangeOut<'a> {
    let k = d.reg.key(c.metric);
    let ids = |v: &[usize]| v.iter().map(|&i| d.runs[i].id.as_str()).collect();
    ChangeOut {
        date: c.date.as_deref(),
        arch: &c.series.arch,
        series: c.series.id(),
        metric: k.label(),
        from: &c.from,
        to: &c.to,
        unit: c.series.number_unit(),
        from_median_ns: c.from_point.median,
        to_median_ns: c.to_point.median,
        delta_ns: c.pair.diff.delta,
        delta_interval_ns: c.pair.diff.delta_interval,
        pct: c.pair.diff.pct,
        pct_interval: c.pair.diff.pct_interval,
        noise_floor_ns: c.pair.floor,
        from_runs: ids(&c.from_runs),
        to_runs: ids(&c.to_runs),
        page: Links.series_metric(&c.series, &k.slug()),
    }
}

/// Every export.
pub fn all(ctx: &mut Ctx, d: &Data) -> Result<(), BuildError> {
    let shards = shards(d.runs, &d.g.newest);
    let linked = ctx.data_url.is_some();
    let records_at = ctx.data_url.unwrap_or("");
    let index = Index {
        generator: concat!("syscost-site ", env!("CARGO_PKG_VERSION")),
        record_schema: syscost_record::SCHEMA_VERSION,
        metrics: METRICS.iter().map(|m| (m.slug, m.label)).collect(),
        run_fields: RUN_FIELDS,
        records_at,
        series: all_series(d.runs)
            .into_iter()
            .map(|(id, s)| (id, series_out(s)))
            .collect(),
        runs: d.runs.len(),
        shards: shards
            .iter()
            .map(|s| ShardOut {
                prefix: s.prefix.clone(),
                runs: s.runs.len(),
                json: s.json(),
                csv: s.csv(),
            })
            .collect(),
    };
    ctx.out.write_with("index.json", |w| {
        serde_json::to_writer(w, &index).map_err(std::io::Error::other)
    })?;
    for shard in &shards {
        // Streamed and compared by its bytes: when they are the previous build's, its file
        // stays.
        let out = ShardJson {
            metrics: METRICS.iter().map(|m| m.slug).collect(),
            run_fields: RUN_FIELDS,
            records_at,
            runs: Runs {
                runs: d.runs,
                order: &shard.runs,
                headline: &d.headline,
                linked,
            },
        };
        ctx.out.write_with(&shard.json(), |w| {
            serde_json::to_writer(w, &out).map_err(std::io::Error::other)
        })?;
        ctx.out.write_with(&shard.csv(), |w| {
            write_csv(w, d.runs, &shard.runs, &d.headline, ctx)
        })?;
    }
    ctx.out
        .write_with("series.csv", |w| write_series_csv(w, d.runs))?;
    let changes: Vec<ChangeOut> = d.changes.iter().map(|c| change_out(d, c)).collect();
    ctx.out.write_with("changes.json", |w| {
        serde_json::to_writer(w, &changes).map_err(std::io::Error::other)
    })?;
    super::feed::feed(ctx, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One file up to SHARD_RUNS runs; past it, one per first hex digit of the id (16 files of
    /// about a sixteenth each), then per two digits; each file's runs in the order given.
    #[test]
    fn runs_are_split_by_the_first_digits_of_their_id() {
        let ids: Vec<String> = (0..SHARD_RUNS * 17)
            .map(|i| format!("{:016x}", (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)))
            .collect();
        let split = |n: usize| shard_by(ids[..n].iter().map(String::as_str).enumerate(), n);

        let one = split(SHARD_RUNS);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].prefix, "");
        assert_eq!(one[0].runs, (0..SHARD_RUNS).collect::<Vec<_>>());
        assert_eq!(one[0].json(), "exports/runs.json");
        assert_eq!(one[0].csv(), "exports/runs.csv");

        let sixteen = split(SHARD_RUNS + 1);
        let prefixes: String = sixteen.iter().map(|s| s.prefix.as_str()).collect();
        assert_eq!(prefixes, "0123456789abcdef");
        let each = (SHARD_RUNS + 1) / 16;
        assert_eq!(
            sixteen.iter().map(|s| s.runs.len()).sum::<usize>(),
            SHARD_RUNS + 1
        );
        for s in &sixteen {
            assert!(s.runs.windows(2).all(|w| w[0] < w[1]), "in the order given");
            assert!(s.runs.iter().all(|&i| ids[i].starts_with(&s.prefix)));
            // Hashes split evenly: no file far from a sixteenth.
            assert!(s.runs.len().abs_diff(each) < each / 4, "{}", s.runs.len());
        }
        assert_eq!(sixteen[10].json(), "exports/runs-a.json");

        let more = split(SHARD_RUNS * 17);
        assert!(more.len() > 16, "{}", more.len());
        assert!(more.iter().all(|s| s.prefix.len() == 2));
        // Ids that are not 16 hex digits (never a valid record's) still land in one file each.
        let odd = shard_by([(0, "x"), (1, "")].into_iter(), SHARD_RUNS * 17);
        let odd: Vec<&str> = odd.iter().map(|s| s.prefix.as_str()).collect();
        assert_eq!(odd, ["", "x"]);
    }

    #[test]
    fn csv_quotes_and_defuses_formulas() {
        assert_eq!(csv_text("a\u{0}b\u{1b}"), "a\u{FFFD}b\u{FFFD}");
        assert_eq!(csv_text("plain"), "plain");
        assert_eq!(csv_text("a,b"), "\"a,b\"");
        assert_eq!(csv_text("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_text("=HYPERLINK(1)"), "'=HYPERLINK(1)");
        assert_eq!(csv_text("line\nbreak"), "\"line\nbreak\"");
    }
}
