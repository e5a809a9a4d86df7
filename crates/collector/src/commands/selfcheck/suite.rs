//! `syscost selfcheck --suite`: the default run, repeated. Each run is `syscost run --budget B`
//! with every other setting at its default; the report says, per headline quantity, how wide
//! its interval was (median over the runs) and how far the estimates themselves moved between
//! runs, how often each expectation decided, which targets were met, and how the wall time
//! kept to the budget — with the load average the runs saw, since a busy machine widens
//! everything; and whether the intervals hold on a rerun ([`calibration`]): every pair of runs
//! compared as two independent estimates of each quantity, which with honest 95 % intervals
//! differ "significantly" in about 5 % of pairs.

use super::{machine, run_json, spread, targets_met, verdict_index};
use crate::compare::{self, pool::pool, Options, Side};
use crate::error::Error;
use crate::stats;
use std::fmt::Write as _;
use std::path::PathBuf;
use syscost_record::{QuantityKind, RunRecord, Status, Verdict};

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

/// min – max of values, or "—".
fn range(v: &[f64], digits: usize) -> String {
    if v.is_empty() {
        return "—".into();
    }
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{min:.digits$} – {max:.digits$}")
}

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

/// The quantities a headline of the A/A calibration is about (its goals name them): the kernel's
/// estimates, the depth slope, and these overheads.
const HEADLINE_OVERHEADS: [&str; 8] = [
    "sud.allow",
    "sud.block",
    "seccomp.trap",
    "seccomp.user_notif.same_cpu",
    "bpf.tp",
    "bpf.rawtp",
    "bpf.uprobe",
    "attach.seccomp.64",
];

fn headline(kind: QuantityKind, id: &str) -> bool {
    match kind {
        QuantityKind::Estimate => id != "depth.entry",
        QuantityKind::Overhead => HEADLINE_OVERHEADS.contains(&id),
        QuantityKind::Median => false,
    }
}

/// Every quantity of a record that has an interval: (kind, id, value, half-width), ns. The
/// quantities the record sets targets on: estimates, overheads, and the own medians of what
/// no difference is made from (with its targets: exactly those; without, every scenario's).
fn quantities(r: &RunRecord) -> Vec<(QuantityKind, String, f64, f64)> {
    let mut out = Vec::new();
    let half = |lo: Option<f64>, hi: Option<f64>| Some((hi? - lo?) / 2.0);
    for e in &r.estimates {
        if let Some(h) = half(e.ci_low_ns, e.ci_high_ns) {
            out.push((QuantityKind::Estimate, e.id.clone(), e.median_ns, h));
        }
    }
    let own_median = |id: &str| {
        r.summary.targets.is_empty()
            || r.summary
                .targets
                .iter()
                .any(|t| t.quantity == QuantityKind::Median && t.id == id)
    };
    for x in r.results.iter().filter(|x| x.status == Status::Measured) {
        if let Some(o) = &x.overhead {
            if let Some(h) = half(o.ci_low_ns, o.ci_high_ns) {
                out.push((QuantityKind::Overhead, x.id.clone(), o.median_ns, h));
            }
        } else if own_median(&x.id) {
            if let (Some(m), Some(h)) = (x.median_ns, half(x.ci_low_ns, x.ci_high_ns)) {
                out.push((QuantityKind::Median, x.id.clone(), m, h));
            }
        }
    }
    out
}

/// One quantity across runs.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibrated {
    pub kind: QuantityKind,
    pub id: String,
    /// Runs that have it with an interval.
    pub runs: usize,
    pub median: f64,
    pub median_half: f64,
    /// Standard deviation of its value across runs.
    pub sd: f64,
    /// 1.96 · sd ÷ median half-width: 1 when the intervals are as wide as the runs scatter.
    pub ratio: f64,
    pub pairs: usize,
    pub significant: usize,
    /// Spread between runs that their intervals do not account for: √(sd² − mean se²), se =
    /// half-width / 1.96 (0 when the intervals cover the scatter). What a comparison of two
    /// runs of this machine would have to allow on top of their intervals.
    pub beyond: f64,
}

/// The A/A calibration of `runs` (each a list of (kind, id, value, half-width)): per quantity in
/// at least two runs, every pair of runs compared as independent estimates — significant when
/// |difference| / √(se₁² + se₂²) > 1.96, se = half-width / 1.96 — and the spread across runs
/// against the intervals. Sorted by ratio, largest first.
pub fn calibrate(runs: &[Vec<(QuantityKind, String, f64, f64)>]) -> Vec<Calibrated> {
    let mut keys: Vec<(QuantityKind, &str)> = Vec::new();
    for run in runs {
        for (k, id, ..) in run {
            if !keys.iter().any(|(k2, i2)| k2 == k && i2 == id) {
                keys.push((*k, id));
            }
        }
    }
    let mut out = Vec::new();
    for (kind, id) in keys {
        let got: Vec<(f64, f64)> = runs
            .iter()
            .filter_map(|run| {
                run.iter()
                    .find(|(k, i, ..)| *k == kind && i == id)
                    .map(|q| (q.2, q.3))
            })
            .collect();
        if got.len() < 2 {
            continue;
        }
        let (mut pairs, mut significant) = (0, 0);
        for (i, a) in got.iter().enumerate() {
            for b in &got[i + 1..] {
                let se = ((a.1 / 1.96).powi(2) + (b.1 / 1.96).powi(2)).sqrt();
                pairs += 1;
                let d = (a.0 - b.0).abs();
                significant += (if se > 0.0 { d / se > 1.96 } else { d > 0.0 }) as usize;
            }
        }
        let values: Vec<f64> = got.iter().map(|g| g.0).collect();
        let halves: Vec<f64> = got.iter().map(|g| g.1).collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let sd = (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>()
            / (values.len() - 1) as f64)
            .sqrt();
        let median_half = stats::median(&halves);
        let mean_se_sq =
            halves.iter().map(|h| (h / 1.96).powi(2)).sum::<f64>() / halves.len() as f64;
        out.push(Calibrated {
            kind,
            id: id.to_string(),
            runs: got.len(),
            median: stats::median(&values),
            median_half,
            sd,
            ratio: 1.96 * sd / median_half,
            pairs,
            significant,
            beyond: (sd * sd - mean_se_sq).max(0.0).sqrt(),
        });
    }
    out.sort_by(|a, b| b.ratio.total_cmp(&a.ratio));
    out
}

/// A time in the unit that fits it.
fn ns(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.3} ms", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.3} µs", v / 1e3)
    } else if a >= 10.0 {
        format!("{v:.1} ns")
    } else {
        format!("{v:.2} ns")
    }
}

/// The spread beyond the intervals, in ns and as a share of the estimate.
fn beyond(r: &Calibrated) -> String {
    if r.beyond == 0.0 {
        "0".into()
    } else if r.median.abs() > 0.0 {
        format!(
            "{} ({:.1} %)",
            ns(r.beyond),
            100.0 * r.beyond / r.median.abs()
        )
    } else {
        ns(r.beyond)
    }
}

/// What the `null` loop says about the host: it makes no system call and touches no memory, so
/// if it moves between runs beyond its intervals, the CPU itself ran at another speed, and every
/// time moves with it — a variation no interval measured inside one run can see.
fn host_speed(rows: &[Calibrated]) -> Option<String> {
    let null = rows.iter().find(|r| r.id == "null")?;
    let pct = 100.0 * null.sd / null.median.abs().max(f64::MIN_POSITIVE);
    Some(if null.ratio > 1.5 {
        format!(
            "The `null` loop (no system call, no memory traffic) varied by {pct:.1} % between \
             runs (sd), {:.1} times what its intervals allow: the CPU's own speed changed from \
             run to run (frequency, a sibling thread or another guest on its core), and every \
             time moves with it. No interval measured inside one run can see a change slower \
             than the run; the column \"beyond the intervals\" is what it amounted to here.\n",
            null.ratio
        )
    } else {
        format!(
            "The `null` loop (no system call, no memory traffic) varied by {pct:.1} % between \
             runs (sd), within its intervals ({:.1}): the CPU ran at one speed across these \
             runs.\n",
            null.ratio
        )
    })
}

/// Runs pooled by this many for the false-alarm count: the fewest for which Student's t is not
/// wide beyond use (t(2) = 4.3).
const POOL: usize = 3;

/// How often `syscost compare` says "changed" between runs of one binary on one machine (every
/// such verdict a false alarm): single runs against each other, and the runs pooled in threes
/// (`compare --pool`) against each other. Counted over every quantity compared.
fn false_changes(records: &[&RunRecord]) -> String {
    let opts = Options {
        margin_pct: compare::DEFAULT_MARGIN_PCT,
        force: false,
    };
    let count = |sides: &[Side]| {
        let (mut changed, mut rows) = (0, 0);
        for (i, a) in sides.iter().enumerate() {
            for b in &sides[i + 1..] {
                if let Ok(c) = compare::compare_sides(a, b, opts) {
                    rows += c.rows.len();
                    changed += c.rows.iter().filter(|r| r.verdict.is_change()).count();
                }
            }
        }
        (changed, rows)
    };
    let pct = |(c, n): (usize, usize)| 100.0 * c as f64 / n.max(1) as f64;
    let single: Vec<Side> = records.iter().map(|r| Side::of(r)).collect();
    let one = count(&single);
    let mut text = format!(
        "`syscost compare` between these runs (every \"changed\" a false alarm): single runs \
         {} of {} verdicts changed ({:.1} %)",
        one.0,
        one.1,
        pct(one)
    );
    let pooled: Vec<Side> = records
        .chunks_exact(POOL)
        .filter_map(|g| pool(g).ok())
        .collect();
    if pooled.len() >= 2 {
        let p = count(&pooled);
        let _ = write!(
            text,
            "; pooled in threes (`compare --pool`, {} groups) {} of {} ({:.1} %)",
            pooled.len(),
            p.0,
            p.1,
            pct(p)
        );
    }
    text.push_str(".\n");
    text
}

/// The A/A calibration section of the report.
pub fn calibration(records: &[&RunRecord]) -> String {
    let mut out = String::new();
    let runs: Vec<_> = records.iter().map(|r| quantities(r)).collect();
    let rows = calibrate(&runs);
    let _ = writeln!(
        out,
        "### A/A calibration across the {} runs
",
        records.len()
    );
    if rows.is_empty() {
        let _ = writeln!(
            out,
            "Fewer than two runs share a quantity with an interval."
        );
        return out;
    }
    let pairs: usize = rows.iter().map(|r| r.pairs).sum();
    let sig: usize = rows.iter().map(|r| r.significant).sum();
    let pct = |s: usize, p: usize| 100.0 * s as f64 / p.max(1) as f64;
    let heads: Vec<&Calibrated> = rows.iter().filter(|r| headline(r.kind, &r.id)).collect();
    let worst = heads
        .iter()
        .max_by(|a, b| pct(a.significant, a.pairs).total_cmp(&pct(b.significant, b.pairs)));
    let instances: Vec<f64> = records
        .iter()
        .filter_map(|r| Some(r.summary.instances.as_ref()?.count as f64))
        .collect();
    let _ = writeln!(
        out,
        "Every pair of runs compared as two independent estimates of each quantity with an \
         interval: significant when |difference| / √(se₁² + se₂²) > 1.96, se = half-width / \
         1.96. With honest 95 % intervals about 5 % of pairs are. Instances per run: {}.\n",
        range(&instances, 0)
    );
    let _ = writeln!(
        out,
        "**{sig} of {pairs} pairs ({:.1} %) significant** over {} quantities; headline \
         quantities: {} of {} pairs ({:.1} %), the worst {}.\n",
        pct(sig, pairs),
        rows.len(),
        heads.iter().map(|r| r.significant).sum::<usize>(),
        heads.iter().map(|r| r.pairs).sum::<usize>(),
        pct(
            heads.iter().map(|r| r.significant).sum(),
            heads.iter().map(|r| r.pairs).sum()
        ),
        worst.map_or("—".into(), |w| format!(
            "`{}` {:.0} % ({} of {})",
            w.id,
            pct(w.significant, w.pairs),
            w.significant,
            w.pairs
        )),
    );
    let _ = writeln!(out, "{}", false_changes(records));
    if let Some(host) = host_speed(&rows) {
        let _ = writeln!(out, "{host}");
    }
    let _ = writeln!(
        out,
        "| quantity | headline | runs | estimate (median) | median ± | sd across runs | 1.96·sd ÷ median ± | beyond the intervals (sd) | pairs significant |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|");
    for r in &rows {
        let kind = match r.kind {
            QuantityKind::Estimate => "",
            QuantityKind::Overhead => " overhead",
            QuantityKind::Median => " median",
        };
        let _ = writeln!(
            out,
            "| `{}`{kind} | {} | {} | {} | {} | {} | {:.2} | {} | {} of {} ({:.0} %) |",
            r.id,
            if headline(r.kind, &r.id) { "yes" } else { "" },
            r.runs,
            ns(r.median),
            ns(r.median_half),
            ns(r.sd),
            r.ratio,
            beyond(r),
            r.significant,
            r.pairs,
            pct(r.significant, r.pairs)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(id: &str, v: f64, h: f64) -> (QuantityKind, String, f64, f64) {
        (QuantityKind::Overhead, id.into(), v, h)
    }

    #[test]
    fn pairs_are_significant_when_runs_differ_beyond_their_intervals() {
        // "calm": values within their intervals of each other; "narrow": the same scatter,
        // intervals ten times too narrow.
        let runs: Vec<Vec<_>> = [10.0, 10.5, 9.6, 10.2]
            .iter()
            .map(|&v| vec![q("calm", v, 1.0), q("narrow", v, 0.1)])
            .collect();
        let rows = calibrate(&runs);
        assert_eq!(rows.len(), 2);
        let narrow = &rows[0];
        assert_eq!((narrow.id.as_str(), narrow.pairs), ("narrow", 6));
        // The closest pair, 10.0 and 10.2, is 2.8 of its se apart.
        assert_eq!(narrow.significant, 6, "{narrow:?}");
        let calm = &rows[1];
        assert_eq!((calm.significant, calm.pairs), (0, 6));
        assert!((narrow.ratio / calm.ratio - 10.0).abs() < 1e-9);
        let sd = (((10.0f64 - 10.075).powi(2)
            + (10.5f64 - 10.075).powi(2)
            + (9.6f64 - 10.075).powi(2)
            + (10.2f64 - 10.075).powi(2))
            / 3.0)
            .sqrt();
        assert!((calm.sd - sd).abs() < 1e-12);
        assert!((calm.ratio - 1.96 * sd / 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_spread_beyond_the_intervals_is_what_they_leave_unexplained() {
        // Runs 0.1 apart in sd terms with intervals of ±1.96·0.05 (se 0.05): sd² − se² is
        // the extra spread; with intervals as wide as the scatter there is none.
        let vals = [10.0, 10.2, 9.8, 10.1, 9.9];
        let runs: Vec<Vec<_>> = vals
            .iter()
            .map(|&v| vec![q("narrow", v, 1.96 * 0.05), q("wide", v, 1.96 * 1.0)])
            .collect();
        let rows = calibrate(&runs);
        let narrow = rows.iter().find(|r| r.id == "narrow").unwrap();
        let wide = rows.iter().find(|r| r.id == "wide").unwrap();
        let expect = (narrow.sd * narrow.sd - 0.05f64 * 0.05).sqrt();
        assert!((narrow.beyond - expect).abs() < 1e-12, "{narrow:?}");
        assert!(narrow.beyond > 0.1, "{narrow:?}");
        assert_eq!(wide.beyond, 0.0);
    }

    #[test]
    fn the_null_loop_tells_whether_the_host_changed_speed() {
        let rows = |h: f64| {
            let runs: Vec<Vec<_>> = [0.27, 0.28, 0.27, 0.29]
                .iter()
                .map(|&v| vec![(QuantityKind::Median, "null".to_string(), v, h)])
                .collect();
            calibrate(&runs)
        };
        let moved = host_speed(&rows(0.001)).unwrap();
        assert!(moved.contains("the CPU's own speed changed"), "{moved}");
        let steady = host_speed(&rows(0.05)).unwrap();
        assert!(steady.contains("at one speed"), "{steady}");
        assert!(host_speed(&calibrate(&[
            vec![q("a", 1.0, 0.1)],
            vec![q("a", 1.0, 0.1)]
        ]))
        .is_none());
    }

    #[test]
    fn a_quantity_in_one_run_only_is_not_calibrated() {
        let runs = vec![
            vec![q("a", 1.0, 0.1), q("b", 1.0, 0.1)],
            vec![q("a", 1.0, 0.1)],
        ];
        let rows = calibrate(&runs);
        assert_eq!(rows.len(), 1);
        assert_eq!((rows[0].id.as_str(), rows[0].significant), ("a", 0));
    }
}
