//! `kselftest-sud`: output of the kernel's `sud_benchmark` (Syscall User Dispatch). It times
//! `sysinfo()` once without dispatch and once with dispatch on and the selector at ALLOW:
//!
//! ```text
//! Calibrating test set to last ~5 seconds...
//! test iterations = 37500000
//! Avg syscall time 134ns.
//! Caught sys_ff00
//! trapped_call_count 1, native_call_count 0.
//! Avg syscall time 147ns.
//! Interception overhead: 9.7% (+13ns).
//! ```
//!
//! `Caught sys_ff00` is written by the SIGSYS handler with write(2), at once, while the rest
//! is buffered stdio: in captured output (the kselftest runner) it comes before the run's
//! first line, next to the stderr line "Enabling syscall trapping.". It is then kept for the
//! run that follows, never taken as a run of its own.

use crate::format::Format;
use crate::lex::{leading_f64, leading_i64, leading_u64, whole_number};
use crate::parsed::{
    overhead_vs, provenance, published_overhead, single, skeleton, Contradiction, Hint, Outcome,
    Parsed, MAX_RUNS,
};
use crate::runner::{self, RunnerFacts, RunnerLine};
use crate::text::Cleaned;
use syscost_record::{Overhead, RecordBuilder, ScenarioResult};

#[derive(Debug, Clone, PartialEq)]
enum Ev {
    Calibrating(Option<u64>),
    /// `Err`: why the count cannot be what the benchmark printed.
    Iterations(Result<u64, Refused>),
    /// `Err`: the line is there but its value cannot be a time in ns (why). It still takes
    /// its place, so that the timing with dispatch on is never read as the native one.
    Avg(Result<u64, Refused>),
    Caught(String),
    Counts(String, String),
    Overhead(f64, i64),
    /// A kselftest runner line (the whole line).
    Runner(RunnerLine),
}

/// Why the number of an `Iterations` or `Avg` line cannot be what the benchmark printed.
#[derive(Debug, Clone, PartialEq)]
enum Refused {
    /// `test iterations = 0`.
    NoCalls,
    /// `Avg syscall time 0ns`.
    ZeroTime,
    /// A whole number in another unit than ns (the unit as written).
    NotNs(u64, String),
    /// The count is no whole number: as written, and why (see [`whole_number`]).
    Count(String, &'static str),
    /// The time is no whole number: as written, and why.
    Time(String, &'static str),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::NoCalls => write!(f, "0 calls time nothing"),
            Refused::ZeroTime => write!(f, "0 ns per call is less than any system call takes"),
            Refused::NotNs(n, unit) => write!(f, "{n}{unit} is not a time in ns"),
            Refused::Count(n, why) => write!(f, "{n} iterations {why}"),
            Refused::Time(n, why) => write!(f, "{n} ns {why}"),
        }
    }
}

/// The kselftest test whose output this parser reads.
const TEST: &str = "sud_benchmark";

/// Every event on a line, in order (a line may hold several when a mail was flattened).
fn events(t: &str) -> Vec<(usize, Ev)> {
    let mut out = Vec::new();
    if let Some(line) = runner::parse(t) {
        out.push((0, Ev::Runner(line)));
        return out;
    }
    let mut scan = |pat: &str, f: &dyn Fn(&str) -> Option<Ev>| {
        let mut from = 0;
        while let Some(p) = t[from..].find(pat) {
            let at = from + p;
            if let Some(ev) = f(&t[at + pat.len()..]) {
                out.push((at, ev));
            }
            from = at + pat.len();
        }
    };
    scan("Calibrating test set to last ~", &|r| {
        Some(Ev::Calibrating(leading_u64(r).map(|(n, _)| n)))
    });
    scan("test iterations = ", &|r| {
        Some(Ev::Iterations(match whole_number(r) {
            Ok((0, _)) => Err(Refused::NoCalls),
            Ok((n, _)) => Ok(n),
            Err((n, why)) => Err(Refused::Count(n, why)),
        }))
    });
    scan("Avg syscall time ", &|r| {
        Some(Ev::Avg(match whole_number(r) {
            Ok((0, rest)) if rest.starts_with("ns") => Err(Refused::ZeroTime),
            Ok((n, rest)) if rest.starts_with("ns") => Ok(n),
            Ok((n, rest)) => Err(Refused::NotNs(
                n,
                rest.split_whitespace().next().unwrap_or("").to_string(),
            )),
            Err((n, why)) => Err(Refused::Time(n, why)),
        }))
    });
    scan("Caught sys_", &|r| {
        let hex: String = r.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
        (!hex.is_empty()).then(|| Ev::Caught(format!("sys_{hex}")))
    });
    scan("trapped_call_count ", &|r| {
        let (a, rest) = leading_u64(r)?;
        let (b, _) = leading_u64(rest.strip_prefix(", native_call_count ")?)?;
        Some(Ev::Counts(a.to_string(), b.to_string()))
    });
    scan("Interception overhead: ", &|r| {
        let (pct, rest) = leading_f64(r)?;
        let (ns, rest) = leading_i64(rest.strip_prefix("% (+")?)?;
        rest.starts_with("ns)").then_some(Ev::Overhead(pct, ns))
    });
    out.sort_by_key(|(at, _)| *at);
    out
}

#[derive(Debug, Clone, Default)]
struct Run {
    first: usize,
    last: usize,
    calibration_s: Option<u64>,
    iterations: Option<u64>,
    avgs: Vec<Option<u64>>,
    /// The line of each average.
    avg_lines: Vec<usize>,
    caught: Option<String>,
    /// The Caught line came before the run (captured output).
    caught_before: bool,
    counts: Option<(String, String)>,
    overhead: Option<(f64, i64)>,
    overhead_line: usize,
    runner: RunnerFacts,
    /// Lines whose number was refused: (line, text, why).
    refused: Vec<(usize, String, String)>,
}

impl Run {
    fn started(&self) -> bool {
        self.first > 0
    }

    /// Whether `ev` belongs to a new run rather than this one.
    fn ends_before(&self, ev: &Ev) -> bool {
        match ev {
            Ev::Calibrating(_) => self.started(),
            Ev::Iterations(_) => self.iterations.is_some() || !self.avgs.is_empty(),
            Ev::Avg(_) => self.avgs.len() >= 2 || self.overhead.is_some(),
            Ev::Overhead(..) => self.overhead.is_some(),
            _ => false,
        }
    }

    /// Where a Caught line is in its place: after the first average, before the second.
    fn expects_caught(&self) -> bool {
        self.started() && self.avgs.len() == 1 && self.caught.is_none() && self.overhead.is_none()
    }
}

/// What came before a run's first line and belongs to it.
#[derive(Debug, Default)]
struct Early {
    caught: Option<(usize, String)>,
    runner: RunnerFacts,
    /// First line of what is kept here.
    first: Option<usize>,
}

pub fn parse(cleaned: &Cleaned) -> Outcome {
    let mut runs = Vec::new();
    let mut run = Run::default();
    let mut early = Early::default();
    for line in &cleaned.lines {
        for (_, ev) in events(&line.text) {
            let ev = match ev {
                Ev::Caught(s) if !run.expects_caught() => {
                    // Out of its place: the unbuffered line of the run that follows.
                    early.caught = Some((line.no, s));
                    early.first.get_or_insert(line.no);
                    continue;
                }
                Ev::Runner(r) => {
                    // The result line closes the run it follows; the timeout and header come
                    // before the run they belong to.
                    let belongs_here = matches!(r, RunnerLine::Result { .. })
                        && run.started()
                        && run.runner.take(&r, TEST);
                    if belongs_here {
                        run.last = line.no;
                    } else if !matches!(r, RunnerLine::Result { .. }) {
                        if matches!(&r, RunnerLine::Header { test } if test != TEST) {
                            early = Early::default();
                        } else if early.runner.take(&r, TEST) {
                            early.first.get_or_insert(line.no);
                        }
                    }
                    continue;
                }
                ev => ev,
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
                let e = std::mem::take(&mut early);
                run.first = e.first.map_or(line.no, |f| f.min(line.no));
                run.runner = e.runner;
                if let Some((_, s)) = e.caught {
                    run.caught = Some(s);
                    run.caught_before = true;
                }
            }
            run.last = line.no;
            match ev {
                Ev::Calibrating(s) => run.calibration_s = s,
                Ev::Iterations(Ok(n)) => run.iterations = Some(n),
                Ev::Avg(Ok(n)) => {
                    run.avgs.push(Some(n));
                    run.avg_lines.push(line.no);
                }
                Ev::Iterations(Err(why)) => {
                    run.refused
                        .push((line.no, line.text.to_string(), why.to_string()))
                }
                Ev::Avg(Err(why)) => {
                    run.avgs.push(None);
                    run.avg_lines.push(line.no);
                    run.refused
                        .push((line.no, line.text.to_string(), why.to_string()));
                }
                Ev::Caught(s) => run.caught = Some(s),
                Ev::Counts(a, b) => run.counts = Some((a, b)),
                Ev::Overhead(p, n) => {
                    run.overhead = Some((p, n));
                    run.overhead_line = line.no;
                }
                Ev::Runner(_) => {}
            }
        }
    }
    if run.started() {
        runs.push(run);
    }
    let mut out = Outcome::default();
    if let Some((line, _)) = early.caught {
        out.empty(Hint::no_result_at(cleaned, line));
    }
    for run in runs {
        if let Some(c) = contradiction(&run, cleaned) {
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
        if run.avgs.iter().all(Option::is_none) {
            out.empty(Hint::no_result_at(cleaned, run.first));
        } else {
            out.runs.push(Parsed::new(
                run.first,
                run.last,
                record(&run, &cleaned.repairs),
            ));
        }
    }
    out
}

/// The overhead line against the two averages. sud_benchmark prints each average rounded to
/// the ns (`%.0lf`) and the overhead from the unrounded times: `+%.0lfns` of their difference
/// and `%.1lf%%` of their ratio. Each average may be up to 0.5 ns from its time, so the printed
/// difference is within 1 ns of the averages' (a whole number, rounded itself), and the percent
/// within what their rounding allows, ± 0.05. Anything further was not printed by this run.
fn contradiction(run: &Run, cleaned: &Cleaned) -> Option<Contradiction> {
    let (Some(Some(off)), Some(Some(on)), Some((pct, ns))) =
        (run.avgs.first(), run.avgs.get(1), run.overhead)
    else {
        return None;
    };
    let (off, on) = (*off as f64, *on as f64);
    let lines = [run.avg_lines[0], run.avg_lines[1]];
    let diff = on - off;
    if (ns as f64 - diff).abs() > 1.0 {
        return Some(Contradiction::new(
            cleaned,
            run.overhead_line,
            &lines,
            format!(
                "averages of {off} and {on} ns differ by {diff} ns, so the overhead of the times \
                 they round is {} to {} ns, not {ns}",
                diff - 1.0,
                diff + 1.0
            ),
        ));
    }
    let ratio = |a: f64, b: f64| 100.0 * (a / b - 1.0);
    let low = ratio(on - 0.5, off + 0.5) - 0.05;
    let high = if off > 0.5 {
        ratio(on + 0.5, off - 0.5) + 0.05
    } else {
        f64::INFINITY
    };
    // A hair of slack for the division's own rounding.
    if pct < low - 1e-9 || pct > high + 1e-9 {
        return Some(Contradiction::new(
            cleaned,
            run.overhead_line,
            &lines,
            format!(
                "averages of {off} and {on} ns give an overhead of {:.1} % (from {low:.2} to \
                 {high:.2} % within their rounding), not {pct} %",
                ratio(on, off)
            ),
        ));
    }
    None
}

fn record(run: &Run, repairs: &[String]) -> RecordBuilder {
    let mut notes = vec![format!(
        "sud_benchmark timed sysinfo() once without and once with dispatch{}, printing integer \
         ns per call: single measurements, so no confidence intervals. The overhead percent is \
         the tool's own figure.",
        run.iterations
            .map(|n| format!(" ({n} calls each)"))
            .unwrap_or_default()
    )];
    let mut r = skeleton(Format::KselftestSud, "sysinfo");
    let other = &mut r.record_mut().environment.incidental.other;
    if let Some(s) = run.calibration_s {
        other.insert("calibration seconds".into(), s.to_string());
    }
    run.runner.record(TEST, other, &mut notes);
    if run.caught_before {
        notes.push(
            "\"Caught sys_…\" comes before the run's first line, as in captured output (the \
             SIGSYS handler writes it with write(2) at once, the rest is buffered stdio); it is \
             this run's trapped call."
                .into(),
        );
    }
    let native = run.avgs.first().copied().flatten().map(|n| n as f64);
    match native {
        Some(native) => {
            let mut base = single(
                "native",
                "baseline",
                "sysinfo() without Syscall User Dispatch",
                native,
            );
            base.iters_per_sample = run.iterations;
            r = r.result(base);
        }
        None => notes.push(
            "The first \"Avg syscall time\" (without dispatch) is not a time in ns; native is \
             not recorded."
                .into(),
        ),
    }
    match run.avgs.get(1).copied() {
        Some(None) => notes.push(
            "The second \"Avg syscall time\" (dispatch on) is not a time in ns; sud.allow is \
             not recorded."
                .into(),
        ),
        Some(Some(on)) => r = r.result(allow(run, on as f64, native, &mut notes)),
        None => notes.push(
            "Incomplete log (truncated?): it ends before the timing with dispatch on, so \
             sud.allow is missing."
                .into(),
        ),
    }
    if run.avgs.len() > 2 {
        notes.push("The run prints more than two averages; the first two are recorded.".into());
    }
    notes.extend(crate::parsed::refused_notes(&run.refused));
    provenance(r.notes(notes), run.first, run.last, repairs)
}

/// The timing with dispatch on (`on` ns per call).
fn allow(run: &Run, on: f64, native: Option<f64>, notes: &mut Vec<String>) -> ScenarioResult {
    let mut res = single(
        "sud.allow",
        "sud",
        "sysinfo() with Syscall User Dispatch on, selector ALLOW",
        on,
    );
    res.iters_per_sample = run.iterations;
    if let Some(c) = &run.caught {
        res.params.insert("caught".into(), c.clone());
    }
    if let Some((t, n)) = &run.counts {
        res.params.insert("trapped_call_count".into(), t.clone());
        res.params.insert("native_call_count".into(), n.clone());
    }
    res.overhead = allow_overhead(run, on, native, notes);
    res
}

/// The log's own overhead figure, else the difference of the two averages.
fn allow_overhead(
    run: &Run,
    on: f64,
    native: Option<f64>,
    notes: &mut Vec<String>,
) -> Option<Overhead> {
    match (run.overhead, native) {
        (Some((pct, ns)), Some(native)) => {
            if on - native != ns as f64 {
                notes.push(format!(
                    "The log's overhead (+{ns} ns) differs from the difference of its \
                     two averages ({} ns); the log's figure is recorded.",
                    on - native
                ));
            }
            Some(published_overhead("native", ns as f64, pct))
        }
        // The log's figure is relative to a native timing that is not recorded.
        (Some((pct, ns)), None) => {
            notes.push(format!(
                "The log's overhead (+{ns} ns, {pct} %) is not recorded: it is relative to the \
                 native timing, which is not."
            ));
            None
        }
        (None, Some(native)) => {
            notes.push(
                "The log has no \"Interception overhead\" line; the overhead is the \
                 difference of its two averages."
                    .into(),
            );
            overhead_vs("native", native, on)
        }
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_in_a_flattened_line_come_in_order() {
        let evs: Vec<Ev> = events("x > Avg syscall time 134ns. > Caught sys_ff00 > trapped_call_count 1, native_call_count 0. > Avg syscall time 147ns. > Interception overhead: 9.7% (+13ns).")
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        assert_eq!(
            evs,
            [
                Ev::Avg(Ok(134)),
                Ev::Caught("sys_ff00".into()),
                Ev::Counts("1".into(), "0".into()),
                Ev::Avg(Ok(147)),
                Ev::Overhead(9.7, 13)
            ]
        );
    }

    #[test]
    fn an_unreadable_native_time_is_not_replaced_by_the_next_one() {
        let log = "Calibrating test set to last ~5 seconds...\ntest iterations = 100\n\
                   Avg syscall time 1e308ns.\nCaught sys_ff00\n\
                   trapped_call_count 1, native_call_count 0.\nAvg syscall time 239ns.\n\
                   Interception overhead: 39.8% (+68ns).\n";
        let mut out = parse(&crate::text::clean(log));
        assert_eq!(out.runs.len(), 1);
        let r = out.runs.remove(0).record.build();
        assert!(r.result("native").is_none(), "{:?}", r.results);
        let allow = r.result("sud.allow").expect("sud.allow");
        assert_eq!(allow.median_ns, Some(239.0));
        // The log's overhead is relative to the native timing it garbled: a record of it
        // would name a baseline the record does not hold.
        assert!(allow.overhead.is_none(), "{:?}", allow.overhead);
        assert!(syscost_record::validate(&r)
            .iter()
            .all(|p| p.field != "results[0] (sud.allow).overhead.vs"));
        assert!(r.notes.iter().any(|n| n.contains("native is not recorded")));
        assert!(r
            .notes
            .iter()
            .any(|n| n.contains("(+68 ns, 39.8 %) is not recorded")));
        // Refused with the line and the reason.
        assert_eq!(out.refused.len(), 1, "{:?}", out.refused);
        assert_eq!(out.refused[0].line, 3);
        assert_eq!(out.refused[0].why, "1e308 ns is not a whole number");
    }

    #[test]
    fn refused_numbers_say_why() {
        let why = |line: &str| match &events(line)[0].1 {
            Ev::Iterations(Err(w)) | Ev::Avg(Err(w)) => w.to_string(),
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(why("test iterations = 0"), "0 calls time nothing");
        assert_eq!(why("test iterations = -5"), "-5 iterations is negative");
        assert_eq!(
            why("Avg syscall time 0ns."),
            "0 ns per call is less than any system call takes"
        );
        assert_eq!(why("Avg syscall time 134us."), "134us. is not a time in ns");
        assert_eq!(
            why("Avg syscall time 1.5ns."),
            "1.5 ns is not a whole number"
        );
    }

    #[test]
    fn negative_overhead_is_read_as_printed() {
        let evs = events("Interception overhead: -1.5% (+-2ns).");
        assert_eq!(evs[0].1, Ev::Overhead(-1.5, -2));
    }
}
