//! `syscost run` and `syscost list`: argument checks, scenario selection, the measurement, and
//! turning its outcome into a record.

use super::driver::{self, Options, Outcome};
use super::sequential;
use super::worker::{allowed_cpus, Reply, Worker};
use crate::analysis;
use crate::cli::{ListArgs, MethodArg, RunArgs, SelectArgs, EXIT_USAGE};
use crate::envprobe;
use crate::export;
use crate::output::{progress::Bar, table};
use crate::probe::Syscall;
use crate::scenarios::{self, Scenario};
use crate::stats::{CI_METHOD, CONFIDENCE};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use syscost_record::{
    with_id, Method, RunRecord, RunSummary, Settings, Source, SourceKind, Status,
};

/// Intended length of one sample: long enough that the clock read (~30 ns) and the wake-up of
/// the worker are noise, short enough for hundreds of rounds in a 30 s budget.
pub const SAMPLE_MS: f64 = 2.0;

/// The tool name and version recorded in every record.
pub fn tool() -> String {
    format!("syscost {}", env!("CARGO_PKG_VERSION"))
}

/// The commit the collector was built from, when known.
pub fn commit() -> Option<String> {
    option_env!("SYSCOST_GIT_COMMIT").map(String::from)
}

/// Scenarios and CPU chosen by the common arguments.
pub struct Plan {
    pub syscall: Syscall,
    pub cpu: u32,
    pub scenarios: Vec<Box<dyn Scenario>>,
}

impl Plan {
    pub fn from_args(a: &SelectArgs) -> Result<Plan, String> {
        let syscall = Syscall::parse(&a.syscall).ok_or_else(|| {
            format!(
                "unknown syscall '{}' for --syscall (choose one of: {})",
                a.syscall,
                Syscall::NAMES.join(", ")
            )
        })?;
        let allowed = allowed_cpus();
        let cpu = match a.cpu {
            Some(c) if allowed.contains(&c) => c,
            Some(c) => {
                return Err(format!(
                    "--cpu {c} is not available to this process (allowed: {allowed:?})"
                ))
            }
            // As the kernel benchmark: the highest-numbered CPU that accepts us.
            None => *allowed
                .last()
                .ok_or("cannot read this process's CPU affinity")?,
        };
        let scenarios = scenarios::select(scenarios::all(syscall), &a.only, &a.skip)?;
        Ok(Plan {
            syscall,
            cpu,
            scenarios,
        })
    }
}

fn check_numbers(a: &RunArgs) -> Result<(), String> {
    if !(a.budget.is_finite() && a.budget > 0.0) {
        return Err(format!(
            "--budget must be a positive number of seconds, got {}",
            a.budget
        ));
    }
    if a.budget > 86_400.0 {
        return Err(format!("--budget {} s is more than a day", a.budget));
    }
    if !(a.target_ci.is_finite() && a.target_ci > 0.0) {
        return Err(format!(
            "--target-ci must be a positive percentage, got {}",
            a.target_ci
        ));
    }
    Ok(())
}

/// Builds the record from a finished measurement.
pub fn build_record(
    plan: &Plan,
    args: &RunArgs,
    env: syscost_record::Environment,
    started: String,
    outcome: &Outcome,
) -> RunRecord {
    let results = analysis::results(&plan.scenarios, outcome);
    let series = analysis::Series::new(&plan.scenarios, outcome);
    let estimates = analysis::estimates::all(&series);
    let expectations = analysis::expectations::all(&series);
    let mut notes = Vec::new();
    let worst_id = outcome.worst_ci.map(|(i, _)| plan.scenarios[i].id());
    if outcome.stop_reason != syscost_record::StopReason::Target {
        if let (Some((_, pct)), Some(id)) = (outcome.worst_ci, &worst_id) {
            notes.push(format!(
                "the budget ran out before every CI reached ±{}%: the widest is ±{pct:.2}% \
                 ({id}); a larger --budget narrows it",
                args.target_ci
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
            budget_s: Some(args.budget),
            target_ci_pct: Some(args.target_ci),
            syscall: plan.syscall.name().into(),
            syscalls_per_op: plan.syscall.syscalls_per_op(),
            cpu: Some(plan.cpu),
            sample_ms: Some(SAMPLE_MS),
            confidence: CONFIDENCE,
            only: args.select.only.clone(),
            skip: args.select.skip.clone(),
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

/// Moves this (parent) process off the measurement CPU when there is another: woken by every
/// reply, it would otherwise be scheduled next to the workers and preempt them. The workers
/// inherit this mask and then pin themselves to `cpu`.
fn keep_off(cpu: u32) {
    let others: Vec<u32> = allowed_cpus().into_iter().filter(|&c| c != cpu).collect();
    if !others.is_empty() {
        let _ = super::worker::pin_to_cpus(&others);
    }
}

/// Raised by SIGINT/SIGTERM; the driver polls it between samples.
fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(sig, Arc::clone(&stop));
    }
    stop
}

pub fn main(args: &RunArgs) -> i32 {
    if let Err(e) = check_numbers(args) {
        eprintln!("syscost: {e}");
        return EXIT_USAGE;
    }
    if args.method == MethodArg::Sequential {
        return sequential_main(args);
    }
    let mut plan = match Plan::from_args(&args.select) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("syscost: {e}");
            return EXIT_USAGE;
        }
    };
    let stop = stop_flag();
    keep_off(plan.cpu);
    let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let mut env = envprobe::probe();
    let opts = Options {
        budget: Duration::from_secs_f64(args.budget),
        target_ci_pct: args.target_ci,
        sample_ns: (SAMPLE_MS * 1e6) as u64,
        cpu: plan.cpu,
    };
    let bar = Bar::new(opts.budget.as_millis() as u64);
    let outcome = driver::measure(&mut plan.scenarios, &opts, &stop, &mut |p| bar.update(p));
    bar.finish();
    if outcome.interrupted || stop.load(Ordering::Relaxed) {
        eprintln!(
            "syscost: interrupted after {} rounds ({:.1} s); every worker was stopped and no \
             record was written",
            outcome.rounds,
            outcome.elapsed.as_secs_f64()
        );
        return 130;
    }
    env.incidental.loadavg_end = envprobe::loadavg();
    let record = build_record(&plan, args, env, started, &outcome);
    emit(args, &record)
}

/// Writes the record where the arguments say; returns the exit code.
fn emit(args: &RunArgs, record: &RunRecord) -> i32 {
    for p in syscost_record::validate(record) {
        eprintln!("syscost: warning: the record breaks its own rules: {p}");
    }
    let json = export::to_file_json(record);
    if let Some(path) = &args.output {
        if let Err(e) = export::write_atomic(path, json.as_bytes()) {
            eprintln!("syscost: {e}");
            return 1;
        }
        eprintln!("syscost: record written to {}", path.display());
    }
    if let Some(dir) = &args.save {
        match export::save_record(dir, record.clone()) {
            Ok((path, _)) => eprintln!("syscost: record saved as {}", path.display()),
            Err(e) => {
                eprintln!("syscost: {e}");
                return 1;
            }
        }
    }
    if args.json {
        print!("{json}");
    } else {
        print!("{}", table::render(record));
    }
    let failed: Vec<&str> = record
        .results
        .iter()
        .filter(|r| r.status == Status::Failed)
        .map(|r| r.id.as_str())
        .collect();
    if failed.is_empty() {
        0
    } else {
        eprintln!(
            "syscost: {} scenario(s) failed: {} (see the reasons in the record)",
            failed.len(),
            failed.join(", ")
        );
        1
    }
}

/// `--method sequential`: the kernel benchmark's method, one process, five timings.
fn sequential_main(args: &RunArgs) -> i32 {
    let a = &args.select;
    if a.syscall != "getpid" || !a.only.is_empty() || !a.skip.is_empty() {
        eprintln!(
            "syscost: --method sequential reproduces seccomp_benchmark: it times getpid over its \
             five scenarios, so --syscall, --only and --skip do not apply"
        );
        return EXIT_USAGE;
    }
    let plan = match Plan::from_args(a) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("syscost: {e}");
            return EXIT_USAGE;
        }
    };
    let stop = stop_flag();
    keep_off(plan.cpu);
    let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let mut env = envprobe::probe();
    let budget = Duration::from_secs_f64(args.budget);
    eprintln!(
        "syscost: sequential method (seccomp_benchmark's): {:.1} s, one timing per scenario",
        budget.as_secs_f64()
    );
    let out = sequential::measure(plan.cpu, budget, &stop);
    if out.interrupted || stop.load(Ordering::Relaxed) {
        eprintln!("syscost: interrupted; the worker was stopped and no record was written");
        return 130;
    }
    env.incidental.loadavg_end = envprobe::loadavg();
    let record = sequential_record(&plan, args, env, started, &out);
    emit(args, &record)
}

/// The record of a sequential run: single integer timings, the kernel's estimates and verdicts.
pub fn sequential_record(
    plan: &Plan,
    args: &RunArgs,
    env: syscost_record::Environment,
    started: String,
    out: &sequential::SequentialOutcome,
) -> RunRecord {
    use crate::analysis::estimates::KERNEL_IDS;
    use crate::analysis::kernel_rules::{record_parts, KernelInputs};
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
            budget_s: Some(args.budget),
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

pub fn list(args: &ListArgs) -> i32 {
    let mut plan = match Plan::from_args(&args.select) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("syscost: {e}");
            return EXIT_USAGE;
        }
    };
    let stop = AtomicBool::new(false);
    println!(
        "{:<28} {:<9} {:<8} description / reason",
        "scenario", "family", "runs?"
    );
    for s in plan.scenarios.iter_mut() {
        // The real setup, in a throw-away worker: the only honest answer to "can it run here".
        let verdict = match Worker::spawn(s.as_mut(), plan.cpu, 1) {
            Ok(mut w) => {
                let r = w.recv(Duration::from_secs(20), &stop);
                w.shutdown();
                match r {
                    Ok(Reply::Ready) => Ok(()),
                    Ok(Reply::Skipped(why)) => Err(("no", why)),
                    Ok(Reply::Failed(why)) => Err(("error", why)),
                    Ok(other) => Err(("error", format!("unexpected reply {other:?}"))),
                    Err(e) => Err(("error", e.to_string())),
                }
            }
            Err(e) => Err(("error", format!("cannot fork: {e}"))),
        };
        let mut lines = vec![(s.id(), s.family().to_string(), s.description())];
        if let Some((id, description)) = s.untimed_result() {
            lines.push((id, "attach".into(), description));
        }
        for (id, family, description) in lines {
            match &verdict {
                Ok(()) => println!("{id:<28} {family:<9} {:<8} {description}", "yes"),
                Err((tag, why)) => println!("{id:<28} {family:<9} {tag:<8} {why}"),
            }
        }
    }
    0
}
