//! `perf-bench`: `perf bench syscall basic|getpgid|fork|execve` output:
//!
//! ```text
//! # Running 'syscall/basic' benchmark:
//! # Executed 10,000,000 getppid() calls
//!      Total time: 0.522 [sec]
//!
//!        0.052233 usecs/op
//!          19,144,887 ops/sec
//! ```
//!
//! `basic` and `getpgid` time one syscall per loop iteration (`native`). `fork` and `execve`
//! do not: an iteration forks a child that exits (or execs `/bin/true`, which runs to its end)
//! and waits for it, so they get ids of their own (`process.fork`, `process.execve`), no
//! syscall count, and `settings.operation` saying what one iteration is.

use crate::format::Format;
use crate::lex::{grouped_u64, leading_f64};
use crate::parsed::{
    provenance, single, skeleton, Contradiction, Hint, Outcome, Parsed, MAX_RUNS, UNKNOWN,
};
use crate::text::Cleaned;
use syscost_record::{RecordBuilder, ScenarioResult, Throughput};

#[derive(Debug, Clone, PartialEq)]
enum Ev {
    Running(String),
    Executed(u64, String),
    Total(f64),
    Usecs(f64),
    Ops(u64),
}

fn event(t: &str) -> Option<Ev> {
    if let Some(rest) = t.strip_prefix("Running ") {
        let name = rest
            .trim_start_matches('\'')
            .split(['\'', ' '])
            .next()
            .unwrap_or("");
        if name.contains('/') && (rest.ends_with("benchmark:") || rest.ends_with("benchmark...")) {
            return Some(Ev::Running(name.to_string()));
        }
    }
    if let Some(rest) = t.strip_prefix("Executed ") {
        let (n, rest) = grouped_u64(rest)?;
        let call = rest.trim_start().strip_suffix(" calls")?;
        let name = call.strip_suffix("()")?;
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Some(Ev::Executed(n, name.to_string()));
        }
    }
    if let Some(rest) = t.strip_prefix("Total time:") {
        let (s, rest) = leading_f64(rest.trim_start())?;
        return rest.trim().eq("[sec]").then_some(Ev::Total(s));
    }
    if let Some((v, rest)) = leading_f64(t) {
        if rest.trim() == "usecs/op" {
            return Some(Ev::Usecs(v));
        }
    }
    if let Some((v, rest)) = grouped_u64(t) {
        if rest.trim() == "ops/sec" {
            return Some(Ev::Ops(v));
        }
    }
    None
}

#[derive(Debug, Clone, Default)]
struct Run {
    first: usize,
    last: usize,
    bench: Option<String>,
    executed: Option<(u64, String)>,
    total_s: Option<f64>,
    usecs: Option<f64>,
    ops: Option<u64>,
    /// The lines of usecs/op and ops/sec.
    usecs_line: usize,
    ops_line: usize,
    /// Lines whose number was refused: (line, text, why).
    refused: Vec<(usize, String, String)>,
}

/// Why `us` usecs per call cannot be what perf printed for this run: not positive, or not
/// what its own loop gives (`n` calls in `total_s`, printed to the millisecond; only a total
/// of at least 0.1 s is precise enough to judge by, to 2 %).
fn refuse_usecs(us: f64, executed: Option<u64>, total_s: Option<f64>) -> Option<String> {
    if us < 0.0 {
        return Some(format!("{us} usecs/op is negative"));
    }
    if us == 0.0 {
        return Some(format!(
            "{us:.6} usecs/op is less than any system call takes"
        ));
    }
    let (n, t) = (executed.filter(|&n| n > 0)?, total_s.filter(|&t| t >= 0.1)?);
    let per = t * 1e6 / n as f64;
    ((us - per).abs() > per * 0.02).then(|| {
        format!(
            "{us} usecs/op contradicts the run's own total: {n} calls in {t} s are {per:.6} \
             usecs each"
        )
    })
}

impl Run {
    fn started(&self) -> bool {
        self.first > 0
    }

    fn ends_before(&self, ev: &Ev) -> bool {
        match ev {
            Ev::Running(_) => self.started(),
            Ev::Executed(..) => self.executed.is_some(),
            Ev::Total(_) => self.total_s.is_some(),
            Ev::Usecs(_) => self.usecs.is_some(),
            Ev::Ops(_) => self.ops.is_some(),
        }
    }

    /// Other perf benches print usecs/op too; only `syscall/*` runs are ours.
    fn is_syscall_bench(&self) -> bool {
        match &self.bench {
            Some(b) => b.starts_with("syscall/"),
            None => self.executed.is_some(),
        }
    }
}

pub fn parse(cleaned: &Cleaned) -> Outcome {
    let mut runs = Vec::new();
    let mut run = Run::default();
    for line in &cleaned.lines {
        let Some(ev) = event(&line.text) else {
            continue;
        };
        if run.ends_before(&ev) {
            runs.push(std::mem::take(&mut run));
            if runs.len() == MAX_RUNS {
                return Outcome {
                    too_many: Some(line.no),
                    ..Outcome::default()
                };
            }
        }
        if !run.started() {
            run.first = line.no;
        }
        run.last = line.no;
        match ev {
            Ev::Running(b) => run.bench = Some(b),
            Ev::Executed(n, s) => run.executed = Some((n, s)),
            Ev::Total(s) => run.total_s = Some(s),
            Ev::Usecs(v) => {
                match refuse_usecs(v, run.executed.as_ref().map(|e| e.0), run.total_s) {
                    Some(why) => run.refused.push((line.no, line.text.to_string(), why)),
                    None => {
                        run.usecs = Some(v);
                        run.usecs_line = line.no;
                    }
                }
            }
            Ev::Ops(v) => {
                run.ops = Some(v);
                run.ops_line = line.no;
            }
        }
    }
    if run.started() {
        runs.push(run);
    }
    let mut out = Outcome::default();
    for run in runs.iter().filter(|r| r.is_syscall_bench()) {
        if let Some(c) = contradiction(run, cleaned) {
            return Outcome {
                contradiction: Some(c),
                ..Outcome::default()
            };
        }
        for (line, text, why) in &run.refused {
            out.refused(Hint {
                line: *line,
                text: text.clone(),
                why: why.clone(),
            });
        }
        match record(run, &cleaned.repairs) {
            Some(record) => out.runs.push(Parsed::new(run.first, run.last, record)),
            None => out.empty(Hint::no_result_at(cleaned, run.first)),
        }
    }
    out
}

/// ops/sec against usecs/op. perf prints both from one time: `%lf` (six decimals) of the usecs
/// per call, and the whole calls per second its loop made, `(int)(loops / seconds)` — so the
/// rate lies between 10⁶ over the slowest and over the fastest time per call that prints as
/// that usecs/op (± 0.5e-6), cut to a whole number. Anything outside was not printed by this
/// run.
fn contradiction(run: &Run, cleaned: &Cleaned) -> Option<Contradiction> {
    let (us, ops) = (run.usecs?, run.ops?);
    let half = 0.5e-6;
    let low = (1e6 / (us + half)).floor() - 1.0;
    let high = if us > half {
        (1e6 / (us - half)).floor() + 1.0
    } else {
        f64::INFINITY
    };
    let o = ops as f64;
    (o < low || o > high).then(|| {
        Contradiction::new(
            cleaned,
            run.ops_line,
            &[run.usecs_line],
            format!(
                "{us} usecs/op is {:.0} calls a second ({low:.0} to {high:.0} within its printed \
                 rounding), not {ops}",
                1e6 / us
            ),
        )
    })
}

fn record(run: &Run, repairs: &[String]) -> Option<RecordBuilder> {
    let (loops, syscall) = match &run.executed {
        Some((n, s)) => (Some(*n), s.clone()),
        None => (None, UNKNOWN.to_string()),
    };
    let mut notes = vec![format!(
        "perf bench {} timed one loop{} with gettimeofday around it: a single measurement, so \
         no confidence interval.",
        run.bench.as_deref().unwrap_or("syscall"),
        loops.map(|n| format!(" of {n} calls")).unwrap_or_default()
    )];
    let ns = ns_per_call(run, loops, &mut notes)?;
    if run.executed.is_none() {
        notes.push("The log does not say which syscall was timed.".into());
    }
    notes.extend(crate::parsed::refused_notes(&run.refused));
    notes.extend(missing(run));

    let op = Op::of(&syscall);
    let mut r = skeleton(Format::PerfBench, &syscall);
    if let Some(s) = run.total_s {
        r.record_mut().summary.duration_s = Some(s);
        notes
            .push("summary.duration_s is perf's Total time: the wall time around its loop.".into());
    }
    if let Some(what) = op.operation(&syscall) {
        let s = &mut r.record_mut().settings;
        s.syscalls_per_op = None;
        s.operation = Some(what);
    }
    let r = r.result(result(run, &syscall, op, loops, ns)).notes(notes);
    Some(provenance(r, run.first, run.last, repairs))
}

/// What one iteration of perf's loop is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    /// One call of a syscall that does nothing but return a value (`getppid`, `getpgid`).
    Syscall,
    /// fork(); the child exit(0)s; the parent waitpid()s.
    Fork,
    /// fork(); the child execve()s /bin/true, which runs to its exit; the parent waitpid()s.
    Execve,
    /// A bench perf has not shipped as such (`close` from a patch): the log names the call,
    /// not what else an iteration does.
    Other,
}

impl Op {
    fn of(syscall: &str) -> Op {
        match syscall {
            "getppid" | "getpgid" => Op::Syscall,
            "fork" => Op::Fork,
            "execve" => Op::Execve,
            _ => Op::Other,
        }
    }

    /// `settings.operation`, for iterations that are not one syscall.
    fn operation(self, syscall: &str) -> Option<String> {
        Some(match self {
            Op::Syscall => return None,
            Op::Fork => "one iteration of perf bench syscall fork: fork(), the child's exit(0) \
                         and the parent's waitpid() — a process created and reaped, not one \
                         syscall"
                .into(),
            Op::Execve => "one iteration of perf bench syscall execve: fork(), the child's \
                           execve(\"/bin/true\") (which then runs to its exit) and the \
                           parent's waitpid() — a program started and reaped, not one syscall"
                .into(),
            Op::Other => format!(
                "one iteration of perf bench syscall {syscall}: the log says it executes \
                 {syscall}() calls, not what else an iteration does"
            ),
        })
    }

    fn id(self, syscall: &str) -> String {
        match self {
            Op::Syscall => "native".into(),
            Op::Fork => "process.fork".into(),
            Op::Execve => "process.execve".into(),
            Op::Other => format!(
                "perf.{}",
                syscall
                    .chars()
                    .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                    .collect::<String>()
            ),
        }
    }

    fn family(self) -> &'static str {
        match self {
            Op::Syscall => "baseline",
            Op::Fork | Op::Execve => "process",
            Op::Other => "perf",
        }
    }

    fn description(self, syscall: &str) -> String {
        match self {
            Op::Syscall => format!("{syscall}() with no interception (perf bench)"),
            Op::Fork => "fork() + the child's exit(0) + waitpid(), with no interception (perf \
                         bench syscall fork)"
                .into(),
            Op::Execve => "fork() + execve(\"/bin/true\") run to its exit + waitpid(), with no \
                           interception (perf bench syscall execve)"
                .into(),
            Op::Other => format!("an iteration of perf bench syscall {syscall}"),
        }
    }
}

/// The time per call from the most precise figure the log has: usecs/op, else ops/sec, else
/// the total time over the call count (saying which in `notes`).
fn ns_per_call(run: &Run, loops: Option<u64>, notes: &mut Vec<String>) -> Option<f64> {
    Some(match (run.usecs, run.ops, run.total_s, loops) {
        (Some(us), ..) => us * 1000.0,
        (None, Some(ops), ..) if ops > 0 => {
            notes.push("The log has no usecs/op line; median_ns is 1e9 / its ops/sec.".into());
            1e9 / ops as f64
        }
        (None, _, Some(s), Some(n)) if n > 0 && s > 0.0 => {
            notes.push(
                "The log has neither usecs/op nor ops/sec; median_ns is its total time (printed \
                 to the millisecond) divided by the call count."
                    .into(),
            );
            s * 1e9 / n as f64
        }
        _ => return None,
    })
}

/// What a complete run prints and this one does not.
fn missing(run: &Run) -> Option<String> {
    let missing: Vec<&str> = [
        (run.executed.is_none(), "the Executed line"),
        (run.total_s.is_none(), "the total time"),
        (run.usecs.is_none(), "usecs/op"),
        (run.ops.is_none(), "ops/sec"),
    ]
    .iter()
    .filter(|(m, _)| *m)
    .map(|(_, w)| *w)
    .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "Incomplete log (truncated?), missing: {}.",
            missing.join(", ")
        )
    })
}

fn result(run: &Run, syscall: &str, op: Op, loops: Option<u64>, ns: f64) -> ScenarioResult {
    let mut res = single(&op.id(syscall), op.family(), &op.description(syscall), ns);
    res.iters_per_sample = loops;
    res.throughput_mops = run.ops.map(|o| Throughput {
        median: o as f64 / 1e6,
        ci_low: None,
        ci_high: None,
        stddev: None,
    });
    if let Some(b) = &run.bench {
        res.params.insert("bench".into(), b.clone());
    }
    if let Some(s) = run.total_s {
        res.params.insert("total time s".into(), s.to_string());
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_kind() {
        assert_eq!(
            event("Running 'syscall/basic' benchmark:"),
            Some(Ev::Running("syscall/basic".into()))
        );
        assert_eq!(
            event("Executed 10,000,000 getppid() calls"),
            Some(Ev::Executed(10_000_000, "getppid".into()))
        );
        assert_eq!(event("Total time: 0.522 [sec]"), Some(Ev::Total(0.522)));
        assert_eq!(event("0.052233 usecs/op"), Some(Ev::Usecs(0.052233)));
        assert_eq!(event("19,144,887 ops/sec"), Some(Ev::Ops(19_144_887)));
        assert_eq!(
            event("Executed 1000000 pipe operations between two processes"),
            None
        );
    }
}
