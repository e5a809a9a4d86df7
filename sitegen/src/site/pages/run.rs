//! The page of one run: everything in the record, readable, its quality, its depth sweep,
//! and the comparison with the nearest runs of its series.

use crate::fmt::{self, ns, opt_interval, opt_ns};
use crate::info::{kind_label, RunInfo};
use crate::metrics::Registry;
use crate::site::compare::{compare, Compare};
use crate::site::links::Links;
use crate::site::rows::{quality_badge, Badge};
use crate::site::sweep::{self, SweepBlock};
use serde::Serialize;
use syscost_record::{
    Comparability, Estimate, EstimateOrigin, Expectation, Incidental, Method, RunRecord,
    RunSummary, ScenarioResult, Settings, Source, SourceKind, Status, StopReason, Throughput,
    Verdict,
};

#[derive(Serialize)]
pub struct RunPage {
    root: String,
    title: String,
    id: String,
    kind: &'static str,
    quality: Badge,
    quality_reasons: Vec<String>,
    /// Why the run is not on the version axis; empty when it is.
    unplaced: String,
    unplaced_href: String,
    arch: String,
    arch_href: Option<String>,
    kernel_release: String,
    /// How the kernel is known when the log does not print it: stated by the source.
    kernel_stated: String,
    kernel_href: Option<String>,
    cpu: String,
    virt: String,
    date: String,
    series_id: String,
    series_href: Option<String>,
    series_sentence: String,
    raw_href: String,
    raw_name: String,
    per_op: String,
    confidence: String,
    any_ci: bool,
    results: Vec<ResultRow>,
    params: Vec<ParamRow>,
    estimates: Vec<EstimateRow>,
    expectations: Vec<ExpectationRow>,
    verdict_counts: String,
    skipped: Vec<SkippedRow>,
    sweep: Option<SweepBlock>,
    compares: Vec<Compare>,
    no_compare: String,
    machine: String,
    comparability: Vec<(String, String)>,
    mitigations: Vec<(String, String)>,
    kernel_config: Vec<(String, String)>,
    incidental: Vec<(String, String)>,
    settings: Vec<(String, String)>,
    provenance_text: String,
    provenance: Vec<(String, String)>,
    stated: Vec<(String, String)>,
    source_url: String,
    source_link: bool,
    notes: Vec<String>,
}

#[derive(Serialize)]
struct ResultRow {
    id: String,
    description: String,
    family: String,
    median: String,
    median_v: String,
    ci: String,
    samples: String,
    preempted: String,
    overhead: String,
    overhead_v: String,
    overhead_ci: String,
    overhead_pct: String,
    vs: String,
    throughput: String,
    verification: String,
    verification_what: String,
}

#[derive(Serialize)]
struct ParamRow {
    id: String,
    text: String,
}

#[derive(Serialize)]
struct EstimateRow {
    id: String,
    label: String,
    formula: String,
    median: String,
    ci: String,
    samples: u64,
    origin: &'static str,
}

#[derive(Serialize)]
struct ExpectationRow {
    id: String,
    label: String,
    lhs: String,
    rhs: String,
    diff: String,
    diff_ci: String,
    tolerance: String,
    verdict: &'static str,
    kernel_verdict: &'static str,
}

#[derive(Serialize)]
struct SkippedRow {
    id: String,
    description: String,
    status: &'static str,
    status_class: &'static str,
    reason: String,
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

/// The runs a run page compares with, all of its own series (metric ids of the same registry):
/// the nearest earlier kernel version's run (the same machine's when there is one), and the
/// same machine's previous run on this version.
#[derive(Default)]
pub struct Comparisons<'a> {
    pub prev_version: Option<&'a RunInfo>,
    pub same_version: Option<&'a RunInfo>,
}

fn compares(info: &RunInfo, cmp: &Comparisons, reg: &Registry, root: &str) -> Vec<Compare> {
    let mut out = Vec::new();
    if let Some(p) = cmp.prev_version {
        let what = format!(
            "The nearest earlier kernel version of this series, {}: {}",
            p.kbase,
            if p.machine.is_some() && p.machine == info.machine {
                "this machine's latest run there"
            } else {
                "the latest run there (this machine has none on it)"
            }
        );
        out.push(compare(p, info, what, reg, root));
    }
    if let Some(p) = cmp.same_version {
        let what = format!(
            "This machine's previous run on {}{}",
            info.kbase,
            if p.kernel.release == info.kernel.release {
                " (the same kernel build)"
            } else {
                " (another build of it)"
            }
        );
        out.push(compare(p, info, what, reg, root));
    }
    out
}

pub fn build(
    r: &RunRecord,
    info: &RunInfo,
    cmp: &Comparisons,
    reg: &Registry,
    links: &Links,
) -> RunPage {
    let root = fmt::root_of(&format!("{}.html", info.page));
    let c = &r.environment.comparability;
    let s = &r.settings;
    let conf = format!("{}%", s.confidence * 100.0);
    let measured = || r.results.iter().filter(|x| x.status == Status::Measured);
    let source_url = opt(&r.source.url);
    let placed = info.is_placed();
    let compares = if placed {
        compares(info, cmp, reg, &root)
    } else {
        Vec::new()
    };
    let no_compare = match (placed, &info.machine) {
        (false, _) => "Runs that are not placed on the kernel-version axis are not compared.",
        (true, _) if !compares.is_empty() => "",
        (true, _) if info.kernel.is_approximate() => "Its source states the kernel only approximately, so this run is compared with no other (it could be on the same release as its neighbours, or another).",
        (true, Some(_)) => "This is the first run of this series on this and earlier kernel versions.",
        (true, None) => "No earlier kernel version of this series has a run, and the record carries no machine identity to link it with earlier runs on this version.",
    };
    RunPage {
        title: format!("Run {} ({} {})", r.id, c.arch, info.kernel.release),
        id: r.id.clone(),
        kind: kind_label(r.source.kind),
        quality: quality_badge(info),
        quality_reasons: info.quality.reasons(),
        unplaced: info
            .placed
            .as_ref()
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default(),
        unplaced_href: format!("{root}{}", links.unplaced()),
        arch: c.arch.clone(),
        arch_href: placed.then(|| format!("{root}{}", links.arch(&info.arch))),
        kernel_release: info.kernel.release.clone(),
        kernel_stated: stated_kernel(r).unwrap_or_default().to_string(),
        kernel_href: placed.then(|| format!("{root}{}", links.kernel(&info.kbase))),
        cpu: info.series.cpu.clone(),
        virt: info.series.virt.clone(),
        date: opt(&r.source.date),
        series_id: info.series.id(),
        series_href: placed.then(|| format!("{root}{}", links.series(&info.series))),
        series_sentence: info.series.sentence(),
        raw_href: format!("{}.json", r.id),
        raw_name: format!("{}.json", r.id),
        per_op: info.series.unit(),
        any_ci: measured().any(|x| x.ci_low_ns.is_some())
            || r.estimates.iter().any(|e| e.ci_low_ns.is_some()),
        results: measured().map(result_row).collect(),
        params: r.results.iter().filter_map(param_row).collect(),
        estimates: r.estimates.iter().map(estimate_row).collect(),
        expectations: r.expectations.iter().map(expectation_row).collect(),
        verdict_counts: verdict_counts(r),
        skipped: r
            .results
            .iter()
            .filter(|x| x.status != Status::Measured)
            .map(skipped_row)
            .collect(),
        sweep: sweep::of_record(r, &info.series.unit()),
        compares,
        no_compare: no_compare.to_string(),
        machine: opt(&r.environment.incidental.machine_hash),
        comparability: comparability(c, info),
        mitigations: c
            .mitigations
            .iter()
            .map(|(k, v)| (k.clone(), v.trim().to_string()))
            .collect(),
        kernel_config: c
            .kernel_config
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        incidental: incidental(&r.environment.incidental),
        settings: settings(s, &r.summary, &conf),
        provenance_text: provenance_text(&r.source),
        provenance: provenance(r),
        stated: stated(r),
        // Only plain web links become clickable; anything else (javascript:, data:) stays text.
        source_link: source_url.starts_with("https://") || source_url.starts_with("http://"),
        source_url,
        notes: r.notes.clone(),
        confidence: conf,
        root,
    }
}

fn result_row(res: &ScenarioResult) -> ResultRow {
    let o = res.overhead.as_ref();
    ResultRow {
        id: res.id.clone(),
        description: res.description.clone(),
        family: res.family.clone(),
        median: opt_ns(res.median_ns),
        median_v: res.median_ns.map(|v| v.to_string()).unwrap_or_default(),
        ci: opt_interval(res.ci_low_ns, res.ci_high_ns),
        samples: res.samples.map(|s| s.to_string()).unwrap_or_default(),
        preempted: match (res.preempted, res.samples) {
            (Some(p), Some(n)) if n > 0 => format!("{p} ({:.0} %)", p as f64 / n as f64 * 100.0),
            _ => String::new(),
        },
        overhead: o.map(|o| ns(o.median_ns)).unwrap_or_default(),
        overhead_v: o.map(|o| o.median_ns.to_string()).unwrap_or_default(),
        overhead_ci: o
            .map(|o| opt_interval(o.ci_low_ns, o.ci_high_ns))
            .unwrap_or_default(),
        overhead_pct: o.map(|o| fmt::pct(o.pct)).unwrap_or_default(),
        vs: o.map(|o| o.vs.clone()).unwrap_or_default(),
        throughput: res
            .throughput_mops
            .as_ref()
            .map(throughput)
            .unwrap_or_default(),
        // Short in the cell (the table is wide); what was counted is in the tooltip.
        verification: res
            .verification
            .as_ref()
            .map(|v| format!("{} / {}", v.observed, v.expected))
            .unwrap_or_default(),
        verification_what: res
            .verification
            .as_ref()
            .map(|v| format!("{} (observed / expected)", v.what))
            .unwrap_or_default(),
    }
}

fn throughput(t: &Throughput) -> String {
    match (t.ci_low, t.ci_high, t.stddev) {
        (Some(l), Some(h), _) => format!("{:.3} [{l:.3}, {h:.3}]", t.median),
        (_, _, Some(sd)) => format!("{:.3} ± {sd:.3} (sd)", t.median),
        _ => format!("{:.3}", t.median),
    }
}

fn param_row(res: &ScenarioResult) -> Option<ParamRow> {
    (!res.params.is_empty()).then(|| ParamRow {
        id: res.id.clone(),
        text: res
            .params
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
    })
}

fn skipped_row(res: &ScenarioResult) -> SkippedRow {
    let (status, status_class) = match res.status {
        Status::Failed => ("failed", "fail"),
        _ => ("skipped", "skip"),
    };
    SkippedRow {
        id: res.id.clone(),
        description: res.description.clone(),
        status,
        status_class,
        reason: opt(&res.reason),
    }
}

fn estimate_row(e: &Estimate) -> EstimateRow {
    EstimateRow {
        id: e.id.clone(),
        label: e.label.clone(),
        formula: e.formula.clone(),
        median: ns(e.median_ns),
        ci: opt_interval(e.ci_low_ns, e.ci_high_ns),
        samples: e.samples,
        origin: match e.origin {
            None => "",
            Some(EstimateOrigin::Printed) => "printed by the log",
            Some(EstimateOrigin::Decoded) => "printed as an unsigned wrap-around; the signed value",
            Some(EstimateOrigin::Recomputed) => {
                "not printed; computed with the benchmark's formula from the values it printed"
            }
        },
    }
}

fn expectation_row(e: &Expectation) -> ExpectationRow {
    ExpectationRow {
        id: e.id.clone(),
        label: e.label.clone(),
        lhs: ns(e.lhs_ns),
        rhs: ns(e.rhs_ns),
        diff: opt_ns(e.diff_median_ns),
        diff_ci: opt_interval(e.diff_ci_low_ns, e.diff_ci_high_ns),
        tolerance: ns(e.tolerance_ns),
        verdict: verdict_name(e.verdict),
        kernel_verdict: verdict_name(e.kernel_verdict),
    }
}

fn verdict_counts(r: &RunRecord) -> String {
    let count = |v: Verdict| r.expectations.iter().filter(|e| e.verdict == v).count();
    format!(
        "{} pass, {} fail, {} inconclusive, {} not evaluated.",
        count(Verdict::Pass),
        count(Verdict::Fail),
        count(Verdict::Inconclusive),
        count(Verdict::Skip)
    )
}

/// Label/value rows without the ones that have nothing to say.
fn facts<'a>(rows: impl IntoIterator<Item = (&'a str, String)>) -> Vec<(String, String)> {
    rows.into_iter()
        .filter(|(_, v)| !v.trim().is_empty())
        .map(|(k, v)| (k.to_string(), v))
        .collect()
}

fn comparability(c: &Comparability, info: &RunInfo) -> Vec<(String, String)> {
    let cpu = &c.cpu;
    let mut rows = facts([
        ("architecture", c.arch.clone()),
        ("kernel release", c.kernel_release.clone()),
        ("kernel version", opt(&c.kernel_version)),
        ("upstream base", info.kbase.clone()),
        ("CPU vendor", opt(&cpu.vendor)),
        ("CPU model", opt(&cpu.model_name)),
        (
            "family / model / stepping",
            format!(
                "{} / {} / {}",
                opt(&cpu.family),
                opt(&cpu.model),
                opt(&cpu.stepping)
            ),
        ),
        ("microcode", opt(&cpu.microcode)),
        (
            "logical CPUs / cores / SMT",
            format!(
                "{} / {} / {}",
                cpu.logical_cpus.map(|x| x.to_string()).unwrap_or_default(),
                cpu.physical_cores
                    .map(|x| x.to_string())
                    .unwrap_or_default(),
                cpu.smt
                    .map(|x| if x { "on" } else { "off" })
                    .unwrap_or_default()
            ),
        ),
        ("virtualisation", c.virtualization.kind.clone()),
        ("hypervisor", opt(&c.virtualization.hypervisor)),
        ("product", opt(&c.virtualization.product)),
        (
            "CPU vulnerabilities (state)",
            info.series.mitigations.replace('\n', "; "),
        ),
        (
            "cost-relevant command-line parameters",
            info.series.flags.clone(),
        ),
        ("kernel command line", opt(&c.cmdline)),
        ("bpf_jit_enable", opt(&c.bpf_jit_enable)),
        ("bpf_jit_harden", opt(&c.bpf_jit_harden)),
        ("seccomp actions", opt(&c.seccomp_actions_avail)),
    ]);
    // A triple with every part unknown says nothing either.
    rows.retain(|(_, v)| v != " /  / ");
    rows
}

fn incidental(inc: &Incidental) -> Vec<(String, String)> {
    let load = |l: &Option<[f64; 3]>| {
        l.map(|a| format!("{:.2} {:.2} {:.2}", a[0], a[1], a[2]))
            .unwrap_or_default()
    };
    facts(
        [
            ("machine", opt(&inc.machine_hash)),
            ("clock source", opt(&inc.clocksource)),
            ("CPU governor", opt(&inc.governor)),
            ("load average at start", load(&inc.loadavg_start)),
            ("load average at end", load(&inc.loadavg_end)),
        ]
        .into_iter()
        .chain(inc.other.iter().map(|(k, v)| (k.as_str(), v.clone()))),
    )
}

fn settings(s: &Settings, sm: &RunSummary, conf: &str) -> Vec<(String, String)> {
    facts([
        ("probe syscall", s.syscall.clone()),
        (
            "syscalls per operation",
            s.syscalls_per_op.map(|n| n.to_string()).unwrap_or_default(),
        ),
        ("confidence", conf.to_string()),
        (
            "time budget",
            s.budget_s.map(|b| format!("{b} s")).unwrap_or_default(),
        ),
        (
            "target CI half-width",
            s.target_ci_pct
                .map(|b| format!("{b} %"))
                .unwrap_or_default(),
        ),
        (
            "pinned CPU",
            s.cpu.map(|b| b.to_string()).unwrap_or_default(),
        ),
        (
            "sample length",
            s.sample_ms.map(|b| format!("{b} ms")).unwrap_or_default(),
        ),
        ("only", s.only.join(", ")),
        ("skip", s.skip.join(", ")),
        ("rounds", sm.rounds.to_string()),
        (
            "duration",
            // Absent, not zero: most imported logs never say how long they ran.
            sm.duration_s
                .map(|d| format!("{d:.1} s"))
                .unwrap_or_else(|| "not recorded".to_string()),
        ),
        (
            "stopped because",
            match sm.stop_reason {
                StopReason::Target => "every CI reached the target",
                StopReason::Budget => "the time budget was spent",
                StopReason::Complete => "one pass per scenario (complete)",
            }
            .to_string(),
        ),
        (
            "target reached",
            if sm.target_reached { "yes" } else { "no" }.to_string(),
        ),
        (
            "widest CI",
            match (sm.worst_ci_pct, &sm.worst_ci_id) {
                (Some(p), Some(id)) => format!("±{p:.2} % ({id})"),
                (Some(p), None) => format!("±{p:.2} %"),
                _ => String::new(),
            },
        ),
        ("interval method", sm.ci_method.clone()),
    ])
}

fn provenance_text(src: &Source) -> String {
    match src.kind {
        SourceKind::Collected => format!("collected by {}", src.tool),
        SourceKind::Import => format!(
            "imported by {} from a published log{}",
            src.tool,
            src.format
                .as_ref()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default()
        ),
        SourceKind::Synthetic => {
            format!("generated by {} (synthetic, not a measurement)", src.tool)
        }
    }
}

/// How the kernel is known when the log itself does not print it.
fn stated_kernel(r: &RunRecord) -> Option<&'static str> {
    let k = r.source.stated.as_ref()?.kernel.as_ref()?;
    Some(if k.approximate {
        "stated only approximately by the source: a version of its own, never the point of a measured one"
    } else {
        "as stated by the source"
    })
}

/// The facts the source of an imported log states outside the log.
fn stated(r: &RunRecord) -> Vec<(String, String)> {
    let Some(st) = &r.source.stated else {
        return Vec::new();
    };
    facts([
        (
            "kernel",
            st.kernel
                .as_ref()
                .map(|k| {
                    if k.approximate {
                        format!("around {} (approximate)", k.release)
                    } else {
                        k.release.clone()
                    }
                })
                .unwrap_or_default(),
        ),
        ("architecture", opt(&st.arch)),
        ("machine", opt(&st.machine)),
        ("date", opt(&st.date)),
        ("where the source says so", opt(&st.stated_in)),
    ])
}

fn provenance(r: &RunRecord) -> Vec<(String, String)> {
    let src = &r.source;
    let method = match src.method {
        Method::Interleaved => "interleaved rounds, paired differences",
        Method::Sequential => "sequential (the kernel seccomp_benchmark method)",
        Method::External => "as done by the imported tool",
    };
    facts([
        ("tool", src.tool.clone()),
        ("commit", opt(&src.commit)),
        ("method", method.to_string()),
        ("log format", opt(&src.format)),
        ("log SHA-256", opt(&src.text_sha256)),
        ("date", opt(&src.date)),
        ("note", opt(&src.note)),
        ("schema", r.schema.to_string()),
    ])
}
