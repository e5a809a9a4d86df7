//! A finished measurement as a run record: the analysis's numbers, the settings, the
//! environment, and notes on what limits the numbers.

use super::kernel_rules::{record_parts, KernelInputs};
use crate::engine::driver::{self, Outcome};
use crate::engine::sequential::SequentialOutcome;
use crate::engine::Plan;
use crate::scenarios;
use crate::stats::{CI_METHOD, CONFIDENCE};
use syscost_record::{
    with_id, Method, RunRecord, RunSummary, Settings, Source, SourceKind, Status,
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

/// The tool name and version recorded in every record.
pub fn tool() -> String {
    format!("syscost {}", env!("CARGO_PKG_VERSION"))
}

/// The commit the collector was built from, when known.
pub fn commit() -> Option<String> {
    option_env!("SYSCOST_GIT_COMMIT").map(String::from)
}

/// Builds the record from a finished measurement.
pub fn interleaved(
    plan: &Plan,
    args: &RunSettings,
    env: syscost_record::Environment,
    started: String,
    outcome: &Outcome,
) -> RunRecord {
    let results = super::results(&plan.scenarios, outcome);
    let series = super::Series::new(&plan.scenarios, outcome);
    let estimates = super::estimates::all(&series);
    let expectations = super::expectations::all(&series);
    let mut notes = Vec::new();
    let worst_id = outcome.worst_ci.map(|(i, _)| plan.scenarios[i].id());
    if outcome.stop_reason != syscost_record::StopReason::Target {
        if let (Some((_, pct)), Some(id)) = (outcome.worst_ci, &worst_id) {
            notes.push(format!(
                "the budget ran out before every CI reached ±{}%: the widest is ±{pct:.2}% \
                 ({id}); a larger --budget narrows it",
                args.target_ci_pct
            ));
        }
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
    if outcome.rounds < driver::MIN_ROUNDS {
        notes.push(format!(
            "only {} rounds fitted in the budget; intervals need at least 6 samples and are \
             unreliable below {}",
            outcome.rounds,
            driver::MIN_ROUNDS
        ));
    }
    let record = RunRecord {
        schema: syscost_record::SCHEMA_VERSION,
        id: String::new(),
        source: Source {
            kind: SourceKind::Collected,
            tool: tool(),
            commit: commit(),
            method: Method::Interleaved,
            format: None,
            url: None,
            text_sha256: None,
            note: None,
            date: Some(started),
        },
        settings: Settings {
            budget_s: Some(args.budget_s),
            target_ci_pct: Some(args.target_ci_pct),
            syscall: plan.syscall.name().into(),
            syscalls_per_op: plan.syscall.syscalls_per_op(),
            cpu: Some(plan.cpu),
            sample_ms: Some(args.sample_ms),
            confidence: CONFIDENCE,
            only: args.only.clone(),
            skip: args.skip.clone(),
        },
        environment: env,
        summary: RunSummary {
            rounds: outcome.rounds as u64,
            duration_s: outcome.elapsed.as_secs_f64(),
            stop_reason: outcome.stop_reason,
            target_reached: outcome.stop_reason == syscost_record::StopReason::Target,
            worst_ci_pct: outcome.worst_ci.map(|w| w.1),
            worst_ci_id: worst_id,
            ci_method: CI_METHOD.into(),
        },
        results,
        estimates,
        expectations,
        notes,
    };
    with_id(record)
}

/// The record of a sequential run: single integer timings, the kernel's estimates and verdicts.
pub fn sequential(
    plan: &Plan,
    args: &RunSettings,
    env: syscost_record::Environment,
    started: String,
    out: &SequentialOutcome,
) -> RunRecord {
    use super::estimates::KERNEL_IDS;
    let all = scenarios::all(plan.syscall);
    let mut results = Vec::new();
    for (i, id) in KERNEL_IDS.iter().enumerate() {
        let Some(s) = all.iter().find(|s| s.id() == *id) else {
            continue;
        };
        let mut r =
            syscost_record::ScenarioResult::new(id, s.family(), &s.description(), Status::Measured);
        r.params = s.params();
        match out.ns.get(i) {
            Some(&ns) => {
                r.median_ns = Some(ns as f64);
                r.samples = Some(1);
                r.iters_per_sample = Some(out.samples);
                if let (Some(&native), true) = (out.ns.first(), i > 0) {
                    let d = ns as f64 - native as f64;
                    r.overhead = Some(syscost_record::Overhead {
                        vs: "native".into(),
                        median_ns: d,
                        ci_low_ns: None,
                        ci_high_ns: None,
                        samples: 1,
                        pct: if native > 0 {
                            d / native as f64 * 100.0
                        } else {
                            0.0
                        },
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
    let record = RunRecord {
        schema: syscost_record::SCHEMA_VERSION,
        id: String::new(),
        source: Source {
            kind: SourceKind::Collected,
            tool: tool(),
            commit: commit(),
            method: Method::Sequential,
            format: None,
            url: None,
            text_sha256: None,
            note: None,
            date: Some(started),
        },
        settings: Settings {
            budget_s: Some(args.budget_s),
            target_ci_pct: None,
            syscall: "getpid".into(),
            syscalls_per_op: 1,
            cpu: Some(plan.cpu),
            sample_ms: None,
            confidence: CONFIDENCE,
            only: Vec::new(),
            skip: Vec::new(),
        },
        environment: env,
        summary: RunSummary {
            rounds: 1,
            duration_s: out.elapsed.as_secs_f64(),
            stop_reason: syscost_record::StopReason::Complete,
            target_reached: false,
            worst_ci_pct: None,
            worst_ci_id: None,
            ci_method: "none (one timing per scenario, the kernel's method)".into(),
        },
        results,
        estimates,
        expectations,
        notes,
    };
    with_id(record)
}
