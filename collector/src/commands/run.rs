//! `syscost run`: checks the arguments, measures, and writes the record where they say.

use crate::analysis::record::{self, RunSettings};
use crate::cli::{MethodArg, RunArgs};
use crate::engine::{driver, sequential, Plan};
use crate::error::Error;
use crate::machine;
use crate::report::{json, progress::Bar, table};
use crate::sys::{affinity, signals};
use std::sync::atomic::Ordering;
use std::time::Duration;
use syscost_record::{RunRecord, Status};

/// Intended length of one sample: long enough that the clock read (~30 ns) and the wake-up of
/// the worker are noise, short enough for hundreds of rounds in a 30 s budget.
pub const SAMPLE_MS: f64 = 2.0;

fn check_numbers(a: &RunArgs) -> Result<(), Error> {
    if !(a.budget.is_finite() && a.budget > 0.0) {
        return Err(Error::Argument(format!(
            "--budget must be a positive number of seconds, got {}",
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
    Ok(())
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

pub fn run(args: &RunArgs) -> Result<i32, Error> {
    check_numbers(args)?;
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
    let stop = signals::stop_flag();
    affinity::keep_off(plan.cpu);
    let started = now_rfc3339();
    let mut env = machine::probe();
    let opts = driver::Options {
        budget: Duration::from_secs_f64(args.budget),
        target_ci_pct: args.target_ci,
        sample_ns: (SAMPLE_MS * 1e6) as u64,
        cpu: plan.cpu,
    };
    let bar = Bar::new(opts.budget.as_millis() as u64);
    let outcome = driver::measure(&mut plan.scenarios, &opts, &stop, &mut |p| bar.update(p));
    bar.finish();
    if outcome.interrupted || stop.load(Ordering::Relaxed) {
        return Err(Error::Interrupted {
            rounds: outcome.rounds,
            seconds: outcome.elapsed.as_secs_f64(),
        });
    }
    env.incidental.loadavg_end = machine::loadavg();
    let record = record::interleaved(&plan, &settings(args), env, started, &outcome);
    emit(&Output::of(args), &record)
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

/// Writes the record where the arguments say; Ok(0), or the scenarios that failed.
pub fn emit(args: &Output, record: &RunRecord) -> Result<i32, Error> {
    for p in syscost_record::validate(record) {
        eprintln!("syscost: warning: the record breaks its own rules: {p}");
    }
    let text = json::to_file_json(record);
    if let Some(path) = &args.output {
        json::write_atomic(path, text.as_bytes())?;
        eprintln!("syscost: record written to {}", path.display());
    }
    if let Some(dir) = &args.save {
        let (path, _) = json::save_record(dir, record.clone())?;
        eprintln!("syscost: record saved as {}", path.display());
    }
    if args.json {
        print!("{text}");
    } else {
        print!("{}", table::render(record));
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
    let a = &args.select;
    if a.syscall != crate::cli::SyscallArg::Getpid || !a.only.is_empty() || !a.skip.is_empty() {
        return Err(Error::Argument(
            "--method sequential reproduces seccomp_benchmark: it times getpid over its five \
             scenarios, so --syscall, --only and --skip do not apply"
                .into(),
        ));
    }
    let plan = Plan::new(super::syscall(a.syscall), a.cpu, &a.only, &a.skip)?;
    let stop = signals::stop_flag();
    affinity::keep_off(plan.cpu);
    let started = now_rfc3339();
    let mut env = machine::probe();
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
    emit(&Output::of(args), &record)
}
