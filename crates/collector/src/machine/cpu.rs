//! CPU identity from /proc/cpuinfo and the topology in sysfs.

use super::read_trim;
use std::collections::BTreeSet;
use syscost_record::Cpu;

fn field<'a>(cpuinfo: &'a str, key: &str) -> Option<&'a str> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key)
            .then(|| v.trim())
            .filter(|v| !v.is_empty())
    })
}

/// The first processor's flags (x86 `flags`, arm64 `Features`).
pub fn flags(cpuinfo: &str) -> Vec<String> {
    field(cpuinfo, "flags")
        .or_else(|| field(cpuinfo, "Features"))
        .map(|f| f.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

pub fn from_cpuinfo(cpuinfo: &str) -> Cpu {
    let s = |k: &str| field(cpuinfo, k).map(String::from);
    // x86 names the vendor and model; arm64 gives implementer/part numbers instead.
    let vendor = s("vendor_id").or_else(|| s("CPU implementer"));
    let model_name = s("model name")
        .or_else(|| s("Hardware"))
        .or_else(|| read_trim("/sys/firmware/devicetree/base/model"))
        .or_else(|| s("Processor"));
    let family = s("cpu family").or_else(|| s("CPU architecture"));
    let model = s("model").or_else(|| s("CPU part"));
    let stepping = s("stepping").or_else(|| {
        s("CPU variant")
            .zip(s("CPU revision"))
            .map(|(v, r)| format!("{v}r{r}"))
    });
    let microcode = s("microcode");
    let logical = crate::sys::query::sysconf(libc::_SC_NPROCESSORS_ONLN);
    let mut cores = BTreeSet::new();
    for cpu in 0..logical.max(0) {
        let base = format!("/sys/devices/system/cpu/cpu{cpu}/topology");
        if let (Some(pkg), Some(core)) = (
            read_trim(format!("{base}/physical_package_id")),
            read_trim(format!("{base}/core_id")),
        ) {
            cores.insert((pkg, core));
        }
    }
    let smt = read_trim("/sys/devices/system/cpu/smt/active").map(|v| v == "1");
    Cpu {
        vendor,
        model_name,
        family,
        model,
        stepping,
        microcode,
        logical_cpus: (logical > 0).then_some(logical as u32),
        physical_cores: (!cores.is_empty()).then_some(cores.len() as u32),
        smt,
    }
}

/// The hypervisor's CPUID signature (leaf 0x40000000), when the hypervisor bit is set.
#[cfg(target_arch = "x86_64")]
pub fn hypervisor_signature() -> Option<String> {
    use std::arch::x86_64::__cpuid;
    let leaf1 = __cpuid(1);
    if leaf1.ecx & (1 << 31) == 0 {
        return None;
    }
    // The hypervisor range exists when the bit is set.
    let l = __cpuid(0x4000_0000);
    let bytes: Vec<u8> = [l.ebx, l.ecx, l.edx]
        .iter()
        .flat_map(|r| r.to_le_bytes())
        .collect();
    let sig = String::from_utf8_lossy(&bytes)
        .trim_matches(char::from(0))
        .trim()
        .to_string();
    Some(match sig.as_str() {
        "KVMKVMKVM" => "KVM".into(),
        "Microsoft Hv" => "Hyper-V".into(),
        "VMwareVMware" => "VMware".into(),
        "XenVMMXenVMM" => "Xen".into(),
        "TCGTCGTCGTCG" => "QEMU TCG".into(),
        "" => "unknown hypervisor".into(),
        other => other.to_string(),
    })
}

#[cfg(not(target_arch = "x86_64"))]
pub fn hypervisor_signature() -> Option<String> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_x86_and_arm_cpuinfo() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n\
                   model name\t: AMD EPYC 7763\nstepping\t: 1\nmicrocode\t: 0xa0011d1\n\
                   flags\t\t: fpu hypervisor sse\n";
        let c = from_cpuinfo(x86);
        assert_eq!(c.vendor.as_deref(), Some("AuthenticAMD"));
        assert_eq!(c.model_name.as_deref(), Some("AMD EPYC 7763"));
        assert_eq!(
            (c.family.as_deref(), c.model.as_deref()),
            (Some("25"), Some("1"))
        );
        assert_eq!(c.microcode.as_deref(), Some("0xa0011d1"));
        assert!(flags(x86).contains(&"hypervisor".to_string()));
        let arm = "processor\t: 0\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\n\
                   CPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n";
        let c = from_cpuinfo(arm);
        assert_eq!(c.vendor.as_deref(), Some("0x41"));
        assert_eq!(c.model.as_deref(), Some("0xd0c"));
        assert_eq!(c.stepping.as_deref(), Some("0x3r1"));
    }
}
