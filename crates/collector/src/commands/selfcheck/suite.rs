//! `syscost selfcheck --suite`: the default run, repeated. Each run is `syscost run --budget B`
//! with every other setting at its default; the report says, per headline quantity, how wide
//! its interval was (median over the runs) and how far the estimates themselves moved between
//! runs, how often each expectation decided, which targets were met, and how the wall time
//! kept to the budget — with the load average the runs saw, since a busy machine widens
//! everything; and whether the intervals hold on a rerun (`calibration`).

use super::calibration::calibration;
use super::{machine, range, run_json, spread, targets_met, verdict_index};
use crate::error::Error;
use crate::stats;
use std::fmt::Write as _;
use std::path::PathBuf;
use syscost_record::{RunRecord, Status, Verdict};

/// A quantity's median and CI half-width (None: no interval), ns.
type Value = (f64, Option<f64>);

/// A headline quantity: its label and where a record keeps it.
struct Headline {
    label: &'static str,
    get: fn(&RunRecord) -> Option<Value>,
}

fn estimate(r: &RunRecord, id: &str) -> Option<Value> {
    let e = r.estimate(id)?;
    Some((e.median_ns, half(e.ci_low_ns, e.ci_high_ns)))
}

fn half(lo: Option<f64>, hi: Option<f64>) -> Option<f64> {
    Some((hi? - lo?) / 2.0)
}

const HEADLINES: [Headline; 7] = [
    Headline {
        label: "entry",
        get: |r| estimate(r, "entry"),
    },
    Headline {
        label: "per-filter (last 2 diff)",
        get: |r| estimate(r, "per_filter.last2"),
    },
    Headline {
        label: "bitmap 1 − bitmap 2",
        get: |r| {
            let x = r
                .expectations
                .iter()
                .find(|x| x.id == "bitmap1_approx_bitmap2")?;
            Some((x.diff_median_ns?, half(x.diff_ci_low_ns, x.diff_ci_high_ns)))
        },
    },
    Headline {
        label: "`sud.allow` overhead",
        get: |r| {
            let o = r.result("sud.allow")?.overhead.as_ref()?;
            Some((o.median_ns, half(o.ci_low_ns, o.ci_high_ns)))
        },
    },
    Headline {
        label: "depth slope",
        get: |r| estimate(r, "depth.per_filter"),
    },
    Headline {
        label: "depth intercept",
        get: |r| estimate(r, "depth.entry"),
    },
    Headline {
        label: "A/A bias allowance",
        get: |r| Some((r.expectations.first()?.systematic_ns?, None)),
    },
];

fn median_of(v: &[f64], digits: usize) -> String {
    if v.is_empty() {
        return "—".into();
    }
    format!("{:.digits$}", stats::median(v))
}

/// The report of `runs` default runs with `budget`, or of the saved records `saved` (their
/// wall time is then not known; their budget is theirs).
pub fn report(runs: u32, budget: f64, saved: &[PathBuf]) -> Result<String, Error> {
    let mut records = Vec::new();
    if !saved.is_empty() {
        for path in saved {
            let bytes = std::fs::read(path).map_err(|e| Error::ReadRecord {
                path: path.clone(),
                reason: e.to_string(),
            })?;
            let r: RunRecord = serde_json::from_slice(&bytes).map_err(|e| Error::ReadRecord {
                path: path.clone(),
                reason: format!("not a run record: {e}"),
            })?;
            records.push((r, None));
        }
        let budget = records
            .first()
            .and_then(|(r, _)| r.settings.budget_s)
            .unwrap_or(budget);
        return Ok(render(&records, budget));
    }
    for i in 0..runs {
        eprintln!("selfcheck: default suite, run {} of {runs}", i + 1);
        let (r, wall) = run_json(&["--budget".into(), format!("{budget}")])?;
        records.push((r, Some(wall)));
    }
    Ok(render(&records, budget))
}

fn render(records: &[(RunRecord, Option<f64>)], budget: f64) -> String {
    let mut out = String::new();
    let n = records.len();
    let Some((first, _)) = records.first() else {
        return "no runs\n".into();
    };
    let loads: Vec<f64> = records
        .iter()
        .flat_map(|(r, _)| [load(r, false), load(r, true)])
        .flatten()
        .collect();
    let _ = writeln!(out, "### The default suite, {n} runs\n");
    let _ = writeln!(
        out,
        "`syscost run --budget {budget}` (every other setting at its default), {n} runs one \
         after the other, on {}; 1-minute load average {} over the runs (start and end of \
         each).\n",
        machine(first),
        range(&loads, 1)
    );
    headlines(&mut out, records);
    expectations(&mut out, records);
    runs(&mut out, records, budget);
    in_some_runs_only(&mut out, records);
    let runs: Vec<&RunRecord> = records.iter().map(|(r, _)| r).collect();
    out.push('\n');
    out.push_str(&calibration(&runs));
    out
}

/// The 1-minute load average at the start (or the end) of a run.
fn load(r: &RunRecord, end: bool) -> Option<f64> {
    let i = &r.environment.incidental;
    if end { i.loadavg_end } else { i.loadavg_start }.map(|l| l[0])
}

/// The headline quantities over the runs: their intervals' half-widths and their estimates.
fn headlines(out: &mut String, records: &[(RunRecord, Option<f64>)]) {
    let _ = writeln!(
        out,
        "| quantity | 95% CI half-width ns: median (min – max) | estimate ns: median (min – max, sd) |"
    );
    let _ = writeln!(out, "|---|---|---|");
    for h in &HEADLINES {
        let got: Vec<Value> = records.iter().filter_map(|(r, _)| (h.get)(r)).collect();
        let medians: Vec<f64> = got.iter().map(|g| g.0).collect();
        let halves: Vec<f64> = got.iter().filter_map(|g| g.1).collect();
        let width = if halves.is_empty() {
            "—".to_string()
        } else {
            format!("±{} ({})", median_of(&halves, 2), range(&halves, 2))
        };
        let _ = writeln!(out, "| {} | {width} | {} |", h.label, spread(&medians));
    }
}

/// How often each expectation passed, failed, was inconclusive or skipped.
fn expectations(out: &mut String, records: &[(RunRecord, Option<f64>)]) {
    let n = records.len();
    let _ = writeln!(
        out,
        "\n| expectation | pass | fail | inconclusive | skip |\n|---|---|---|---|---|"
    );
    let mut ids: Vec<(&str, &str)> = Vec::new();
    for (r, _) in records {
        for x in &r.expectations {
            if !ids.iter().any(|i| i.0 == x.id) {
                ids.push((&x.id, &x.label));
            }
        }
    }
    for (id, label) in &ids {
        let mut v = [0usize; 4];
        for (r, _) in records {
            if let Some(x) = r.expectations.iter().find(|x| x.id == *id) {
                v[verdict_index(x.verdict)] += 1;
            }
        }
        let _ = writeln!(
            out,
            "| {label} | {} | {} | {} | {} |",
            v[0], v[1], v[2], v[3]
        );
    }
    let conclusive: Vec<usize> = records
        .iter()
        .map(|(r, _)| {
            r.expectations
                .iter()
                .filter(|x| matches!(x.verdict, Verdict::Pass | Verdict::Fail))
                .count()
        })
        .collect();
    let total = ids.len();
    let decided = conclusive
        .iter()
        .filter(|&&k| total > 0 && k + 1 >= total)
        .count();
    let _ = writeln!(
        out,
        "\nConclusive expectations per run: {}; at least {} of {total} in {decided} of {n} runs.\n",
        conclusive
            .iter()
            .map(|k| k.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        total.saturating_sub(1)
    );
}

/// One row per run: load, wall time, rounds, targets, statuses; the wall time against the
/// budget.
fn runs(out: &mut String, records: &[(RunRecord, Option<f64>)], budget: f64) {
    let _ = writeln!(
        out,
        "| run | load at start | wall s | duration s | rounds | targets met | measured / skipped / failed | skipped for the budget |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    let mut over: Vec<f64> = Vec::new();
    for (i, (r, wall)) in records.iter().enumerate() {
        let count = |s: Status| r.results.iter().filter(|x| x.status == s).count();
        let for_budget = r
            .results
            .iter()
            .filter(|x| {
                x.reason
                    .as_deref()
                    .is_some_and(|w| w.contains("budget was spent"))
            })
            .count();
        over.extend(wall.map(|w| (w / budget - 1.0) * 100.0));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} / {} / {} | {for_budget} |",
            i + 1,
            load(r, false).map_or("—".into(), |l| format!("{l:.2}")),
            wall.map_or("—".into(), |w| format!("{w:.2}")),
            r.summary
                .duration_s
                .map_or("—".into(), |d| format!("{d:.2}")),
            r.summary.rounds,
            targets_met(r),
            count(Status::Measured),
            count(Status::Skipped),
            count(Status::Failed),
        );
    }
    if over.is_empty() {
        let _ = writeln!(
            out,
            "\nWall time of the whole `syscost run` process: not known for saved records (their \
             duration, setup included, is the column above)."
        );
    } else {
        let _ = writeln!(
            out,
            "\nWall time of the whole `syscost run` process against the {budget} s budget: {} % \
             (median {} %).",
            range(&over, 2),
            median_of(&over, 2)
        );
    }
}

/// What went wrong in some runs only: failures, and skips of scenarios other runs measured.
fn in_some_runs_only(out: &mut String, records: &[(RunRecord, Option<f64>)]) {
    let measured_somewhere = |id: &str| {
        records.iter().any(|(r, _)| {
            r.results
                .iter()
                .any(|x| x.id == id && x.status == Status::Measured)
        })
    };
    let mut odd = Vec::new();
    for (i, (r, _)) in records.iter().enumerate() {
        for x in &r.results {
            let unusual = x.status == Status::Failed
                || (x.status == Status::Skipped && measured_somewhere(&x.id));
            if unusual {
                let why = x.reason.as_deref().unwrap_or("");
                odd.push(format!(
                    "- run {}: `{}` {}: {}",
                    i + 1,
                    x.id,
                    if x.status == Status::Failed {
                        "failed"
                    } else {
                        "skipped"
                    },
                    why.chars().take(240).collect::<String>()
                ));
            }
        }
    }
    if !odd.is_empty() {
        let _ = writeln!(out, "\nIn some runs only:\n");
        for line in &odd {
            let _ = writeln!(out, "{line}");
        }
    }
}
