//! One seccomp_benchmark run → one record. The benchmark prints integer ns per call and
//! subtracts unsigned values, so a negative estimate appears as a huge number: it is decoded
//! (and the decoding checked against the printed value), never recorded as 1.8e19 ns.

use super::read::{
    expectation_index, operator, scenario_index, Compare, Est, Generation, Mark, Run, ScenarioLine,
};
mod verdicts;

use crate::env::{apply_sysctl, apply_uname};
use crate::format::Format;
use crate::parsed::{overhead_vs, provenance, single, skeleton};
use syscost_record::{
    Estimate, EstimateId, EstimateOrigin, Expectation, KernelExpectation, KernelScenario,
    RecordBuilder, Relation, RunRecord, ScenarioResult, Verdict,
};
use verdicts::{approx_divisor, expectations};

/// The kernel's own plausibility bound: anything above INT_MAX "went negative".
const INT_MAX: u64 = i32::MAX as u64;

/// The record of a run that holds a result. Its notes open with what the benchmark measured,
/// then say what had to be decoded or was missing, in the order the parts are assembled.
pub fn record(run: &Run, repairs: &[String]) -> RecordBuilder {
    let mut notes = Vec::new();
    let mut b = skeleton(Format::KselftestSeccomp, "getpid");
    machine(b.record_mut(), run, &mut notes);
    run_facts(b.record_mut(), run, &mut notes);
    let results = scenarios(run, &mut notes);
    notes.extend(generation_note(run));
    let (estimates, known) = estimates(run, &mut notes);
    let (divisor, rule_note) = approx_divisor(run);
    notes.extend(rule_note);
    let expectations = expectations(run, &known, divisor, &mut notes);
    notes.extend(
        run.said
            .iter()
            .map(|s| format!("The benchmark said: \"{s}\"")),
    );
    notes.extend(crate::parsed::refused_notes(&run.refused));
    notes.extend(missing(run));
    let b = b
        .notes(head(run, !expectations.is_empty(), divisor))
        .notes(notes)
        .results(results)
        .estimates(estimates)
        .expectations(expectations);
    provenance(b, run.first, run.last, repairs)
}

/// The machine the log describes: `uname -a`, the BPF sysctls, the CPU the benchmark pinned
/// itself to.
fn machine(r: &mut RunRecord, run: &Run, notes: &mut Vec<String>) {
    if let Some(u) = &run.uname {
        notes.extend(apply_uname(r, u));
    }
    for (k, v) in &run.sysctls {
        apply_sysctl(r, k, v);
    }
    if run.sysctls_before_header {
        notes.push(
            "The sysctl values come before their \"Current BPF sysctl settings:\" header, as in \
             captured output (system() writes at once, the benchmark's own stdout is buffered); \
             they are read as this run's."
                .into(),
        );
    }
    for e in &run.sysctl_errors {
        notes.push(format!("The log says about the BPF sysctls: \"{e}\"."));
    }
    if let Some((n, of)) = run.pinned {
        // The benchmark prints cpu + 1: a position, not the CPU's index.
        let of_text = of.map(|m| format!(" of {m}")).unwrap_or_default();
        r.environment
            .incidental
            .other
            .insert("pinned (as printed)".into(), format!("CPU {n}{of_text}"));
        match n.checked_sub(1) {
            Some(cpu) => {
                r.settings.cpu = Some(cpu);
                notes.push(format!(
                    "\"Pinned to CPU {n}{of_text}\" counts from 1 (the benchmark prints its CPU \
                     index + 1): settings.cpu is CPU {cpu}."
                ));
            }
            None => notes.push(format!(
                "\"Pinned to CPU {n}{of_text}\" cannot be a 1-based position; settings.cpu is \
                 not recorded."
            )),
        }
    }
}

/// What the benchmark and the kselftest runner said about the run itself, kept as incidental
/// facts.
fn run_facts(r: &mut RunRecord, run: &Run, notes: &mut Vec<String>) {
    let other = &mut r.environment.incidental.other;
    if let Some(n) = run.pinned.and_then(|p| p.1) {
        other.insert("cpus (as the benchmark counts them)".into(), n.to_string());
    }
    if let Some(s) = &run.calibration_s {
        other.insert("calibration seconds".into(), s.clone());
    }
    if let Some(t) = &run.totals {
        other.insert("ktap totals".into(), t.clone());
    }
    run.runner.record("seccomp_benchmark", other, notes);
    other.insert("output generation".into(), generation_label(run).into());
}

/// Which version of the benchmark printed the run, from what the benchmark itself printed:
/// its own KTAP lines (plan, `ok N`, Totals; early 2024) and its "Pinned to CPU" line (the
/// 2024 patch that also loosened ≈ from 1 % to 10 %) — never from `# ` prefixes, which the
/// kselftest runner adds to any output.
fn generation_label(run: &Run) -> &'static str {
    match (run.pinning, run.ktap, run.generation) {
        (true, true, _) => "KTAP, pinned to one CPU (2024 on)",
        (true, false, _) => "pinned to one CPU (2024 on)",
        (false, true, _) => "KTAP, before CPU pinning (early 2024)",
        (false, false, Some(Generation::OneFilter)) => "plain text, one RET_ALLOW filter",
        (false, false, Some(Generation::TwoFilters)) => "plain text, 1 and 2 RET_ALLOW filters",
        _ => "plain text, bitmap/full scenarios (late 2020 to 2023)",
    }
}

/// The summary sentences that open the record's notes.
fn head(run: &Run, has_expectations: bool, divisor: f64) -> Vec<String> {
    let mut head = vec![format!(
        "seccomp_benchmark timed each scenario once{}, printing integer ns per call: single \
         measurements, so no confidence intervals.",
        run.iterations
            .map(|n| format!(" ({n} calls)"))
            .unwrap_or_default()
    )];
    if has_expectations {
        head.push(format!(
            "Every verdict is inconclusive: one measurement per scenario gives no interval to \
             judge on. kernel_verdict is the benchmark's own ({}); tolerance_ns is its rule for \
             ≈, max({} % of the smaller, 2 ns).",
            if run.ktap {
                "KTAP ok / not ok / SKIP"
            } else {
                "✔️ / ❌"
            },
            100.0 / divisor
        ));
    }
    head
}

fn description(s: KernelScenario) -> &'static str {
    match s {
        KernelScenario::Native => "getpid() with no seccomp filter",
        KernelScenario::Bitmap1 => "getpid() under 1 constant RET_ALLOW filter (cacheable by the action bitmap since 5.11)",
        KernelScenario::Bitmap2 => "getpid() under 2 constant RET_ALLOW filters (cacheable by the action bitmap since 5.11)",
        KernelScenario::Full3 => "getpid() under 3 filters, the third loading args[0] (defeats the cache)",
        KernelScenario::Full4 => "getpid() under 4 filters (nothing cached after the third)",
    }
}

/// One result per scenario (the first value when the log prints one twice). The run's wall
/// time is not printed (each scenario's timed loop is, in process CPU time: kept in its
/// params), so `summary.duration_s` stays absent.
fn scenarios(run: &Run, notes: &mut Vec<String>) -> Vec<ScenarioResult> {
    let native = run.scenario(KernelScenario::Native).map(|v| v as f64);
    let mut results: Vec<ScenarioResult> = Vec::new();
    for line in &run.scenarios {
        let id = line.scenario.id();
        if results.iter().any(|x| x.id == id) {
            notes.push(format!(
                "The run prints {id} twice; the first value is recorded."
            ));
            continue;
        }
        results.push(scenario_result(run, line, native));
    }
    results
}

fn scenario_result(run: &Run, line: &ScenarioLine, native: Option<f64>) -> ScenarioResult {
    let scn = line.scenario;
    let ns = line.ns as f64;
    let family = if scn == KernelScenario::Native {
        "baseline"
    } else {
        "seccomp"
    };
    let mut res = single(scn.id(), family, description(scn), ns);
    res.iters_per_sample = run.iterations;
    res.params
        .insert("kernel label".into(), format!("getpid {}", line.label));
    if scn != KernelScenario::Native {
        // The scenarios stack one filter each.
        res.params
            .insert("filters".into(), scenario_index(scn).to_string());
        if let Some(n) = native {
            res.overhead = overhead_vs("native", n, ns);
        }
    }
    if let Some(t) = line.timed_ns {
        res.params.insert("timed loop ns".into(), t.to_string());
    }
    res
}

fn generation_note(run: &Run) -> Option<String> {
    matches!(
        run.generation,
        Some(Generation::OneFilter | Generation::TwoFilters)
    )
    .then(|| {
        "This generation of seccomp_benchmark predates the bitmap/full scenarios: its \
         constant RET_ALLOW filters are recorded as seccomp.bitmap.N (cached only on \
         kernels since 5.11)."
            .into()
    })
}

/// How an estimate is computed, in scenario ids.
pub(super) fn formula(e: Est) -> &'static str {
    use EstimateId::*;
    match e {
        Est::Kernel(TotalBitmap1) => "seccomp.bitmap.1 − native",
        Est::Kernel(TotalBitmap2) => "seccomp.bitmap.2 − native",
        Est::Kernel(TotalFull3) => "seccomp.full.3 − native",
        Est::Kernel(TotalFull4) => "seccomp.full.4 − native",
        Est::BitmapDiff => "seccomp.bitmap.2 − seccomp.bitmap.1",
        Est::Kernel(Entry) => "seccomp.bitmap.1 − native − (seccomp.bitmap.2 − seccomp.bitmap.1)",
        Est::Kernel(PerFilterLast2) => "seccomp.full.4 − seccomp.full.3",
        Est::Kernel(PerFilterDiv4) => "(seccomp.full.4 − native − entry) / 4",
        // The depth fit is the collector's; the benchmark never prints it.
        Est::Kernel(DepthPerFilter | DepthEntry) => "",
    }
}

/// The estimate as the kernel computes it: unsigned, wrapping.
pub(super) fn kernel_u64(e: Est, run: &Run) -> Option<u64> {
    use EstimateId::*;
    use KernelScenario::{Bitmap1, Bitmap2, Full3, Full4, Native};
    let s = |x| run.scenario(x);
    let (n, b1, b2) = (s(Native), s(Bitmap1), s(Bitmap2));
    Some(match e {
        Est::Kernel(TotalBitmap1) => b1?.wrapping_sub(n?),
        Est::Kernel(TotalBitmap2) => b2?.wrapping_sub(n?),
        Est::Kernel(TotalFull3) => s(Full3)?.wrapping_sub(n?),
        Est::Kernel(TotalFull4) => s(Full4)?.wrapping_sub(n?),
        Est::BitmapDiff => b2?.wrapping_sub(b1?),
        Est::Kernel(Entry) => b1?.wrapping_sub(n?).wrapping_sub(b2?.wrapping_sub(b1?)),
        Est::Kernel(PerFilterLast2) => s(Full4)?.wrapping_sub(s(Full3)?),
        Est::Kernel(PerFilterDiv4) => {
            let entry = run
                .estimate(Est::Kernel(Entry))
                .or_else(|| kernel_u64(Est::Kernel(Entry), run))?;
            s(Full4)?.wrapping_sub(n?).wrapping_sub(entry) / 4
        }
        Est::Kernel(DepthPerFilter | DepthEntry) => return None,
    })
}

/// What the estimate means: the same formula in signed arithmetic (integer division
/// truncating, as the kernel's would for a positive value).
fn signed(e: Est, run: &Run) -> Option<i64> {
    use EstimateId::*;
    use KernelScenario::{Bitmap1, Bitmap2, Full3, Full4, Native};
    let s = |x| run.scenario(x).and_then(|v| i64::try_from(v).ok());
    let (n, b1, b2) = (s(Native), s(Bitmap1), s(Bitmap2));
    Some(match e {
        Est::Kernel(TotalBitmap1) => b1? - n?,
        Est::Kernel(TotalBitmap2) => b2? - n?,
        Est::Kernel(TotalFull3) => s(Full3)? - n?,
        Est::Kernel(TotalFull4) => s(Full4)? - n?,
        Est::BitmapDiff => b2? - b1?,
        Est::Kernel(Entry) => b1? - n? - (b2? - b1?),
        Est::Kernel(PerFilterLast2) => s(Full4)? - s(Full3)?,
        Est::Kernel(PerFilterDiv4) => (s(Full4)? - n? - signed(Est::Kernel(Entry), run)?) / 4,
        Est::Kernel(DepthPerFilter | DepthEntry) => return None,
    })
}

/// The printed estimate's value in ns, with a note when it had to be decoded.
fn decode(e: Est, printed: u64, run: &Run) -> (Option<f64>, Option<String>) {
    if printed <= INT_MAX {
        return (Some(printed as f64), None);
    }
    let what = format!("Estimated {} printed as {printed} ns", e.label());
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
    /// What the scenario lines give, before any estimate is read.
    fn from_scenarios(run: &Run) -> Known {
        let signed_f64 = |e| signed(Est::Kernel(e), run).map(|v| v as f64);
        Known {
            scn: KernelScenario::ALL.map(|s| run.scenario(s).map(|v| v as f64)),
            entry: signed_f64(EstimateId::Entry),
            last2: signed_f64(EstimateId::PerFilterLast2),
            div4: signed_f64(EstimateId::PerFilterDiv4),
        }
    }

    fn get(&self, s: KernelScenario) -> Option<f64> {
        self.scn[scenario_index(s)]
    }

    /// Left and right operand of an expectation, as the kernel passes them to compare().
    fn operands(&self, e: KernelExpectation) -> Option<(f64, f64)> {
        use KernelExpectation::*;
        use KernelScenario::{Bitmap1, Bitmap2, Full3, Full4, Native};
        let n = self.get(Native);
        let b1 = self.get(Bitmap1);
        let b2 = self.get(Bitmap2);
        Some(match e {
            NativeLeBitmap1 => (n?, b1?),
            NativeLeFilter1 => (n?, self.get(Full3)?),
            PerFilterApprox => (self.last2?, self.div4?),
            Bitmap1ApproxBitmap2 => (b1? - n?, b2? - n?),
            EntryApproxBitmap1 => (self.entry?, b1? - n?),
            EntryApproxBitmap2 => (self.entry?, b2? - n?),
            TotalApproxFull4 => (n? + self.entry? + 4.0 * self.last2?, self.get(Full4)?),
        })
    }
}

fn estimate(e: Est, v: f64, origin: EstimateOrigin) -> Estimate {
    Estimate {
        id: e.id().into(),
        label: e.label().into(),
        formula: formula(e).into(),
        median_ns: v,
        ci_low_ns: None,
        ci_high_ns: None,
        samples: 1,
        origin: Some(origin),
    }
}

/// The printed estimates (each id once, decoded), those the benchmark stopped before printing
/// (recomputed with its formulas from the scenario lines), and the values the expectations
/// need: the decoded estimates where printed, else recomputed from the scenarios.
fn estimates(run: &Run, notes: &mut Vec<String>) -> (Vec<Estimate>, Known) {
    let mut known = Known::from_scenarios(run);
    let mut out: Vec<Estimate> = Vec::new();
    for (est, _, printed, _) in &run.estimates {
        if out.iter().any(|x| x.id == est.id()) {
            continue;
        }
        let (value, note) = decode(*est, *printed, run);
        notes.extend(note);
        let Some(v) = value else { continue };
        match est {
            Est::Kernel(EstimateId::Entry) => known.entry = Some(v),
            Est::Kernel(EstimateId::PerFilterLast2) => known.last2 = Some(v),
            Est::Kernel(EstimateId::PerFilterDiv4) => known.div4 = Some(v),
            _ => {}
        }
        let origin = if *printed > INT_MAX {
            EstimateOrigin::Decoded
        } else {
            EstimateOrigin::Printed
        };
        out.push(estimate(*est, v, origin));
    }
    out.extend(recomputed(run, &out, notes));
    (out, known)
}

/// Whether the 2020–2023 benchmark stopped after its last printed estimate went negative
/// (later generations go on and print SKIPs).
fn stopped_at_negative(run: &Run) -> bool {
    run.generation == Some(Generation::Bitmap)
        && !run.pinning
        && !run.ktap
        && run
            .estimates
            .last()
            .is_some_and(|(_, _, v, _)| *v > INT_MAX)
}

/// The 2020–2023 benchmark stops printing estimates at the first one that went negative (it
/// jumps to "Saw unexpected benchmark result"); the rest follow from the scenario lines it did
/// print, by its own formulas. Later generations print all seven, so nothing is recomputed
/// there — nor for a log that is merely cut short.
fn recomputed(run: &Run, printed: &[Estimate], notes: &mut Vec<String>) -> Vec<Estimate> {
    if !stopped_at_negative(run) {
        return Vec::new();
    }
    let out: Vec<Estimate> = EstimateId::KERNEL
        .into_iter()
        .map(Est::Kernel)
        .filter(|e| !printed.iter().any(|p| p.id == e.id()))
        .filter_map(|e| {
            Some(estimate(
                e,
                signed(e, run)? as f64,
                EstimateOrigin::Recomputed,
            ))
        })
        .collect();
    if !out.is_empty() {
        let ids: Vec<&str> = out.iter().map(|e| e.id.as_str()).collect();
        let (last, label, _, _) = &run.estimates[run.estimates.len() - 1];
        notes.push(format!(
            "The benchmark stopped printing estimates after \"{label}\" went negative \
             ({}); {} are computed here with its formulas from the scenario lines it printed \
             (origin: recomputed). It printed no expectations for this run.",
            last.id(),
            ids.join(", ")
        ));
    }
    out
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
    let mut absent = missing_scenarios(run, generation);
    if run.scenarios.is_empty() {
        return Some(format!(
            "A fragment: the log shows only estimates, none of the scenario lines they come \
             from ({}).",
            absent.join(", ")
        ));
    }
    if stopped_at_negative(run) {
        // What follows the stop is never printed: nothing is missing after it.
        return (!absent.is_empty()).then(|| {
            format!(
                "Incomplete log (truncated?), missing: {}. Only what it shows is recorded.",
                absent.join(", ")
            )
        });
    }
    absent.extend(missing_estimates(run, generation));
    if generation == Generation::Bitmap {
        absent.extend(missing_expectations(run));
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

fn missing_scenarios(run: &Run, generation: Generation) -> Vec<&'static str> {
    use KernelScenario::{Bitmap1, Bitmap2, Native};
    let scns: &[KernelScenario] = match generation {
        Generation::OneFilter => &[Native, Bitmap1],
        Generation::TwoFilters => &[Native, Bitmap1, Bitmap2],
        Generation::Bitmap => &KernelScenario::ALL,
    };
    scns.iter()
        .filter(|s| run.scenario(**s).is_none())
        .map(|s| s.id())
        .collect()
}

fn missing_estimates(run: &Run, generation: Generation) -> Vec<&'static str> {
    use EstimateId::{Entry, TotalBitmap1, TotalBitmap2};
    let kernel = EstimateId::KERNEL.map(Est::Kernel);
    let ests: &[Est] = match generation {
        Generation::OneFilter => &[Est::Kernel(TotalBitmap1)],
        Generation::TwoFilters => &[
            Est::Kernel(TotalBitmap1),
            Est::Kernel(TotalBitmap2),
            Est::BitmapDiff,
            Est::Kernel(Entry),
        ],
        Generation::Bitmap => &kernel,
    };
    let absent: Vec<&str> = ests
        .iter()
        .filter(|e| run.estimate(**e).is_none())
        .map(|e| e.id())
        .collect();
    if absent.len() == ests.len() {
        vec!["all estimates"]
    } else {
        absent
    }
}

fn missing_expectations(run: &Run) -> Vec<&'static str> {
    let failed = |e: KernelExpectation| {
        matches!(
            run.compares.get(e).map(|c| c.mark),
            Some(Mark::Fail | Mark::Negative)
        )
    };
    // The plain-text benchmark stops comparing after the first of these that fails; KTAP
    // prints SKIPs instead.
    let stop = if run.ktap {
        None
    } else {
        [
            KernelExpectation::NativeLeFilter1,
            KernelExpectation::Bitmap1ApproxBitmap2,
        ]
        .into_iter()
        .find(|&e| failed(e))
    };
    let expected = KernelExpectation::ALL
        .into_iter()
        .take(stop.map_or(KernelExpectation::ALL.len(), |e| expectation_index(e) + 1));
    let absent: Vec<&str> = expected
        .filter(|&e| run.compares.get(e).is_none() && run.ktap_results.get(e).is_none())
        .map(|e| e.id())
        .collect();
    if absent.len() == KernelExpectation::ALL.len() {
        vec!["all expectations"]
    } else {
        absent
    }
}

#[cfg(test)]
mod tests {
    use super::verdicts::{kernel_rule, tolerance};
    use super::*;

    #[test]
    fn the_kernel_rule_is_plain_for_le_and_tolerant_for_approx() {
        use KernelExpectation::{NativeLeBitmap1, TotalApproxFull4};
        assert_eq!(kernel_rule(NativeLeBitmap1, 5.0, 5.0, 10.0), Verdict::Pass);
        assert_eq!(kernel_rule(NativeLeBitmap1, 6.0, 5.0, 10.0), Verdict::Fail);
        assert_eq!(tolerance(NativeLeBitmap1, 600.0, 500.0, 10.0), 0.0);
        // 10 % of the smaller, at least 2 ns.
        assert_eq!(tolerance(TotalApproxFull4, 377.0, 371.0, 10.0), 37.1);
        assert_eq!(tolerance(TotalApproxFull4, 5.0, 6.0, 100.0), 2.0);
        assert_eq!(
            kernel_rule(TotalApproxFull4, 790.0, 752.0, 100.0),
            Verdict::Fail
        );
        assert_eq!(
            kernel_rule(TotalApproxFull4, 790.0, 752.0, 10.0),
            Verdict::Pass
        );
    }

    #[test]
    fn formulas_name_scenario_ids() {
        for e in EstimateId::KERNEL
            .map(Est::Kernel)
            .into_iter()
            .chain([Est::BitmapDiff])
        {
            let f = formula(e);
            assert!(!f.is_empty(), "{e:?}");
            for word in f.split([' ', '(', ')']).filter(|w| w.contains('.')) {
                assert!(KernelScenario::from_id(word).is_some(), "{word} in {f}");
            }
        }
    }
}
