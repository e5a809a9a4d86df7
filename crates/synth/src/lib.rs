//! Plausible made-up run records for the site's tests and benchmark (`site-bench synth`). Every
//! one is marked `source.kind = "synthetic"`: `syscost-site check` refuses them, the site
//! labels them.
//!
//! Deterministic for a seed: a small SplitMix64 generator, no external randomness.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
mod real;
mod small;
pub use real::generate_real;
use small::*;

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
    /// Roughly normal (the sum of six uniforms): mean 0, sd √0.5 ≈ 0.71, no tails beyond ±3.
    /// What the synthetic records are drawn with; tests of tail probabilities use [`Rng::gauss`].
    pub fn normal(&mut self) -> f64 {
        (0..6).map(|_| self.f()).sum::<f64>() - 3.0
    }
    /// A standard normal draw (Box–Muller): mean 0, sd 1, with its tails.
    pub fn gauss(&mut self) -> f64 {
        let (a, b) = (self.f().max(f64::MIN_POSITIVE), self.f());
        (-2.0 * a.ln()).sqrt() * (std::f64::consts::TAU * b).cos()
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
