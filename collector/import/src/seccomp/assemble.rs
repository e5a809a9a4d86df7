//! One seccomp_benchmark run → one record. The benchmark prints integer ns per call and
//! subtracts unsigned values, so a negative estimate appears as a huge number: it is decoded
//! (and the decoding checked against the printed value), never recorded as 1.8e19 ns.

use super::{Est, Generation, Mark, Run, Scn, EXPECTATIONS, FORMAT};
use crate::build::{overhead_vs, provenance, single, skeleton};
use crate::env::{apply_sysctl, apply_uname};
use syscost_record::{Estimate, Expectation, Relation, RunRecord, Verdict};

/// The kernel's own plausibility bound: anything above INT_MAX "went negative".
const INT_MAX: u64 = i32::MAX as u64;

fn description(s: Scn) -> &'static str {
    match s {
        Scn::Native => "getpid() with no seccomp filter",
        Scn::Bitmap1 => "getpid() under 1 constant RET_ALLOW filter (cacheable by the action bitmap since 5.11)",
        Scn::Bitmap2 => "getpid() under 2 constant RET_ALLOW filters (cacheable by the action bitmap since 5.11)",
        Scn::Full3 => "getpid() under 3 filters, the third loading args[0] (defeats the cache)",
        Scn::Full4 => "getpid() under 4 filters (nothing cached after the third)",
    }
}

fn label(e: Est) -> &'static str {
    match e {
        Est::TotalB1 => "total seccomp overhead for 1 bitmapped filter",
        Est::TotalB2 => "total seccomp overhead for 2 bitmapped filters",
        Est::TotalF3 => "total seccomp overhead for 3 full filters",
        Est::TotalF4 => "total seccomp overhead for 4 full filters",
        Est::PerFilterBitmap => "seccomp per-filter overhead",
        Est::Entry => "seccomp entry overhead",
        Est::PerFilterLast2 => "seccomp per-filter overhead (last 2 diff)",
        Est::PerFilterDiv4 => "seccomp per-filter overhead (filters / 4)",
    }
}

/// The estimate as the kernel computes it: unsigned, wrapping.
fn kernel_u64(e: Est, run: &Run) -> Option<u64> {
    let s = |x| run.scenario(x);
    let (n, b1, b2) = (s(Scn::Native), s(Scn::Bitmap1), s(Scn::Bitmap2));
    Some(match e {
        Est::TotalB1 => b1?.wrapping_sub(n?),
        Est::TotalB2 => b2?.wrapping_sub(n?),
        Est::TotalF3 => s(Scn::Full3)?.wrapping_sub(n?),
        Est::TotalF4 => s(Scn::Full4)?.wrapping_sub(n?),
        Est::PerFilterBitmap => b2?.wrapping_sub(b1?),
        Est::Entry => b1?.wrapping_sub(n?).wrapping_sub(b2?.wrapping_sub(b1?)),
        Est::PerFilterLast2 => s(Scn::Full4)?.wrapping_sub(s(Scn::Full3)?),
        Est::PerFilterDiv4 => {
            let entry = run
                .estimate(Est::Entry)
                .or_else(|| kernel_u64(Est::Entry, run))?;
            s(Scn::Full4)?.wrapping_sub(n?).wrapping_sub(entry) / 4
        }
    })
}

/// What the estimate means: the same formula in signed arithmetic (integer division
/// truncating, as the kernel's would for a positive value).
fn signed(e: Est, run: &Run) -> Option<i64> {
    let s = |x| run.scenario(x).and_then(|v| i64::try_from(v).ok());
    let (n, b1, b2) = (s(Scn::Native), s(Scn::Bitmap1), s(Scn::Bitmap2));
    Some(match e {
        Est::TotalB1 => b1? - n?,
        Est::TotalB2 => b2? - n?,
        Est::TotalF3 => s(Scn::Full3)? - n?,
        Est::TotalF4 => s(Scn::Full4)? - n?,
        Est::PerFilterBitmap => b2? - b1?,
        Est::Entry => b1? - n? - (b2? - b1?),
        Est::PerFilterLast2 => s(Scn::Full4)? - s(Scn::Full3)?,
        Est::PerFilterDiv4 => (s(Scn::Full4)? - n? - signed(Est::Entry, run)?) / 4,
    })
}

/// The printed estimate's value in ns, with a note when it had to be decoded.
fn decode(e: Est, printed: u64, run: &Run) -> (Option<f64>, Option<String>) {
    if printed <= INT_MAX {
        return (Some(printed as f64), None);
    }
    let what = format!("Estimated {} printed as {printed} ns", label(e));
    if let (Some(k), Some(v)) = (kernel_u64(e, run), signed(e, run)) {
        if k == printed {
            return (
                Some(v as f64),
                Some(format!(
                    "{what}: the benchmark subtracts unsigned numbers, so a negative result \
                     wraps around; recomputed from the scenario lines it is {v} ns, and that \
                     signed value is recorded."
                )),
            );
        }
    }
    if printed > i64::MAX as u64 {
        let v = printed as i64;
        return (
            Some(v as f64),
            Some(format!(
                "{what}: a negative number printed unsigned (wrap-around); it means {v} ns, \
                 which is recorded."
            )),
        );
    }
    (
        None,
        Some(format!(
            "{what}, which cannot be a real time and does not decode consistently; left out."
        )),
    )
}

/// Values the expectations are computed from, decoded.
struct Known {
    scn: [Option<f64>; 5],
    entry: Option<f64>,
    last2: Option<f64>,
    div4: Option<f64>,
}

impl Known {
    fn get(&self, s: Scn) -> Option<f64> {
        self.scn[s as usize]
    }

    /// Left and right operand of expectation `i`, as the kernel passes them to compare().
    fn operands(&self, i: usize) -> Option<(f64, f64)> {
        let n = self.get(Scn::Native);
        let b1 = self.get(Scn::Bitmap1);
        let b2 = self.get(Scn::Bitmap2);
        Some(match i {
            0 => (n?, b1?),
            1 => (n?, self.get(Scn::Full3)?),
            2 => (self.last2?, self.div4?),
            3 => (b1? - n?, b2? - n?),
            4 => (self.entry?, b1? - n?),
            5 => (self.entry?, b2? - n?),
            _ => (n? + self.entry? + 4.0 * self.last2?, self.get(Scn::Full4)?),
        })
    }
}

/// The kernel's rule: `≤` plainly; `≈` when the larger is within the smaller plus
/// max(smaller / divisor, 2) — divisor 100 (1 %) before 2024, 10 (10 %) since.
fn tolerance(i: usize, lhs: f64, rhs: f64, divisor: f64) -> f64 {
    if i < 2 {
        0.0
    } else {
        (lhs.min(rhs) / divisor).max(2.0)
    }
}

fn kernel_rule(i: usize, lhs: f64, rhs: f64, divisor: f64) -> Verdict {
    let ok = if i < 2 {
        lhs <= rhs
    } else {
        (lhs - rhs).abs() <= tolerance(i, lhs, rhs, divisor)
    };
    if ok {
        Verdict::Pass
    } else {
        Verdict::Fail
    }
}

/// The log's own verdict for expectation `i`: the KTAP line, else the printed mark.
fn logged_verdict(run: &Run, i: usize) -> Option<Verdict> {
    run.ktap_results[i].or(match run.compares[i].as_ref().map(|c| c.mark) {
        Some(Mark::Pass) => Some(Verdict::Pass),
        Some(Mark::Fail | Mark::Negative) => Some(Verdict::Fail),
        _ => None,
    })
}

/// The ≈ rule's divisor: this generation's (KTAP 10 %, plain text 1 %), unless the log's own
/// ≈ verdicts contradict it and fit the other one.
fn approx_divisor(run: &Run) -> (f64, Option<String>) {
    let default = if run.ktap { 10.0 } else { 100.0 };
    let fits = |divisor: f64| {
        (2..7).all(
            |i| match (run.compares[i].as_ref(), logged_verdict(run, i)) {
                (Some(c), Some(v @ (Verdict::Pass | Verdict::Fail)))
                    if c.lhs.unsigned_abs() <= INT_MAX && c.rhs.unsigned_abs() <= INT_MAX =>
                {
                    kernel_rule(i, c.lhs as f64, c.rhs as f64, divisor) == v
                }
                _ => true,
            },
        )
    };
    let other = if run.ktap { 100.0 } else { 10.0 };
    if !fits(default) && fits(other) {
        let note = format!(
            "The log's own ≈ verdicts fit the {} % rule, not the {} % this output generation \
             usually has; tolerance_ns uses {} %.",
            100.0 / other,
            100.0 / default,
            100.0 / other
        );
        return (other, Some(note));
    }
    (default, None)
}

pub fn record(run: &Run, repairs: &[String]) -> RunRecord {
    let mut r = skeleton(FORMAT, "getpid");
    let mut notes = Vec::new();

    if let Some(u) = &run.uname {
        apply_uname(&mut r, u);
    }
    for (k, v) in &run.sysctls {
        apply_sysctl(&mut r, k, v);
    }
    for e in &run.sysctl_errors {
        notes.push(format!("The log says about the BPF sysctls: \"{e}\"."));
    }
    r.settings.cpu = run.cpu;
    let other = &mut r.environment.incidental.other;
    if let Some(n) = run.cpus {
        other.insert("cpus (as the benchmark counts them)".into(), n.to_string());
    }
    if let Some(s) = &run.calibration_s {
        other.insert("calibration seconds".into(), s.clone());
    }
    if let Some(t) = &run.totals {
        other.insert("ktap totals".into(), t.clone());
    }
    if let Some((ok, directive)) = &run.runner {
        let verdict = if *ok { "ok" } else { "not ok" };
        other.insert(
            "kselftest result".into(),
            format!("{verdict} {directive}").trim().to_string(),
        );
        if !ok {
            notes.push(format!(
                "The kselftest runner reported seccomp_benchmark as not ok {directive}."
            ));
        }
    }
    other.insert(
        "output generation".into(),
        match (run.ktap, run.generation) {
            (true, _) => "KTAP (2024 on)",
            (false, Some(Generation::OneFilter)) => "plain text, one RET_ALLOW filter",
            (false, Some(Generation::TwoFilters)) => "plain text, 1 and 2 RET_ALLOW filters",
            _ => "plain text, bitmap/full scenarios (late 2020 to 2023)",
        }
        .into(),
    );

    // Scenarios.
    let native = run.scenario(Scn::Native).map(|v| v as f64);
    let mut all_timed = true;
    let mut timed_ns: u64 = 0;
    for (scn, log_label, v, timing) in &run.scenarios {
        if r.results.iter().any(|x| x.id == scn.id()) {
            notes.push(format!(
                "The run prints {} twice; the first value is recorded.",
                scn.id()
            ));
            continue;
        }
        let family = if *scn == Scn::Native {
            "baseline"
        } else {
            "seccomp"
        };
        let mut res = single(scn.id(), family, description(*scn), *v as f64);
        res.iters_per_sample = run.iterations;
        res.params
            .insert("kernel label".into(), format!("getpid {log_label}"));
        if *scn != Scn::Native {
            res.params
                .insert("filters".into(), (*scn as usize).to_string());
            if let Some(n) = native {
                res.overhead = overhead_vs("native", n, *v as f64);
            }
        }
        match timing {
            Some(t) => {
                res.params.insert("timed loop ns".into(), t.to_string());
                timed_ns = timed_ns.saturating_add(*t);
            }
            None => all_timed = false,
        }
        r.results.push(res);
    }
    if all_timed && timed_ns > 0 {
        r.summary.duration_s = timed_ns as f64 / 1e9;
        notes.push(
            "summary.duration_s is the sum of the timed loops the log prints (process CPU \
             time; calibration and setup not included)."
                .into(),
        );
    }
    if matches!(
        run.generation,
        Some(Generation::OneFilter | Generation::TwoFilters)
    ) {
        notes.push(
            "This generation of seccomp_benchmark predates the bitmap/full scenarios: its \
             constant RET_ALLOW filters are recorded as seccomp.bitmap.N (cached only on \
             kernels since 5.11)."
                .into(),
        );
    }

    // Estimates.
    let mut known = Known {
        scn: Scn::ALL.map(|s| run.scenario(s).map(|v| v as f64)),
        entry: signed(Est::Entry, run).map(|v| v as f64),
        last2: signed(Est::PerFilterLast2, run).map(|v| v as f64),
        div4: signed(Est::PerFilterDiv4, run).map(|v| v as f64),
    };
    for (est, _, printed) in &run.estimates {
        if r.estimates.iter().any(|x| x.id == est.id()) {
            continue;
        }
        let (value, note) = decode(*est, *printed, run);
        notes.extend(note);
        let Some(v) = value else { continue };
        match est {
            Est::Entry => known.entry = Some(v),
            Est::PerFilterLast2 => known.last2 = Some(v),
            Est::PerFilterDiv4 => known.div4 = Some(v),
            _ => {}
        }
        r.estimates.push(Estimate {
            id: est.id().into(),
            label: label(*est).into(),
            formula: est.formula().into(),
            median_ns: v,
            ci_low_ns: None,
            ci_high_ns: None,
            samples: 1,
        });
    }

    // Expectations.
    let (divisor, rule_note) = approx_divisor(run);
    notes.extend(rule_note);
    for (i, (id, lhs_label, op, rhs_label)) in EXPECTATIONS.iter().enumerate() {
        let compare = run.compares[i].as_ref();
        let ktap = run.ktap_results[i];
        if compare.is_none() && ktap.is_none() {
            continue;
        }
        let label = format!("{lhs_label} {op} {rhs_label}");
        let printed =
            compare.filter(|c| c.lhs.unsigned_abs() <= INT_MAX && c.rhs.unsigned_abs() <= INT_MAX);
        let (lhs, rhs) = match (printed, known.operands(i)) {
            (Some(c), _) => (c.lhs as f64, c.rhs as f64),
            (None, Some(ops)) => {
                if let Some(c) = compare {
                    notes.push(format!(
                        "Expectation \"{label}\" printed ({} {op} {}), a wrapped-around \
                         negative value; its operands are recorded from the decoded values.",
                        c.lhs, c.rhs
                    ));
                }
                ops
            }
            (None, None) => {
                notes.push(format!(
                    "Expectation \"{label}\" is reported but the log has no values for it; \
                     left out."
                ));
                continue;
            }
        };
        let from_mark = match compare.map(|c| c.mark) {
            Some(Mark::Pass) => Some(Verdict::Pass),
            Some(Mark::Fail | Mark::Negative) => Some(Verdict::Fail),
            _ => None,
        };
        if let (Some(k), Some(m)) = (ktap, from_mark) {
            if k != m {
                notes.push(format!(
                    "Expectation \"{label}\": the KTAP result ({k:?}) and the printed mark \
                     ({m:?}) disagree; the KTAP result is recorded."
                ));
            }
        }
        let kernel_verdict = match ktap.or(from_mark) {
            Some(v) => v,
            None => {
                let v = kernel_rule(i, lhs, rhs, divisor);
                notes.push(format!(
                    "Expectation \"{label}\": the log ends before the benchmark's verdict; \
                     kernel_verdict is the kernel's rule applied to the printed values."
                ));
                v
            }
        };
        r.expectations.push(Expectation {
            id: (*id).into(),
            label,
            relation: if i < 2 {
                Relation::Le
            } else {
                Relation::Approx
            },
            lhs_ns: lhs,
            rhs_ns: rhs,
            diff_median_ns: Some(lhs - rhs),
            diff_ci_low_ns: None,
            diff_ci_high_ns: None,
            tolerance_ns: tolerance(i, lhs, rhs, divisor),
            systematic_ns: None,
            verdict: Verdict::Inconclusive,
            kernel_verdict,
        });
    }

    notes.extend(
        run.said
            .iter()
            .map(|s| format!("The benchmark said: \"{s}\"")),
    );
    notes.extend(missing(run));

    let mut head = vec![format!(
        "seccomp_benchmark timed each scenario once{}, printing integer ns per call: single \
         measurements, so no confidence intervals.",
        run.iterations
            .map(|n| format!(" ({n} calls)"))
            .unwrap_or_default()
    )];
    if !r.expectations.is_empty() {
        head.push(format!(
            "Every verdict is inconclusive: one measurement per scenario gives no interval to \
             judge on. kernel_verdict is the benchmark's own ({}); tolerance_ns is its rule for \
             ≈, max({} % of the smaller, 2 ns).",
            if run.ktap {
                "KTAP ok / not ok / SKIP"
            } else {
                "✔️ / ❌"
            },
            if run.ktap { 10 } else { 1 }
        ));
    }
    head.extend(notes);
    r.notes = head;
    provenance(&mut r, run.first, run.last, repairs);
    r
}

/// What a complete run of this generation prints and this one does not.
fn missing(run: &Run) -> Option<String> {
    let Some(generation) = run.generation else {
        return Some(
            "Incomplete log (truncated?): it shows only the native scenario, and which \
             benchmark generation printed it cannot be told."
                .into(),
        );
    };
    let mut absent: Vec<&str> = Vec::new();
    let scns: &[Scn] = match generation {
        Generation::OneFilter => &[Scn::Native, Scn::Bitmap1],
        Generation::TwoFilters => &[Scn::Native, Scn::Bitmap1, Scn::Bitmap2],
        Generation::Bitmap => &Scn::ALL,
    };
    absent.extend(
        scns.iter()
            .filter(|s| run.scenario(**s).is_none())
            .map(|s| s.id()),
    );
    let ests: &[Est] = match generation {
        Generation::OneFilter => &[Est::TotalB1],
        Generation::TwoFilters => &[Est::TotalB1, Est::TotalB2, Est::PerFilterBitmap, Est::Entry],
        Generation::Bitmap => &[
            Est::TotalB1,
            Est::TotalB2,
            Est::TotalF3,
            Est::TotalF4,
            Est::Entry,
            Est::PerFilterLast2,
            Est::PerFilterDiv4,
        ],
    };
    let est_absent: Vec<&str> = ests
        .iter()
        .filter(|e| run.estimate(**e).is_none())
        .map(|e| e.id())
        .collect();
    if est_absent.len() == ests.len() {
        absent.push("all estimates");
    } else {
        absent.extend(est_absent.iter().copied());
    }
    if generation == Generation::Bitmap {
        let failed = |i: usize| {
            matches!(
                run.compares[i].as_ref().map(|c| c.mark),
                Some(Mark::Fail | Mark::Negative)
            )
        };
        // The plain-text benchmark stops comparing after these two fail; KTAP prints SKIPs.
        let expected = if run.ktap {
            7
        } else if failed(1) {
            2
        } else if failed(3) {
            4
        } else {
            7
        };
        let exp_absent: Vec<&str> = (0..expected)
            .filter(|&i| run.compares[i].is_none() && run.ktap_results[i].is_none())
            .map(|i| EXPECTATIONS[i].0)
            .collect();
        if exp_absent.len() == 7 {
            absent.push("all expectations");
        } else {
            absent.extend(exp_absent);
        }
        if run.ktap && run.totals.is_none() {
            absent.push("the KTAP Totals line");
        }
    }
    (!absent.is_empty()).then(|| {
        format!(
            "Incomplete log (truncated?), missing: {}. Only what it shows is recorded.",
            absent.join(", ")
        )
    })
}
