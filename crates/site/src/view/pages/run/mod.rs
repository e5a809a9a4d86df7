//! The page of one run: its numbers and its quality; and the page of what many runs share (the machine, the settings, the skipped
//! scenarios), said once for all of them.

mod env;
mod tables;

use crate::build::staging::{Key, Streamed};
use crate::model::summary::{kind_label, RunInfo};
use crate::view::format;
use crate::view::links::Links;
use crate::view::rows::{quality_badge, Badge};
use env::*;
pub use env::{environment, environment_key, EnvPage};
use serde::Serialize;
use syscost_record::{
    EstimateOrigin, Method, RunRecord, ScenarioResult, Source, SourceKind, Status, StopReason,
    Verdict,
};
use tables::*;

/// The page of the runs of one series on one upstream kernel version, oldest first, a few at a
/// time: each run a section of its own (`#<id>`) and a column in each table, so the scenario
/// names, headings, notes and the site's chrome are said once for all of them (on 100,000 run
/// pages they were most of the site). A run that is not on the version axis, or whose kernel
/// is known only approximately, has a page of its own.
///
/// Only numbers are here. Prose that is the same for every run of a scenario (descriptions,
/// parameters, formulas) is on the metric pages and in the raw record, how to read the page is
/// on the methodology page, and what the runs of one machine share (its facts, the settings,
/// the skipped scenarios and why) is on their shared [`EnvPage`]. The depth sweep is drawn on
/// the kernel page; its numbers are the `seccomp.depth.N` rows and the `depth.*` estimates.
#[derive(Serialize)]
pub struct RunsPage {
    root: String,
    title: String,
    /// One run shown alone: the page is its page.
    alone: bool,
    count: String,
    /// Said once for the page's runs; its fields are the template's own.
    #[serde(flatten)]
    head: Head,
    baseline: String,
    /// The badges some run of the page has, explained once above them.
    badges: Badges,
    /// The machine-and-settings page every run of the page shares, linked once; none when
    /// they differ (each run links its own).
    env_href: Option<String>,
    /// These runs against the rest of their series on the version, and the series against the
    /// other machines there (`pages::against`).
    against: Option<String>,
    /// The pages of the earlier and the later runs of the same series and version.
    older: Option<String>,
    newer: Option<String>,
    runs: Vec<RunPart>,
    /// The three tables' rows; empty when a table has none.
    /// Each run's median and overhead cells in turn.
    results: Vec<TableRow<String>>,
    estimates: Vec<TableRow<EstimateCell>>,
    expectations: Vec<TableRow<ExpectationCell>>,
    /// Each run's own facts, a column a run (on the page of one run, in its section).
    facts: Vec<TableRow<String>>,
}

#[derive(Serialize)]
struct Badges {
    synthetic: bool,
    imported: bool,
    unverified: bool,
}

/// What is one run's own on its page: its section, and its columns of the tables.
pub struct RunPage {
    part: RunPart,
    /// What the page says once, made for the first run of a page only.
    head: Option<Head>,
    results: Vec<ResultEntry>,
    estimates: Vec<EstimateEntry>,
    expectations: Vec<ExpectationEntry>,
}

/// The measured results of a record: those on the page.
fn measured(r: &RunRecord) -> impl Iterator<Item = &ScenarioResult> {
    r.results.iter().filter(|x| x.status == Status::Measured)
}

/// What a page of runs says once, taken from its first run (the runs of one series share it).
#[derive(Serialize)]
struct Head {
    arch: String,
    arch_href: Option<String>,
    kbase: String,
    kernel_href: Option<String>,
    cpu: String,
    virt: String,
    series_id: String,
    series_href: Option<String>,
    per_op: String,
    /// What the numbers count: `ns`, or `instructions` (the record's clock counted them).
    unit: &'static str,
    confidence: String,
    any_ci: bool,
}

/// A run's section.
#[derive(Serialize)]
struct RunPart {
    id: String,
    kind: &'static str,
    /// Not (yet) accepted by a maintainer in data/triage.tsv.
    unverified: bool,
    quality: Badge,
    quality_reasons: String,
    /// Why the run is not on the version axis; empty when it is.
    unplaced: String,
    unplaced_href: String,
    kernel_release: String,
    /// How the kernel is known when the log does not print it: stated by the source.
    kernel_stated: String,
    date: String,
    raw_href: String,
    env_href: String,
    /// The usual sample count of the scenarios; rows with another count show theirs.
    samples_each: String,
    /// Failed scenarios with their reasons (a failure is this run's, so it is said here).
    failed: Vec<SkippedGroup>,
    /// How many were skipped; which and why is on the shared page.
    skipped: usize,
    /// This run's own facts; what it shares with others is on its [`EnvPage`].
    facts: Vec<(String, String)>,
    stated: Vec<(String, String)>,
    source_url: String,
    source_link: bool,
    notes: Vec<String>,
}

/// The pages around one page of runs (site paths).
#[derive(Default)]
pub struct Pager {
    pub older: Option<String>,
    pub newer: Option<String>,
    /// The page of these runs against their series and other machines.
    pub against: Option<String>,
}

/// The page of `runs`, whose site path has the root `root`; `alone` for the page of a run
/// that is on no series' page. None when there are no runs.
pub fn page(mut runs: Vec<RunPage>, root: &str, pager: Pager, alone: bool) -> Option<RunsPage> {
    // The baseline most overheads are over, on the whole page; others are named in the row.
    let baseline = most_common(runs.iter().flat_map(|r| {
        r.results
            .iter()
            .map(|x| x.vs.as_str())
            .filter(|vs| !vs.is_empty())
    }))
    .unwrap_or_default()
    .to_string();
    let n = runs.len();
    debug_assert!(
        runs.first().is_none_or(|r| r.head.is_some()),
        "the first run of a page says what its runs share"
    );
    let mut results: Vec<Row> = Vec::new();
    let mut keys: Vec<(&str, &str)> = Vec::new();
    let mut estimates: Vec<Row> = Vec::new();
    let mut expectations: Vec<Row> = Vec::new();
    for (k, r) in runs.iter().enumerate() {
        for (j, x) in r.results.iter().enumerate() {
            let key = (x.id.as_str(), x.vs.as_str());
            // The runs of a series usually have the same rows in the same order.
            let hint = keys.get(j).filter(|q| **q == key).map(|_| j);
            let at = match hint.or_else(|| keys.iter().position(|q| *q == key)) {
                Some(at) => at,
                None => {
                    let label = if key.1.is_empty() || key.1 == baseline {
                        key.0.to_string()
                    } else {
                        format!("{} − {}", key.0, key.1)
                    };
                    results.push(Row {
                        label,
                        cells: vec![None; n],
                    });
                    keys.push(key);
                    keys.len() - 1
                }
            };
            results[at].cells[k] = Some(j);
        }
        for (j, e) in r.estimates.iter().enumerate() {
            Row::of(&mut estimates, &e.id, n).cells[k] = Some(j);
        }
        for (j, e) in r.expectations.iter().enumerate() {
            Row::of(&mut expectations, &e.label, n).cells[k] = Some(j);
        }
    }
    drop(keys);
    // A result's two cells side by side in its row's list: each run's are two cells alike.
    let results = Row::fill(results, &mut runs, |r, j| {
        std::mem::take(&mut r.results[j].cell)
    })
    .into_iter()
    .map(|(label, cells)| (label, cells.into_iter().flat_map(|(m, o)| [m, o]).collect()))
    .collect();
    let estimates = Row::fill(estimates, &mut runs, |r, j| {
        std::mem::take(&mut r.estimates[j].cell)
    });
    let expectations = Row::fill(expectations, &mut runs, |r, j| {
        std::mem::take(&mut r.expectations[j].cell)
    });
    let facts = facts_table(&mut runs);
    let mut parts = Vec::with_capacity(n);
    let mut head = None;
    for r in runs {
        parts.push(r.part);
        if let Some(h) = r.head {
            head.get_or_insert(h);
        }
    }
    let h = head?;
    Some(RunsPage {
        root: root.to_string(),
        title: if alone {
            format!(
                "Run {} ({} {})",
                parts[0].id, h.arch, parts[0].kernel_release
            )
        } else {
            format!("Series {} on Linux {} ({})", h.series_id, h.kbase, h.arch)
        },
        alone,
        count: match n {
            1 => "One run.".to_string(),
            n => format!(
                "{n} runs, oldest first: each has its section here and its columns in the tables below."
            ),
        },
        head: h,
        env_href: (n > 1 && parts.windows(2).all(|w| w[0].env_href == w[1].env_href))
            .then(|| parts.first().map(|p| p.env_href.clone()))
            .flatten(),
        badges: Badges {
            synthetic: parts.iter().any(|p| p.kind == "synthetic"),
            imported: parts.iter().any(|p| p.kind == "imported"),
            unverified: parts.iter().any(|p| p.unverified),
        },
        baseline,
        against: pager.against.map(|p| format!("{root}{p}")),
        older: pager.older.map(|p| format!("{root}{p}")),
        newer: pager.newer.map(|p| format!("{root}{p}")),
        runs: parts,
        results,
        estimates,
        expectations,
        facts,
    })
}

/// The sample count most of a run's measured scenarios have.
fn usual_samples(r: &RunRecord) -> Option<u64> {
    most_common(measured(r).filter_map(|x| x.samples))
}

/// Scenarios skipped or failed for one reason.
#[derive(Serialize, PartialEq)]
struct SkippedGroup {
    reason: String,
    ids: String,
}

pub fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail => "fail",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Skip => "skip",
    }
}

fn opt(s: &Option<String>) -> String {
    s.clone().unwrap_or_default()
}

/// One run's part of its page; `first` for the first run of its page, which says what the
/// page's runs share.
pub fn build(r: &RunRecord, info: &RunInfo, raw_href: &str, first: bool) -> RunPage {
    let here = Links.run(info);
    let root = format::root_of(here.split('#').next().unwrap_or_default());
    let conf = format!("{}%", r.settings.confidence * 100.0);
    let placed = info.is_placed();
    let usual = usual_samples(r);
    let results = measured(r).map(|res| ResultEntry::of(res, usual)).collect();
    let estimates = r.estimates.iter().map(EstimateEntry::of).collect();
    let expectations = r.expectations.iter().map(ExpectationEntry::of).collect();
    let part = run_part(r, info, raw_href, &root, usual);
    // Only the first run's is used: made only for it.
    let head = first.then(|| page_head(r, info, placed, &root, conf));
    RunPage {
        part,
        head,
        results,
        estimates,
        expectations,
    }
}

/// One run's section of the page, but for its tables.
fn run_part(
    r: &RunRecord,
    info: &RunInfo,
    raw_href: &str,
    root: &str,
    usual: Option<u64>,
) -> RunPart {
    let links = &Links;
    let source_url = opt(&r.source.url);
    RunPart {
        id: r.id.clone(),
        kind: kind_label(r.source.kind),
        unverified: !info.accepted,
        quality: quality_badge(info),
        quality_reasons: info.quality.reasons().join("; "),
        unplaced: info
            .placed
            .as_ref()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
        unplaced_href: format!("{root}{}", links.unplaced()),
        kernel_release: info.kernel.release.clone(),
        kernel_stated: stated_kernel(r).unwrap_or_default().to_string(),
        date: opt(&r.source.date),
        raw_href: raw_href.to_string(),
        env_href: format!("{root}{}", info.env_page),
        samples_each: match usual {
            None => String::new(),
            Some(1) => "1 sample".to_string(),
            Some(n) => format!("{n} samples"),
        },
        failed: groups(r, Status::Failed),
        skipped: r
            .results
            .iter()
            .filter(|x| x.status == Status::Skipped)
            .count(),
        facts: own_facts(r),
        stated: stated(r),
        // Only plain web links become clickable; anything else (javascript:, data:) stays text.
        source_link: source_url.starts_with("https://") || source_url.starts_with("http://"),
        source_url,
        notes: r
            .notes
            .iter()
            .filter(|n| !restates_numbers(n))
            .cloned()
            .collect(),
    }
}

/// What the page of runs says once, from its first run.
fn page_head(r: &RunRecord, info: &RunInfo, placed: bool, root: &str, conf: String) -> Head {
    let links = &Links;
    let c = &r.environment.comparability;
    Head {
        arch: c.arch.clone(),
        arch_href: placed.then(|| format!("{root}{}", links.arch(&info.arch))),
        kbase: info.kbase.clone(),
        kernel_href: placed.then(|| format!("{root}{}", links.kernel(&info.kbase))),
        cpu: info.series.cpu.clone(),
        virt: info.series.virt.clone(),
        series_id: info.series.id(),
        series_href: placed.then(|| format!("{root}{}", links.series(&info.series))),
        per_op: info.series.unit(),
        unit: info.series.number_unit(),
        confidence: conf,
        any_ci: measured(r).any(|x| x.ci_low_ns.is_some())
            || r.estimates.iter().any(|e| e.ci_low_ns.is_some()),
    }
}

/// The collector's notes that put into words what the page shows as numbers: the CI targets
/// missed and the widest CI (the quality line), the preempted scenarios (the `preempted %`
/// column) and the scenarios with few rounds (the `samples` column). They address whoever ran
/// the tool ("a larger --budget…"); the raw record keeps them.
fn restates_numbers(note: &str) -> bool {
    const DERIVED: [&str; 2] = [
        "another task shared the measurement CPU during more than 20 % of the samples",
        "the budget ran out before every CI reached",
    ];
    let number = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
    DERIVED.iter().any(|p| note.starts_with(p))
        || note
            .split_once(" targets not met, furthest: ")
            .is_some_and(|(head, _)| head.split(" of ").all(number))
        || note
            .strip_prefix("fewer than ")
            .and_then(|r| r.split_once(" rounds fitted in the budget for: "))
            .is_some_and(|(n, _)| number(n))
}

fn most_common<T: PartialEq + Copy>(xs: impl Iterator<Item = T>) -> Option<T> {
    let mut counts: Vec<(T, usize)> = Vec::new();
    for x in xs {
        match counts.iter_mut().find(|(k, _)| *k == x) {
            Some((_, n)) => *n += 1,
            None => counts.push((x, 1)),
        }
    }
    // The first of the most frequent, so the choice does not depend on anything but the record.
    let best = counts.iter().map(|c| c.1).max().unwrap_or(0);
    counts.iter().find(|c| c.1 == best).map(|c| c.0)
}

/// A median and its interval in one cell (the sorter reads the leading number and its unit).
fn with_ci(out: &mut String, m: Option<f64>, lo: Option<f64>, hi: Option<f64>) {
    format::scaled_into(out, m, lo.zip(hi));
}

/// A scenario's median and CI, with its sample count when it is not the run's usual one and
/// its share of preempted samples when there were.
fn median_cell(out: &mut String, res: &ScenarioResult, usual: Option<u64>) {
    with_ci(out, res.median_ns, res.ci_low_ns, res.ci_high_ns);
    if let Some(n) = res.samples.filter(|n| Some(*n) != usual) {
        out.push_str(" n=");
        out.push_str(itoa::Buffer::new().format(n));
    }
    if let (Some(p), Some(n)) = (res.preempted, res.samples) {
        if p > 0 && n > 0 {
            let pct = p as f64 / n as f64 * 100.0;
            // A share that rounds to 0 % is still some.
            if pct < 0.5 {
                out.push_str(" p<1%");
            } else {
                out.push_str(" p=");
                format::fixed_into(out, pct, 0);
                out.push('%');
            }
        }
    }
}

fn origin_words(o: Option<EstimateOrigin>) -> &'static str {
    match o {
        None => "",
        Some(EstimateOrigin::Printed) => "printed by the log",
        Some(EstimateOrigin::Decoded) => "printed as an unsigned wrap-around; the signed value",
        Some(EstimateOrigin::Recomputed) => {
            "not printed; computed with the benchmark's formula from the values it printed"
        }
    }
}

/// The scenarios of one status (skipped, failed) grouped by their reason (one reason often
/// covers several: the BPF program and its attach cost).
fn groups(r: &RunRecord, status: Status) -> Vec<SkippedGroup> {
    let mut out: Vec<SkippedGroup> = Vec::new();
    for res in r.results.iter().filter(|x| x.status == status) {
        let reason = opt(&res.reason);
        match out.iter_mut().find(|g| g.reason == reason) {
            Some(g) => {
                g.ids.push_str(", ");
                g.ids.push_str(&res.id);
            }
            None => out.push(SkippedGroup {
                reason,
                ids: res.id.clone(),
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::restates_numbers;

    #[test]
    fn only_the_collectors_derived_notes_are_left_to_the_numbers() {
        // As the collector writes them (from records in data/).
        for n in [
            "50 of 52 targets not met, furthest: ptrace.syscall overhead ±2974077.27 ns (target ±33155.77); a larger --budget (or a quieter machine) narrows them",
            "another task shared the measurement CPU during more than 20 % of the samples of: ptrace.syscall 22/27 (was the machine busy? see the load averages)",
            "fewer than 6 rounds fitted in the budget for: attach; intervals need at least 6 samples and are unreliable below 6",
            "the budget ran out before every CI reached ±1%: the widest is ±14.71% (sud.block)",
        ] {
            assert!(restates_numbers(n), "{n}");
        }
        // What an importer or a source says is the run's own and stays on its page.
        for n in [
            "seccomp_benchmark timed each scenario once (17053830 calls), printing integer ns per call",
            "A scaling table: each CPU count is a record of its own. This one ran 1 producer.",
            "Every verdict is inconclusive: one measurement per scenario gives no interval",
            "some 3 targets not met, furthest: x",
            "fewer than half of the rounds were kept",
        ] {
            assert!(!restates_numbers(n), "{n}");
        }
    }
}
