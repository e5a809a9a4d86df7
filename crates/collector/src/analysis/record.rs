//! A finished measurement as a run record: the analysis's numbers, the settings, the
//! environment, and notes on what limits the numbers.

use super::groups::Comparisons;
use super::kernel_arithmetic::{record_parts, KernelInputs};
use super::{estimates, expectations, results, Series};
use crate::engine::driver::{self, Outcome};
use crate::engine::sequential::SequentialOutcome;
use crate::engine::Plan;
use crate::scenarios;
use crate::stats::{CI_METHOD, CONFIDENCE};
use syscost_record::{
    Environment, Instances, KernelScenario, Method, Overhead, QuantityKind, RunRecord, RunSummary,
    ScenarioResult, Settings, Source, SourceKind, Status, Target,
};

/// The settings a run was started with, as the record keeps them.
#[derive(Debug, Clone)]
pub struct RunSettings {
    pub budget_s: f64,
    pub target_ci_pct: f64,
    pub sample_ms: f64,
    pub only: Vec<String>,
    pub skip: Vec<String>,
}

/// Who made a collected record, and when the run started (RFC 3339).
fn source(method: Method, started: String) -> Source {
    let mut s = Source::new(
        SourceKind::Collected,
        format!("syscost {}", env!("CARGO_PKG_VERSION")),
        method,
    );
    s.commit = option_env!("SYSCOST_GIT_COMMIT").map(String::from);
    s.date = Some(started);
    s
}

/// Notes on what limits the numbers of an interleaved run.
fn notes(
    outcome: &Outcome,
    comparisons: &Comparisons,
    results: &[ScenarioResult],
    targets: &[Target],
) -> Vec<String> {
    let mut notes = Vec::new();
    // (An instruction-counting run measures one instance by design: see `commands::run`.)
    if outcome.instances == 1 && outcome.rounds > 0 && !crate::harness::clock::counts_instructions()
    {
        notes.push(
            "measured in one instance of each worker only (the budget allowed no second): its \
             intervals cover the noise within that instance, not where a rerun's processes, \
             filters and JIT images land; a larger --budget measures several"
                .into(),
        );
    }
    let missed: Vec<&Target> = targets.iter().filter(|t| !t.met).collect();
    if !missed.is_empty() {
        let mut far: Vec<(f64, &Target)> = missed
            .iter()
            .map(|t| {
                (
                    t.half_width_ns.map_or(f64::INFINITY, |h| h / t.target_ns),
                    *t,
                )
            })
            .collect();
        far.sort_by(|a, b| b.0.total_cmp(&a.0));
        let unit = if crate::harness::clock::counts_instructions() {
            "instructions"
        } else {
            "ns"
        };
        let list: Vec<String> = far
            .iter()
            .take(3)
            .map(|(_, t)| {
                let half = t
                    .half_width_ns
                    .map_or("no CI".into(), |h| format!("±{h:.2} {unit}"));
                format!("{} {half} (target ±{:.2} {unit})", label(t), t.target_ns)
            })
            .collect();
        notes.push(format!(
            "{} of {} targets not met, furthest: {}; a larger --budget (or a quieter machine) \
             narrows them",
            missed.len(),
            targets.len(),
            list.join(", ")
        ));
    }
    let crowded: Vec<String> = results
        .iter()
        .filter_map(|r| {
            let (p, n) = (r.preempted?, r.samples?);
            (n > 0 && p * 5 > n).then(|| format!("{} {p}/{n}", r.id))
        })
        .collect();
    if !crowded.is_empty() {
        notes.push(format!(
            "another task shared the measurement CPU during more than 20 % of the samples of: {} \
             (was the machine busy? see the load averages)",
            crowded.join(", ")
        ));
    }
    let short: Vec<&str> = outcome
        .groups
        .iter()
        .zip(&comparisons.groups)
        .filter(|(o, _)| o.rounds > 0 && o.rounds < driver::MIN_ROUNDS)
        .map(|(_, g)| g.id.as_str())
        .collect();
    if !short.is_empty() {
        notes.push(format!(
            "fewer than {} rounds fitted in the budget for: {}; intervals need at least 6 \
             samples and are unreliable below {}",
            driver::MIN_ROUNDS,
            short.join(", "),
            driver::MIN_ROUNDS
        ));
    }
    notes
}

/// How a target's quantity is named in a note.
pub fn label(t: &Target) -> String {
    match t.quantity {
        QuantityKind::Overhead => format!("{} overhead", t.id),
        QuantityKind::Estimate => t.id.clone(),
        QuantityKind::Median => format!("{} median", t.id),
    }
}

/// Widest CI half-width of a measured result's own median, percent of it, and its id.
fn worst_ci(results: &[ScenarioResult]) -> Option<(f64, String)> {
    results
        .iter()
        .filter(|r| r.status == Status::Measured)
        .filter_map(|r| {
            let (m, lo, hi) = (r.median_ns?, r.ci_low_ns?, r.ci_high_ns?);
            (m != 0.0).then(|| ((hi - lo) / 2.0 / m.abs() * 100.0, r.id.clone()))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

/// The settings an interleaved run's record keeps (checked against the record's rules before
/// the run measures anything).
pub fn interleaved_settings(plan: &Plan, args: &RunSettings) -> Settings {
    let mut settings = Settings::new(
        plan.syscall.name(),
        plan.syscall.syscalls_per_op(),
        CONFIDENCE,
    );
    settings.budget_s = Some(args.budget_s);
    settings.target_ci_pct = Some(args.target_ci_pct);
    settings.cpu = Some(plan.cpu);
    settings.sample_ms = Some(args.sample_ms);
    settings.only = args.only.clone();
    settings.skip = args.skip.clone();
    settings
}

/// The settings a sequential run's record keeps.
pub fn sequential_settings(plan: &Plan, args: &RunSettings) -> Settings {
    let mut settings = Settings::new("getpid", 1, CONFIDENCE);
    settings.budget_s = Some(args.budget_s);
    settings.cpu = Some(plan.cpu);
    settings
}

/// The record of an interleaved run.
pub fn interleaved(
    plan: &Plan,
    comparisons: &Comparisons,
    args: &RunSettings,
    env: Environment,
    started: String,
    outcome: &Outcome,
) -> RunRecord {
    let results = results(&plan.scenarios, outcome);
    let ids: Vec<String> = plan.scenarios.iter().map(|s| s.id()).collect();
    let series = Series::new(&ids, &outcome.slots);
    let targets = comparisons.targets(&outcome.slots);
    let notes = notes(outcome, comparisons, &results, &targets);
    let settings = interleaved_settings(plan, args);
    let worst = worst_ci(&results);
    let summary = RunSummary {
        rounds: outcome.rounds as u64,
        duration_s: Some(outcome.elapsed.as_secs_f64()),
        stop_reason: outcome.stop_reason,
        target_reached: !targets.is_empty() && targets.iter().all(|t| t.met),
        worst_ci_pct: worst.as_ref().map(|w| w.0),
        worst_ci_id: worst.map(|w| w.1),
        ci_method: CI_METHOD.into(),
        groups: comparisons.summaries(outcome),
        targets,
        instances: Some(Instances {
            count: outcome.instances as u64,
            renewing_s: outcome.renewing.as_secs_f64(),
            components: comparisons.components(&outcome.slots),
        }),
    };
    RunRecord::builder(source(Method::Interleaved, started), settings, env, summary)
        .results(results)
        .estimates(estimates::all(&series))
        .expectations(expectations::all(&series))
        .notes(notes)
        .build()
}

/// The record of a sequential run: single integer timings, the kernel's estimates and verdicts.
pub fn sequential(
    plan: &Plan,
    args: &RunSettings,
    env: Environment,
    started: String,
    out: &SequentialOutcome,
) -> RunRecord {
    let all = scenarios::all(plan.syscall);
    let native = out.ns.first().copied();
    let mut results = Vec::new();
    // The kernel's sequence times its five scenarios in this order.
    for (i, k) in KernelScenario::ALL.iter().enumerate() {
        let Some(s) = all.iter().find(|s| s.id() == k.id()) else {
            continue;
        };
        let mut r = ScenarioResult::new(k.id(), s.family(), &s.description(), Status::Measured);
        r.params = s.params();
        match out.ns.get(i) {
            Some(&ns) => {
                r.median_ns = Some(ns as f64);
                r.samples = Some(1);
                r.iters_per_sample = Some(out.samples);
                if let Some(native) = native.filter(|&n| n > 0 && *k != KernelScenario::Native) {
                    let d = ns as f64 - native as f64;
                    r.overhead = Some(Overhead {
                        vs: KernelScenario::Native.id().into(),
                        median_ns: d,
                        ci_low_ns: None,
                        ci_high_ns: None,
                        samples: 1,
                        pct: d / native as f64 * 100.0,
                        pct_ci_low: None,
                        pct_ci_high: None,
                    });
                }
            }
            None => {
                r.status = Status::Failed;
                r.reason = Some(
                    out.error
                        .clone()
                        .unwrap_or_else(|| "the sequence stopped before this timing".into()),
                );
            }
        }
        results.push(r);
    }
    let (estimates, expectations, mut notes) = match out.ns[..] {
        [native, bitmap1, bitmap2, filter1, filter2] => record_parts(KernelInputs {
            native,
            bitmap1,
            bitmap2,
            filter1,
            filter2,
        }),
        _ => (Vec::new(), Vec::new(), Vec::new()),
    };
    notes.push(format!(
        "sequential method: calibrated, then {} getpid() calls through libc per scenario, timed \
         once each on CLOCK_PROCESS_CPUTIME_ID, integer ns; verdicts by the kernel's rule",
        out.samples
    ));
    if let Some(e) = &out.error {
        notes.push(format!("the sequence stopped early: {e}"));
    }
    let settings = sequential_settings(plan, args);
    let summary = RunSummary::complete(
        out.elapsed.as_secs_f64(),
        "none (one timing per scenario, the kernel's method)",
    );
    RunRecord::builder(source(Method::Sequential, started), settings, env, summary)
        .results(results)
        .estimates(estimates)
        .expectations(expectations)
        .notes(notes)
        .build()
}
