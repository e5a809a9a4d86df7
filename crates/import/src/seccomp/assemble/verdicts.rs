//! The run's expectations: the printed comparisons, the kernel's own rule applied to them, and
//! the ≈ rule's divisor the log's verdicts fit.

use super::*;

/// The kernel's rule: `≤` plainly; `≈` when the larger is within the smaller plus
/// max(smaller / divisor, 2) — divisor 100 (1 %) before 2024, 10 (10 %) since.
pub(super) fn tolerance(e: KernelExpectation, lhs: f64, rhs: f64, divisor: f64) -> f64 {
    match e.relation() {
        Relation::Le => 0.0,
        Relation::Approx => (lhs.min(rhs) / divisor).max(2.0),
    }
}

pub(super) fn kernel_rule(e: KernelExpectation, lhs: f64, rhs: f64, divisor: f64) -> Verdict {
    let ok = match e.relation() {
        Relation::Le => lhs <= rhs,
        Relation::Approx => (lhs - rhs).abs() <= tolerance(e, lhs, rhs, divisor),
    };
    if ok {
        Verdict::Pass
    } else {
        Verdict::Fail
    }
}

/// A comparison whose printed values are real times, not wrapped-around negatives.
fn unwrapped(c: &Compare) -> bool {
    c.lhs.unsigned_abs() <= INT_MAX && c.rhs.unsigned_abs() <= INT_MAX
}

/// The ≈ rule's divisor: this generation's (10 % since the benchmark pins itself, 1 % before),
/// unless the log's own ≈ verdicts contradict it and fit the other one.
pub(super) fn approx_divisor(run: &Run) -> (f64, Option<String>) {
    let default = if run.pinning { 10.0 } else { 100.0 };
    let fits = |divisor: f64| {
        KernelExpectation::ALL
            .into_iter()
            .filter(|e| e.relation() == Relation::Approx)
            .all(|e| match (run.compares.get(e), run.logged_verdict(e)) {
                (Some(c), Some(v @ (Verdict::Pass | Verdict::Fail))) if unwrapped(c) => {
                    kernel_rule(e, c.lhs as f64, c.rhs as f64, divisor) == v
                }
                _ => true,
            })
    };
    let other = if run.pinning { 100.0 } else { 10.0 };
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

/// Every expectation the log reports and has values for.
pub(super) fn expectations(
    run: &Run,
    known: &Known,
    divisor: f64,
    notes: &mut Vec<String>,
) -> Vec<Expectation> {
    KernelExpectation::ALL
        .into_iter()
        .filter_map(|e| expectation(run, e, known, divisor, notes))
        .collect()
}

fn expectation(
    run: &Run,
    e: KernelExpectation,
    known: &Known,
    divisor: f64,
    notes: &mut Vec<String>,
) -> Option<Expectation> {
    if run.compares.get(e).is_none() && run.ktap_results.get(e).is_none() {
        return None;
    }
    let (lhs, rhs) = operands(run, e, known, notes)?;
    let kernel_verdict = kernel_verdict(run, e, (lhs, rhs), divisor, notes);
    Some(Expectation {
        id: e.id().into(),
        label: e.label().into(),
        relation: e.relation(),
        lhs_ns: lhs,
        rhs_ns: rhs,
        diff_median_ns: Some(lhs - rhs),
        diff_ci_low_ns: None,
        diff_ci_high_ns: None,
        tolerance_ns: tolerance(e, lhs, rhs, divisor),
        systematic_ns: None,
        verdict: Verdict::Inconclusive,
        kernel_verdict,
    })
}

/// The operands as printed; when they wrapped around (or were not printed), as computed from
/// the decoded values. None, said in `notes`, when there are neither.
fn operands(
    run: &Run,
    e: KernelExpectation,
    known: &Known,
    notes: &mut Vec<String>,
) -> Option<(f64, f64)> {
    let compare = run.compares.get(e);
    if let Some(c) = compare.filter(|c| unwrapped(c)) {
        return Some((c.lhs as f64, c.rhs as f64));
    }
    let label = e.label();
    match known.operands(e) {
        Some(ops) => {
            if let Some(c) = compare {
                notes.push(format!(
                    "Expectation \"{label}\" printed ({} {} {}), a wrapped-around negative \
                     value; its operands are recorded from the decoded values.",
                    c.lhs,
                    operator(e.relation()),
                    c.rhs
                ));
            }
            Some(ops)
        }
        None => {
            notes.push(format!(
                "Expectation \"{label}\" is reported but the log has no values for it; left \
                 out."
            ));
            None
        }
    }
}

/// The benchmark's verdict: its KTAP line, else its printed mark, else (said in `notes`) its
/// rule applied to the operands.
fn kernel_verdict(
    run: &Run,
    e: KernelExpectation,
    (lhs, rhs): (f64, f64),
    divisor: f64,
    notes: &mut Vec<String>,
) -> Verdict {
    let label = e.label();
    let ktap = run.ktap_results.get(e).copied();
    let from_mark = run.compares.get(e).and_then(|c| c.mark.verdict());
    if let (Some(k), Some(m)) = (ktap, from_mark) {
        if k != m {
            notes.push(format!(
                "Expectation \"{label}\": the KTAP result ({k:?}) and the printed mark ({m:?}) \
                 disagree; the KTAP result is recorded."
            ));
        }
    }
    ktap.or(from_mark).unwrap_or_else(|| {
        notes.push(format!(
            "Expectation \"{label}\": the log ends before the benchmark's verdict; \
             kernel_verdict is the kernel's rule applied to the printed values."
        ));
        kernel_rule(e, lhs, rhs, divisor)
    })
}
