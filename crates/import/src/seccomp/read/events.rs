//! One line of seccomp_benchmark's output → the event it is: the runner's, the setup's, a
//! scenario's time, an estimate, a comparison, a verdict.

use super::*;

/// The kselftest test whose output this parser reads.
pub(super) const TEST: &str = "seccomp_benchmark";

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Ev {
    /// The runner's header for seccomp_benchmark.
    RunnerHeader,
    /// Another runner line (timeout, result of this or another test).
    Runner(RunnerLine),
    TapVersion,
    Plan(u32),
    RunningOn,
    SysctlHeader,
    /// A sysctl value (`net.core.bpf_jit_enable = 1`, `/proc/sys/...:1`), wherever it is: a
    /// captured run prints system()'s output before its own buffered header.
    Sysctl(String, String),
    /// `Pinned to CPU N of M`: N is a 1-based position (the benchmark prints cpu + 1), M the
    /// configured CPUs.
    Pinned(u32, Option<u32>),
    Calibrating(Option<String>),
    Benchmarking(u64),
    Timing(u64),
    Scenario(KernelScenario, Option<Generation>, String, u64),
    Estimate(Est, String, u64),
    ExpectHeader,
    Compare(KernelExpectation, Compare),
    KtapResult(KernelExpectation, Verdict),
    Totals(String),
    /// A sentence of the benchmark's own worth keeping as a note.
    Said(String),
    /// `Could not set CPU affinity`: printed (to stderr) by the same code that pins.
    NoAffinity(String),
    /// A line of the benchmark's whose number cannot be what it printed: why (the number
    /// named). The value is not recorded; the line says so in a warning and a note.
    Refused(String),
    /// Candidate lines whose meaning depends on where they are (uname, sysctl values).
    Other,
}

/// Where the `Running on:` header puts a run: the next line is `uname -a`.
pub(super) const STAGE_RUNNING_ON: u32 = 3;
/// Where the sysctl header puts a run: sysctl lines follow.
pub(super) const STAGE_SYSCTLS: u32 = 4;

impl Ev {
    /// Position in the benchmark's fixed order; None for events that do not delimit runs.
    pub(super) fn stage(&self) -> Option<u32> {
        Some(match self {
            Ev::RunnerHeader => 0,
            // Other tests print plans too; only the benchmark's own (7 tests) delimits a run.
            Ev::Plan(7) => 2,
            Ev::RunningOn => STAGE_RUNNING_ON,
            Ev::SysctlHeader => STAGE_SYSCTLS,
            Ev::Pinned(..) => 5,
            Ev::Calibrating(_) => 6,
            Ev::Benchmarking(_) => 7,
            Ev::Scenario(s, ..) => 8 + scenario_index(*s) as u32,
            Ev::Estimate(e, ..) => return e.stage(),
            Ev::ExpectHeader => 20,
            Ev::Compare(e, _) => 21 + expectation_index(*e) as u32,
            _ => return None,
        })
    }
}

pub(super) fn classify(t: &str) -> Ev {
    setup(t)
        .or_else(|| measurement(t))
        .or_else(|| verdict(t))
        .unwrap_or(Ev::Other)
}

/// The lines before the measurements: runner and TAP headers, machine, pinning, calibration.
fn setup(t: &str) -> Option<Ev> {
    match t {
        "Running on:" => return Some(Ev::RunningOn),
        "Current BPF sysctl settings:" => return Some(Ev::SysctlHeader),
        _ => {}
    }
    if let Some(line) = runner::parse(t) {
        return Some(match line {
            RunnerLine::Header { test } if test == TEST => Ev::RunnerHeader,
            other => Ev::Runner(other),
        });
    }
    if let Some((k, v)) = parse_sysctl(t) {
        return Some(Ev::Sysctl(k, v));
    }
    if t.starts_with("TAP version ") || t.starts_with("KTAP version ") {
        return Some(Ev::TapVersion);
    }
    if let Some((n, "")) = t.strip_prefix("1..").and_then(leading_u64) {
        return Some(Ev::Plan(n as u32));
    }
    if let Some((cpu, rest)) = t.strip_prefix("Pinned to CPU ").and_then(leading_u64) {
        let of = rest
            .strip_prefix(" of ")
            .and_then(leading_u64)
            .map(|(n, _)| n as u32);
        return Some(Ev::Pinned(cpu as u32, of));
    }
    if let Some(rest) = t.strip_prefix("Calibrating sample size for ") {
        return Some(Ev::Calibrating(
            leading_u64(rest).map(|(n, _)| n.to_string()),
        ));
    }
    if t.starts_with("Calibrating reasonable sample size") {
        return Some(Ev::Calibrating(None));
    }
    None
}

/// The loop size, the timings, the scenarios and the estimates.
fn measurement(t: &str) -> Option<Ev> {
    let refused =
        |(n, why): (String, &str), unit: &str| Some(Ev::Refused(format!("{n}{unit} {why}")));
    if let Some(r) = t.strip_prefix("Benchmarking ") {
        let loop_line = |rest: &str| rest.starts_with(" syscalls") || rest.starts_with(" samples");
        match whole_number(r) {
            Ok((0, rest)) if loop_line(rest) => {
                return Some(Ev::Refused("a loop of 0 syscalls times nothing".into()))
            }
            Ok((n, rest)) if loop_line(rest) => return Some(Ev::Benchmarking(n)),
            Err(bad) if r.contains(" syscalls") || r.contains(" samples") => {
                return refused(bad, " syscalls")
            }
            _ => {}
        }
    }
    if let Some(ev) = timing(t) {
        return Some(ev);
    }
    if let Some((label, value)) = t.strip_prefix("getpid ").and_then(|r| r.rsplit_once(": ")) {
        if let Some((scn, generation)) = scenario_label(label) {
            match whole_number(value) {
                Ok((0, " ns")) => {
                    return Some(Ev::Refused(
                        "0 ns per call is less than any system call takes".into(),
                    ))
                }
                Ok((v, " ns")) => return Some(Ev::Scenario(scn, generation, label.to_string(), v)),
                Err(bad) if value.trim_end().ends_with("ns") => return refused(bad, " ns"),
                _ => {}
            }
        }
    }
    if let Some((label, value)) = t
        .strip_prefix("Estimated ")
        .and_then(|r| r.rsplit_once(": "))
    {
        if let Some(est) = estimate_label(label) {
            match whole_number(value) {
                Ok((v, " ns")) => return Some(Ev::Estimate(est, label.to_string(), v)),
                // The benchmark prints estimates unsigned: a negative one wraps around
                // (18446744073709551613), it is never written with a sign.
                Err(bad) if value.trim_end().ends_with("ns") => return refused(bad, " ns"),
                _ => {}
            }
        }
    }
    None
}

/// The expectations and results: comparisons, KTAP lines, totals, the benchmark's remarks.
fn verdict(t: &str) -> Option<Ev> {
    if t == "Expectations:" {
        return Some(Ev::ExpectHeader);
    }
    if let Some(ev) = compare(t).or_else(|| ktap_result(t)) {
        return Some(ev);
    }
    if let Some(rest) = t.strip_prefix("Totals: ") {
        return Some(Ev::Totals(rest.to_string()));
    }
    if t.starts_with("Could not set CPU affinity") {
        return Some(Ev::NoAffinity(t.to_string()));
    }
    [
        "Skipping constant action bitmap expectations",
        "Saw unexpected benchmark result",
        "No overhead measured",
    ]
    .iter()
    .any(|said| t.starts_with(said))
    .then(|| Ev::Said(t.to_string()))
}

/// `129.359381409 - 0.008724424 = 129350656985 (129.4s)` (older: without the seconds).
fn timing(t: &str) -> Option<Ev> {
    let (lhs, rhs) = t.split_once(" = ")?;
    let (a, b) = lhs.split_once(" - ")?;
    let is_stamp = |s: &str| {
        let (sec, ns) = s.split_once('.').unwrap_or((s, "0"));
        !sec.is_empty()
            && sec.bytes().all(|c| c.is_ascii_digit())
            && ns.bytes().all(|c| c.is_ascii_digit())
    };
    if !is_stamp(a) || !is_stamp(b) {
        return None;
    }
    let (ns, rest) = leading_u64(rhs)?;
    (rest.is_empty() || rest.starts_with(" (")).then_some(Ev::Timing(ns))
}

/// Matches `<lhs> <op> <rhs>` of an expectation at the start of `t`, tolerating a mangled
/// operator (`<=`, mojibake): returns the text after it.
fn match_expectation(t: &str) -> Option<(KernelExpectation, &str)> {
    for e in KernelExpectation::ALL {
        let (lhs, rhs) = printed_sides(e);
        let Some(rest) = t.strip_prefix(lhs) else {
            continue;
        };
        let rest = rest.trim_start();
        let op_end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let op = &rest[..op_end];
        if op.is_empty() || op.chars().any(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        if let Some(after_rhs) = rest[op_end..].trim_start().strip_prefix(rhs) {
            return Some((e, after_rhs));
        }
    }
    None
}

/// `native ≤ 1 bitmap (646 ≤ 675): ✔️` and its failing / negative / unfinished forms.
fn compare(t: &str) -> Option<Ev> {
    let (e, rest) = match_expectation(t)?;
    let inner = rest.strip_prefix(" (")?;
    let (values, tail) = inner.split_once("):")?;
    let mut v = values.split_whitespace();
    let lhs = v
        .next()
        .and_then(leading_i64)
        .filter(|(_, r)| r.is_empty())?
        .0;
    let _op = v.next()?;
    let rhs = v
        .next()
        .and_then(leading_i64)
        .filter(|(_, r)| r.is_empty())?
        .0;
    let tail = tail.trim();
    let mark = if tail.contains("Miscalculation") {
        Mark::Negative
    } else if tail.contains('✔') {
        Mark::Pass
    } else if tail.contains('❌') {
        Mark::Fail
    } else {
        Mark::Missing
    };
    Some(Ev::Compare(e, Compare { lhs, rhs, mark }))
}

/// `ok 1 native ≤ 1 bitmap`, `not ok 3 per-filter …`, `ok 5 # SKIP entry ≈ 1 bitmapped`.
fn ktap_result(t: &str) -> Option<Ev> {
    let (ok, rest) = if let Some(r) = t.strip_prefix("ok ") {
        (true, r)
    } else {
        (false, t.strip_prefix("not ok ")?)
    };
    let (_, rest) = leading_u64(rest)?;
    let desc = rest.trim_start();
    let (skip, desc) = match desc.strip_prefix("# SKIP") {
        Some(d) => (true, d.trim_start()),
        None => (false, desc),
    };
    let (e, tail) = match_expectation(desc)?;
    let tail = tail.trim();
    let skip = skip || tail.starts_with("# SKIP");
    if !tail.is_empty() && !tail.starts_with('#') {
        return None;
    }
    let verdict = match (skip, ok) {
        (true, _) => Verdict::Skip,
        (false, true) => Verdict::Pass,
        (false, false) => Verdict::Fail,
    };
    Some(Ev::KtapResult(e, verdict))
}
