//! `kselftest-seccomp`: output of the kernel's `seccomp_benchmark`, every generation:
//! - the first: `getpid native`, `getpid RET_ALLOW`, one estimate;
//! - mid 2020: `RET_ALLOW 1 filter` / `2 filters`, four estimates;
//! - late 2020 to 2023: the bitmap/full scenarios, seven estimates, `Expectations:` with
//!   ✔️/❌ (plain text, `sysctl` lines);
//! - 2024+: the same as KTAP (`# ` / `# # ` prefixes, `Running on:` + `uname -a`, `Pinned to
//!   CPU`, `ok N` / `not ok N` / `# SKIP`, `Totals:`).
//!
//! Lines are turned into events; a run ends when an event comes that belongs earlier in the
//! benchmark's fixed order than what the run has already seen (so concatenated runs split).

mod assemble;

use super::build::{Hint, Outcome, Parsed, NO_RESULT_FOLLOWS};
use super::env::{parse_sysctl, parse_uname, Uname};
use super::lex::{leading_i64, leading_u64};
use super::text::Cleaned;
use syscost_record::Verdict;

pub const FORMAT: &str = "kselftest-seccomp";

/// The scenarios, in the benchmark's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scn {
    Native,
    Bitmap1,
    Bitmap2,
    Full3,
    Full4,
}

impl Scn {
    pub const ALL: [Scn; 5] = [
        Scn::Native,
        Scn::Bitmap1,
        Scn::Bitmap2,
        Scn::Full3,
        Scn::Full4,
    ];

    pub fn id(self) -> &'static str {
        match self {
            Scn::Native => "native",
            Scn::Bitmap1 => "seccomp.bitmap.1",
            Scn::Bitmap2 => "seccomp.bitmap.2",
            Scn::Full3 => "seccomp.full.3",
            Scn::Full4 => "seccomp.full.4",
        }
    }

    fn stage(self) -> u32 {
        8 + self as u32
    }
}

/// Which benchmark generation a scenario label belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Generation {
    /// `getpid RET_ALLOW: N ns` (one filter).
    OneFilter,
    /// `getpid RET_ALLOW 1 filter` / `2 filters` (mid 2020).
    TwoFilters,
    /// bitmap / full (since late 2020; the cache itself is in 5.11).
    Bitmap,
}

fn scenario_label(label: &str) -> Option<(Scn, Option<Generation>)> {
    Some(match label {
        "native" => (Scn::Native, None),
        "RET_ALLOW" => (Scn::Bitmap1, Some(Generation::OneFilter)),
        "RET_ALLOW 1 filter" => (Scn::Bitmap1, Some(Generation::TwoFilters)),
        "RET_ALLOW 2 filters" => (Scn::Bitmap2, Some(Generation::TwoFilters)),
        "RET_ALLOW 1 filter (bitmap)" => (Scn::Bitmap1, Some(Generation::Bitmap)),
        "RET_ALLOW 2 filters (bitmap)" => (Scn::Bitmap2, Some(Generation::Bitmap)),
        "RET_ALLOW 3 filters (full)" => (Scn::Full3, Some(Generation::Bitmap)),
        "RET_ALLOW 4 filters (full)" => (Scn::Full4, Some(Generation::Bitmap)),
        _ => return None,
    })
}

/// The estimates, with their ids in docs/ids.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Est {
    TotalB1,
    TotalB2,
    TotalF3,
    TotalF4,
    /// Mid-2020 generation only: `filter2 − filter1`.
    PerFilterBitmap,
    Entry,
    PerFilterLast2,
    PerFilterDiv4,
}

impl Est {
    pub fn id(self) -> &'static str {
        match self {
            Est::TotalB1 => "total.bitmap.1",
            Est::TotalB2 => "total.bitmap.2",
            Est::TotalF3 => "total.full.3",
            Est::TotalF4 => "total.full.4",
            Est::PerFilterBitmap => "per_filter.bitmap_diff",
            Est::Entry => "entry",
            Est::PerFilterLast2 => "per_filter.last2",
            Est::PerFilterDiv4 => "per_filter.div4",
        }
    }

    pub fn formula(self) -> &'static str {
        match self {
            Est::TotalB1 => "seccomp.bitmap.1 − native",
            Est::TotalB2 => "seccomp.bitmap.2 − native",
            Est::TotalF3 => "seccomp.full.3 − native",
            Est::TotalF4 => "seccomp.full.4 − native",
            Est::PerFilterBitmap => "seccomp.bitmap.2 − seccomp.bitmap.1",
            Est::Entry => "seccomp.bitmap.1 − native − (seccomp.bitmap.2 − seccomp.bitmap.1)",
            Est::PerFilterLast2 => "seccomp.full.4 − seccomp.full.3",
            Est::PerFilterDiv4 => "(seccomp.full.4 − native − entry) / 4",
        }
    }

    fn stage(self) -> u32 {
        match self {
            Est::TotalB1 => 13,
            Est::TotalB2 => 14,
            Est::TotalF3 => 15,
            Est::TotalF4 | Est::PerFilterBitmap => 16,
            Est::Entry => 17,
            Est::PerFilterLast2 => 18,
            Est::PerFilterDiv4 => 19,
        }
    }
}

fn estimate_label(label: &str) -> Option<Est> {
    Some(match label {
        "total seccomp overhead for 1 bitmapped filter" => Est::TotalB1,
        "total seccomp overhead for 2 bitmapped filters" => Est::TotalB2,
        "total seccomp overhead for 3 full filters" => Est::TotalF3,
        "total seccomp overhead for 4 full filters" => Est::TotalF4,
        "seccomp entry overhead" => Est::Entry,
        "seccomp per-filter overhead (last 2 diff)" => Est::PerFilterLast2,
        "seccomp per-filter overhead (filters / 4)" => Est::PerFilterDiv4,
        // Earlier generations.
        "total seccomp overhead for 1 filter" | "seccomp overhead per syscall" => Est::TotalB1,
        "total seccomp overhead for 2 filters" => Est::TotalB2,
        "seccomp per-filter overhead" => Est::PerFilterBitmap,
        _ => return None,
    })
}

/// The kernel's seven expectations: id, left label, operator, right label.
pub const EXPECTATIONS: [(&str, &str, &str, &str); 7] = [
    ("native_le_bitmap1", "native", "≤", "1 bitmap"),
    ("native_le_filter1", "native", "≤", "1 filter"),
    (
        "per_filter_approx",
        "per-filter (last 2 diff)",
        "≈",
        "per-filter (filters / 4)",
    ),
    ("bitmap1_approx_bitmap2", "1 bitmapped", "≈", "2 bitmapped"),
    ("entry_approx_bitmap1", "entry", "≈", "1 bitmapped"),
    ("entry_approx_bitmap2", "entry", "≈", "2 bitmapped"),
    (
        "total_approx_full4",
        "native + entry + (per filter * 4)",
        "≈",
        "4 filters total",
    ),
];

/// The verdict mark printed after a comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Pass,
    Fail,
    /// `Miscalculation! Measurement went negative`: the kernel counts it as a failure.
    Negative,
    /// The line ends before the mark (truncated or interrupted).
    Missing,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Compare {
    pub lhs: i64,
    pub rhs: i64,
    pub mark: Mark,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Ev {
    RunnerHeader,
    TapVersion,
    Plan(u32),
    RunningOn,
    SysctlHeader,
    Pinned(u32, Option<u32>),
    Calibrating(Option<String>),
    Benchmarking(u64),
    Timing(u64),
    Scenario(Scn, Option<Generation>, String, u64),
    Estimate(Est, String, u64),
    ExpectHeader,
    Compare(usize, i64, i64, Mark),
    KtapResult(usize, Verdict),
    RunnerResult(bool, String),
    Totals(String),
    /// A sentence of the benchmark's own worth keeping as a note.
    Said(String),
    /// Candidate lines whose meaning depends on where they are (uname, sysctl values).
    Other,
}

impl Ev {
    /// Position in the benchmark's fixed order; None for events that do not delimit runs.
    fn stage(&self) -> Option<u32> {
        Some(match self {
            Ev::RunnerHeader => 0,
            // Other tests print plans too; only the benchmark's own (7 tests) delimits a run.
            Ev::Plan(7) => 2,
            Ev::RunningOn => 3,
            Ev::SysctlHeader => 4,
            Ev::Pinned(..) => 5,
            Ev::Calibrating(_) => 6,
            Ev::Benchmarking(_) => 7,
            Ev::Scenario(s, ..) => s.stage(),
            Ev::Estimate(e, ..) => e.stage(),
            Ev::ExpectHeader => 20,
            Ev::Compare(i, ..) => 21 + *i as u32,
            _ => return None,
        })
    }
}

fn classify(t: &str) -> Ev {
    if t == "selftests: seccomp: seccomp_benchmark" {
        return Ev::RunnerHeader;
    }
    if t.starts_with("TAP version ") || t.starts_with("KTAP version ") {
        return Ev::TapVersion;
    }
    if let Some(rest) = t.strip_prefix("1..") {
        if let Some((n, "")) = leading_u64(rest) {
            return Ev::Plan(n as u32);
        }
    }
    if t == "Running on:" {
        return Ev::RunningOn;
    }
    if t == "Current BPF sysctl settings:" {
        return Ev::SysctlHeader;
    }
    if let Some(rest) = t.strip_prefix("Pinned to CPU ") {
        if let Some((cpu, rest)) = leading_u64(rest) {
            let of = rest
                .strip_prefix(" of ")
                .and_then(leading_u64)
                .map(|(n, _)| n as u32);
            return Ev::Pinned(cpu as u32, of);
        }
    }
    if let Some(rest) = t.strip_prefix("Calibrating sample size for ") {
        return Ev::Calibrating(leading_u64(rest).map(|(n, _)| n.to_string()));
    }
    if t.starts_with("Calibrating reasonable sample size") {
        return Ev::Calibrating(None);
    }
    if let Some(rest) = t.strip_prefix("Benchmarking ") {
        if let Some((n, rest)) = leading_u64(rest) {
            if rest.starts_with(" syscalls") || rest.starts_with(" samples") {
                return Ev::Benchmarking(n);
            }
        }
    }
    if let Some(ev) = timing(t) {
        return ev;
    }
    if let Some(rest) = t.strip_prefix("getpid ") {
        if let Some((label, value)) = rest.rsplit_once(": ") {
            if let (Some((scn, generation)), Some((v, " ns"))) =
                (scenario_label(label), leading_u64(value))
            {
                return Ev::Scenario(scn, generation, label.to_string(), v);
            }
        }
    }
    if let Some(rest) = t.strip_prefix("Estimated ") {
        if let Some((label, value)) = rest.rsplit_once(": ") {
            if let (Some(est), Some((v, " ns"))) = (estimate_label(label), leading_u64(value)) {
                return Ev::Estimate(est, label.to_string(), v);
            }
        }
    }
    if t == "Expectations:" {
        return Ev::ExpectHeader;
    }
    if let Some(ev) = compare(t) {
        return ev;
    }
    if let Some(ev) = ktap_result(t) {
        return ev;
    }
    if let Some(rest) = t.strip_prefix("Totals: ") {
        return Ev::Totals(rest.to_string());
    }
    for said in [
        "Skipping constant action bitmap expectations",
        "Saw unexpected benchmark result",
        "No overhead measured",
        "Could not set CPU affinity",
    ] {
        if t.starts_with(said) {
            return Ev::Said(t.to_string());
        }
    }
    Ev::Other
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

/// Matches `<lhs> <op> <rhs>` of expectation `i` at the start of `t`, tolerating a mangled
/// operator (`<=`, mojibake): returns the text after it.
fn match_expectation(t: &str) -> Option<(usize, &str)> {
    for (i, (_, lhs, _, rhs)) in EXPECTATIONS.iter().enumerate() {
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
            return Some((i, after_rhs));
        }
    }
    None
}

/// `native ≤ 1 bitmap (646 ≤ 675): ✔️` and its failing / negative / unfinished forms.
fn compare(t: &str) -> Option<Ev> {
    let (i, rest) = match_expectation(t)?;
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
    Some(Ev::Compare(i, lhs, rhs, mark))
}

/// `ok 1 native ≤ 1 bitmap`, `not ok 3 per-filter …`, `ok 5 # SKIP entry ≈ 1 bitmapped`, and
/// the runner's own `not ok 1 selftests: seccomp: seccomp_benchmark # TIMEOUT 120 seconds`.
fn ktap_result(t: &str) -> Option<Ev> {
    let (ok, rest) = if let Some(r) = t.strip_prefix("ok ") {
        (true, r)
    } else {
        (false, t.strip_prefix("not ok ")?)
    };
    let (_, rest) = leading_u64(rest)?;
    let desc = rest.trim_start();
    if let Some(d) = desc.strip_prefix("selftests: seccomp: seccomp_benchmark") {
        return Some(Ev::RunnerResult(ok, d.trim().to_string()));
    }
    let (skip, desc) = match desc.strip_prefix("# SKIP") {
        Some(d) => (true, d.trim_start()),
        None => (false, desc),
    };
    let (i, tail) = match_expectation(desc)?;
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
    Some(Ev::KtapResult(i, verdict))
}

/// Everything one run said, in the order it said it.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub first: usize,
    pub last: usize,
    stage: Option<u32>,
    pub ktap: bool,
    pub plan: Option<u32>,
    pub uname: Option<Uname>,
    pub sysctls: Vec<(String, String)>,
    pub sysctl_errors: Vec<String>,
    pub cpu: Option<u32>,
    pub cpus: Option<u32>,
    pub calibration_s: Option<String>,
    pub iterations: Option<u64>,
    pending_timing: Option<u64>,
    pub generation: Option<Generation>,
    /// Scenario, the log's label, ns per call, the timed loop's total ns.
    pub scenarios: Vec<(Scn, String, u64, Option<u64>)>,
    pub estimates: Vec<(Est, String, u64)>,
    pub expect_header: bool,
    pub compares: [Option<Compare>; 7],
    pub ktap_results: [Option<Verdict>; 7],
    pub runner: Option<(bool, String)>,
    pub totals: Option<String>,
    pub said: Vec<String>,
    header_line: Option<(usize, String)>,
}

impl Run {
    fn has_result(&self) -> bool {
        !self.scenarios.is_empty()
    }

    pub fn scenario(&self, s: Scn) -> Option<u64> {
        self.scenarios.iter().find(|x| x.0 == s).map(|x| x.2)
    }

    pub fn estimate(&self, e: Est) -> Option<u64> {
        self.estimates.iter().find(|x| x.0 == e).map(|x| x.2)
    }
}

/// Splits the cleaned log into runs.
pub fn runs(cleaned: &Cleaned) -> Vec<Run> {
    let mut done = Vec::new();
    let mut run = Run::default();
    for line in &cleaned.lines {
        let t = line.text.as_str();
        let ev = classify(t);
        if let Some(stage) = ev.stage() {
            if run.stage.is_some_and(|s| stage <= s) {
                done.push(std::mem::take(&mut run));
            }
            if run.stage.is_none() {
                run.first = line.no;
                run.header_line = Some((line.no, t.to_string()));
            }
            run.stage = Some(stage);
        } else if run.stage.is_none() {
            continue;
        }
        if ev != Ev::Other {
            run.last = line.no;
        }
        match ev {
            Ev::RunnerHeader | Ev::TapVersion => run.ktap = true,
            Ev::Plan(n) => {
                run.ktap = true;
                run.plan = Some(n);
            }
            Ev::RunningOn => run.ktap = true,
            Ev::SysctlHeader => {}
            Ev::ExpectHeader => run.expect_header = true,
            Ev::Pinned(cpu, of) => {
                run.cpu = Some(cpu);
                run.cpus = of;
            }
            Ev::Calibrating(s) => run.calibration_s = s,
            Ev::Benchmarking(n) => run.iterations = Some(n),
            Ev::Timing(ns) => run.pending_timing = Some(ns),
            Ev::Scenario(scn, generation, label, v) => {
                if generation.is_some() {
                    run.generation = run.generation.max(generation);
                }
                let timing = run.pending_timing.take();
                run.scenarios.push((scn, label, v, timing));
            }
            Ev::Estimate(est, label, v) => run.estimates.push((est, label, v)),
            Ev::Compare(i, lhs, rhs, mark) => {
                run.compares[i] = Some(Compare {
                    lhs,
                    rhs,
                    mark,
                    line: line.no,
                })
            }
            Ev::KtapResult(i, v) => {
                run.ktap = true;
                run.ktap_results[i] = Some(v);
            }
            Ev::RunnerResult(ok, directive) => {
                run.ktap = true;
                run.runner = Some((ok, directive));
            }
            Ev::Totals(s) => {
                if run.totals.is_none() {
                    run.ktap = true;
                    run.totals = Some(s);
                }
            }
            Ev::Said(s) => run.said.push(s),
            Ev::Other => match run.stage {
                // The line after `Running on:` is `uname -a`.
                Some(3) if run.uname.is_none() => {
                    run.uname = parse_uname(t);
                    if run.uname.is_some() {
                        run.last = line.no;
                    }
                }
                Some(4) => {
                    if let Some(kv) = parse_sysctl(t) {
                        run.sysctls.push(kv);
                        run.last = line.no;
                    } else if t.contains("bpf_jit") {
                        run.sysctl_errors.push(t.to_string());
                        run.last = line.no;
                    }
                }
                _ => {}
            },
        }
    }
    if run.stage.is_some() {
        done.push(run);
    }
    done
}

/// Parses every seccomp_benchmark run in the log.
pub fn parse(cleaned: &Cleaned) -> Outcome {
    let mut out = Outcome::default();
    for run in runs(cleaned) {
        if run.has_result() {
            let record = assemble::record(&run, &cleaned.repairs);
            out.runs.push(Parsed {
                first_line: run.first,
                last_line: run.last,
                record,
            });
        } else if let Some((line, text)) = run.header_line.clone() {
            out.empty.push(Hint {
                line,
                text,
                why: NO_RESULT_FOLLOWS.into(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_line_kind() {
        assert_eq!(
            classify("getpid native: 646 ns"),
            Ev::Scenario(Scn::Native, None, "native".into(), 646)
        );
        assert!(matches!(
            classify("getpid RET_ALLOW 3 filters (full): 732 ns"),
            Ev::Scenario(Scn::Full3, Some(Generation::Bitmap), _, 732)
        ));
        assert!(matches!(
            classify(
                "Estimated seccomp per-filter overhead (filters / 4): 18446744073709551613 ns"
            ),
            Ev::Estimate(Est::PerFilterDiv4, _, 18446744073709551613)
        ));
        assert_eq!(classify("Pinned to CPU 3 of 4"), Ev::Pinned(3, Some(4)));
        assert_eq!(
            classify("Benchmarking 200000000 syscalls..."),
            Ev::Benchmarking(200000000)
        );
        assert_eq!(
            classify("129.359381409 - 0.008724424 = 129350656985 (129.4s)"),
            Ev::Timing(129350656985)
        );
        assert_eq!(classify("1..7"), Ev::Plan(7));
        assert_eq!(classify("getpid native: lots ns"), Ev::Other);
    }

    #[test]
    fn compares_with_every_mark() {
        assert_eq!(
            classify("native ≤ 1 bitmap (646 ≤ 675): ✔️"),
            Ev::Compare(0, 646, 675, Mark::Pass)
        );
        assert_eq!(
            classify("per-filter (last 2 diff) ≈ per-filter (filters / 4) (20 ≈ 19): ❌"),
            Ev::Compare(2, 20, 19, Mark::Fail)
        );
        assert_eq!(
            classify(
                "entry ≈ 2 bitmapped (-3 ≈ 29): Miscalculation! Measurement went negative: -3"
            ),
            Ev::Compare(5, -3, 29, Mark::Negative)
        );
        assert_eq!(
            classify("native + entry + (per filter * 4) <= 4 filters total (755 <= 752):"),
            Ev::Compare(6, 755, 752, Mark::Missing)
        );
    }

    #[test]
    fn ktap_results() {
        assert_eq!(
            classify("ok 1 native ≤ 1 bitmap"),
            Ev::KtapResult(0, Verdict::Pass)
        );
        assert_eq!(
            classify("not ok 4 1 bitmapped ≈ 2 bitmapped"),
            Ev::KtapResult(3, Verdict::Fail)
        );
        assert_eq!(
            classify("ok 5 # SKIP entry ≈ 1 bitmapped"),
            Ev::KtapResult(4, Verdict::Skip)
        );
        assert_eq!(
            classify("not ok 1 selftests: seccomp: seccomp_benchmark # TIMEOUT 180 seconds"),
            Ev::RunnerResult(false, "# TIMEOUT 180 seconds".into())
        );
        assert_eq!(classify("ok 9 global.user_notification_basic"), Ev::Other);
    }
}
