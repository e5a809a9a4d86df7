//! Where a run was measured: the machine and kernel, what makes runs comparable, and the lab's boot.

use super::*;

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
