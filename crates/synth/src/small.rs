//! The small records (~40 scenarios, the tests' fixtures): a machine's run on one kernel, every number from its costs with noise.

use super::*;

/// A value with a CI of relative half-width `w`, or none for single-sample runs.
pub(super) fn with_ci(rng: &mut Rng, v: f64, single: bool) -> (f64, Option<f64>, Option<f64>) {
    if single {
        return (v.round(), None, None);
    }
    let w = v.abs().max(1.0) * rng.range(0.004, 0.03);
    let skew = rng.range(0.8, 1.2);
    (v, Some(v - w * skew), Some(v + w / skew))
}

pub(super) fn measured(
    rng: &mut Rng,
    id: &str,
    family: &str,
    desc: &str,
    ns: f64,
    base: Option<(&str, f64)>,
    single: bool,
) -> ScenarioResult {
    let mut r = ScenarioResult::new(id, family, desc, Status::Measured);
    let (m, lo, hi) = with_ci(rng, ns, single);
    r.median_ns = Some(m);
    r.ci_low_ns = lo;
    r.ci_high_ns = hi;
    r.samples = Some(if single {
        1
    } else {
        40 + rng.below(200) as u64
    });
    r.iters_per_sample = Some(5000 + rng.below(5000) as u64);
    if !single {
        r.mad_ns = Some(ns * rng.range(0.002, 0.02));
        r.min_ns = Some(lo.unwrap_or(m) * 0.97);
        r.p90_ns = Some(hi.unwrap_or(m) * 1.01);
        r.outliers = Some(rng.below(6) as u64);
    }
    r.throughput_mops = Some(Throughput {
        median: 1000.0 / m.max(1e-3),
        ci_low: hi.map(|h| 1000.0 / h.max(1e-3)),
        ci_high: lo.map(|l| 1000.0 / l.max(1e-3)),
        stddev: None,
    });
    if let Some((vs, b)) = base {
        let d = m - b;
        let (dm, dlo, dhi) = with_ci(rng, d, single);
        r.overhead = Some(Overhead {
            vs: vs.to_string(),
            median_ns: dm,
            ci_low_ns: dlo,
            ci_high_ns: dhi,
            samples: r.samples.unwrap_or(1),
            pct: dm / b * 100.0,
            pct_ci_low: dlo.map(|x| x / b * 100.0),
            pct_ci_high: dhi.map(|x| x / b * 100.0),
        });
    }
    r
}

pub(super) fn skipped(id: &str, family: &str, desc: &str, reason: &str) -> ScenarioResult {
    let mut r = ScenarioResult::new(id, family, desc, Status::Skipped);
    r.reason = Some(reason.to_string());
    r
}

pub(super) fn estimate(
    rng: &mut Rng,
    id: EstimateId,
    label: &str,
    formula: &str,
    v: f64,
    single: bool,
) -> Estimate {
    let (m, lo, hi) = with_ci(rng, v, single);
    Estimate {
        id: id.id().to_string(),
        label: label.to_string(),
        formula: formula.to_string(),
        median_ns: m,
        ci_low_ns: lo,
        ci_high_ns: hi,
        samples: if single { 1 } else { 60 },
        origin: None,
    }
}

/// One of the kernel benchmark's estimates, under its own label and formula.
pub(super) fn kernel_estimate(rng: &mut Rng, id: EstimateId, v: f64, single: bool) -> Estimate {
    estimate(
        rng,
        id,
        id.label(),
        id.kernel_formula().unwrap_or_default(),
        v,
        single,
    )
}

/// The baseline every overhead is measured against.
pub(super) const NATIVE: &str = KernelScenario::Native.id();

/// What one synthetic run's numbers are made from.
#[derive(Clone, Copy)]
pub(super) struct Costs {
    /// This run's speed: the machine's, with a little noise.
    pub(super) s: f64,
    pub(super) native: f64,
    pub(super) entry: f64,
    pub(super) per_filter: f64,
    /// Constant-ALLOW filters are served from the action cache (since 5.11).
    pub(super) cached: bool,
}

pub(super) fn record(rng: &mut Rng, m: &Machine, kernel_idx: usize, seq: usize) -> RunRecord {
    let upstream = KERNELS[kernel_idx];
    let release = match rng.below(4) {
        _ if upstream.contains("-rc") => upstream.to_string(),
        0 => upstream.to_string(),
        1 => format!("{upstream}.0-{}-generic", 10 + rng.below(90)),
        2 => format!("{upstream}.{}", 1 + rng.below(3)),
        _ => format!("{upstream}.0-00003-g{:012x}", rng.next_u64() >> 16),
    };
    let single = rng.f() < 0.1;
    let k = kernel_idx as f64 / KERNELS.len() as f64;
    let s = m.speed * (1.0 + 0.02 * rng.normal());
    let cached = kernel_idx >= 2;
    let costs = Costs {
        s,
        native: 95.0 * s * if m.mitigated { 1.6 } else { 1.0 },
        entry: (if cached { 4.0 } else { 28.0 }) * s * (1.0 - 0.3 * k),
        per_filter: 9.0 * s * (1.0 - 0.2 * k),
        cached,
    };
    // The order of the draws below is the order of the generator's first version: changing it
    // would change every record of a seed.
    let results = results(rng, m, &costs, single);
    let estimates = estimates(rng, &costs, single);
    let expectations = expectations(rng, costs.native, single);
    // Dates follow kernel order, so a machine's later runs are on newer kernels.
    let day = kernel_idx * 90 + rng.below(90);
    let (y, mo, d) = civil(18262 + day as i64); // 2020-01-01 + day

    let method = if single {
        Method::Sequential
    } else {
        Method::Interleaved
    };
    // Named after the command that first generated them, so a seed's records stay the same.
    let tool = concat!("syscost-site ", env!("CARGO_PKG_VERSION"), " synth");
    let source = Source {
        note: Some(format!("synthetic record {seq}")),
        date: Some(format!(
            "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}Z",
            rng.below(24),
            rng.below(60),
            rng.below(60)
        )),
        ..Source::new(SourceKind::Synthetic, tool, method)
    };
    let settings = Settings {
        budget_s: (!single).then_some(30.0),
        target_ci_pct: (!single).then_some(1.0),
        cpu: Some(1),
        sample_ms: (!single).then_some(2.0),
        ..Settings::new("getpid", 1, 0.95)
    };
    let summary = if single {
        RunSummary::complete(80.0, "none (single sample)")
    } else {
        RunSummary {
            rounds: 100,
            stop_reason: StopReason::Budget,
            worst_ci_pct: Some(2.5),
            worst_ci_id: Some("sud.block".to_string()),
            ..RunSummary::complete(30.0, "bootstrap percentile of the median")
        }
    };
    RunRecord::builder(source, settings, environment(m, &release, seq), summary)
        .results(results)
        .estimates(estimates)
        .expectations(expectations)
        .note("Synthetic: generated for tests and benchmarks, not a measurement.")
        .build()
}

/// The scenarios a syscost run measures, with costs that follow `c`.
pub(super) fn results(rng: &mut Rng, m: &Machine, c: &Costs, single: bool) -> Vec<ScenarioResult> {
    let Costs {
        s,
        native,
        entry,
        per_filter,
        cached,
    } = *c;
    let bitmap = |n: f64| native + entry + if cached { 0.3 * n } else { per_filter * n };
    let mut results = vec![
        measured(
            rng,
            "null",
            "baseline",
            "the timed loop without the syscall",
            1.2 * s,
            None,
            single,
        ),
        measured(
            rng,
            KernelScenario::Native.id(),
            "baseline",
            "getpid, no interception",
            native,
            None,
            single,
        ),
        measured(
            rng,
            KernelScenario::Bitmap1.id(),
            "seccomp",
            "1 constant-ALLOW filter",
            bitmap(1.0),
            Some((NATIVE, native)),
            single,
        ),
        measured(
            rng,
            KernelScenario::Bitmap2.id(),
            "seccomp",
            "2 constant-ALLOW filters",
            bitmap(2.0),
            Some((NATIVE, native)),
            single,
        ),
        measured(
            rng,
            KernelScenario::Full3.id(),
            "seccomp",
            "+ a filter loading args[0]",
            native + 30.0 * s + 3.0 * per_filter,
            Some((NATIVE, native)),
            single,
        ),
        measured(
            rng,
            KernelScenario::Full4.id(),
            "seccomp",
            "+ one more constant filter",
            native + 30.0 * s + 4.0 * per_filter,
            Some((NATIVE, native)),
            single,
        ),
    ];
    for n in [1u32, 2, 4, 8, 16, 32] {
        let v = native + 30.0 * s + per_filter * f64::from(n);
        let mut r = measured(
            rng,
            &format!("seccomp.depth.{n}"),
            "seccomp",
            &format!("{n} uncacheable filters"),
            v,
            Some((NATIVE, native)),
            single,
        );
        r.params.insert("filters".to_string(), n.to_string());
        r.params
            .insert("cacheable".to_string(), "false".to_string());
        results.push(r);
    }
    results.push(measured(
        rng,
        "sud.allow",
        "sud",
        "Syscall User Dispatch on, selector ALLOW",
        native + 60.0 * s,
        Some((NATIVE, native)),
        single,
    ));
    let mut block = measured(
        rng,
        "sud.block",
        "sud",
        "selector BLOCK: SIGSYS round trip",
        native + 3400.0 * s,
        Some((NATIVE, native)),
        single,
    );
    block.verification = Some(Verification {
        what: "SIGSYS handler calls".to_string(),
        expected: 100_000,
        observed: 100_000,
    });
    results.push(block);
    bpf_results(rng, m, native, s, single, &mut results);
    results
}

/// The BPF scenarios: measured, or skipped as the machine would skip them.
fn bpf_results(
    rng: &mut Rng,
    m: &Machine,
    native: f64,
    s: f64,
    single: bool,
    results: &mut Vec<ScenarioResult>,
) {
    for (id, cost, needs_trampoline) in [
        ("bpf.tp", 190.0, false),
        ("bpf.rawtp", 90.0, false),
        ("bpf.kprobe", 140.0, false),
        ("bpf.kretprobe", 210.0, false),
        ("bpf.kprobe_multi", 150.0, false),
        ("bpf.fentry", 45.0, true),
        ("bpf.fexit", 55.0, true),
        ("bpf.fmodret", 60.0, true),
        ("bpf.uprobe", 4800.0, false),
        ("bpf.uretprobe", 5600.0, false),
    ] {
        let desc = format!("one BPF program ({id})");
        if !m.bpf_ok || (needs_trampoline && m.arch != "x86_64") {
            let reason = if m.bpf_ok {
                "BPF trampolines are not supported on this architecture"
            } else {
                "loading BPF programs needs CAP_BPF and CAP_PERFMON (run as root)"
            };
            results.push(skipped(id, "bpf", &desc, reason));
        } else {
            results.push(measured(
                rng,
                id,
                "bpf",
                &desc,
                native + cost * s,
                Some((NATIVE, native)),
                single,
            ));
        }
    }
}

pub(super) fn estimates(rng: &mut Rng, c: &Costs, single: bool) -> Vec<Estimate> {
    let Costs {
        s,
        entry,
        per_filter,
        ..
    } = *c;
    let mut estimates = vec![
        kernel_estimate(rng, EstimateId::Entry, entry, single),
        kernel_estimate(rng, EstimateId::PerFilterLast2, per_filter, single),
        kernel_estimate(rng, EstimateId::PerFilterDiv4, per_filter * 1.1, single),
    ];
    if !single {
        // Labelled "—" since the first synthetic records: kept, so a seed's records stay the same.
        estimates.push(estimate(
            rng,
            EstimateId::DepthPerFilter,
            "—",
            "slope of (depth.N − native) over N",
            per_filter,
            false,
        ));
        estimates.push(estimate(
            rng,
            EstimateId::DepthEntry,
            "—",
            "intercept of the same fit",
            30.0 * s,
            false,
        ));
    }
    estimates
}

/// The kernel benchmark's seven expectations, with verdicts that vary from run to run.
pub(super) fn expectations(rng: &mut Rng, native: f64, single: bool) -> Vec<Expectation> {
    let verdicts = [
        Verdict::Pass,
        Verdict::Pass,
        Verdict::Inconclusive,
        Verdict::Pass,
        Verdict::Fail,
        Verdict::Inconclusive,
        Verdict::Pass,
    ];
    KernelExpectation::ALL
        .into_iter()
        .zip(verdicts)
        .map(|(e, v)| {
            let lhs = native + rng.range(0.0, 40.0);
            let rhs = native + rng.range(0.0, 40.0);
            let d = lhs - rhs;
            let (dm, dlo, dhi) = with_ci(rng, d, single);
            Expectation {
                id: e.id().to_string(),
                label: e.label().to_string(),
                relation: e.relation(),
                lhs_ns: lhs,
                rhs_ns: rhs,
                diff_median_ns: Some(dm),
                diff_ci_low_ns: dlo,
                diff_ci_high_ns: dhi,
                tolerance_ns: 2.0,
                systematic_ns: None,
                verdict: if single {
                    Verdict::Skip
                } else {
                    *rng.pick(&[v, v, Verdict::Inconclusive])
                },
                kernel_verdict: *rng.pick(&[Verdict::Pass, Verdict::Fail]),
            }
        })
        .collect()
}

/// The machine as a synthetic record describes it (no randomness: it is the machine's).
pub(super) fn environment(m: &Machine, release: &str, seq: usize) -> Environment {
    let mut kernel_config = BTreeMap::new();
    for (key, v) in [
        ("CONFIG_SECCOMP", "y"),
        ("CONFIG_SECCOMP_FILTER", "y"),
        ("CONFIG_BPF_JIT", "y"),
        ("CONFIG_SYSCALL_USER_DISPATCH", "y"),
        ("CONFIG_KPROBES", if m.bpf_ok { "y" } else { "n" }),
    ] {
        kernel_config.insert(key.to_string(), v.to_string());
    }
    Environment {
        comparability: Comparability {
            arch: m.arch.to_string(),
            kernel_release: release.to_string(),
            kernel_version: Some(format!("#1 SMP PREEMPT_DYNAMIC synthetic {seq}")),
            cpu: Cpu {
                vendor: Some(m.vendor.to_string()),
                model_name: Some(m.cpu.to_string()),
                family: Some("25".to_string()),
                model: Some("1".to_string()),
                stepping: Some("1".to_string()),
                microcode: Some("0xa0011d1".to_string()),
                logical_cpus: Some(2),
                physical_cores: Some(1),
                smt: Some(true),
            },
            virtualization: Virtualization {
                kind: m.virt.0.to_string(),
                hypervisor: m.virt.1.map(str::to_string),
                product: None,
            },
            mitigations: mitigations(m.arch, m.mitigated),
            cmdline: Some(format!(
                "BOOT_IMAGE=/boot/vmlinuz-{release} root=/dev/vda1 ro"
            )),
            bpf_jit_enable: Some("1".to_string()),
            bpf_jit_harden: Some("0".to_string()),
            seccomp_actions_avail: Some(
                "kill_process kill_thread trap errno user_notif trace log allow".to_string(),
            ),
            kernel_config,
            clock: None,
            emulator: None,
        },
        incidental: Incidental {
            machine_hash: Some(m.hash.clone()),
            clocksource: Some("tsc".to_string()),
            governor: None,
            loadavg_start: Some([0.1, 0.2, 0.3]),
            loadavg_end: Some([1.0, 0.5, 0.4]),
            other: BTreeMap::new(),
        },
        lab: None,
    }
}
