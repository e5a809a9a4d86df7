//! The syscost run record: one JSON document per run, shared by the collector (which writes it)
//! and the site generator (which reads thousands of them). Serde types only — no system
//! dependencies — so reading records never pulls in BPF or seccomp code.
//!
//! Every time is in nanoseconds per *operation* — or, in a record whose clock counted
//! instructions ([`Comparability::clock`]), every `*_ns` number is instructions per operation;
//! an operation is one iteration of the probe
//! (one syscall, or five for the `mix` probe — see [`Settings::syscall`]). Every measured number
//! carries its confidence interval and the number of samples behind it; imported single-sample
//! results carry no interval (`ci_*` absent), never a made-up one.

mod builder;
pub mod check;
mod content_id;
mod file;
pub mod format;
pub mod kernel_ids;
mod precision;
mod unique;
mod validate;

pub use builder::RecordBuilder;
pub use content_id::{
    canonical_json, canonical_path_for, content_id, content_id_of_json, is_file_form, machine_hash,
    migrate, sanitize_path_component, to_file_json, with_id,
};
pub use file::{dictionary4_sha256, dictionary5_sha256, dictionary_sha256, objects_json};
pub use kernel_ids::{EstimateId, KernelExpectation, KernelScenario, Relation};
pub use precision::round_to_intervals;
pub use validate::{
    validate, validate_at, validate_canonical, validate_file, validate_settings, Problem,
    ENTRIES_MAX,
};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of this format. Bump on any incompatible change; readers reject versions they do
/// not know rather than guessing.
///
/// 2: numbers rounded to the precision their intervals justify (`round_to_intervals`), the file
/// one line of compact JSON ([`to_file_json`]).
///
/// 3: the same fields, written smaller: the lists as rows, the tool's texts by their index in a
/// frozen dictionary, a throughput that is 1000 / the median marked as derived (the `file`
/// module); targets and group durations rounded too. Records of 1 and 2 still read, validate
/// and publish as they are; [`migrate`] turns them into version 3.
///
/// 4: schema 3's form with a larger dictionary (schema 3's, then the texts written since it
/// froze, so an index of 3 means the same in 4), a target's group or a group's member that is
/// the row's own id written `0`, whole numbers without `.0`. The content id is still computed
/// on schema 3's form, so [`migrate`] turns a version 3 record into 4 with the same id (1 and
/// 2 get a new one, as their numbers are rounded).
///
/// 5: what the run's clock counted and the emulator it ran in are part of the comparability
/// key ([`Comparability::clock`], [`Comparability::emulator`]: an instruction count is never
/// pooled or compared with a time, nor one emulator's with another's); a lab run says how its
/// guest was made deterministic and which distribution package its kernel came from
/// ([`Lab::icount`], [`Lab::seed`], [`Lab::kernel_package`]); the dictionary grows by
/// appending again (`dictionary5.json`). Every new field is optional and absent from older
/// records, so [`migrate`] turns a version 3 or 4 record into 5 with the same id.
pub const SCHEMA_VERSION: u32 = 5;

/// The oldest version this build reads.
pub const OLDEST_SCHEMA: u32 = 1;

/// Whether records of version `v` can be read.
pub fn is_readable_schema(v: u64) -> bool {
    (u64::from(OLDEST_SCHEMA)..=u64::from(SCHEMA_VERSION)).contains(&v)
}

/// One run: what was measured, where, how, and what it came to.
// Serialised by hand (`file`): as objects up to schema 2, as rows from schema 3.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// Format version, [`SCHEMA_VERSION`].
    pub schema: u32,
    /// Content id: first 16 hex digits of the SHA-256 of the canonical record with `id` empty.
    pub id: String,
    pub source: Source,
    pub settings: Settings,
    pub environment: Environment,
    pub summary: RunSummary,
    /// Rows from schema 3 (objects before).
    #[serde(deserialize_with = "file::results")]
    #[cfg_attr(test, schemars(with = "Vec<file::ResultRow<'static>>"))]
    pub results: Vec<ScenarioResult>,
    #[serde(default, deserialize_with = "file::estimates")]
    #[cfg_attr(test, schemars(with = "Vec<file::EstimateRow<'static>>"))]
    pub estimates: Vec<Estimate>,
    #[serde(default, deserialize_with = "file::expectations")]
    #[cfg_attr(test, schemars(with = "Vec<file::ExpectationRow<'static>>"))]
    pub expectations: Vec<Expectation>,
    /// Free-form remarks (warnings raised during the run, import caveats).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Where the numbers come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub kind: SourceKind,
    /// Tool and version that produced the record ("syscost 0.1.0").
    pub tool: String,
    /// Git commit the tool was built from, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// How the samples were taken.
    pub method: Method,
    /// Importer format name (`kselftest-seccomp`, ...), for imported records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// URL or message id of the published log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// SHA-256 of the imported text, so the same log is recognisable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// RFC 3339 UTC time the run started (collected) or the log's date when known (imported:
    /// an RFC 3339 date or time, as the source states it — see [`Stated::date`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Facts about an imported run that its source states outside the log (the message around
    /// it, the report it is attached to), given to `syscost import` by `--kernel`, `--arch`,
    /// `--machine`, `--date` and `--stated-in`. A fact here was not printed by the benchmark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stated: Option<Stated>,
}

/// What the source of an imported log states about the run, outside the log itself. Each field
/// present is stated by the source; where the record has a field for the same fact
/// (`comparability.kernel_release`, `comparability.arch`, `source.date`) it holds the same value
/// — except an approximate kernel, which is only here.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Stated {
    /// Where and how the source states these facts (a quote, or the part of the message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stated_in: Option<String>,
    /// The kernel the run was on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<StatedKernel>,
    /// The architecture (as `uname -m` names it, when the source allows; also in
    /// `comparability.arch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// The machine as the source describes it (CPU, cores, memory, VM or not), in its words.
    /// Not a `/proc/cpuinfo` model name, so `comparability.cpu` stays as the log left it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// When the run happened (or the message was sent, when the source says nothing closer):
    /// an RFC 3339 date or UTC time; also in `source.date`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

/// A kernel as a source states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StatedKernel {
    /// The release (`5.11.0-rc5-00462-gdc8df6e85d2c`, `5.10-rc4`), or for an approximate kernel
    /// the upstream version it is near (`5.7-rc`).
    pub release: String,
    /// The source gives only an approximation ("bpf-next around 5.7-rc", "a -next tree of
    /// January 2025"). Then `comparability.kernel_release` stays "unknown": an approximate
    /// version is never placed as if it had been measured on that release.
    pub approximate: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// Measured by `syscost run`.
    Collected,
    /// Parsed from a published log by `syscost import`.
    Import,
    /// Generated for tests and benchmarks; never belongs in `data/`.
    Synthetic,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// syscost's rounds of comparison groups, interleaved, with paired differences.
    Interleaved,
    /// The kernel `seccomp_benchmark` method: one long timing per scenario, in order.
    Sequential,
    /// Whatever the imported tool did (described by `Source::format`).
    External,
}

/// The knobs the run was started with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Time budget in seconds (absent for imports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
    /// Target CI half-width, percent of the median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ci_pct: Option<f64>,
    /// Probe: the syscall timed in the loop (`getpid`, ..., or `mix`).
    pub syscall: String,
    /// Syscalls issued per operation (5 for `mix`, else 1). Absent when an operation is not a
    /// fixed number of syscalls (an imported `perf bench syscall fork`: fork, the child's exit,
    /// the parent's wait); then [`Settings::operation`] says what it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syscalls_per_op: Option<u32>,
    /// What one operation is, when it is more than `syscalls_per_op` calls of the probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// CPU the workers were pinned to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    /// Intended duration of one sample, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_ms: Option<f64>,
    /// Confidence level of every interval in the record (0.95).
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Environment {
    /// What decides whether two runs are comparable.
    pub comparability: Comparability,
    /// Facts about the moment, not the machine's kind.
    pub incidental: Incidental,
    /// How `syscost lab` ran the guest the record was measured in (absent for runs on the
    /// machine itself). Under TCG, `comparability.virtualization.kind` is
    /// [`VIRT_QEMU_TCG`]: the times are those of an emulator, not of any CPU.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lab: Option<Lab>,
}

/// `comparability.virtualization.kind` of a run emulated by QEMU's TCG (`syscost lab` without
/// KVM): not a measurement of any hardware, comparable only with other TCG runs.
pub const VIRT_QEMU_TCG: &str = "qemu-tcg";

/// The QEMU guest a `syscost lab` record was measured in, as the host started it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Lab {
    /// The first line of `qemu-system-<arch> --version`.
    pub qemu: String,
    /// The accelerator the guest ran under.
    pub accelerator: Accelerator,
    /// QEMU's machine type (`-M`: `pc`, `virt`).
    pub machine: String,
    /// QEMU's CPU model (`-cpu`: `max`, `host`).
    pub cpu_model: String,
    /// Virtual CPUs (`-smp`).
    pub vcpus: u32,
    /// Guest memory, MiB (`-m`).
    pub memory_mib: u32,
    /// SHA-256 of the kernel image booted.
    pub kernel_sha256: String,
    /// SHA-256 of the kernel configuration given to the guest at `/boot/config-<release>`
    /// (absent when none was given: then the guest's probe read none, unless the kernel has
    /// /proc/config.gz).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_config_sha256: Option<String>,
    /// Why `--accel auto` did not use KVM (absent when KVM ran, or TCG was asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kvm_fallback: Option<String>,
    /// Seconds from starting QEMU to the guest's init starting `syscost run`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_s: Option<f64>,
    /// QEMU's `-icount` option when the guest's clock counted instructions (`shift=0,sleep=off`:
    /// one tick per instruction, idle time skipped). Absent: the clock kept time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icount: Option<String>,
    /// QEMU's `-seed`: the guest's random numbers (RDRAND, the arm64 KASLR seed) came from a
    /// generator seeded with it, and its real-time clock started at a fixed date, so the boot
    /// and every number of the run repeat exactly. Absent: the host's randomness and clock.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The distribution package the kernel image came from, as `scripts/lab-kernels` noted it
    /// beside the image. Absent for a kernel built by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_package: Option<KernelPackage>,
}

/// A kernel's distribution package (Debian's `linux-image-*`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct KernelPackage {
    /// The package name (`linux-image-6.1.0-50-amd64`).
    pub name: String,
    /// Its version (`6.1.176-1`).
    pub version: String,
    /// The archive suite it was taken from (`bookworm`, `trixie-backports`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite: Option<String>,
}

/// What a run's clock counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// Time: every `*_ns` number is nanoseconds.
    Time,
    /// The instructions the guest executed (QEMU's `-icount shift=0`: the virtual clock advances
    /// 1 ns per instruction): every `*_ns` number is a count of instructions, and a duration in
    /// seconds is 10⁹ of them (plus idle time the emulator skipped).
    Instructions,
}

impl Clock {
    /// The unit of every `*_ns` number under this clock, per operation.
    pub fn unit(self) -> &'static str {
        match self {
            Clock::Time => "ns",
            Clock::Instructions => "instructions",
        }
    }
}

/// The emulator a run's guest ran in (QEMU under TCG): an emulated number depends on it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Emulator {
    /// `QEMU`.
    pub name: String,
    /// Its version (`7.2.22`): how it translates and counts guest instructions.
    pub version: String,
    /// The CPU model it emulated (`-cpu max`): which features the guest kernel saw, and so
    /// which code paths and mitigations it chose.
    pub cpu_model: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Accelerator {
    /// Hardware virtualization: a real measurement of that guest, like any VM run.
    Kvm,
    /// QEMU's binary translator: emulated, not measured.
    Tcg,
}

impl Accelerator {
    pub fn name(self) -> &'static str {
        match self {
            Accelerator::Kvm => "kvm",
            Accelerator::Tcg => "tcg",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Comparability {
    /// `uname -m` (x86_64, aarch64, ...).
    pub arch: String,
    /// `uname -r`.
    pub kernel_release: String,
    /// `uname -v`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel_version: Option<String>,
    pub cpu: Cpu,
    pub virtualization: Virtualization,
    /// Every file under /sys/devices/system/cpu/vulnerabilities/, name → content.
    #[serde(default, deserialize_with = "unique::map")]
    pub mitigations: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cmdline: Option<String>,
    /// /proc/sys/net/core/bpf_jit_enable
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bpf_jit_enable: Option<String>,
    /// /proc/sys/net/core/bpf_jit_harden
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bpf_jit_harden: Option<String>,
    /// /proc/sys/kernel/seccomp/actions_avail
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seccomp_actions_avail: Option<String>,
    /// Relevant CONFIG_* options, when the kernel config is readable.
    #[serde(default, deserialize_with = "unique::map")]
    pub kernel_config: BTreeMap<String, String>,
    /// What the run's clock counted (from schema 5). Absent: time, as in every earlier record.
    /// [`Clock::Instructions`]: every `*_ns` number of the record is instructions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<Clock>,
    /// The emulator the guest ran in, for a run under QEMU's TCG (from schema 5; absent on
    /// hardware and under KVM).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emulator: Option<Emulator>,
}

impl Comparability {
    /// What the clock counted: [`Clock::Time`] unless the record says otherwise.
    pub fn clock(&self) -> Clock {
        self.clock.unwrap_or(Clock::Time)
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Cpu {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vendor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stepping: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microcode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logical_cpus: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_cores: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smt: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Virtualization {
    /// `bare-metal`, `vm`, `unknown`, or [`VIRT_QEMU_TCG`] (emulated by QEMU's TCG under
    /// `syscost lab`: never a measurement of hardware).
    pub kind: String,
    /// Hypervisor signature or name (KVM, Xen, Microsoft Hv, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hypervisor: Option<String>,
    /// DMI product / system vendor, when exposed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Incidental {
    /// SHA-256 prefix of the hostname: lets one machine's runs be linked without naming it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocksource: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub governor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loadavg_start: Option<[f64; 3]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loadavg_end: Option<[f64; 3]>,
    /// Anything else the log or probe said (sysctls from an imported log, ...).
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "unique::map"
    )]
    pub other: BTreeMap<String, String>,
}

/// How the run went as a whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RunSummary {
    /// Rounds completed: of all comparison groups together for an interleaved run (each round
    /// samples the members of one group), 1 for one pass per scenario.
    pub rounds: u64,
    /// Wall time of the whole run, seconds (setup included). Absent when not known (most
    /// imported logs never say how long the benchmark ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    pub stop_reason: StopReason,
    /// Whether every target in `targets` was met (false when there are none).
    pub target_reached: bool,
    /// Widest CI half-width among measured scenarios, percent of its median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_ci_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_ci_id: Option<String>,
    /// How intervals were computed.
    pub ci_method: String,
    /// The precision asked of each reported difference (overheads, estimates) and of the medians
    /// that are no difference's part, and whether the run reached it. Absent when the run set
    /// no targets (sequential runs, imports).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "file::targets"
    )]
    #[cfg_attr(test, schemars(with = "Vec<file::TargetRow<'static>>"))]
    pub targets: Vec<Target>,
    /// The comparison groups the rounds sampled, and where the time went.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "file::groups"
    )]
    #[cfg_attr(test, schemars(with = "Vec<file::GroupRow<'static>>"))]
    pub groups: Vec<GroupSummary>,
}

/// One target: a reported quantity's 95% CI half-width against the width asked of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Target {
    pub quantity: QuantityKind,
    /// The scenario (overhead, median) or estimate id.
    pub id: String,
    /// The quantity's median, ns.
    pub median_ns: f64,
    /// Its CI half-width, ns; absent when there were too few samples for an interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_width_ns: Option<f64>,
    /// The half-width asked: max(target_ci_pct % of the larger of `native` and |median|,
    /// floor_ns).
    pub target_ns: f64,
    pub met: bool,
    /// The comparison group whose rounds measure it.
    pub group: String,
}

/// What a [`Target`] is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum QuantityKind {
    /// `results[id].overhead`: the paired difference over its baseline.
    Overhead,
    /// `estimates[id]`.
    Estimate,
    /// `results[id]`'s own median (a scenario no difference is made from, or an attach cost).
    Median,
}

/// A comparison group: scenarios sampled together, one round at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct GroupSummary {
    pub id: String,
    /// Its scenarios, the baseline first when it has one.
    pub members: Vec<String>,
    pub rounds: u64,
    /// Wall time its rounds took, seconds.
    pub duration_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Every scenario's CI reached the target.
    Target,
    /// The time budget was spent first.
    Budget,
    /// One pass per scenario (sequential method, imports).
    Complete,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Measured,
    Skipped,
    Failed,
}

/// One scenario: its per-operation cost and everything needed to judge it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ScenarioResult {
    /// Stable id (`native`, `seccomp.bitmap.1`, `sud.block`, `bpf.tp`, ...).
    pub id: String,
    /// `baseline`, `seccomp`, `sud`, `bpf`, `intercept`, `attach`.
    pub family: String,
    pub description: String,
    pub status: Status,
    /// Why it was skipped or failed (and what the user can do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Median ns per operation over the samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high_ns: Option<f64>,
    /// Number of samples (timed batches) behind the median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
    /// Operations per sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iters_per_sample: Option<u64>,
    /// Median absolute deviation of the samples (raw, not scaled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mad_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p90_ns: Option<f64>,
    /// Samples outside Tukey's fences (1.5 × IQR); kept in the data, the median resists them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outliers: Option<u64>,
    /// Samples during which the worker was involuntarily switched out (another task ran on its
    /// CPU) — counted over the whole sample request, untimed work around the timed loop
    /// included; kept in the data, counted so a busy machine shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempted: Option<u64>,
    /// Samples set aside and taken again because another task ran during them (up to three
    /// times per sample; `preempted` counts those kept all the same). Absent for scenarios
    /// whose own interceptor preempts the worker as part of each call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retaken: Option<u64>,
    /// Paired cost over this scenario's baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Overhead>,
    /// Million operations per second, with its CI: 1000 / the median (the CI's ends swapped)
    /// for a collected record — derived, so schema 3 writes it as `0` —, or as an imported
    /// tool printed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_mops: Option<Throughput>,
    /// Proof that the interception ran (handler calls, BPF hits...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
    /// Scenario parameters (filter count, instructions, cacheable, ...).
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "unique::map"
    )]
    pub params: BTreeMap<String, String>,
}

/// Scenario minus its baseline, computed per round (paired) and then summarised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Overhead {
    /// Baseline scenario id.
    pub vs: String,
    pub median_ns: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high_ns: Option<f64>,
    /// Number of paired rounds.
    pub samples: u64,
    /// Overhead as percent of the baseline.
    pub pct: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_ci_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_ci_high: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Throughput {
    pub median: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high: Option<f64>,
    /// Spread reported by an imported tool (the kernel bench's `± Y`), when that is all there is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stddev: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Verification {
    /// What was counted ("SIGSYS handler calls", "BPF program hits").
    pub what: String,
    pub expected: u64,
    pub observed: u64,
}

/// A derived quantity (entry cost, per-filter cost, ...), computed per round and summarised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    /// Stable id (`entry`, `per_filter.last2`, `per_filter.div4`, `depth.slope`, ...).
    pub id: String,
    /// The kernel benchmark's wording where there is one.
    pub label: String,
    /// How it is computed, in scenario ids.
    pub formula: String,
    pub median_ns: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high_ns: Option<f64>,
    pub samples: u64,
    /// For imported records: whether the log printed this value, printed it wrapped around, or
    /// only printed the numbers it is computed from. Absent for collected records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<EstimateOrigin>,
}

/// Where an imported estimate's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum EstimateOrigin {
    /// The log prints this value.
    Printed,
    /// The log prints it as an unsigned wrap-around of a negative number (18446744073709551592
    /// for −24); the signed value is recorded.
    Decoded,
    /// The log does not print it (the benchmark stopped after an earlier estimate went
    /// negative); computed with the benchmark's own formula from the scenario values it prints.
    Recomputed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    Inconclusive,
    /// Not evaluated (a prerequisite failed, or the inputs were not measured).
    Skip,
}

/// One of the kernel benchmark's expectations, judged from confidence intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    pub id: String,
    /// The kernel's wording: "native ≤ 1 bitmap".
    pub label: String,
    pub relation: Relation,
    pub lhs_ns: f64,
    pub rhs_ns: f64,
    /// Median of the per-round lhs − rhs, with its CI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_median_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_ci_low_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_ci_high_ns: Option<f64>,
    /// Practical-equivalence margin used by the verdict.
    pub tolerance_ns: f64,
    /// Systematic uncertainty added to both ends of the difference's CI before judging: the
    /// bias between two identical worker processes, from the A/A control
    /// (`native.replica.*`, `seccomp.bitmap.{1,2}.replica.*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub systematic_ns: Option<f64>,
    pub verdict: Verdict,
    /// What the kernel's own rule (integer ns, 10 %-or-2-ns) says on the same point values.
    pub kernel_verdict: Verdict,
}

impl RunRecord {
    /// Whether the numbers are instruction counts (see [`Clock::Instructions`]).
    pub fn counts_instructions(&self) -> bool {
        self.environment.comparability.clock() == Clock::Instructions
    }
    /// Whether the numbers come from an emulator (QEMU TCG), not from any CPU.
    pub fn is_emulated(&self) -> bool {
        self.environment.comparability.virtualization.kind == VIRT_QEMU_TCG
            || self
                .environment
                .lab
                .as_ref()
                .is_some_and(|l| l.accelerator == Accelerator::Tcg)
    }
    pub fn result(&self, id: &str) -> Option<&ScenarioResult> {
        self.results.iter().find(|r| r.id == id)
    }
    pub fn estimate(&self, id: &str) -> Option<&Estimate> {
        self.estimates.iter().find(|e| e.id == id)
    }
}

impl ScenarioResult {
    /// A result with only the identifying fields set.
    pub fn new(id: &str, family: &str, description: &str, status: Status) -> Self {
        ScenarioResult {
            id: id.to_string(),
            family: family.to_string(),
            description: description.to_string(),
            status,
            reason: None,
            median_ns: None,
            ci_low_ns: None,
            ci_high_ns: None,
            samples: None,
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
}

#[cfg(test)]
mod schema_tests {
    use super::*;

    /// docs/record.schema.json is generated from these types; this test fails when they drift.
    /// Regenerate with `UPDATE_SCHEMA=1 cargo test -p syscost-record`.
    #[test]
    fn committed_json_schema_matches_the_types() {
        let schema = schemars::schema_for!(RunRecord);
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/record.schema.json");
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == text,
            "docs/record.schema.json is out of date: run UPDATE_SCHEMA=1 cargo test -p syscost-record"
        );
    }
}
