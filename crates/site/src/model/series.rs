//! Comparability: which runs' numbers mean the same thing, so that they may share a trend
//! point, a median, a span or a comparison. [`series_key`] is the one function that decides it;
//! [`placement`] decides whether a run can be put on the kernel-version axis at all.
//!
//! The kernel version is the x axis of every trend and is deliberately *not* in the key: a
//! series is one kind of measurement on one kind of machine, followed over kernel versions.

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use syscost_record::{Clock, Environment, Method, RunRecord, Settings, Source, SourceKind};

use crate::model::kver::KernelVersion;

/// Everything that changes what a number means. Two runs belong to one series exactly when
/// their keys are equal. Each field is already normalised (see [`series_key`]).
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct SeriesKey {
    /// `uname -m`.
    pub arch: String,
    /// CPU model name with its family / model / stepping, whitespace collapsed.
    pub cpu: String,
    /// Virtualisation kind and hypervisor: `vm (KVM)`, `bare-metal`.
    pub virt: String,
    /// The mitigation state of every CPU vulnerability the kernel reports as relevant:
    /// `name: mitigated|vulnerable|...`, sorted, `; `-separated; see [`mitigation_profile`].
    pub mitigations: String,
    /// Kernel command-line parameters that change syscall, scheduling or memory costs, as
    /// given (`mitigations=off`, `nosmt`), sorted; see [`COST_PARAMETERS`].
    pub flags: String,
    /// `/proc/sys/net/core/bpf_jit_{enable,harden}`: seccomp filters and BPF programs run
    /// JIT-compiled or interpreted, blinded or not.
    pub bpf_jit: String,
    /// The probe syscall timed in the loop.
    pub probe: String,
    /// Syscalls per operation (5 for `mix`): every ns in the record is per operation. `None`
    /// when an operation is not a fixed number of syscalls; then `operation` says what it is.
    pub per_op: Option<u32>,
    /// What one operation is, when the record says (an imported `perf bench syscall fork`: a
    /// process created and reaped), whitespace collapsed.
    pub operation: Option<String>,
    /// How the numbers were taken: syscost's interleaved rounds, its sequential (kernel
    /// benchmark) method, or the imported tool, its output generation included.
    pub method: String,
    /// Set when the hardware is not identified (CPU or virtualisation not recorded): the
    /// machine's identity, or the record's own id when there is none. Unknown is never equal to
    /// unknown, so such runs are only compared with runs of the same machine.
    pub only: Option<String>,
    /// The numbers are instructions per operation (the record's clock counted them: an
    /// emulator's path length, not time), not ns. Said by `method` too, so it is in the id.
    #[serde(default)]
    pub instructions: bool,
}

/// What a record says that the key is made of, borrowed from a full record or from the head
/// the first pass reads, so that both compute the same key.
#[derive(Debug, Clone, Copy)]
pub struct SeriesInput<'a> {
    pub id: &'a str,
    pub kind: SourceKind,
    pub method: Method,
    pub format: Option<&'a str>,
    /// The imported log's output generation, as the importer states it.
    pub generation: Option<&'a str>,
    pub probe: &'a str,
    pub per_op: Option<u32>,
    pub operation: Option<&'a str>,
    /// The intended length of one sample: a median of 2 ms samples holds the interrupts and
    /// host noise that 0.25 ms samples mostly miss, so it is part of the method.
    pub sample_ms: Option<f64>,
    pub arch: &'a str,
    pub cpu_model: Option<&'a str>,
    pub cpu_family: Option<&'a str>,
    pub cpu_model_number: Option<&'a str>,
    pub cpu_stepping: Option<&'a str>,
    pub virt_kind: &'a str,
    pub hypervisor: Option<&'a str>,
    pub mitigations: &'a BTreeMap<String, String>,
    pub cmdline: Option<&'a str>,
    pub bpf_jit_enable: Option<&'a str>,
    pub bpf_jit_harden: Option<&'a str>,
    pub machine: Option<&'a str>,
    /// What the clock counted.
    pub clock: Clock,
    /// The emulator's version and CPU model, for a run emulated under TCG (schema 5).
    pub emulator: Option<(&'a str, &'a str)>,
}

/// Where the importer keeps the generation of a log's output format.
pub const GENERATION_KEY: &str = "output generation";

impl<'a> SeriesInput<'a> {
    pub fn of(r: &'a RunRecord) -> SeriesInput<'a> {
        SeriesInput::of_parts(&r.id, &r.source, &r.settings, &r.environment)
    }

    /// From the parts of a record that place it: a full record's or the first pass's head
    /// (`model::summary::Head`), so both give the same key.
    pub fn of_parts(
        id: &'a str,
        source: &'a Source,
        settings: &'a Settings,
        environment: &'a Environment,
    ) -> SeriesInput<'a> {
        let c = &environment.comparability;
        let inc = &environment.incidental;
        SeriesInput {
            id,
            kind: source.kind,
            method: source.method,
            format: source.format.as_deref(),
            generation: inc.other.get(GENERATION_KEY).map(String::as_str),
            probe: &settings.syscall,
            per_op: settings.syscalls_per_op,
            operation: settings.operation.as_deref(),
            sample_ms: settings.sample_ms,
            arch: &c.arch,
            cpu_model: c.cpu.model_name.as_deref(),
            cpu_family: c.cpu.family.as_deref(),
            cpu_model_number: c.cpu.model.as_deref(),
            cpu_stepping: c.cpu.stepping.as_deref(),
            virt_kind: &c.virtualization.kind,
            hypervisor: c.virtualization.hypervisor.as_deref(),
            mitigations: &c.mitigations,
            cmdline: c.cmdline.as_deref(),
            bpf_jit_enable: c.bpf_jit_enable.as_deref(),
            bpf_jit_harden: c.bpf_jit_harden.as_deref(),
            machine: inc.machine_hash.as_deref(),
            clock: c.clock(),
            emulator: c
                .emulator
                .as_ref()
                .map(|e| (e.version.as_str(), e.cpu_model.as_str())),
        }
    }
}

/// Shown for a part of the key the record does not state.
pub use syscost_record::key::NOT_RECORDED;

fn clean(s: Option<&str>) -> Option<String> {
    s.map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
}

/// The series of a run. Normalisation: whitespace is collapsed everywhere; the CPU is its model
/// name plus family/model/stepping (a VM often shows only "AMD EPYC", and the numbers tell
/// generations apart); the mitigations are reduced to their state per vulnerability
/// ([`mitigation_profile`]); of the command line only [`COST_PARAMETERS`] count; the method
/// names the imported tool and its output generation. When the CPU or the virtualisation is not
/// recorded the key is narrowed to the machine (or to the run itself).
pub fn series_key(i: &SeriesInput) -> SeriesKey {
    let model = clean(i.cpu_model);
    let fms: Vec<String> = [
        ("family", i.cpu_family),
        ("model", i.cpu_model_number),
        ("stepping", i.cpu_stepping),
    ]
    .into_iter()
    .filter_map(|(k, v)| clean(v).map(|v| format!("{k} {v}")))
    .collect();
    let cpu_known = model.is_some() || !fms.is_empty();
    let cpu = match (model, fms.is_empty()) {
        (Some(m), true) => m,
        (Some(m), false) => format!("{m} ({})", fms.join(", ")),
        (None, false) => format!("unnamed CPU ({})", fms.join(", ")),
        (None, true) => NOT_RECORDED.to_string(),
    };
    let kind = clean(Some(i.virt_kind)).filter(|k| !k.eq_ignore_ascii_case("unknown"));
    let virt_known = kind.is_some();
    // An emulator's version and CPU model decide what its numbers mean: they take the place
    // of the hypervisor's name ("QEMU TCG").
    let emulator = i
        .emulator
        .map(|(version, cpu)| format!("QEMU {}, -cpu {}", version.trim(), cpu.trim()));
    let virt = match (kind, emulator.or_else(|| clean(i.hypervisor))) {
        (Some(k), Some(h)) => format!("{k} ({h})"),
        (Some(k), None) => k,
        (None, Some(h)) => format!("{NOT_RECORDED} ({h})"),
        (None, None) => NOT_RECORDED.to_string(),
    };
    let instructions = i.clock == Clock::Instructions;
    let only = (!cpu_known || !virt_known).then(|| match clean(i.machine) {
        Some(m) => format!("machine {m}"),
        None => format!("run {}", i.id),
    });
    let jit = |v: Option<&str>| clean(v).unwrap_or_else(|| NOT_RECORDED.to_string());
    SeriesKey {
        arch: i.arch.trim().to_string(),
        cpu,
        virt,
        // Each kernel decides how to mitigate the emulated CPU's vulnerabilities: part of what
        // changes from one version to the next on the one emulated machine, not another one.
        mitigations: if instructions {
            EMULATED_MITIGATIONS.to_string()
        } else {
            mitigation_profile(i.mitigations)
        },
        flags: match i.cmdline {
            Some(c) => cost_flags(c),
            None => NOT_RECORDED.to_string(),
        },
        bpf_jit: format!(
            "enable {}, harden {}",
            jit(i.bpf_jit_enable),
            jit(i.bpf_jit_harden)
        ),
        probe: i.probe.trim().to_string(),
        per_op: i.per_op,
        operation: clean(i.operation),
        method: method_label(i),
        only,
        instructions,
    }
}

/// The mitigations part of an instruction-count series' key (each run page shows its own).
pub use syscost_record::key::EMULATED_MITIGATIONS;

fn method_label(i: &SeriesInput) -> String {
    if i.clock == Clock::Instructions {
        let mut i = *i;
        i.clock = Clock::Time;
        return format!(
            "instructions counted (emulated: path length, not time), {}",
            method_label(&i)
        );
    }
    let base = match i.method {
        Method::Interleaved => match i.sample_ms {
            Some(ms) => format!("interleaved rounds of {ms} ms samples"),
            None => "interleaved rounds".to_string(),
        },
        Method::Sequential => "sequential (the kernel benchmark's method)".to_string(),
        Method::External => {
            let mut s = format!(
                "imported {} log",
                clean(i.format).unwrap_or_else(|| "(format not recorded)".to_string())
            );
            if let Some(g) = clean(i.generation) {
                s.push_str(&format!(", {g}"));
            }
            s
        }
    };
    match i.kind {
        SourceKind::Synthetic => format!("synthetic, {base}"),
        SourceKind::Import if i.method != Method::External => format!("imported, {base}"),
        _ => base,
    }
}

/// The state of each reported CPU vulnerability, `name: state`, sorted, `; `-separated. The
/// state is the file's verdict (`mitigated`, `vulnerable`, `unknown`), not its wording, which
/// changes between kernel versions for the same machine; files saying "Not affected" are left
/// out, so that a kernel that learns of a vulnerability this CPU does not have does not start a
/// new series. Text that follows none of these forms is kept whole. `none reported` when every
/// file says "Not affected"; [`NOT_RECORDED`] when none was recorded.
pub fn mitigation_profile(m: &BTreeMap<String, String>) -> String {
    syscost_record::key::mitigation_profile(m)
}

/// Kernel command-line parameters that change what a syscall costs (the record crate's list).
pub use syscost_record::key::COST_PARAMETERS;

/// The cost-relevant parameters of a command line, `name=value` or `name`, sorted by name; the
/// last occurrence of a parameter wins, as it does for the kernel. `none` when there are none.
pub fn cost_flags(cmdline: &str) -> String {
    syscost_record::key::cost_flags(cmdline)
}

impl SeriesKey {
    /// Stable, file-name-safe id of the series: a hash over every field. Pages and exports ask
    /// for it once per run, so the fields are hashed where they are, not copied.
    pub fn id(&self) -> String {
        self.hash_id()
    }

    fn hash_id(&self) -> String {
        let per_op = self.per_op.map(|n| n.to_string()).unwrap_or_default();
        let parts: [&str; 11] = [
            &self.arch,
            &self.cpu,
            &self.virt,
            &self.mitigations,
            &self.flags,
            &self.bpf_jit,
            &self.probe,
            &per_op,
            self.operation.as_deref().unwrap_or_default(),
            &self.method,
            self.only.as_deref().unwrap_or_default(),
        ];
        let mut h = Sha256::new();
        for part in parts {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        hex(&h.finalize()[..6])
    }

    /// What every number of the series counts: `ns`, or `instructions` (an instruction-count
    /// series: an emulator's path length, not time).
    pub fn number_unit(&self) -> &'static str {
        if self.instructions {
            "instructions"
        } else {
            "ns"
        }
    }

    /// The unit of every ns: `getpid call`, `mix operation (5 syscalls)`, or what the record
    /// says an operation is.
    pub fn unit(&self) -> String {
        match (&self.operation, self.per_op) {
            (Some(op), _) => op.clone(),
            (None, Some(1) | None) => format!("{} call", self.probe),
            (None, Some(n)) => format!("{} operation ({n} syscalls)", self.probe),
        }
    }

    /// The CPU's model name without its family / model / stepping, for narrow tables.
    pub fn cpu_short(&self) -> &str {
        self.cpu.split(" (family ").next().unwrap_or(&self.cpu)
    }

    /// The method in a few words, for narrow tables.
    pub fn method_short(&self) -> &str {
        self.method.split(" (").next().unwrap_or(&self.method)
    }

    /// What one operation is: `one getpid call`, `5 syscalls (mix)`, or the first words of
    /// what the record says it is (`one iteration of perf bench syscall fork`).
    pub fn per_op_words(&self) -> String {
        match (&self.operation, self.per_op) {
            (Some(op), _) => op
                .split([':', ',', '('])
                .next()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .unwrap_or(op)
                .to_string(),
            (None, Some(1) | None) => format!("one {} call", self.probe),
            (None, Some(n)) => format!("{n} syscalls ({})", self.probe),
        }
    }

    /// A short label for legends and lists: what differs most often between series.
    pub fn label(&self) -> String {
        let mut s = format!(
            "{} · {} · {} · {}",
            self.cpu,
            self.virt,
            self.per_op_words(),
            self.method
        );
        if self.flags != "none" {
            s.push_str(&format!(" · {}", self.flags));
        }
        if let Some(o) = &self.only {
            s.push_str(&format!(" · {o} only"));
        }
        s
    }

    /// A series as a person names it, for legends and column heads: the CPU and the
    /// virtualisation in a few words, the operation when it is not one syscall, the method
    /// (the hash stays in the link).
    pub fn name(&self) -> String {
        let virt = if self.virt.len() <= 12 {
            self.virt.as_str()
        } else {
            self.virt.split(" (").next().unwrap_or(&self.virt)
        };
        let mut s = format!("{} · {virt}", self.cpu_short());
        if !matches!(self.per_op, Some(1) | None) || self.operation.is_some() {
            s.push_str(" · ");
            s.push_str(&self.per_op_words());
        }
        s.push_str(" · ");
        s.push_str(self.method_short());
        s
    }

    /// The parts that differ most often, in a few words, for narrow tables.
    pub fn short_label(&self) -> String {
        format!(
            "{} · {} · {} · {}",
            self.arch,
            self.cpu_short(),
            self.per_op_words(),
            self.method_short()
        )
    }

    /// The whole key, one (name, value) row per part, for the series page.
    pub fn words(&self) -> Vec<(&'static str, String)> {
        let mut rows = vec![
            ("architecture", self.arch.clone()),
            ("CPU", self.cpu.clone()),
            ("virtualisation", self.virt.clone()),
            ("CPU vulnerabilities (state)", self.mitigations.clone()),
            (
                "kernel command line (cost-relevant parameters)",
                self.flags.clone(),
            ),
            ("BPF JIT", self.bpf_jit.clone()),
            ("probe", self.probe.clone()),
            (
                "syscalls per operation",
                self.per_op
                    .map(|n| n.to_string())
                    .unwrap_or_else(|| "not a fixed number".to_string()),
            ),
            ("method", self.method.clone()),
        ];
        if let Some(op) = &self.operation {
            rows.insert(rows.len() - 1, ("one operation", op.clone()));
        }
        if let Some(o) = &self.only {
            rows.push((
                "limited to",
                format!("{o} (its hardware is not fully recorded)"),
            ));
        }
        rows
    }

    /// The key as one sentence.
    pub fn sentence(&self) -> String {
        format!(
            "{} on {}, {}, measured by {}; {} per operation = {}; command line: {}; BPF JIT {}{}.",
            self.arch,
            self.cpu,
            self.virt,
            self.method,
            // An instruction-count series counts instructions, not ns (it read "ns per
            // operation").
            self.number_unit(),
            self.per_op_words(),
            self.flags,
            self.bpf_jit,
            match &self.only {
                Some(o) => format!("; {o} only"),
                None => String::new(),
            }
        )
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    (bytes.iter())
        .flat_map(|b| [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 15)]])
        .map(char::from)
        .collect()
}

/// Why a run cannot be put on the kernel-version axis.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum Unplaced {
    #[error("the architecture is not recorded")]
    Arch,
    #[error("the kernel release is not recorded")]
    Kernel,
    #[error("neither the architecture nor the kernel release is recorded")]
    Both,
    #[error("the kernel release {0:?} is not an upstream version number")]
    KernelUnparsed(String),
}

use crate::model::kver::unknown_release as unknown;

/// A run is placed when its architecture is known and its kernel release maps onto an upstream
/// version; otherwise it is listed as unplaced with the reason and kept out of every version
/// order, matrix, trend and count.
pub fn placement(arch: &str, kernel: &KernelVersion) -> Result<(), Unplaced> {
    let no_kernel = unknown(&kernel.release);
    match (unknown(arch), no_kernel) {
        (true, true) => Err(Unplaced::Both),
        (true, false) => Err(Unplaced::Arch),
        (false, true) => Err(Unplaced::Kernel),
        (false, false) if kernel.base.is_none() => {
            Err(Unplaced::KernelUnparsed(kernel.release.trim().to_string()))
        }
        (false, false) => Ok(()),
    }
}

/// A series key of one x86_64 getpid series on CPU `cpu`, for other modules' tests.
#[cfg(test)]
pub(crate) fn test_key(cpu: &str) -> SeriesKey {
    let s = |x: &str| x.to_string();
    SeriesKey {
        arch: s("x86_64"),
        cpu: s(cpu),
        virt: s("vm"),
        mitigations: s("m"),
        flags: s(""),
        bpf_jit: s(""),
        probe: s("getpid"),
        per_op: Some(1),
        operation: None,
        method: s("interleaved"),
        only: None,
        instructions: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input<'a>(m: &'a BTreeMap<String, String>) -> SeriesInput<'a> {
        SeriesInput {
            id: "r1",
            kind: SourceKind::Collected,
            method: Method::Interleaved,
            format: None,
            generation: None,
            probe: "getpid",
            per_op: Some(1),
            operation: None,
            sample_ms: Some(0.25),
            arch: "x86_64",
            cpu_model: Some("AMD  EPYC 7B13 "),
            cpu_family: Some("25"),
            cpu_model_number: Some("1"),
            cpu_stepping: Some("1"),
            virt_kind: "vm",
            hypervisor: Some("KVM"),
            mitigations: m,
            cmdline: Some("BOOT_IMAGE=/vmlinuz-6.8 root=/dev/vda ro mitigations=auto quiet"),
            bpf_jit_enable: Some("1"),
            bpf_jit_harden: Some("0"),
            machine: Some("abc"),
            clock: Clock::Time,
            emulator: None,
        }
    }

    /// The id a key keeps is its own: asked for again after a field changed, a debug build
    /// stops rather than hand out the old one.
    #[test]
    fn every_part_of_the_key_separates_series() {
        let m = BTreeMap::new();
        let base = series_key(&input(&m));
        assert_eq!(base.cpu, "AMD EPYC 7B13 (family 25, model 1, stepping 1)");
        assert_eq!(base.virt, "vm (KVM)");
        assert_eq!(base.flags, "mitigations=auto");
        assert_eq!(base.only, None);
        let mut other_m = BTreeMap::new();
        other_m.insert("spectre_v2".to_string(), "Vulnerable".to_string());
        let variants: Vec<SeriesInput> = vec![
            SeriesInput {
                arch: "aarch64",
                ..input(&m)
            },
            SeriesInput {
                cpu_model: Some("AMD EPYC 9654"),
                ..input(&m)
            },
            SeriesInput {
                cpu_model_number: Some("17"),
                ..input(&m)
            },
            SeriesInput {
                virt_kind: "bare-metal",
                hypervisor: None,
                ..input(&m)
            },
            SeriesInput {
                mitigations: &other_m,
                ..input(&m)
            },
            SeriesInput {
                cmdline: Some("mitigations=off"),
                ..input(&m)
            },
            SeriesInput {
                bpf_jit_harden: Some("2"),
                ..input(&m)
            },
            SeriesInput {
                probe: "getpgid",
                ..input(&m)
            },
            SeriesInput {
                sample_ms: Some(2.0),
                ..input(&m)
            },
            SeriesInput {
                probe: "mix",
                per_op: Some(5),
                ..input(&m)
            },
            SeriesInput {
                probe: "fork",
                per_op: None,
                operation: Some("fork(), the child's exit(0) and the parent's waitpid()"),
                ..input(&m)
            },
            SeriesInput {
                per_op: None,
                operation: Some("one iteration of perf bench syscall getpid"),
                ..input(&m)
            },
            SeriesInput {
                method: Method::Sequential,
                ..input(&m)
            },
            SeriesInput {
                kind: SourceKind::Import,
                method: Method::External,
                format: Some("kselftest-seccomp"),
                ..input(&m)
            },
            SeriesInput {
                kind: SourceKind::Import,
                method: Method::External,
                format: Some("kselftest-seccomp"),
                generation: Some("KTAP (2024 on)"),
                ..input(&m)
            },
            SeriesInput {
                kind: SourceKind::Synthetic,
                ..input(&m)
            },
        ];
        let mut ids = std::collections::BTreeSet::new();
        ids.insert(base.id());
        for v in &variants {
            let k = series_key(v);
            assert_ne!(k, base, "{v:?}");
            assert!(ids.insert(k.id()), "duplicate id for {v:?}");
        }
        // What does not change the meaning does not split: other machine, other boot image,
        // unrelated parameters, whitespace.
        let same = [
            SeriesInput {
                machine: Some("other"),
                id: "r2",
                ..input(&m)
            },
            SeriesInput {
                cmdline: Some("root=/dev/sda1 mitigations=auto  console=ttyS0"),
                ..input(&m)
            },
            SeriesInput {
                cpu_model: Some("AMD EPYC 7B13"),
                ..input(&m)
            },
        ];
        for s in &same {
            assert_eq!(series_key(s), base, "{s:?}");
        }
    }

    #[test]
    fn unknown_hardware_is_never_equal_to_unknown_hardware() {
        let m = BTreeMap::new();
        let a = SeriesInput {
            cpu_model: None,
            cpu_family: None,
            cpu_model_number: None,
            cpu_stepping: None,
            machine: None,
            ..input(&m)
        };
        let b = SeriesInput { id: "r2", ..a };
        assert_ne!(series_key(&a), series_key(&b));
        assert_eq!(series_key(&a).only.as_deref(), Some("run r1"));
        // With a machine identity, that machine's runs stay together.
        let c = SeriesInput {
            machine: Some("m1"),
            ..a
        };
        let d = SeriesInput { id: "r9", ..c };
        assert_eq!(series_key(&c), series_key(&d));
        let e = SeriesInput {
            virt_kind: "unknown",
            ..input(&m)
        };
        assert_eq!(series_key(&e).only.as_deref(), Some("machine abc"));
    }

    #[test]
    fn mitigation_profile_keeps_the_state_not_the_wording() {
        let mut a = BTreeMap::new();
        a.insert(
            "spectre_v2".to_string(),
            "Mitigation: Retpolines; IBPB: conditional\n".to_string(),
        );
        a.insert("meltdown".to_string(), "Not affected".to_string());
        let mut b = BTreeMap::new();
        b.insert(
            "spectre_v2".to_string(),
            "Mitigation: Retpolines, IBPB: conditional, STIBP: disabled".to_string(),
        );
        // A newer kernel reports a vulnerability this CPU does not have.
        b.insert(
            "gather_data_sampling".to_string(),
            "Not affected".to_string(),
        );
        assert_eq!(mitigation_profile(&a), "spectre_v2: mitigated");
        assert_eq!(mitigation_profile(&a), mitigation_profile(&b));
        b.insert("spectre_v2".to_string(), "Vulnerable".to_string());
        assert_ne!(mitigation_profile(&a), mitigation_profile(&b));
        let mut c = BTreeMap::new();
        c.insert(
            "itlb_multihit".to_string(),
            "KVM: Mitigation: VMX disabled".to_string(),
        );
        c.insert("odd".to_string(), "Processor   vulnerable".to_string());
        assert_eq!(
            mitigation_profile(&c),
            "itlb_multihit: mitigated; odd: Processor vulnerable"
        );
        assert_eq!(mitigation_profile(&BTreeMap::new()), NOT_RECORDED);
        let mut d = BTreeMap::new();
        d.insert("meltdown".to_string(), "Not affected".to_string());
        assert_eq!(mitigation_profile(&d), "none reported");
    }

    #[test]
    fn cost_flags_keep_what_changes_costs_last_one_winning() {
        assert_eq!(
            cost_flags("BOOT_IMAGE=/x ro quiet nosmt mitigations=auto mitigations=off cpufreq.default_governor=performance -- nosmt=init"),
            "cpufreq.default_governor=performance mitigations=off nosmt"
        );
        assert_eq!(cost_flags("root=/dev/vda1 console=ttyS0"), "none");
        assert_eq!(cost_flags("audit=1 preempt=full"), "audit=1 preempt=full");
    }

    #[test]
    fn placement_needs_arch_and_an_upstream_version() {
        let k = KernelVersion::parse;
        assert_eq!(placement("x86_64", &k("6.8.0-45-generic")), Ok(()));
        assert_eq!(placement("unknown", &k("6.8")), Err(Unplaced::Arch));
        assert_eq!(placement("x86_64", &k("unknown")), Err(Unplaced::Kernel));
        assert_eq!(placement(" ", &k("")), Err(Unplaced::Both));
        assert_eq!(
            placement("x86_64", &k("linux-next")),
            Err(Unplaced::KernelUnparsed("linux-next".into()))
        );
    }
}
