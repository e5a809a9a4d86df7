//! seccomp_benchmark's lines → runs: each line becomes an event, and a run ends when an event
//! comes that belongs earlier in the benchmark's fixed order than what the run has seen.

mod events;

use crate::env::{parse_sysctl, parse_uname, Uname};
use crate::lex::{leading_i64, leading_u64, whole_number};
use crate::parsed::MAX_RUNS;
use crate::runner::{self, RunnerFacts, RunnerLine};
use crate::text::Cleaned;
use events::{classify, Ev, STAGE_RUNNING_ON, STAGE_SYSCTLS, TEST};
use syscost_record::{EstimateId, KernelExpectation, KernelScenario, Relation, Verdict};

/// Position of a scenario in the benchmark's order: the declaration order, which `ALL` follows
/// (tested below).
pub fn scenario_index(s: KernelScenario) -> usize {
    s as usize
}

/// Position of an expectation in the benchmark's order, as for scenarios.
pub fn expectation_index(e: KernelExpectation) -> usize {
    e as usize
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

/// The scenario a `getpid <label>: N ns` line measures, in every generation's words.
fn scenario_label(label: &str) -> Option<(KernelScenario, Option<Generation>)> {
    use KernelScenario::*;
    Some(match label {
        "native" => (Native, None),
        "RET_ALLOW" => (Bitmap1, Some(Generation::OneFilter)),
        "RET_ALLOW 1 filter" => (Bitmap1, Some(Generation::TwoFilters)),
        "RET_ALLOW 2 filters" => (Bitmap2, Some(Generation::TwoFilters)),
        "RET_ALLOW 1 filter (bitmap)" => (Bitmap1, Some(Generation::Bitmap)),
        "RET_ALLOW 2 filters (bitmap)" => (Bitmap2, Some(Generation::Bitmap)),
        "RET_ALLOW 3 filters (full)" => (Full3, Some(Generation::Bitmap)),
        "RET_ALLOW 4 filters (full)" => (Full4, Some(Generation::Bitmap)),
        _ => return None,
    })
}

/// An estimate the benchmark prints: one of the kernel's seven (docs/ids.md; printed in the
/// words of their labels since late 2020), or the one only the mid-2020 generation printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Est {
    Kernel(EstimateId),
    /// `filter2 − filter1`; later generations dropped it.
    BitmapDiff,
}

impl Est {
    pub fn id(self) -> &'static str {
        match self {
            Est::Kernel(e) => e.id(),
            Est::BitmapDiff => "per_filter.bitmap_diff",
        }
    }

    /// The benchmark's words for it (the latest generation's, for the kernel's seven).
    pub fn label(self) -> &'static str {
        match self {
            Est::Kernel(e) => e.label(),
            Est::BitmapDiff => "seccomp per-filter overhead",
        }
    }

    /// Where the benchmark prints it, after the scenarios; None for estimates it never prints.
    fn stage(self) -> Option<u32> {
        use EstimateId::*;
        Some(match self {
            Est::Kernel(TotalBitmap1) => 13,
            Est::Kernel(TotalBitmap2) => 14,
            Est::Kernel(TotalFull3) => 15,
            Est::Kernel(TotalFull4) | Est::BitmapDiff => 16,
            Est::Kernel(Entry) => 17,
            Est::Kernel(PerFilterLast2) => 18,
            Est::Kernel(PerFilterDiv4) => 19,
            Est::Kernel(DepthPerFilter | DepthEntry) => return None,
        })
    }
}

/// The estimate an `Estimated <label>: N ns` line gives, in every generation's words.
fn estimate_label(label: &str) -> Option<Est> {
    if let Some(e) = EstimateId::KERNEL.into_iter().find(|e| e.label() == label) {
        return Some(Est::Kernel(e));
    }
    Some(match label {
        // Earlier generations.
        "total seccomp overhead for 1 filter" | "seccomp overhead per syscall" => {
            Est::Kernel(EstimateId::TotalBitmap1)
        }
        "total seccomp overhead for 2 filters" => Est::Kernel(EstimateId::TotalBitmap2),
        "seccomp per-filter overhead" => Est::BitmapDiff,
        _ => return None,
    })
}

/// The generation an estimate's words belong to, when only one generation used them.
fn estimate_generation(label: &str) -> Option<Generation> {
    match label {
        "seccomp overhead per syscall" => Some(Generation::OneFilter),
        "total seccomp overhead for 1 filter"
        | "total seccomp overhead for 2 filters"
        | "seccomp per-filter overhead" => Some(Generation::TwoFilters),
        "seccomp entry overhead" => None,
        _ => estimate_label(label).map(|_| Generation::Bitmap),
    }
}

/// How the benchmark prints the two sides of an expectation, in
/// `<lhs> <op> <rhs> (<values>): <mark>` and in its KTAP result lines.
fn printed_sides(e: KernelExpectation) -> (&'static str, &'static str) {
    use KernelExpectation::*;
    match e {
        NativeLeBitmap1 => ("native", "1 bitmap"),
        NativeLeFilter1 => ("native", "1 filter"),
        PerFilterApprox => ("per-filter (last 2 diff)", "per-filter (filters / 4)"),
        Bitmap1ApproxBitmap2 => ("1 bitmapped", "2 bitmapped"),
        EntryApproxBitmap1 => ("entry", "1 bitmapped"),
        EntryApproxBitmap2 => ("entry", "2 bitmapped"),
        TotalApproxFull4 => ("native + entry + (per filter * 4)", "4 filters total"),
    }
}

/// The operator the benchmark prints for a relation.
pub fn operator(r: Relation) -> &'static str {
    match r {
        Relation::Le => "≤",
        Relation::Approx => "≈",
    }
}

/// One slot per kernel expectation.
#[derive(Debug, Clone)]
pub struct PerExpectation<T>([Option<T>; KernelExpectation::ALL.len()]);

impl<T> Default for PerExpectation<T> {
    fn default() -> Self {
        PerExpectation(Default::default())
    }
}

impl<T> PerExpectation<T> {
    pub fn get(&self, e: KernelExpectation) -> Option<&T> {
        self.0[expectation_index(e)].as_ref()
    }

    fn set(&mut self, e: KernelExpectation, v: T) {
        self.0[expectation_index(e)] = Some(v);
    }
}

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

impl Mark {
    /// The verdict the mark gives, if it gives one.
    pub fn verdict(self) -> Option<Verdict> {
        match self {
            Mark::Pass => Some(Verdict::Pass),
            Mark::Fail | Mark::Negative => Some(Verdict::Fail),
            Mark::Missing => None,
        }
    }
}

/// A printed comparison: `<lhs> <op> <rhs> (<lhs value> <op> <rhs value>): <mark>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Compare {
    pub lhs: i64,
    pub rhs: i64,
    pub mark: Mark,
}

/// A `getpid <label>: N ns` line.
#[derive(Debug, Clone, PartialEq)]
pub struct ScenarioLine {
    pub scenario: KernelScenario,
    /// The label as printed (it tells the generation).
    pub label: String,
    pub ns: u64,
    /// The timed loop's total ns, printed before it.
    pub timed_ns: Option<u64>,
    /// Where it is printed.
    pub line: usize,
}

/// Everything one run said, in the order it said it.
#[derive(Debug, Clone, Default)]
pub struct Run {
    pub first: usize,
    pub last: usize,
    stage: Option<u32>,
    /// The benchmark's own KTAP output (its `1..7` plan, `ok N <expectation>` lines, Totals) —
    /// not the runner's `# ` prefixes or its result line.
    pub ktap: bool,
    /// The benchmark pinned itself (or said it could not): the generation whose ≈ rule is 10 %.
    pub pinning: bool,
    pub plan: Option<u32>,
    pub uname: Option<Uname>,
    pub uname_line: Option<usize>,
    pub sysctls: Vec<(String, String)>,
    /// The sysctl values came before their header (captured output, unbuffered system()).
    pub sysctls_before_header: bool,
    seen_sysctl_header: bool,
    pub sysctl_errors: Vec<String>,
    /// `Pinned to CPU N of M` as printed: (N, M).
    pub pinned: Option<(u32, Option<u32>)>,
    pub calibration_s: Option<String>,
    pub iterations: Option<u64>,
    pending_timing: Option<u64>,
    pub generation: Option<Generation>,
    pub scenarios: Vec<ScenarioLine>,
    /// Each printed estimate: what it is, its label, its value and its line.
    pub estimates: Vec<(Est, String, u64, usize)>,
    pub expect_header: bool,
    pub compares: PerExpectation<Compare>,
    /// The line of each comparison.
    pub compare_lines: PerExpectation<usize>,
    pub ktap_results: PerExpectation<Verdict>,
    pub runner: RunnerFacts,
    pub totals: Option<String>,
    pub said: Vec<String>,
    /// Lines whose number was refused: (line, text, why).
    pub refused: Vec<(usize, String, String)>,
    /// The line that began the run, for the message when it holds no result.
    pub header_line: Option<(usize, String)>,
}

impl Run {
    /// Scenario lines, or at least estimates (a fragment quoted without its scenarios).
    pub fn has_result(&self) -> bool {
        !self.scenarios.is_empty() || !self.estimates.is_empty()
    }

    pub fn scenario(&self, s: KernelScenario) -> Option<u64> {
        self.scenarios
            .iter()
            .find(|x| x.scenario == s)
            .map(|x| x.ns)
    }

    pub fn estimate(&self, e: Est) -> Option<u64> {
        self.estimates.iter().find(|x| x.0 == e).map(|x| x.2)
    }

    /// The line of a scenario's value (its first, as recorded).
    pub fn scenario_line(&self, s: KernelScenario) -> Option<usize> {
        self.scenarios
            .iter()
            .find(|x| x.scenario == s)
            .map(|x| x.line)
    }

    /// The line of an estimate's printed value (its first).
    pub fn estimate_line(&self, e: Est) -> Option<usize> {
        self.estimates.iter().find(|x| x.0 == e).map(|x| x.3)
    }

    /// The log's own verdict on an expectation: the KTAP line, else the printed mark.
    pub fn logged_verdict(&self, e: KernelExpectation) -> Option<Verdict> {
        self.ktap_results
            .get(e)
            .copied()
            .or_else(|| self.compares.get(e).and_then(|c| c.mark.verdict()))
    }

    /// Takes in what line `no` (text `t`) says.
    fn apply(&mut self, ev: Ev, no: usize, t: &str) {
        if ev != Ev::Other {
            self.last = no;
        }
        match ev {
            Ev::RunnerHeader => self.runner.header = true,
            Ev::Runner(line) => {
                if self.runner.take(&line, TEST) {
                    self.last = no;
                }
            }
            Ev::TapVersion | Ev::RunningOn => {}
            Ev::Plan(n) => {
                // The runner's own plan counts the suite's tests; seven is the benchmark's.
                if n == 7 {
                    self.ktap = true;
                }
                self.plan = Some(n);
            }
            Ev::SysctlHeader => self.seen_sysctl_header = true,
            Ev::Sysctl(k, v) => {
                if !self.seen_sysctl_header {
                    self.sysctls_before_header = true;
                }
                self.sysctls.push((k, v));
            }
            Ev::ExpectHeader => self.expect_header = true,
            Ev::Pinned(cpu, of) => {
                self.pinning = true;
                self.pinned = Some((cpu, of));
            }
            Ev::NoAffinity(s) => {
                self.pinning = true;
                self.said.push(s);
            }
            Ev::Calibrating(s) => self.calibration_s = s,
            Ev::Benchmarking(n) => self.iterations = Some(n),
            Ev::Timing(ns) => self.pending_timing = Some(ns),
            Ev::Scenario(scn, generation, label, v) => {
                if generation.is_some() {
                    self.generation = self.generation.max(generation);
                }
                let timed_ns = self.pending_timing.take();
                if let Some(why) = contradiction(v, self.iterations, timed_ns) {
                    self.refused.push((no, t.to_string(), why));
                    return;
                }
                self.scenarios.push(ScenarioLine {
                    scenario: scn,
                    label,
                    ns: v,
                    timed_ns,
                    line: no,
                });
            }
            Ev::Refused(why) => self.refused.push((no, t.to_string(), why)),
            Ev::Estimate(est, label, v) => {
                // A fragment may print estimates without scenario lines: their words tell the
                // generation too.
                if self.scenarios.is_empty() {
                    self.generation = self.generation.max(estimate_generation(&label));
                }
                self.estimates.push((est, label, v, no))
            }
            Ev::Compare(e, c) => {
                self.compares.set(e, c);
                self.compare_lines.set(e, no);
            }
            Ev::KtapResult(e, v) => {
                self.ktap = true;
                self.ktap_results.set(e, v);
            }
            Ev::Totals(s) => {
                if self.totals.is_none() {
                    self.ktap = true;
                    self.totals = Some(s);
                }
            }
            Ev::Said(s) => self.said.push(s),
            Ev::Other => self.apply_other(no, t),
        }
    }

    /// A line with no meaning of its own: `uname -a` after `Running on:`, sysctls after their
    /// header.
    fn apply_other(&mut self, no: usize, t: &str) {
        match self.stage {
            Some(STAGE_RUNNING_ON) if self.uname.is_none() => {
                self.uname = parse_uname(t);
                if self.uname.is_some() {
                    self.last = no;
                    self.uname_line = Some(no);
                }
            }
            Some(STAGE_SYSCTLS) if t.contains("bpf_jit") => {
                self.sysctl_errors.push(t.to_string());
                self.last = no;
            }
            _ => {}
        }
    }

    /// Whether the run has begun measuring (lines of its setup no longer belong to it).
    fn measuring(&self) -> bool {
        self.stage.is_some_and(|s| s >= STAGE_BENCHMARKING)
    }
}

/// Why `ns` per call cannot be what a loop of `iterations` calls timed at `timed_ns` gave: the
/// benchmark prints the integer quotient of the two, so a value more than 1 ns (or 1 %) away
/// from it was not printed by this run. None when it fits, or when the log does not show both.
fn contradiction(ns: u64, iterations: Option<u64>, timed_ns: Option<u64>) -> Option<String> {
    let (n, t) = (iterations.filter(|&n| n > 0)?, timed_ns?);
    let per = t as f64 / n as f64;
    ((ns as f64 - per).abs() > 1.0f64.max(per * 0.01)).then(|| {
        format!(
            "{ns} ns per call contradicts its own timing: {n} calls in {t} ns are {per:.3} ns \
             each"
        )
    })
}

/// Where the loop size puts a run: its setup is over.
const STAGE_BENCHMARKING: u32 = 7;

/// Lines of a run's setup that may arrive before the line that begins it: the runner's
/// timeout (printed before its header) and, in captured output, the sysctl values.
fn is_early(ev: &Ev) -> bool {
    matches!(ev, Ev::Sysctl(..) | Ev::Runner(RunnerLine::Timeout(_)))
}

/// Splits the cleaned log into runs; `Err(line)` when a run beyond [`MAX_RUNS`] begins at
/// `line` (nothing more is read).
pub fn runs(cleaned: &Cleaned) -> Result<Vec<Run>, usize> {
    let mut done = Vec::new();
    let mut run = Run::default();
    // Early lines seen outside a run's setup, for the run that begins next.
    let mut early: Vec<(Ev, usize, String)> = Vec::new();
    for line in &cleaned.lines {
        let t = line.text.as_ref();
        let ev = classify(t);
        if matches!(ev, Ev::Runner(RunnerLine::Header { .. })) {
            // Another test begins: what came early belonged to it.
            early.clear();
        }
        if is_early(&ev) && (run.stage.is_none() || run.measuring()) {
            early.push((ev, line.no, t.to_string()));
            continue;
        }
        if let Some(stage) = ev.stage() {
            if run.stage.is_some_and(|s| stage <= s) {
                done.push(std::mem::take(&mut run));
                if done.len() == MAX_RUNS {
                    return Err(line.no);
                }
            }
            if run.stage.is_none() {
                run.first = line.no;
                run.header_line = Some((line.no, t.to_string()));
                for (ev, no, text) in early.drain(..) {
                    run.first = run.first.min(no);
                    run.apply(ev, no, &text);
                }
            }
            run.stage = Some(stage);
        } else if run.stage.is_none() {
            // Lines before any run: only early ones are kept (above).
            continue;
        }
        run.apply(ev, line.no, t);
    }
    if run.stage.is_some() {
        done.push(run);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_line_kind() {
        assert_eq!(
            classify("getpid native: 646 ns"),
            Ev::Scenario(KernelScenario::Native, None, "native".into(), 646)
        );
        assert!(matches!(
            classify("getpid RET_ALLOW 3 filters (full): 732 ns"),
            Ev::Scenario(KernelScenario::Full3, Some(Generation::Bitmap), _, 732)
        ));
        assert!(matches!(
            classify(
                "Estimated seccomp per-filter overhead (filters / 4): 18446744073709551613 ns"
            ),
            Ev::Estimate(
                Est::Kernel(EstimateId::PerFilterDiv4),
                _,
                18446744073709551613
            )
        ));
        assert_eq!(classify("Pinned to CPU 3 of 4"), Ev::Pinned(3, Some(4)));
        assert_eq!(
            classify("net.core.bpf_jit_enable = 1"),
            Ev::Sysctl("net.core.bpf_jit_enable".into(), "1".into())
        );
        assert_eq!(
            classify("selftests: seccomp: seccomp_benchmark"),
            Ev::RunnerHeader
        );
        assert_eq!(
            classify("Benchmarking 200000000 syscalls..."),
            Ev::Benchmarking(200000000)
        );
        assert_eq!(
            classify("129.359381409 - 0.008724424 = 129350656985 (129.4s)"),
            Ev::Timing(129350656985)
        );
        assert_eq!(classify("1..7"), Ev::Plan(7));
        assert_eq!(
            classify("getpid native: lots ns"),
            Ev::Refused("lots ns is not a number".into())
        );
        assert_eq!(
            classify("getpid native: -302 ns"),
            Ev::Refused("-302 ns is negative".into())
        );
        assert_eq!(classify("getpid native: 302 ms"), Ev::Other);
    }

    #[test]
    fn compares_with_every_mark() {
        assert_eq!(
            classify("native ≤ 1 bitmap (646 ≤ 675): ✔️"),
            Ev::Compare(
                KernelExpectation::NativeLeBitmap1,
                Compare {
                    lhs: 646,
                    rhs: 675,
                    mark: Mark::Pass
                }
            )
        );
        assert_eq!(
            classify("per-filter (last 2 diff) ≈ per-filter (filters / 4) (20 ≈ 19): ❌"),
            Ev::Compare(
                KernelExpectation::PerFilterApprox,
                Compare {
                    lhs: 20,
                    rhs: 19,
                    mark: Mark::Fail
                }
            )
        );
        assert_eq!(
            classify(
                "entry ≈ 2 bitmapped (-3 ≈ 29): Miscalculation! Measurement went negative: -3"
            ),
            Ev::Compare(
                KernelExpectation::EntryApproxBitmap2,
                Compare {
                    lhs: -3,
                    rhs: 29,
                    mark: Mark::Negative
                }
            )
        );
        assert_eq!(
            classify("native + entry + (per filter * 4) <= 4 filters total (755 <= 752):"),
            Ev::Compare(
                KernelExpectation::TotalApproxFull4,
                Compare {
                    lhs: 755,
                    rhs: 752,
                    mark: Mark::Missing
                }
            )
        );
    }

    #[test]
    fn ktap_results() {
        assert_eq!(
            classify("ok 1 native ≤ 1 bitmap"),
            Ev::KtapResult(KernelExpectation::NativeLeBitmap1, Verdict::Pass)
        );
        assert_eq!(
            classify("not ok 4 1 bitmapped ≈ 2 bitmapped"),
            Ev::KtapResult(KernelExpectation::Bitmap1ApproxBitmap2, Verdict::Fail)
        );
        assert_eq!(
            classify("ok 5 # SKIP entry ≈ 1 bitmapped"),
            Ev::KtapResult(KernelExpectation::EntryApproxBitmap1, Verdict::Skip)
        );
        assert!(matches!(
            classify("not ok 1 selftests: seccomp: seccomp_benchmark # TIMEOUT 180 seconds"),
            Ev::Runner(RunnerLine::Result {
                ok: false,
                number: 1,
                ..
            })
        ));
        assert_eq!(classify("ok 9 global.user_notification_basic"), Ev::Other);
    }

    #[test]
    fn printed_sides_are_the_labels_halves() {
        for e in KernelExpectation::ALL {
            let (lhs, rhs) = printed_sides(e);
            assert_eq!(format!("{lhs} {} {rhs}", operator(e.relation())), e.label());
        }
    }

    #[test]
    fn indices_follow_the_benchmarks_order() {
        for (i, s) in KernelScenario::ALL.into_iter().enumerate() {
            assert_eq!(scenario_index(s), i);
        }
        for (i, e) in KernelExpectation::ALL.into_iter().enumerate() {
            assert_eq!(expectation_index(e), i);
        }
    }

    #[test]
    fn every_generation_names_its_estimates() {
        for e in EstimateId::KERNEL {
            assert_eq!(estimate_label(e.label()), Some(Est::Kernel(e)));
        }
        assert_eq!(
            estimate_label("seccomp overhead per syscall"),
            Some(Est::Kernel(EstimateId::TotalBitmap1))
        );
        assert_eq!(
            estimate_label("seccomp per-filter overhead"),
            Some(Est::BitmapDiff)
        );
        assert_eq!(
            estimate_label("per-filter cost (slope of the depth sweep)"),
            None
        );
    }
}
