//! The kernel configuration options that change what syscost measures.

use flate2::read::GzDecoder;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::OnceLock;

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
    "CONFIG_KPROBES_ON_FTRACE",
    "CONFIG_UPROBES",
    "CONFIG_UPROBE_EVENTS",
    "CONFIG_FTRACE",
    "CONFIG_FTRACE_SYSCALLS",
    "CONFIG_FUNCTION_TRACER",
    "CONFIG_DYNAMIC_FTRACE",
    "CONFIG_FPROBE",
    "CONFIG_FUNCTION_ERROR_INJECTION",
    "CONFIG_BPF_KPROBE_OVERRIDE",
    "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS",
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
    let mut m = parse_all(text);
    m.retain(|k, _| wanted(k));
    m
}

/// Every option of a config text: `CONFIG_X=v` → v, `# CONFIG_X is not set` → "n".
pub fn parse_all(text: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for line in text.lines().map(str::trim) {
        if let Some(name) = line
            .strip_prefix("# ")
            .and_then(|r| r.strip_suffix(" is not set"))
        {
            if name.starts_with("CONFIG_") {
                m.insert(name.to_string(), "n".to_string());
            }
        } else if let Some((k, v)) = line.split_once('=') {
            if k.starts_with("CONFIG_") {
                m.insert(k.to_string(), v.trim_matches('"').to_string());
            }
        }
    }
    m
}

/// The running kernel's config text: /proc/config.gz, else /boot/config-<release>; empty when
/// neither is readable.
fn text(release: &str) -> String {
    let mut text = String::new();
    let from_proc = std::fs::File::open("/proc/config.gz")
        .ok()
        .and_then(|f| GzDecoder::new(f).read_to_string(&mut text).ok());
    if from_proc.is_none() {
        text = std::fs::read_to_string(format!("/boot/config-{release}")).unwrap_or_default();
    }
    text
}

/// The relevant options of the running kernel.
pub fn relevant(release: &str) -> BTreeMap<String, String> {
    parse(&text(release))
}

/// Every option of the running kernel's config (empty when it cannot be read); read once per
/// process.
pub fn running() -> &'static BTreeMap<String, String> {
    static CONFIG: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    CONFIG.get_or_init(|| parse_all(&text(&super::uname().2)))
}

/// Whether the running kernel's config enables `name` (`y` or `m`); None when the config is
/// unreadable. An option the config does not mention is not set (Kconfig lists an unset
/// option only when it could have been chosen).
pub fn enabled(name: &str) -> Option<bool> {
    enabled_in(running(), name)
}

/// [`enabled`] for a parsed config (empty: unreadable).
pub fn enabled_in(config: &BTreeMap<String, String>, name: &str) -> Option<bool> {
    if config.is_empty() {
        return None;
    }
    Some(config.get(name).is_some_and(|v| v == "y" || v == "m"))
}

/// (major, minor) of a kernel release ("6.18.44-fc-v669" → (6, 18)).
pub fn version_of(release: &str) -> Option<(u32, u32)> {
    let mut it = release.split(|c: char| !c.is_ascii_digit());
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

/// The running kernel's (major, minor).
pub fn running_version() -> Option<(u32, u32)> {
    version_of(&super::uname().2)
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
        let all = parse_all("CONFIG_UPROBES=y\n# CONFIG_KPROBES is not set\nCONFIG_EXT4_FS=m\n");
        assert_eq!(all.get("CONFIG_EXT4_FS").map(String::as_str), Some("m"));
        assert_eq!(all.get("CONFIG_KPROBES").map(String::as_str), Some("n"));
    }

    #[test]
    fn releases_parse() {
        assert_eq!(version_of("6.18.44-fc-v669"), Some((6, 18)));
        assert_eq!(version_of("5.4.0-150-generic"), Some((5, 4)));
        assert_eq!(version_of("6.12.117+deb13-arm64"), Some((6, 12)));
        assert_eq!(version_of("4.19"), Some((4, 19)));
        assert_eq!(version_of("garbage"), None);
    }
}
