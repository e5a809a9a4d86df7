//! What machine this is: everything that decides whether two runs are comparable (kernel, CPU,
//! mitigations, virtualization, command line, JIT and seccomp settings, kernel config), kept
//! apart from incidental facts (load, clocksource, governor, a hash of the hostname).
//! Reads /proc, /sys and uname(2) only; every field is optional because containers and old
//! kernels hide some of them.

mod cpu;
pub mod kconfig;

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use syscost_record::{Comparability, Environment, Incidental, Virtualization};

/// Reads a small text file, trimmed; None if missing or unreadable.
pub fn read_trim(path: impl AsRef<Path>) -> Option<String> {
    // Device-tree properties (/sys/firmware/devicetree/base/model) end in a NUL.
    fs::read_to_string(path)
        .ok()
        .map(|s| {
            s.trim_matches(|c: char| c.is_whitespace() || c == '\0')
                .to_string()
        })
        .filter(|s| !s.is_empty())
}

/// uname(2) fields: (sysname, nodename, release, version, machine).
pub fn uname() -> (String, String, String, String, String) {
    crate::sys::query::uname()
}

pub fn loadavg() -> Option<[f64; 3]> {
    let s = read_trim("/proc/loadavg")?;
    let mut it = s.split_whitespace().map(|x| x.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// Every file under /sys/devices/system/cpu/vulnerabilities/.
pub fn mitigations() -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    if let Ok(dir) = fs::read_dir("/sys/devices/system/cpu/vulnerabilities") {
        for e in dir.flatten() {
            if let Some(v) = read_trim(e.path()) {
                m.insert(e.file_name().to_string_lossy().into_owned(), v);
            }
        }
    }
    m
}

/// Hypervisor or bare metal, from the CPU's hypervisor bit and signature, and DMI.
pub fn virtualization(cpuinfo_flags: &[String]) -> Virtualization {
    let product = [
        "/sys/class/dmi/id/sys_vendor",
        "/sys/class/dmi/id/product_name",
    ]
    .iter()
    .filter_map(read_trim)
    .collect::<Vec<_>>()
    .join(" ");
    let hypervisor = cpu::hypervisor_signature().or_else(|| read_trim("/sys/hypervisor/type"));
    let flagged = cpuinfo_flags.iter().any(|f| f == "hypervisor");
    let kind = if hypervisor.is_some() || flagged {
        "vm"
    } else if cfg!(target_arch = "x86_64") {
        // x86 guests always expose the hypervisor bit; its absence means bare metal.
        "bare-metal"
    } else {
        "unknown"
    };
    Virtualization {
        kind: kind.into(),
        hypervisor,
        product: (!product.is_empty()).then_some(product),
    }
}

/// Probes the environment. `loadavg_end` is filled in by the caller after the run.
pub fn probe() -> Environment {
    let (_, nodename, release, version, machine) = uname();
    let cpuinfo = fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpu::from_cpuinfo(&cpuinfo);
    let flags = cpu::flags(&cpuinfo);
    let machine_hash = {
        let d = Sha256::digest(format!("syscost-machine:{nodename}").as_bytes());
        d.iter().take(6).map(|b| format!("{b:02x}")).collect()
    };
    Environment {
        comparability: Comparability {
            arch: machine,
            kernel_release: release.clone(),
            kernel_version: Some(version),
            cpu,
            virtualization: virtualization(&flags),
            mitigations: mitigations(),
            cmdline: read_trim("/proc/cmdline"),
            bpf_jit_enable: read_trim("/proc/sys/net/core/bpf_jit_enable"),
            bpf_jit_harden: read_trim("/proc/sys/net/core/bpf_jit_harden"),
            seccomp_actions_avail: read_trim("/proc/sys/kernel/seccomp/actions_avail"),
            kernel_config: kconfig::relevant(&release),
            clock: None,
            emulator: None,
        },
        incidental: Incidental {
            machine_hash: Some(machine_hash),
            clocksource: read_trim(
                "/sys/devices/system/clocksource/clocksource0/current_clocksource",
            ),
            governor: read_trim("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            loadavg_start: loadavg(),
            loadavg_end: None,
            other: BTreeMap::new(),
        },
        lab: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probe_fills_the_essentials_on_this_machine() {
        let e = probe();
        let c = &e.comparability;
        assert_eq!(c.arch, std::env::consts::ARCH);
        assert!(!c.kernel_release.is_empty());
        assert!(c.cpu.logical_cpus.unwrap_or(0) >= 1);
        assert!(["vm", "bare-metal", "unknown"].contains(&c.virtualization.kind.as_str()));
        assert!(e.incidental.loadavg_start.is_some());
        // The hostname itself never appears, only its hash.
        let (_, node, ..) = uname();
        let json = serde_json::to_string(&e).unwrap();
        assert!(node.len() < 4 || !json.contains(&format!("\"{node}\"")));
    }
}
