//! Plausible made-up run records for the site's tests and benchmark (`site-bench synth`). Every
//! one is marked `source.kind = "synthetic"`: `syscost-site check` refuses them, the site
//! labels them.
//!
//! Deterministic for a seed: a small SplitMix64 generator, no external randomness.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
mod real;
pub use real::generate_real;

use syscost_record::{
    Comparability, Cpu, Environment, Estimate, EstimateId, Expectation, Incidental,
    KernelExpectation, KernelScenario, Method, Overhead, RunRecord, RunSummary, ScenarioResult,
    Settings, Source, SourceKind, Status, StopReason, Throughput, Verdict, Verification,
    Virtualization,
};

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn f(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.f()
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    /// Roughly normal (sum of uniforms), mean 0, sd 1.
    pub fn normal(&mut self) -> f64 {
        (0..6).map(|_| self.f()).sum::<f64>() - 3.0
    }
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Upstream versions synthetic kernels are drawn from, oldest first.
const KERNELS: &[&str] = &[
    "5.4", "5.10", "5.11", "5.15", "6.1", "6.2", "6.5", "6.6", "6.7", "6.8-rc1", "6.8", "6.9",
    "6.10", "6.11", "6.12", "6.13", "6.14",
];

struct Machine<'a> {
    arch: &'a str,
    cpu: &'a str,
    vendor: &'a str,
    virt: (&'a str, Option<&'a str>),
    hash: String,
    mitigated: bool,
    /// Cost scale of this machine relative to a typical one.
    speed: f64,
    bpf_ok: bool,
}

fn machines(rng: &mut Rng, n: usize) -> Vec<Machine<'static>> {
    const X86: &[(&str, &str)] = &[
        ("AMD EPYC 7B13 64-Core Processor", "AuthenticAMD"),
        (
            "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz",
            "GenuineIntel",
        ),
        ("AMD Ryzen 9 7950X 16-Core Processor", "AuthenticAMD"),
        ("Intel(R) Core(TM) i7-1185G7 @ 3.00GHz", "GenuineIntel"),
    ];
    const ARM: &[(&str, &str)] = &[
        ("Neoverse-N1", "ARM"),
        ("Apple M2 (virtualised)", "Apple"),
        ("Cortex-A76", "ARM"),
    ];
    (0..n)
        .map(|i| {
            let a = rng.f();
            let (arch, (cpu, vendor)) = if a < 0.6 {
                ("x86_64", *rng.pick(X86))
            } else if a < 0.85 {
                ("aarch64", *rng.pick(ARM))
            } else if a < 0.93 {
                ("riscv64", ("SiFive U74-MC", "SiFive"))
            } else {
                ("ppc64le", ("POWER9 (raw), altivec supported", "IBM"))
            };
            let virt = *rng.pick(&[
                ("vm", Some("KVM")),
                ("bare-metal", None),
                ("vm", Some("Microsoft Hv")),
            ]);
            Machine {
                arch,
                cpu,
                vendor,
                virt,
                hash: format!("{:016x}", rng.next_u64() ^ i as u64),
                mitigated: rng.f() < 0.7,
                speed: rng.range(0.6, 1.6),
                bpf_ok: virt.0 == "bare-metal" || rng.f() < 0.5,
            }
        })
        .collect()
}

fn mitigations(arch: &str, on: bool) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    if arch == "x86_64" {
        for (k, a, b) in [
            ("meltdown", "Not affected", "Not affected"),
            ("spectre_v1", "Mitigation: usercopy/swapgs barriers and __user pointer sanitization", "Vulnerable: __user pointer sanitization and usercopy barriers only; no swapgs barriers"),
            ("spectre_v2", "Mitigation: Retpolines; IBPB: conditional; STIBP: always-on; RSB filling", "Vulnerable"),
            ("spec_store_bypass", "Mitigation: Speculative Store Bypass disabled via prctl", "Vulnerable"),
            ("retbleed", "Mitigation: untrained return thunk; SMT enabled with STIBP protection", "Vulnerable"),
            ("spec_rstack_overflow", "Mitigation: Safe RET", "Vulnerable: Safe RET, no microcode"),
            ("mds", "Not affected", "Not affected"),
            ("l1tf", "Not affected", "Not affected"),
        ] {
            m.insert(k.to_string(), if on { a } else { b }.to_string());
        }
    } else {
        for (k, a, b) in [
            (
                "spectre_v1",
                "Mitigation: __user pointer sanitization",
                "Vulnerable",
            ),
            ("spectre_v2", "Mitigation: CSV2, BHB", "Vulnerable"),
            (
                "spec_store_bypass",
                "Mitigation: Speculative Store Bypass disabled via prctl",
                "Vulnerable",
            ),
            ("meltdown", "Not affected", "Not affected"),
        ] {
            m.insert(k.to_string(), if on { a } else { b }.to_string());
        }
    }
    m
}

/// A value with a CI of relative half-width `w`, or none for single-sample runs.
fn with_ci(rng: &mut Rng, v: f64, single: bool) -> (f64, Option<f64>, Option<f64>) {
    if single {
        return (v.round(), None, None);
    }
    let w = v.abs().max(1.0) * rng.range(0.004, 0.03);
    let skew = rng.range(0.8, 1.2);
    (v, Some(v - w * skew), Some(v + w / skew))
}

fn measured(
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

fn skipped(id: &str, family: &str, desc: &str, reason: &str) -> ScenarioResult {
    let mut r = ScenarioResult::new(id, family, desc, Status::Skipped);
    r.reason = Some(reason.to_string());
    r
}

fn estimate(
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
fn kernel_estimate(rng: &mut Rng, id: EstimateId, v: f64, single: bool) -> Estimate {
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
const NATIVE: &str = KernelScenario::Native.id();

/// What one synthetic run's numbers are made from.
#[derive(Clone, Copy)]
struct Costs {
    /// This run's speed: the machine's, with a little noise.
    s: f64,
    native: f64,
    entry: f64,
    per_filter: f64,
    /// Constant-ALLOW filters are served from the action cache (since 5.11).
    cached: bool,
}

fn record(rng: &mut Rng, m: &Machine, kernel_idx: usize, seq: usize) -> RunRecord {
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
fn results(rng: &mut Rng, m: &Machine, c: &Costs, single: bool) -> Vec<ScenarioResult> {
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
    results
}

fn estimates(rng: &mut Rng, c: &Costs, single: bool) -> Vec<Estimate> {
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
fn expectations(rng: &mut Rng, native: f64, single: bool) -> Vec<Expectation> {
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
fn environment(m: &Machine, release: &str, seq: usize) -> Environment {
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

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (Howard Hinnant's method).
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// A step to put into a [`series`]: from version `at` on, scenario `id` costs `ns` more (its
/// median and its overhead over native both move).
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    pub at: usize,
    pub id: &'a str,
    pub ns: f64,
}

/// One machine's runs over kernel versions, for tests of comparability and change detection.
#[derive(Debug, Clone, Copy)]
pub struct Plan<'a> {
    pub seed: u64,
    /// Machine identity (`incidental.machine_hash`: lower-case hex digits, as records hold it).
    pub machine: &'a str,
    pub arch: &'a str,
    pub cpu: &'a str,
    /// Upstream versions, oldest first; each is also the `uname -r` of its runs.
    pub versions: &'a [&'a str],
    pub runs_per_version: usize,
    pub probe: &'a str,
    pub syscalls_per_op: u32,
    pub method: Method,
    pub step: Option<Step<'a>>,
}

impl Plan<'_> {
    /// A getpid series measured by interleaved rounds on a KVM guest, without a step.
    pub const fn new<'a>(seed: u64, machine: &'a str, versions: &'a [&'a str]) -> Plan<'a> {
        Plan {
            seed,
            machine,
            arch: "x86_64",
            cpu: "AMD EPYC 7B13 64-Core Processor",
            versions,
            runs_per_version: 1,
            probe: "getpid",
            syscalls_per_op: 1,
            method: Method::Interleaved,
            step: None,
        }
    }
}

/// The records of a [`Plan`], oldest first. Costs are those of [`generate`]'s machines with the
/// same 2 % run-to-run noise but no drift over versions, so that only the planned step moves.
pub fn series(plan: &Plan) -> Vec<RunRecord> {
    let mut rng = Rng::new(plan.seed);
    let m = Machine {
        arch: plan.arch,
        cpu: plan.cpu,
        vendor: "AuthenticAMD",
        virt: ("vm", Some("KVM")),
        hash: plan.machine.to_string(),
        mitigated: true,
        speed: 1.0,
        bpf_ok: true,
    };
    let per_op = f64::from(plan.syscalls_per_op);
    let mut out = Vec::new();
    for (vi, version) in plan.versions.iter().enumerate() {
        for j in 0..plan.runs_per_version {
            let s = 1.0 + 0.02 * rng.normal();
            let costs = Costs {
                s,
                native: 152.0 * s * per_op,
                entry: 4.0 * s * per_op,
                per_filter: 9.0 * s * per_op,
                cached: true,
            };
            let mut results = results(&mut rng, &m, &costs, false);
            if let Some(step) = plan.step.filter(|st| vi >= st.at) {
                for r in results.iter_mut().filter(|r| r.id == step.id) {
                    r.median_ns = r.median_ns.map(|x| x + step.ns);
                    r.ci_low_ns = r.ci_low_ns.map(|x| x + step.ns);
                    r.ci_high_ns = r.ci_high_ns.map(|x| x + step.ns);
                    if let Some(o) = &mut r.overhead {
                        o.median_ns += step.ns;
                        o.ci_low_ns = o.ci_low_ns.map(|x| x + step.ns);
                        o.ci_high_ns = o.ci_high_ns.map(|x| x + step.ns);
                    }
                }
            }
            let estimates = estimates(&mut rng, &costs, false);
            let expectations = expectations(&mut rng, costs.native, false);
            let (y, mo, d) = civil(19723 + (vi * 30) as i64); // 2024-01-01 + 30 days per version
            let source = Source {
                note: Some(format!("synthetic series record {vi}.{j}")),
                date: Some(format!("{y:04}-{mo:02}-{d:02}T{:02}:00:00Z", j % 24)),
                ..Source::new(
                    SourceKind::Synthetic,
                    concat!("syscost-site-bench ", env!("CARGO_PKG_VERSION")),
                    plan.method,
                )
            };
            let settings = Settings {
                budget_s: Some(30.0),
                target_ci_pct: Some(1.0),
                cpu: Some(1),
                sample_ms: Some(2.0),
                ..Settings::new(plan.probe, plan.syscalls_per_op, 0.95)
            };
            let summary = RunSummary {
                rounds: 100,
                stop_reason: StopReason::Budget,
                worst_ci_pct: Some(2.5),
                worst_ci_id: Some("sud.block".to_string()),
                ..RunSummary::complete(30.0, "bootstrap percentile of the median")
            };
            out.push(
                RunRecord::builder(
                    source,
                    settings,
                    environment(&m, version, vi * 100 + j),
                    summary,
                )
                .results(results)
                .estimates(estimates)
                .expectations(expectations)
                .note("Synthetic: generated for tests, not a measurement.")
                .build(),
            );
        }
    }
    out
}

/// Generates `n` records. Machines scale with `n` (one per ~50 runs, 4 to 400).
pub fn generate(n: usize, seed: u64) -> impl Iterator<Item = RunRecord> {
    let mut rng = Rng::new(seed);
    let ms = machines(&mut rng, (n / 50).clamp(4, 400));
    (0..n).map(move |i| {
        let m = &ms[rng.below(ms.len())];
        let k = rng.below(KERNELS.len());
        record(&mut rng, m, k, i)
    })
}

/// The stored form, as `syscost run --save` writes it.
pub fn to_file_bytes(r: &RunRecord) -> Vec<u8> {
    syscost_record::to_file_json(r).into_bytes()
}

/// Why [`write`] failed.
#[derive(Debug)]
pub enum WriteError {
    /// The target is named `data`: generated records must never mix with real ones.
    DataDir(PathBuf),
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WriteError::DataDir(dir) => write!(
                f,
                "refusing to write synthetic records into a directory named `data` ({}); use a \
                 temporary directory",
                dir.display()
            ),
            WriteError::Io { path, source } => {
                write!(f, "cannot write {}: {source}", path.display())
            }
        }
    }
}

impl std::error::Error for WriteError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WriteError::DataDir(_) => None,
            WriteError::Io { source, .. } => Some(source),
        }
    }
}

/// Writes `n` records under `dir/runs/<arch>/<kernel>/<id>.json` (each via temp file + rename).
/// Refuses a directory named `data`: a cheap guard against the one mistake that matters,
/// generated data in the data set.
pub fn write(dir: &Path, n: usize, seed: u64) -> Result<usize, WriteError> {
    write_records(dir, generate(n, seed))
}

/// What site-bench generates: the small synthetic records of [`generate`], or records the size
/// and shape of a real default run ([`generate_real`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Small,
    Real,
}

/// [`write`] for either shape.
pub fn write_shape(dir: &Path, n: usize, seed: u64, shape: Shape) -> Result<usize, WriteError> {
    match shape {
        Shape::Small => write(dir, n, seed),
        Shape::Real => write_records(dir, generate_real(n, seed)),
    }
}

fn write_records(
    dir: &Path,
    records: impl Iterator<Item = RunRecord>,
) -> Result<usize, WriteError> {
    if dir.file_name().is_some_and(|name| name == "data") {
        return Err(WriteError::DataDir(dir.to_path_buf()));
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| WriteError::Io { path, source }
    };
    let mut made = std::collections::BTreeSet::new();
    let mut count = 0;
    for r in records {
        let path = dir.join(r.canonical_path());
        if let Some(parent) = path.parent() {
            if made.insert(parent.to_path_buf()) {
                std::fs::create_dir_all(parent).map_err(io(parent))?;
            }
        }
        let tmp = path.with_extension("json.tmp");
        let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(&to_file_bytes(&r)).map_err(io(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(io(&path))?;
        count += 1;
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_records_are_valid_marked_and_deterministic() {
        let a: Vec<RunRecord> = generate(30, 7).collect();
        let b: Vec<RunRecord> = generate(30, 7).collect();
        assert_eq!(a, b);
        let c: Vec<RunRecord> = generate(30, 8).collect();
        assert_ne!(a, c);
        for r in &a {
            assert_eq!(r.source.kind, SourceKind::Synthetic);
            let problems = syscost_record::validate(r);
            assert!(problems.is_empty(), "{problems:?}");
        }
        let arches: std::collections::BTreeSet<_> = a
            .iter()
            .map(|r| r.environment.comparability.arch.clone())
            .collect();
        assert!(arches.len() >= 2, "{arches:?}");
    }

    /// The ids are content hashes, so they pin every byte: tests and benchmarks that name a
    /// seed keep getting the same records.
    #[test]
    fn a_seed_gives_the_records_it_always_gave() {
        let ids: Vec<String> = generate(5, 3).map(|r| r.id).collect();
        assert_eq!(
            ids,
            [
                "77a6d1219d011b8f",
                "eae91ce934797a86",
                "a7bdba375302389d",
                "0716681c4346c910",
                "d5db5c3f3676050d"
            ]
        );
    }

    #[test]
    fn never_writes_into_a_directory_named_data() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        assert!(matches!(write(&data, 1, 1), Err(WriteError::DataDir(_))));
        assert!(!data.exists());
        let out = tmp.path().join("records");
        assert_eq!(write(&out, 3, 1).unwrap(), 3);
        let files = walkdir::WalkDir::new(&out)
            .into_iter()
            .filter(|e| e.as_ref().is_ok_and(|e| e.file_type().is_file()))
            .count();
        assert_eq!(files, 3);
    }

    #[test]
    fn a_planned_step_moves_only_its_scenario_from_its_version_on() {
        let versions = ["6.6", "6.7", "6.8"];
        let plan = Plan {
            step: Some(Step {
                at: 2,
                id: "sud.allow",
                ns: 100.0,
            }),
            runs_per_version: 2,
            ..Plan::new(4, "00000001", &versions)
        };
        let rs = series(&plan);
        assert_eq!(rs.len(), 6);
        let ovh =
            |r: &RunRecord, id: &str| r.result(id).unwrap().overhead.as_ref().unwrap().median_ns;
        for r in &rs {
            let p = syscost_record::validate(r);
            assert!(p.is_empty(), "{p:?}");
            let stepped = r.environment.comparability.kernel_release == "6.8";
            let sud = ovh(r, "sud.allow");
            assert_eq!(sud > 130.0, stepped, "{sud}");
            assert!(ovh(r, "bpf.tp") < 230.0);
        }
        assert_eq!(rs[0].source.date.as_deref(), Some("2024-01-01T00:00:00Z"));
        assert_eq!(series(&plan), rs, "deterministic");
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil(0), (1970, 1, 1));
        assert_eq!(civil(18262), (2020, 1, 1));
        assert_eq!(civil(18262 + 59), (2020, 2, 29));
    }
}
