//! `syscost run`: checks the arguments, measures, and writes the record where they say.

use crate::analysis::groups::Comparisons;
use crate::analysis::record::{self, RunSettings};
use crate::cli::{ClockArg, MethodArg, RunArgs};
use crate::engine::{driver, quiet, sequential, Plan};
use crate::error::Error;
use crate::harness::clock;
use crate::machine;
use crate::report::{json, progress::Bar, stdout, table};
use crate::sys::{affinity, signals};
use std::sync::atomic::Ordering;
use std::time::Duration;
use syscost_record::{canonical_path_for, Clock, Environment, RunRecord, Status};

/// Intended length of one sample. Short, because a paired difference is only as good as its
/// members are close in time: the noise of a VM or a shared host drifts over milliseconds, so
/// the shorter a round, the more of it cancels. On a 2-vCPU KVM guest, default runs at 0.25 ms
/// gave CI half-widths 2.5–20× narrower than at 2 ms (entry ±1.5 vs ±4.8 ns, medians of 10 and
/// 20 runs; README, "The default run, repeated"), 0.5 and 1 ms in between. Still long enough
/// that the clock reads (~30 ns) are noise: ~1,600 getpid calls a sample. A system-wide BPF
/// scenario's samples are lengthened by their own rule (`engine::worker::stretch`).
pub const SAMPLE_MS: f64 = 0.25;

/// Smallest budget accepted, s: each scenario needs a fork, its setup and a few
/// calibration samples before its first sample counts, so below this not even one scenario
/// measures anything.
pub const MIN_BUDGET_S: f64 = 0.1;

/// The numbers of `run`'s options, in their ranges (also checked for a guest's run before
/// `syscost lab` boots it).
pub fn check_numbers(a: &RunArgs) -> Result<(), Error> {
    if !(a.budget.is_finite() && a.budget > 0.0) {
        return Err(Error::Argument(format!(
            "--budget must be a positive number of seconds, got {}",
            a.budget
        )));
    }
    if a.budget < MIN_BUDGET_S {
        return Err(Error::Argument(format!(
            "--budget {} s is too short to measure anything; at least {MIN_BUDGET_S} s",
            a.budget
        )));
    }
    if a.budget > 86_400.0 {
        return Err(Error::Argument(format!(
            "--budget {} s is more than a day",
            a.budget
        )));
    }
    if !(a.target_ci.is_finite() && a.target_ci > 0.0) {
        return Err(Error::Argument(format!(
            "--target-ci must be a positive percentage, got {}",
            a.target_ci
        )));
    }
    // And as the record will keep them (its upper bounds).
    let mut s = syscost_record::Settings::new("getpid", 1, crate::stats::CONFIDENCE);
    s.budget_s = Some(a.budget);
    s.target_ci_pct = Some(a.target_ci);
    check_settings(&s)
}

/// The options as the record will keep them, held to the record's own rules before anything
/// is measured: what `run` writes, `syscost-site check` accepts.
fn check_settings(s: &syscost_record::Settings) -> Result<(), Error> {
    let problems = syscost_record::validate_settings(s);
    if problems.is_empty() {
        return Ok(());
    }
    let flag = |field: &str| match field.split('[').next().unwrap_or(field) {
        "settings.budget_s" => "--budget",
        "settings.target_ci_pct" => "--target-ci",
        "settings.cpu" => "--cpu",
        "settings.only" => "--only",
        "settings.skip" => "--skip",
        _ => "an option",
    };
    Err(Error::Argument(
        problems
            .iter()
            .map(|p| format!("{}: {}", flag(&p.field), p.message))
            .collect::<Vec<_>>()
            .join("; "),
    ))
}

fn settings(args: &RunArgs) -> RunSettings {
    RunSettings {
        budget_s: args.budget,
        target_ci_pct: args.target_ci,
        sample_ms: SAMPLE_MS,
        only: args.select.only.clone(),
        skip: args.select.skip.clone(),
    }
}

fn now_rfc3339() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

/// With `--clock instructions`: checks that the clock counts instructions and reads it as one
/// from now on (the workers forked later inherit that).
fn choose_clock(args: &RunArgs) -> Result<(), Error> {
    if args.clock == ClockArg::Instructions {
        // The kernel's own work after its boot would share the one CPU with the samples (and
        // with the check that the clock counts instructions).
        let waited = quiet::settle(SETTLED_STEPS, SETTLE_MOST);
        if waited > Duration::from_secs(2) {
            eprintln!(
                "syscost: waited {:.1} s of the guest's clock for the kernel's work after boot",
                waited.as_secs_f64()
            );
        }
        clock::count_instructions()?;
    }
    Ok(())
}

/// Where the clock counts instructions, measuring starts once the CPUs have been idle for this
/// many steps of 100 ms in a row (the boot's background work is over)...
const SETTLED_STEPS: u32 = 10;
/// ...or after this long (of the guest's clock: idle time costs QEMU nothing).
const SETTLE_MOST: Duration = Duration::from_secs(600);

/// The environment as probed, with what the clock counts.
fn environment() -> Environment {
    let mut env = machine::probe();
    if clock::counts_instructions() {
        env.comparability.clock = Some(Clock::Instructions);
    }
    env
}

pub fn run(args: &RunArgs) -> Result<i32, Error> {
    check_numbers(args)?;
    if args.submit {
        // Found now, not after the budget is spent.
        super::submit::precheck(&args.to)?;
    }
    choose_clock(args)?;
    let started = std::time::Instant::now();
    if args.method == MethodArg::Sequential {
        return run_sequential(args);
    }
    let select = &args.select;
    let mut plan = Plan::new(
        super::syscall(select.syscall),
        select.cpu,
        &select.only,
        &select.skip,
    )?;
    check_settings(&record::interleaved_settings(&plan, &settings(args)))?;
    // What some scenarios probe for their parameters (the filter-chain limit forks a child)
    // is probed now, once and inside the budget: the workers inherit it, the record reads it.
    for s in &plan.scenarios {
        s.params();
    }
    let stop = signals::stop_flag();
    affinity::keep_off(plan.cpu);
    let date = now_rfc3339();
    let mut env = environment();
    check_destinations(&Output::of(args), &env)?;
    let opts = driver::Options {
        started,
        budget: Duration::from_secs_f64(args.budget),
        target_ci_pct: args.target_ci,
        sample_ns: (SAMPLE_MS * 1e6) as u64,
        cpu: plan.cpu,
        // An instruction count does not move with where things land in memory, and the lab's
        // emulated guest sets a worker up a hundred times slower: one instance there.
        instances: if crate::harness::clock::counts_instructions() {
            1
        } else {
            driver::INSTANCES
        },
    };
    let comparisons = Comparisons::plan(&plan.scenarios, args.target_ci);
    let bar = Bar::new(opts.budget.as_millis() as u64);
    let outcome = driver::measure_groups(
        &mut plan.scenarios,
        &comparisons.groups,
        &comparisons,
        &opts,
        &stop,
        &mut |p| bar.update(p),
    );
    bar.finish();
    if outcome.interrupted || stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted {
            rounds: outcome.rounds,
            seconds: outcome.elapsed.as_secs_f64(),
        });
    }
    if outcome.rounds == 0 {
        return Err(Error::Argument(format!(
            "the {} s budget was spent before the first round (setting up {} scenario(s)); \
             raise --budget or choose fewer with --only — nothing was written",
            args.budget,
            plan.scenarios.len()
        )));
    }
    env.incidental.loadavg_end = machine::loadavg();
    let record = record::interleaved(&plan, &comparisons, &settings(args), env, date, &outcome);
    finish(args, &record)
}

/// Writes the record where asked; with `--submit`, then submits it — also when scenarios
/// failed (the record says which and why, and is a run like any other).
fn finish(args: &RunArgs, record: &RunRecord) -> Result<i32, Error> {
    let written = emit(&Output::of(args), record);
    if !args.submit {
        return written;
    }
    if let Err(e) = &written {
        if !matches!(e, Error::ScenariosFailed(_)) {
            return written;
        }
    }
    let shown = match (&args.save, &args.output) {
        (Some(dir), _) => dir.join(record.canonical_path()).display().to_string(),
        (None, Some(file)) => file.display().to_string(),
        (None, None) => "this run".to_string(),
    };
    super::submit::run_record(record, &shown, &args.to)?;
    written
}

/// Where a record goes (`--json`, `-o`, `--save`).
pub struct Output {
    pub json: bool,
    pub output: Option<std::path::PathBuf>,
    pub save: Option<std::path::PathBuf>,
}

impl Output {
    fn of(args: &RunArgs) -> Output {
        Output {
            json: args.json,
            output: args.output.clone(),
            save: args.save.clone(),
        }
    }
}

/// Before anything is measured: every destination asked for can be written (the `--save`
/// directory the record will go to is created), so a run is never measured only to be lost.
fn check_destinations(args: &Output, env: &Environment) -> Result<(), Error> {
    if let Some(path) = &args.output {
        json::check_writable_file(path).map_err(Error::Destination)?;
    }
    if let Some(dir) = &args.save {
        let c = &env.comparability;
        let rel = canonical_path_for(&c.arch, &c.kernel_release, "x");
        let target = dir.join(rel);
        let target = target.parent().unwrap_or(dir);
        json::check_writable_dir(target).map_err(Error::Destination)?;
    }
    Ok(())
}

/// The record could not be written where asked and is nowhere else: saved in the temporary
/// directory, or, failing that, printed to stderr — a measured run is never lost silently.
fn rescue(record: &RunRecord, text: &str) {
    let path = std::env::temp_dir().join(format!("syscost-{}.json", record.id));
    match json::write_atomic(&path, text.as_bytes()) {
        Ok(()) => eprintln!("syscost: the record is saved in {} instead", path.display()),
        Err(e) => {
            eprintln!(
                "syscost: it cannot be saved in the temporary directory either ({e}); here it is:"
            );
            eprint!("{text}");
        }
    }
}

/// Writes the record where the arguments say; Ok(0), or the scenarios that failed.
pub fn emit(args: &Output, record: &RunRecord) -> Result<i32, Error> {
    for p in syscost_record::validate(record) {
        eprintln!("syscost: warning: the record breaks its own rules: {p}");
    }
    let text = json::to_file_json(record);
    // What could not be written, and whether the record is kept anywhere.
    let mut lost: Vec<String> = Vec::new();
    let mut kept = false;
    if let Some(path) = &args.output {
        match json::write_output(path, text.as_bytes()) {
            Ok(()) => {
                eprintln!("syscost: record written to {}", path.display());
                kept = true;
            }
            Err(e) => lost.push(e.to_string()),
        }
    }
    if let Some(dir) = &args.save {
        match json::save_record(dir, record.clone()) {
            Ok((path, _)) => {
                eprintln!("syscost: record saved as {}", path.display());
                kept = true;
            }
            Err(e) => lost.push(e.to_string()),
        }
    }
    // Standard output is for people and their tools: named fields, not the stored rows.
    let shown = if args.json {
        let mut s = serde_json::to_string_pretty(&syscost_record::objects_json(record))?;
        s.push('\n');
        s
    } else {
        table::render(record)
    };
    let printed = stdout::print(&shown);
    match &printed {
        Ok(()) => kept |= args.json,
        Err(e) => lost.push(format!("standard output: {e}")),
    }
    if !lost.is_empty() {
        for l in &lost {
            eprintln!("syscost: cannot write the record: {l}");
        }
        if !kept {
            rescue(record, &text);
        }
        return Err(match printed {
            // Only the reader went away: leave as quietly as SIGPIPE would.
            Err(e) if lost.len() == 1 => Error::Stdout(e),
            _ => Error::Lost(lost.join("; ")),
        });
    }
    let failed: Vec<String> = record
        .results
        .iter()
        .filter(|r| r.status == Status::Failed)
        .map(|r| r.id.clone())
        .collect();
    if failed.is_empty() {
        Ok(0)
    } else {
        Err(Error::ScenariosFailed(failed))
    }
}

/// `--method sequential`: the kernel benchmark's method, one process, five timings.
fn run_sequential(args: &RunArgs) -> Result<i32, Error> {
    choose_clock(args)?;
    let a = &args.select;
    if a.syscall != crate::cli::SyscallArg::Getpid || !a.only.is_empty() || !a.skip.is_empty() {
        return Err(Error::Argument(
            "--method sequential reproduces seccomp_benchmark: it times getpid over its five \
             scenarios, so --syscall, --only and --skip do not apply"
                .into(),
        ));
    }
    let plan = Plan::new(super::syscall(a.syscall), a.cpu, &a.only, &a.skip)?;
    check_settings(&record::sequential_settings(&plan, &settings(args)))?;
    let stop = signals::stop_flag();
    affinity::keep_off(plan.cpu);
    let started = now_rfc3339();
    let mut env = environment();
    check_destinations(&Output::of(args), &env)?;
    let budget = Duration::from_secs_f64(args.budget);
    eprintln!(
        "syscost: sequential method (seccomp_benchmark's): {:.1} s, one timing per scenario",
        budget.as_secs_f64()
    );
    let out = sequential::measure(plan.cpu, budget, &stop);
    if out.interrupted || stop.load(Ordering::Relaxed) {
        return Err(Error::InterruptedSequential);
    }
    env.incidental.loadavg_end = machine::loadavg();
    let record = record::sequential(&plan, &settings(args), env, started, &out);
    finish(args, &record)
}
