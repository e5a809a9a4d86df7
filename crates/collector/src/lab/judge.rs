//! The lab matrix's judge: does a kernel's record show every scenario measured with its
//! verification right, or skipped for a reason that kernel's version, configuration and
//! machine explain?
//!
//! The needs below come from the kernel's history and Kconfig, written apart from the
//! scenarios' own checks: a scenario that skips with a reason naming none of its unmet needs,
//! skips although nothing is missing, or is measured although something is missing, is a
//! finding — as is any failure.

use super::Arch;
use crate::machine::kconfig;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use syscost_record::{KernelExpectation, RunRecord, Status, Verdict};
use wildmatch::WildMatch;

/// What a kernel must offer for a scenario.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Need {
    /// Linux ≥ major.minor.
    Since(u32, u32),
    /// A configuration option set (`y` or `m`).
    Config(&'static str),
    /// Clock reads served by the vDSO: the clocksource has a vDSO mode (read from the record,
    /// which the guest's probe filled).
    VdsoClock,
    /// A second CPU the run may use (read from the record: the guest's vCPUs, or the CPUs its
    /// probe counted).
    SecondCpu,
    /// A guest architecture other than this one; the skip reason names the second field
    /// (what is missing there: a library's support, not the kernel's).
    NotArch(Arch, &'static str),
    /// Something neither version nor config tells (the fmod_ret target being on the
    /// error-injection list): a skip is explained when its reason contains this text.
    Undecidable(&'static str),
}

/// Clocksources with a vDSO mode (x86 tsc, KVM's and Hyper-V's pages, arm64's counter,
/// riscv64's timer, ppc64's timebase).
const VDSO_CLOCKSOURCES: [&str; 6] = [
    "tsc",
    "kvm-clock",
    "hyperv_clocksource_tsc_page",
    "arch_sys_counter",
    "riscv_clocksource",
    "timebase",
];

impl Need {
    /// Whether `k` (and the record's machine facts) meet it; None when it cannot be told.
    pub fn met(&self, k: &Kernel, r: Option<&RunRecord>) -> Option<bool> {
        match *self {
            Need::Since(a, b) => k.version.map(|v| v >= (a, b)),
            Need::Config(name) => kconfig::enabled_in(&k.config, name),
            Need::VdsoClock => r
                .and_then(|r| r.environment.incidental.clocksource.as_deref())
                .map(|c| VDSO_CLOCKSOURCES.contains(&c)),
            // The guest's vCPUs as the host started it (a TCG guest's cpuinfo may count
            // otherwise), else what the probe counted.
            Need::SecondCpu => r
                .and_then(|r| {
                    (r.environment.lab.as_ref().map(|l| l.vcpus)).or(r
                        .environment
                        .comparability
                        .cpu
                        .logical_cpus)
                })
                .map(|n| n >= 2),
            Need::NotArch(a, _) => Some(k.arch != a),
            Need::Undecidable(_) => None,
        }
    }

    /// What a skip reason must mention to be explained by this need.
    fn evidence(&self) -> String {
        match *self {
            Need::Since(a, b) => format!("{a}.{b}"),
            Need::Config(name) => name.to_string(),
            Need::VdsoClock => "vDSO".to_string(),
            Need::SecondCpu => "second CPU".to_string(),
            Need::NotArch(_, text) => text.to_string(),
            Need::Undecidable(text) => text.to_string(),
        }
    }

    /// The table's short word for it when unmet.
    pub fn label(&self) -> String {
        match *self {
            Need::Since(a, b) => format!("< {a}.{b}"),
            Need::Config(name) => format!("no {}", name.trim_start_matches("CONFIG_")),
            Need::VdsoClock => "no vDSO clock".to_string(),
            Need::SecondCpu => "one CPU".to_string(),
            Need::NotArch(a, text) => format!("no {text} on {a}"),
            Need::Undecidable(text) => text.to_string(),
        }
    }
}

/// Scenario ids (globs) and what they need; a scenario no rule names needs nothing beyond
/// seccomp and ptrace, which every kernel the lab boots has.
pub const RULES: &[(&str, &[Need])] = &[
    // SUD is part of the generic entry code, since 5.11.
    (
        "sud.*",
        &[Need::Since(5, 11), Need::Config("CONFIG_GENERIC_ENTRY")],
    ),
    ("seccomp.user_notif.sync_wake", &[Need::Since(6, 6)]),
    // The Docker-like profile is compiled by seccompiler, which has no ppc64 target.
    (
        "seccomp.profile.*",
        &[Need::NotArch(Arch::Ppc64le, "seccompiler")],
    ),
    (
        "attach.*seccomp.docker",
        &[Need::NotArch(Arch::Ppc64le, "seccompiler")],
    ),
    // SECCOMP_RET_LOG writes through audit_seccomp(), built with syscall auditing.
    ("seccomp.log", &[Need::Config("CONFIG_AUDITSYSCALL")]),
    ("ptrace.sysemu", &[Need::VdsoClock]),
    // Cross-CPU round trips; their `.same_cpu` twins measure the one-CPU case.
    ("seccomp.user_notif", &[Need::SecondCpu]),
    ("ptrace.syscall", &[Need::SecondCpu]),
    ("*bpf.tp", &[Need::Config("CONFIG_FTRACE_SYSCALLS")]),
    // riscv64 6.12 puts an ftrace site at the function's entry, where a kprobe needs
    // KPROBES_ON_FTRACE, which riscv64 does not offer; its 7.2 takes the kprobe all the same
    // (not bisected): whether the entry is such a site is not in the config.
    (
        "*bpf.kprobe",
        &[
            Need::Config("CONFIG_KPROBE_EVENTS"),
            Need::Undecidable("CONFIG_KPROBES_ON_FTRACE"),
        ],
    ),
    (
        "*bpf.kretprobe",
        &[
            Need::Config("CONFIG_KPROBE_EVENTS"),
            Need::Undecidable("CONFIG_KPROBES_ON_FTRACE"),
        ],
    ),
    // Under the instruction-counting clock, an attach cycle that waits with the CPU idle
    // (grace periods, kworkers) reads virtual time: whether it waits is not in the config.
    (
        "attach.bpf.*",
        &[Need::Undecidable("not an instruction count")],
    ),
    (
        "*bpf.kprobe_multi",
        &[Need::Since(5, 18), Need::Config("CONFIG_FPROBE")],
    ),
    // A trampoline on a kernel function is an ftrace direct call.
    (
        "*bpf.fentry",
        &[
            Need::Config("CONFIG_DEBUG_INFO_BTF"),
            Need::Config("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"),
        ],
    ),
    (
        "*bpf.fexit",
        &[
            Need::Config("CONFIG_DEBUG_INFO_BTF"),
            Need::Config("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"),
        ],
    ),
    (
        "*bpf.fmodret",
        &[
            Need::Config("CONFIG_DEBUG_INFO_BTF"),
            Need::Config("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS"),
            Need::Config("CONFIG_FUNCTION_ERROR_INJECTION"),
            Need::Undecidable("not modifiable"),
        ],
    ),
    ("bpf.uprobe", &[Need::Config("CONFIG_UPROBE_EVENTS")]),
    ("bpf.uretprobe", &[Need::Config("CONFIG_UPROBE_EVENTS")]),
];

/// The needs of scenario `id`.
pub fn needs(id: &str) -> Vec<Need> {
    RULES
        .iter()
        .filter(|(glob, _)| WildMatch::new(glob).matches(id))
        .flat_map(|(_, n)| n.iter().copied())
        .collect()
}

/// A kernel of the lab cache.
#[derive(Debug, Clone)]
pub struct Kernel {
    pub arch: Arch,
    pub release: String,
    pub version: Option<(u32, u32)>,
    pub image: PathBuf,
    pub config_path: Option<PathBuf>,
    /// Every option of its config (empty when there is none).
    pub config: BTreeMap<String, String>,
}

impl Kernel {
    pub fn new(arch: Arch, release: &str, image: PathBuf, config_path: Option<PathBuf>) -> Kernel {
        let config = config_path
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .map(|t| kconfig::parse_all(&t))
            .unwrap_or_default();
        Kernel {
            arch,
            release: release.to_string(),
            version: kconfig::version_of(release),
            image,
            config_path,
            config,
        }
    }

    /// `x86_64 5.10`: the column head.
    pub fn label(&self) -> String {
        match self.version {
            Some((a, b)) => format!("{} {a}.{b}", self.arch),
            None => format!("{} {}", self.arch, self.release),
        }
    }

    /// Whether `arch:version` (a prefix of the release: `x86_64:5.10`, `aarch64:6.12.117`)
    /// names this kernel.
    pub fn matches(&self, spec: &str) -> bool {
        let (a, v) = spec.split_once(':').unwrap_or((spec, ""));
        // A prefix ending where a number ends: 6.1 names 6.1.0-50, not 6.12.
        Arch::from_name(a) == Some(self.arch)
            && self
                .release
                .strip_prefix(v)
                .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_digit()) || v.is_empty())
    }
}

/// The kernels of a lab cache (`kernels/<arch>/<release>/vmlinuz-<release>`, as
/// scripts/lab-kernels leaves them): x86_64 first, then by version.
pub fn cached_kernels(cache: &Path) -> Vec<Kernel> {
    let mut out = Vec::new();
    for arch in Arch::ALL {
        let Ok(dirs) = std::fs::read_dir(cache.join("kernels").join(arch.name())) else {
            continue;
        };
        for d in dirs.flatten() {
            let release = d.file_name().to_string_lossy().into_owned();
            let image = d.path().join(format!("vmlinuz-{release}"));
            if !image.is_file() {
                continue;
            }
            let config = d.path().join(format!("config-{release}"));
            out.push(Kernel::new(
                arch,
                &release,
                image,
                config.is_file().then_some(config),
            ));
        }
    }
    out.sort_by(|a, b| {
        (a.arch != Arch::X86_64, a.version, &a.release).cmp(&(
            b.arch != Arch::X86_64,
            b.version,
            &b.release,
        ))
    });
    out
}

/// One scenario on one kernel.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Measured, with its verification (when it has one) exactly as expected.
    Measured,
    /// Skipped, and the reason names the unmet needs (the table shows their labels).
    Skipped(Vec<String>),
    /// Skipped for a reason the kernel does not explain.
    Unexplained(String),
    /// Skipped because the budget ran out (its setup took longer than half of it, or no
    /// round reached it): not the kernel's doing, and not a measurement either.
    Budget(String),
    /// Measured although the kernel lacks what it needs (the rule or the scenario is wrong).
    MeasuredAnyway(Vec<String>),
    /// Failed, or measured with a wrong verification count.
    Failed(String),
    /// The record has no result for it.
    Missing,
}

impl Cell {
    pub fn ok(&self) -> bool {
        matches!(self, Cell::Measured | Cell::Skipped(_))
    }

    /// The words in the table.
    pub fn short(&self) -> String {
        match self {
            Cell::Measured => "measured".into(),
            Cell::Skipped(why) => format!("skip: {}", why.join(", ")),
            Cell::Unexplained(_) => "**skip?**".into(),
            Cell::Budget(_) => "**skip: budget**".into(),
            Cell::MeasuredAnyway(why) => format!("**measured although {}**", why.join(", ")),
            Cell::Failed(_) => "**FAILED**".into(),
            Cell::Missing => "**missing**".into(),
        }
    }

    /// The full reason, for the notes under the table.
    pub fn detail(&self) -> Option<&str> {
        match self {
            Cell::Unexplained(r) | Cell::Budget(r) | Cell::Failed(r) => Some(r),
            _ => None,
        }
    }
}

/// Judges one scenario of `record` (booted from `k`).
pub fn judge(k: &Kernel, record: &RunRecord, id: &str) -> Cell {
    let Some(r) = record.result(id) else {
        return Cell::Missing;
    };
    let needs = needs(id);
    let unmet: Vec<Need> = needs
        .iter()
        .copied()
        .filter(|n| n.met(k, Some(record)) == Some(false))
        .collect();
    let undecided: Vec<Need> = needs
        .iter()
        .copied()
        .filter(|n| n.met(k, Some(record)).is_none())
        .collect();
    let reason = r.reason.clone().unwrap_or_default();
    match r.status {
        Status::Failed => Cell::Failed(reason),
        Status::Measured => {
            if let Some(v) = &r.verification {
                if v.observed != v.expected {
                    return Cell::Failed(format!(
                        "measured with {} {} where {} were expected",
                        v.observed, v.what, v.expected
                    ));
                }
            }
            if r.samples.unwrap_or(0) == 0 || r.median_ns.is_none() {
                return Cell::Failed("measured without samples".into());
            }
            if unmet.is_empty() {
                Cell::Measured
            } else {
                Cell::MeasuredAnyway(unmet.iter().map(Need::label).collect())
            }
        }
        Status::Skipped => {
            // The first unmet (or undecidable) need the reason names explains the skip.
            let named: Vec<String> = unmet
                .iter()
                .chain(&undecided)
                .filter(|n| reason.contains(&n.evidence()))
                .map(Need::label)
                .collect();
            if named.is_empty() && reason.contains("budget") {
                Cell::Budget(reason)
            } else if named.is_empty() {
                Cell::Unexplained(reason)
            } else {
                Cell::Skipped(named)
            }
        }
    }
}

/// A finding about the kernel benchmark's expectations: before 5.11 there is no action cache,
/// so one and two "bitmapped" filters cost one and two filter runs, and the kernel's own rule
/// says they "appear unsupported" (1 bitmapped ≈ 2 bitmapped fails). From 5.11 on it must not
/// fail. Our interval verdict may stay inconclusive on a noisy emulator; it must never
/// contradict.
pub fn bitmap_finding(k: &Kernel, record: &RunRecord) -> Option<String> {
    let id = KernelExpectation::Bitmap1ApproxBitmap2.id();
    let e = record.expectations.iter().find(|e| e.id == id)?;
    let cached = k.version? >= (5, 11);
    let contradicts = if cached {
        e.verdict == Verdict::Fail
    } else {
        e.verdict == Verdict::Pass
    };
    contradicts.then(|| {
        format!(
            "{} \"{}\": {:?} on a kernel {} the seccomp action cache (diff {:.1} ns, \
             tolerance {:.1} ns)",
            k.label(),
            e.label,
            e.verdict,
            if cached { "with" } else { "without" },
            e.diff_median_ns.unwrap_or(f64::NAN),
            e.tolerance_ns
        )
    })
}

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail => "fail",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Skip => "skip",
    }
}

/// The outcome of one kernel's boot.
#[derive(Debug)]
pub enum Column {
    /// The record, with how long the boot and the whole run took.
    Ran {
        record: Box<RunRecord>,
        boot_s: Option<f64>,
        total_s: f64,
    },
    /// The lab could not get a record (the error, as printed).
    NoRecord(String),
}

/// The matrix: kernels × scenarios.
#[derive(Debug)]
pub struct Matrix {
    pub kernels: Vec<Kernel>,
    pub columns: Vec<Column>,
}

impl Matrix {
    /// Scenario ids in the order of the first record that has them, then any others.
    pub fn ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = Vec::new();
        for c in &self.columns {
            if let Column::Ran { record, .. } = c {
                for r in &record.results {
                    if !ids.contains(&r.id) {
                        ids.push(r.id.clone());
                    }
                }
            }
        }
        ids
    }

    pub fn cell(&self, k: usize, id: &str) -> Cell {
        match &self.columns[k] {
            Column::Ran { record, .. } => judge(&self.kernels[k], record, id),
            Column::NoRecord(e) => Cell::Failed(format!("no record: {e}")),
        }
    }

    /// Every finding: (kernel label, scenario id or "", what).
    pub fn findings(&self) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        for (k, col) in self.columns.iter().enumerate() {
            let label = self.kernels[k].label();
            match col {
                Column::NoRecord(e) => out.push((label, String::new(), e.clone())),
                Column::Ran { record, .. } => {
                    for id in self.ids() {
                        let c = judge(&self.kernels[k], record, &id);
                        if !c.ok() {
                            out.push((
                                label.clone(),
                                id,
                                c.detail().map_or_else(|| c.short(), str::to_string),
                            ));
                        }
                    }
                    if let Some(f) = bitmap_finding(&self.kernels[k], record) {
                        out.push((label, "expectations".into(), f));
                    }
                }
            }
        }
        out
    }

    /// The table in Markdown, with the kernels' facts above it and the findings below.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "| kernel | release | accel | booted | run | rounds |");
        let _ = writeln!(s, "|---|---|---|---|---|---|");
        for (k, col) in self.kernels.iter().zip(&self.columns) {
            match col {
                Column::Ran {
                    record,
                    boot_s,
                    total_s,
                } => {
                    let accel = record
                        .environment
                        .lab
                        .as_ref()
                        .map_or("?", |l| l.accelerator.name());
                    let _ = writeln!(
                        s,
                        "| {} | {} | {accel} | {} | {total_s:.0} s | {} |",
                        k.label(),
                        k.release,
                        boot_s.map_or("?".into(), |b| format!("{b:.0} s")),
                        record.summary.rounds
                    );
                }
                Column::NoRecord(_) => {
                    let _ = writeln!(s, "| {} | {} | | no record | | |", k.label(), k.release);
                }
            }
        }
        s.push('\n');
        let _ = write!(s, "| scenario |");
        for k in &self.kernels {
            let _ = write!(s, " {} |", k.label());
        }
        s.push('\n');
        let _ = write!(s, "|---|");
        for _ in &self.kernels {
            s.push_str("---|");
        }
        s.push('\n');
        for id in self.ids() {
            let _ = write!(s, "| `{id}` |");
            for k in 0..self.kernels.len() {
                let _ = write!(s, " {} |", self.cell(k, &id).short());
            }
            s.push('\n');
        }
        // The expectation that tells whether the action cache works.
        let x = KernelExpectation::Bitmap1ApproxBitmap2;
        let _ = write!(s, "| expectation \"{}\": ours (kernel's rule) |", x.label());
        for col in &self.columns {
            let v = match col {
                Column::Ran { record, .. } => record
                    .expectations
                    .iter()
                    .find(|e| e.id == x.id())
                    .map(|e| format!("{} ({})", verdict(e.verdict), verdict(e.kernel_verdict))),
                Column::NoRecord(_) => None,
            };
            let _ = write!(s, " {} |", v.unwrap_or_else(|| "—".into()));
        }
        s.push('\n');
        let findings = self.findings();
        s.push('\n');
        if findings.is_empty() {
            let _ = writeln!(
                s,
                "Every scenario was measured with its verification exact, or skipped for a \
                 reason its kernel's version, configuration or clock explains."
            );
        } else {
            let _ = writeln!(s, "Findings ({}):\n", findings.len());
            for (k, id, what) in findings {
                let what = what.replace('\n', " ");
                if id.is_empty() {
                    let _ = writeln!(s, "- {k}: {what}");
                } else {
                    let _ = writeln!(s, "- {k} `{id}`: {what}");
                }
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syscost_record::{
        Environment, Method, RunSummary, ScenarioResult, Settings, Source, SourceKind, Verification,
    };

    fn kernel(release: &str, config: &str) -> Kernel {
        Kernel {
            arch: Arch::X86_64,
            release: release.into(),
            version: kconfig::version_of(release),
            image: "/k".into(),
            config_path: None,
            config: kconfig::parse_all(config),
        }
    }

    fn result(id: &str, status: Status, reason: Option<&str>) -> ScenarioResult {
        ScenarioResult {
            id: id.into(),
            family: "x".into(),
            description: String::new(),
            status,
            reason: reason.map(String::from),
            median_ns: (status == Status::Measured).then_some(100.0),
            ci_low_ns: None,
            ci_high_ns: None,
            samples: (status == Status::Measured).then_some(5),
            iters_per_sample: None,
            mad_ns: None,
            min_ns: None,
            p90_ns: None,
            outliers: None,
            preempted: None,
            retaken: None,
            overhead: None,
            throughput_mops: None,
            verification: None,
            params: BTreeMap::new(),
        }
    }

    fn record(results: Vec<ScenarioResult>) -> RunRecord {
        RunRecord::builder(
            Source::new(SourceKind::Collected, "syscost test", Method::Interleaved),
            Settings::new("getpid", 1, 0.95),
            Environment::default(),
            RunSummary::complete(1.0, "test"),
        )
        .results(results)
        .build()
    }

    #[test]
    fn skips_are_explained_by_version_and_config_only() {
        let k510 = kernel("5.10.0-32-amd64", "CONFIG_KPROBE_EVENTS=y\n");
        let r = record(vec![
            result(
                "sud.allow",
                Status::Skipped,
                Some("it needs Linux ≥ 5.11, this is 5.10"),
            ),
            result("sud.block", Status::Skipped, Some("the budget was spent")),
            result(
                "bpf.kprobe",
                Status::Skipped,
                Some("CONFIG_KPROBES is not set"),
            ),
            result(
                "bpf.kprobe_multi",
                Status::Skipped,
                Some("needs Linux ≥ 5.18"),
            ),
            result("bpf.rawtp", Status::Measured, None),
            result(
                "attach.bpf.fmodret",
                Status::Skipped,
                Some("CONFIG_FUNCTION_ERROR_INJECTION is not set"),
            ),
        ]);
        assert_eq!(
            judge(&k510, &r, "sud.allow"),
            Cell::Skipped(vec!["< 5.11".into()])
        );
        assert!(matches!(judge(&k510, &r, "sud.block"), Cell::Budget(_)));
        // The kernel has kprobes: a skip for them is a finding.
        assert!(matches!(
            judge(&k510, &r, "bpf.kprobe"),
            Cell::Unexplained(_)
        ));
        assert_eq!(
            judge(&k510, &r, "bpf.kprobe_multi"),
            Cell::Skipped(vec!["< 5.18".into()])
        );
        assert_eq!(judge(&k510, &r, "bpf.rawtp"), Cell::Measured);
        assert_eq!(
            judge(&k510, &r, "attach.bpf.fmodret"),
            Cell::Skipped(vec!["no FUNCTION_ERROR_INJECTION".into()])
        );
        assert_eq!(judge(&k510, &r, "bpf.tp"), Cell::Missing);
        // Measured although the kernel is too old: the rule or the scenario is wrong.
        let k = kernel("6.1.0-50-amd64", "CONFIG_GENERIC_ENTRY=y\n");
        let r = record(vec![result(
            "seccomp.user_notif.sync_wake",
            Status::Measured,
            None,
        )]);
        assert_eq!(
            judge(&k, &r, "seccomp.user_notif.sync_wake"),
            Cell::MeasuredAnyway(vec!["< 6.6".into()])
        );
    }

    /// The cross-CPU round trips skip on a one-CPU guest (an instruction-counting one), and
    /// only there: the record's CPUs decide.
    #[test]
    fn a_cross_cpu_skip_is_explained_by_one_cpu_only() {
        let k = kernel("6.1.0-50-amd64", "");
        let reason = "needs a second CPU: this run may use one, so the tracer would share the \
                      timed loop's CPU, which ptrace.syscall.same_cpu measures";
        let mut r = record(vec![result(
            "ptrace.syscall",
            Status::Skipped,
            Some(reason),
        )]);
        r.environment.comparability.cpu.logical_cpus = Some(1);
        assert_eq!(
            judge(&k, &r, "ptrace.syscall"),
            Cell::Skipped(vec!["one CPU".into()])
        );
        r.environment.comparability.cpu.logical_cpus = Some(2);
        assert!(matches!(
            judge(&k, &r, "ptrace.syscall"),
            Cell::Unexplained(_)
        ));
        // The one-CPU twin needs nothing.
        assert!(needs("ptrace.syscall.same_cpu").is_empty());
        assert_eq!(needs("seccomp.user_notif"), vec![Need::SecondCpu]);
    }

    #[test]
    fn a_wrong_verification_count_fails_the_cell() {
        let k = kernel("6.12.117+deb13-amd64", "CONFIG_FTRACE_SYSCALLS=y\n");
        let mut res = result("bpf.tp", Status::Measured, None);
        res.verification = Some(Verification {
            what: "hits".into(),
            expected: 10,
            observed: 9,
        });
        let r = record(vec![res]);
        assert!(matches!(judge(&k, &r, "bpf.tp"), Cell::Failed(_)));
    }

    /// A skip for an ftrace-site kprobe is accepted where it happens (riscv64 6.12), a
    /// measurement elsewhere; the Docker-like profile is missing on ppc64le only, and its skip
    /// must say why.
    #[test]
    fn architecture_needs_apply_to_their_architecture_only() {
        let cfg = "CONFIG_KPROBE_EVENTS=y\nCONFIG_DYNAMIC_FTRACE=y\n";
        let riscv = Kernel {
            arch: Arch::Riscv64,
            ..kernel("6.12.117+deb13-riscv64", cfg)
        };
        let reason = "the kernel refused a kprobe on the function's entry, an ftrace site, with \
                      EINVAL: that needs CONFIG_KPROBES_ON_FTRACE, which this kernel does not set";
        let r = record(vec![result("bpf.kprobe", Status::Skipped, Some(reason))]);
        assert_eq!(
            judge(&riscv, &r, "bpf.kprobe"),
            Cell::Skipped(vec!["CONFIG_KPROBES_ON_FTRACE".into()])
        );
        let x86 = kernel("6.12.117+deb13-amd64", cfg);
        let ppc = Kernel {
            arch: Arch::Ppc64le,
            ..kernel("6.1.0-50-powerpc64le", "")
        };
        let why = "seccompiler does not support powerpc64: InvalidTargetArch";
        let r = record(vec![result(
            "seccomp.profile.cached",
            Status::Skipped,
            Some(why),
        )]);
        assert_eq!(
            judge(&ppc, &r, "seccomp.profile.cached"),
            Cell::Skipped(vec!["no seccompiler on ppc64le".into()])
        );
        assert!(matches!(
            judge(&x86, &r, "seccomp.profile.cached"),
            Cell::Unexplained(_)
        ));
    }

    #[test]
    fn kernels_are_named_by_arch_and_version_prefix() {
        let k = kernel("6.12.117+deb13-amd64", "");
        assert!(k.matches("x86_64:6.12"));
        assert!(k.matches("amd64:6.12.117"));
        assert!(!k.matches("x86_64:6.1"));
        assert!(!k.matches("aarch64:6.12"));
        assert_eq!(k.label(), "x86_64 6.12");
    }
}
