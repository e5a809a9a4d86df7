//! The kernel configuration options that change what syscost measures.

use flate2::read::GzDecoder;
use std::collections::BTreeMap;
use std::io::Read;

/// Options (or prefixes, ending in `_`) worth recording.
const RELEVANT: &[&str] = &[
    "CONFIG_SECCOMP",
    "CONFIG_SECCOMP_FILTER",
    "CONFIG_SECCOMP_CACHE_DEBUG",
    "CONFIG_GENERIC_ENTRY",
    "CONFIG_HAVE_ARCH_SECCOMP_FILTER",
    "CONFIG_BPF_JIT",
    "CONFIG_BPF_JIT_ALWAYS_ON",
    "CONFIG_BPF_SYSCALL",
    "CONFIG_BPF_EVENTS",
    "CONFIG_BPF_LSM",
    "CONFIG_DEBUG_INFO_BTF",
    "CONFIG_KPROBES",
    "CONFIG_KPROBE_EVENTS",
    "CONFIG_UPROBES",
    "CONFIG_UPROBE_EVENTS",
    "CONFIG_FTRACE",
    "CONFIG_FTRACE_SYSCALLS",
    "CONFIG_FUNCTION_TRACER",
    "CONFIG_DYNAMIC_FTRACE",
    "CONFIG_FPROBE",
    "CONFIG_HZ",
    "CONFIG_PREEMPT",
    "CONFIG_PREEMPT_DYNAMIC",
    "CONFIG_PREEMPT_VOLUNTARY",
    "CONFIG_PREEMPT_NONE",
    "CONFIG_PREEMPT_RT",
    "CONFIG_NO_HZ_FULL",
    "CONFIG_CONTEXT_TRACKING_USER",
    "CONFIG_AUDIT",
    "CONFIG_AUDITSYSCALL",
    "CONFIG_RETPOLINE",
    "CONFIG_PAGE_TABLE_ISOLATION",
    "CONFIG_RANDOMIZE_KSTACK_OFFSET",
    "CONFIG_RANDOMIZE_KSTACK_OFFSET_DEFAULT",
    "CONFIG_CPU_MITIGATIONS",
    "CONFIG_MITIGATION_",
    "CONFIG_SPECULATION_MITIGATIONS",
    "CONFIG_ARM64_PTR_AUTH",
    "CONFIG_ARM64_BTI",
    "CONFIG_UNMAP_KERNEL_AT_EL0",
    "CONFIG_SECURITY_LOCKDOWN_LSM",
    "CONFIG_LSM",
];

fn wanted(name: &str) -> bool {
    RELEVANT.iter().any(|r| {
        if r.ends_with('_') {
            name.starts_with(r)
        } else {
            name == *r
        }
    })
}

/// Parses `CONFIG_X=y` / `# CONFIG_X is not set` lines, keeping the relevant ones.
pub fn parse(text: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("# ") {
            if let Some(name) = rest.strip_suffix(" is not set") {
                if wanted(name) {
                    m.insert(name.to_string(), "n".to_string());
                }
            }
        } else if let Some((k, v)) = line.split_once('=') {
            if wanted(k) {
                m.insert(k.to_string(), v.trim_matches('"').to_string());
            }
        }
    }
    m
}

/// From /proc/config.gz, else /boot/config-<release>; empty when neither is readable.
pub fn relevant(release: &str) -> BTreeMap<String, String> {
    let mut text = String::new();
    let from_proc = std::fs::File::open("/proc/config.gz")
        .ok()
        .and_then(|f| GzDecoder::new(f).read_to_string(&mut text).ok());
    if from_proc.is_none() {
        text = std::fs::read_to_string(format!("/boot/config-{release}")).unwrap_or_default();
    }
    parse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_relevant_options_only() {
        let m = parse(
            "CONFIG_SECCOMP=y\n# CONFIG_KPROBES is not set\nCONFIG_HZ=250\n\
             CONFIG_MITIGATION_RETPOLINE=y\nCONFIG_EXT4_FS=y\nCONFIG_LSM=\"landlock,yama\"\n",
        );
        assert_eq!(m.get("CONFIG_SECCOMP").map(String::as_str), Some("y"));
        assert_eq!(m.get("CONFIG_KPROBES").map(String::as_str), Some("n"));
        assert_eq!(m.get("CONFIG_HZ").map(String::as_str), Some("250"));
        assert_eq!(
            m.get("CONFIG_MITIGATION_RETPOLINE").map(String::as_str),
            Some("y")
        );
        assert_eq!(
            m.get("CONFIG_LSM").map(String::as_str),
            Some("landlock,yama")
        );
        assert!(!m.contains_key("CONFIG_EXT4_FS"));
    }
}
