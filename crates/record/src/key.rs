//! What decides whether two records' numbers mean the same thing: the parts of the environment
//! and the method that change what a number is, normalised so that what only changes its
//! wording (a kernel's text for the same mitigation) does not count. The kernel release is not
//! part of it: comparing kernels is what records are for. `syscost compare` refuses records
//! whose keys differ and names the parts; the site's series are cut from the same rules
//! (`mitigation_profile`, `cost_flags`).

use crate::{Clock, Method, RunRecord, SourceKind};
use std::collections::BTreeMap;

/// Shown for a part of the key the record does not state.
pub const NOT_RECORDED: &str = "not recorded";

/// The mitigations part of the key of an instruction count: each kernel decides how to mitigate
/// the emulated CPU's vulnerabilities, which is part of what changes from one version to the
/// next on the one emulated machine, not another machine.
pub const EMULATED_MITIGATIONS: &str = "as each kernel chooses for the emulated CPU";

/// Kernel command-line parameters that change what a syscall, a context switch, a fork or a
/// BPF program costs: CPU vulnerability mitigations, SMT, preemption model, per-syscall stack
/// randomisation, audit (seccomp `LOG` and syscall auditing), CPU isolation and idle states,
/// frequency drivers, boot-time tracing, memory initialisation and debugging, lockdown and LSMs.
/// A parameter counts with its value; prefixes end in `.` or `_` and match whole families.
pub const COST_PARAMETERS: &[&str] = &[
    "mitigations",
    "nospectre_v1",
    "nospectre_v2",
    "spectre_v2",
    "spectre_v2_user",
    "spectre_bhi",
    "spec_store_bypass_disable",
    "nospec_store_bypass_disable",
    "ssbd",
    "pti",
    "nopti",
    "kpti",
    "retbleed",
    "spec_rstack_overflow",
    "srbds",
    "mds",
    "tsx",
    "tsx_async_abort",
    "mmio_stale_data",
    "l1tf",
    "gather_data_sampling",
    "reg_file_data_sampling",
    "indirect_target_selection",
    "nospectre_bhb",
    "no_stf_barrier",
    "no_rfi_flush",
    "no_entry_flush",
    "no_uaccess_flush",
    "nosmt",
    "ibt",
    "cfi",
    "clearcpuid",
    "nopcid",
    "noinvpcid",
    "preempt",
    "randomize_kstack_offset",
    "audit",
    "isolcpus",
    "nohz",
    "nohz_full",
    "rcu_nocbs",
    "idle",
    "processor.max_cstate",
    "intel_idle.max_cstate",
    "intel_pstate",
    "amd_pstate",
    "cpufreq.",
    "ftrace",
    "trace_event",
    "kprobe_event",
    "init_on_alloc",
    "init_on_free",
    "slub_debug",
    "page_poison",
    "debug_pagealloc",
    "lockdown",
    "lsm",
    "security",
];

fn counts(name: &str) -> bool {
    COST_PARAMETERS.iter().any(|p| {
        if p.ends_with('.') {
            name.starts_with(p)
        } else {
            name == *p
        }
    })
}

/// The cost-relevant parameters of a command line, `name=value` or `name`, sorted by name; the
/// last occurrence of a parameter wins, as it does for the kernel. `none` when there are none.
pub fn cost_flags(cmdline: &str) -> String {
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for word in cmdline.split_whitespace() {
        // Everything after a lone `--` goes to init, not the kernel.
        if word == "--" {
            break;
        }
        let (name, value) = word.split_once('=').unwrap_or((word, ""));
        if counts(name) {
            seen.insert(name, value);
        }
    }
    if seen.is_empty() {
        return "none".to_string();
    }
    seen.iter()
        .map(|(n, v)| {
            if v.is_empty() {
                n.to_string()
            } else {
                format!("{n}={v}")
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The state of each reported CPU vulnerability, `name: state`, sorted, `; `-separated. The
/// state is the file's verdict (`mitigated`, `vulnerable`, `unknown`), not its wording, which
/// changes between kernel versions for the same machine; files saying "Not affected" are left
/// out, so that a kernel that learns of a vulnerability this CPU does not have does not change
/// the key. Text that follows none of these forms is kept whole. `none reported` when every
/// file says "Not affected"; [`NOT_RECORDED`] when none was recorded.
pub fn mitigation_profile(m: &BTreeMap<String, String>) -> String {
    if m.is_empty() {
        return NOT_RECORDED.to_string();
    }
    let mut lines = Vec::new();
    for (name, text) in m {
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        // itlb_multihit reports the host side as "KVM: Mitigation: ...".
        let verdict = text.strip_prefix("KVM: ").unwrap_or(&text);
        let lower = verdict.to_ascii_lowercase();
        let state = if lower.starts_with("not affected") {
            continue;
        } else if lower.starts_with("mitigation") {
            "mitigated".to_string()
        } else if lower.starts_with("vulnerable") {
            "vulnerable".to_string()
        } else if lower.starts_with("unknown") {
            "unknown".to_string()
        } else {
            text.clone()
        };
        lines.push(format!("{}: {state}", name.trim()));
    }
    if lines.is_empty() {
        "none reported".to_string()
    } else {
        lines.join("; ")
    }
}

/// One part of a record's comparability key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPart {
    pub name: &'static str,
    pub value: String,
}

fn clean(s: Option<&str>) -> Option<String> {
    s.map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
}

/// The record's comparability key, part by part, in a fixed order.
pub fn comparability_key(r: &RunRecord) -> Vec<KeyPart> {
    let c = &r.environment.comparability;
    let known = |v: Option<String>| v.unwrap_or_else(|| NOT_RECORDED.to_string());
    let cpu = {
        let fms: Vec<String> = [
            ("family", c.cpu.family.as_deref()),
            ("model", c.cpu.model.as_deref()),
            ("stepping", c.cpu.stepping.as_deref()),
        ]
        .into_iter()
        .filter_map(|(k, v)| clean(v).map(|v| format!("{k} {v}")))
        .collect();
        match (clean(c.cpu.model_name.as_deref()), fms.is_empty()) {
            (Some(m), true) => m,
            (Some(m), false) => format!("{m} ({})", fms.join(", ")),
            (None, false) => format!("unnamed CPU ({})", fms.join(", ")),
            (None, true) => NOT_RECORDED.to_string(),
        }
    };
    let kind = clean(Some(&c.virtualization.kind)).unwrap_or_else(|| NOT_RECORDED.to_string());
    // An emulator's version and CPU model decide what its numbers mean: they take the place
    // of the hypervisor's name.
    let virt = match c
        .emulator
        .as_ref()
        .map(|e| format!("QEMU {}, -cpu {}", e.version.trim(), e.cpu_model.trim()))
        .or_else(|| clean(c.virtualization.hypervisor.as_deref()))
    {
        Some(h) => format!("{kind} ({h})"),
        None => kind,
    };
    let clock = c.clock();
    let jit = |v: Option<&str>| known(clean(v));
    let s = &r.settings;
    let mut probe = s.syscall.trim().to_string();
    match (s.syscalls_per_op, clean(s.operation.as_deref())) {
        (_, Some(op)) => probe.push_str(&format!(", an operation is {op}")),
        (Some(n), None) if n != 1 => probe.push_str(&format!(", {n} syscalls an operation")),
        _ => {}
    }
    let mut method = match r.source.method {
        Method::Interleaved => match s.sample_ms {
            Some(ms) => format!("interleaved rounds of {ms} ms samples"),
            None => "interleaved rounds".to_string(),
        },
        Method::Sequential => "sequential (the kernel benchmark's method)".to_string(),
        Method::External => format!("imported {} log", known(clean(r.source.format.as_deref()))),
    };
    if r.source.kind == SourceKind::Synthetic {
        method = format!("synthetic, {method}");
    }
    let part = |name, value| KeyPart { name, value };
    vec![
        part("arch", c.arch.trim().to_string()),
        part("cpu", cpu),
        part("virtualization", virt),
        part(
            "clock",
            match clock {
                Clock::Time => "time (ns)".to_string(),
                Clock::Instructions => "instructions counted".to_string(),
            },
        ),
        part(
            "mitigations",
            if clock == Clock::Instructions {
                EMULATED_MITIGATIONS.to_string()
            } else {
                mitigation_profile(&c.mitigations)
            },
        ),
        part(
            "boot parameters",
            c.cmdline
                .as_deref()
                .map_or_else(|| NOT_RECORDED.to_string(), cost_flags),
        ),
        part(
            "bpf jit",
            format!(
                "enable {}, harden {}",
                jit(c.bpf_jit_enable.as_deref()),
                jit(c.bpf_jit_harden.as_deref())
            ),
        ),
        part("probe", probe),
        part("method", method),
    ]
}

/// The parts in which two keys differ: (name, one's value, the other's).
pub fn key_differences(a: &[KeyPart], b: &[KeyPart]) -> Vec<(&'static str, String, String)> {
    a.iter()
        .zip(b)
        .filter(|(x, y)| x.value != y.value)
        .map(|(x, y)| (x.name, x.value.clone(), y.value.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wording_does_not_count_and_the_state_does() {
        let m = |v: &str| BTreeMap::from([("spectre_v2".to_string(), v.to_string())]);
        assert_eq!(
            mitigation_profile(&m("Mitigation: Retpolines, STIBP: disabled")),
            mitigation_profile(&m(
                "Mitigation: Retpolines; STIBP: disabled; BHI: Not affected"
            ))
        );
        assert_ne!(
            mitigation_profile(&m("Mitigation: Retpolines")),
            mitigation_profile(&m("Vulnerable"))
        );
        assert_eq!(mitigation_profile(&m("Not affected")), "none reported");
        assert_eq!(
            cost_flags("console=ttyS0 mitigations=off nosmt -- mitigations=auto"),
            "mitigations=off nosmt"
        );
    }
}
