//! Whether a run's intervals hold on a rerun: every pair of runs compared as two independent
//! estimates of each quantity (with honest 95 % intervals about 5 % of pairs differ
//! "significantly"), the spread between runs beyond the intervals, what the `null` loop says of
//! the host's speed, and how often `syscost compare` calls a change between runs of one binary,
//! single or pooled.

use super::range;
use crate::compare::{self, pool::pool, Options, Side};
use crate::stats;
use std::fmt::Write as _;
use syscost_record::{QuantityKind, RunRecord, Status};

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
             runs (sd), which its intervals covered ({:.1}): what the CPU's speed did \
             between runs, each run saw within itself.\n",
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
        assert!(steady.contains("each run saw within itself"), "{steady}");
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
