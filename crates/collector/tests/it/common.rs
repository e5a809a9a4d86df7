//! Helpers shared by the collector's integration tests: run the real binary, parse its record,
//! find its worker processes.
#![allow(dead_code)]

use std::process::{Command, Output};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use syscost::engine::driver::REAP_BOUND;
use syscost_record::{RunRecord, ScenarioResult, Status};

/// The machine as the measuring tests share it. A test that measures (`syscost run`,
/// `selfcheck`, the engine in process) holds it shared for as long as it measures: its
/// assertions compare scenarios of one run, which a neighbouring measurement slows alike. A
/// test whose result depends on having the machine to itself holds it alone: BPF programs
/// attached to syscall tracepoints run for every process's syscalls (a neighbour's timings would
/// include them), and the kernel method's fixed sequence only fits its budget when it gets the
/// CPU it is pinned to.
static MACHINE: RwLock<()> = RwLock::new(());

/// Held by every test that measures; any number of them may run at once.
pub fn measuring() -> RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(|e| e.into_inner())
}

/// Held by a test that must not run beside any measurement.
pub fn alone() -> RwLockWriteGuard<'static, ()> {
    MACHINE.write().unwrap_or_else(|e| e.into_inner())
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_syscost")
}

pub fn syscost(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("cannot start syscost")
}

/// Runs `syscost run --json` with the arguments and parses the record; panics with stderr on
/// failure to produce one.
pub fn run_json(args: &[&str]) -> (RunRecord, Output) {
    let mut all = vec!["run", "--json"];
    all.extend_from_slice(args);
    let out = syscost(&all);
    let record: RunRecord = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "no record ({e}); status {:?}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (record, out)
}

pub fn result<'a>(r: &'a RunRecord, id: &str) -> &'a ScenarioResult {
    r.result(id)
        .unwrap_or_else(|| panic!("no result {id} in {:?}", ids(r)))
}

pub fn ids(r: &RunRecord) -> Vec<&str> {
    r.results.iter().map(|x| x.id.as_str()).collect()
}

/// Asserts what `syscost run` promises of its budget on any machine: no round runs past it (the
/// record's own accounting: its groups' rounds fit in it), and the run ends at most the
/// workers' exit after it, which is bounded ([`REAP_BOUND`]) — more than the 5 % a quiet
/// machine needs, since on a loaded one that exit waits for a CPU like everything else (1.89 s
/// on a 1.5 s budget at a load of 12; README: up to +10.5 % of 30 s at a load of 20).
pub fn assert_budget_kept(r: &RunRecord, budget: f64) {
    let ran = r.summary.duration_s.expect("a run's duration");
    let rounds: f64 = r.summary.groups.iter().map(|g| g.duration_s).sum();
    assert!(
        rounds <= budget && rounds <= ran,
        "rounds took {rounds} s of a {budget} s budget (the run {ran} s)"
    );
    assert!(
        ran <= budget * 1.05 + REAP_BOUND.as_secs_f64(),
        "ran {ran} s on a {budget} s budget"
    );
}

/// Asserts a scenario was measured with a CI that contains its median.
pub fn assert_measured(r: &RunRecord, id: &str) {
    let x = result(r, id);
    assert_eq!(x.status, Status::Measured, "{id}: {:?}", x.reason);
    let (m, lo, hi) = (
        x.median_ns.unwrap(),
        x.ci_low_ns.unwrap(),
        x.ci_high_ns.unwrap(),
    );
    assert!(lo <= m && m <= hi, "{id}: median {m} outside [{lo}, {hi}]");
    assert!(x.samples.unwrap() >= 6, "{id}: {:?} samples", x.samples);
}

/// Direct children of a process (from /proc/<pid>/task/*/children).
pub fn children(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            if let Ok(s) = std::fs::read_to_string(t.path().join("children")) {
                out.extend(s.split_whitespace().filter_map(|x| x.parse::<u32>().ok()));
            }
        }
    }
    out
}

pub fn alive(pid: u32) -> bool {
    // A zombie still has a /proc entry; look at its state.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(s) => !s
            .rsplit_once(')')
            .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            .unwrap_or(false),
        Err(_) => false,
    }
}

/// Voluntary context switches of a process so far (0 when it is gone). A worker blocks once
/// per sample request, so this counts, roughly, the samples it was asked for.
pub fn voluntary_switches(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Waits until every one of `pids` has been asked for at least `n` samples (see
/// [`voluntary_switches`]): the run is in its rounds, past setup and calibration.
pub fn wait_until_sampling(pids: &[u32], n: u64) -> bool {
    wait_until(20.0, || pids.iter().all(|&p| voluntary_switches(p) >= n))
}

/// Waits until `pred` holds or the deadline passes (polling, no fixed sleeps in assertions).
pub fn wait_until(secs: f64, mut pred: impl FnMut() -> bool) -> bool {
    let end = std::time::Instant::now() + std::time::Duration::from_secs_f64(secs);
    while std::time::Instant::now() < end {
        if pred() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    pred()
}
