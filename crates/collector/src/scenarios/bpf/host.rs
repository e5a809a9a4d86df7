//! What this host allows: privileges, kernel version and configuration, tracefs. Each check
//! returns the reason a scenario is skipped, worded so the user knows what to change.

use crate::machine::kconfig;
use crate::scenarios::SetupError;
use std::path::Path;

const CAP_SYS_ADMIN: u32 = 21;
const CAP_PERFMON: u32 = 38;
const CAP_BPF: u32 = 39;

/// Where tracefs is looked for: the debugfs path when it exists, else /sys/kernel/tracing.
const DEBUGFS_TRACING: &str = "/sys/kernel/debug/tracing";
pub const TRACEFS: &str = "/sys/kernel/tracing";
const KPROBE_PMU: &str = "/sys/bus/event_source/devices/kprobe";
const UPROBE_PMU: &str = "/sys/bus/event_source/devices/uprobe";
const VMLINUX_BTF: &str = "/sys/kernel/btf/vmlinux";
const MOUNT_IT: &str = "mount it with `mount -t tracefs nodev /sys/kernel/tracing`";

/// What this host lacks for a BPF scenario: each is a skip, worded so the user knows what to
/// change.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(
        "not privileged: loading and attaching tracing BPF programs needs root (CAP_SYS_ADMIN), \
         or CAP_BPF and CAP_PERFMON on Linux ≥ 5.8, and this process (euid {euid}) has \
         neither; run syscost as root (sudo), or grant them with `sudo setcap \
         cap_bpf,cap_perfmon+ep` on the binary"
    )]
    NotPrivileged { euid: u32 },
    #[error(
        "this kernel has no tracefs ({} does not exist: CONFIG_TRACING is off), \
         which syscall tracepoints need",
        TRACEFS
    )]
    NoTracefs,
    #[error(
        "tracefs is not mounted at {} and mounting it needs CAP_SYS_ADMIN; {}",
        TRACEFS,
        MOUNT_IT
    )]
    TracefsNeedsAdmin,
    #[error(
        "tracefs is not mounted at {} and {what} failed: {source}; {}",
        TRACEFS,
        MOUNT_IT
    )]
    Mount {
        what: &'static str,
        source: std::io::Error,
    },
    #[error(
        "this kernel has no kprobes: {config} ({} is absent); a kernel built with \
         CONFIG_KPROBES=y and CONFIG_KPROBE_EVENTS=y is needed",
        KPROBE_PMU
    )]
    NoKprobes { config: &'static str },
    #[error(
        "this kernel has no kprobe.multi links: CONFIG_FPROBE is not set in its config \
         (needs Linux ≥ 5.18 built with CONFIG_FPROBE=y)"
    )]
    NoFprobe,
    #[error(
        "this kernel has no uprobes: CONFIG_UPROBE_EVENTS is not set ({} is absent)",
        UPROBE_PMU
    )]
    NoUprobes,
    #[error(
        "this kernel exposes no BTF ({} is absent: CONFIG_DEBUG_INFO_BTF is off), \
         which BPF trampolines (fentry/fexit/fmod_ret) need to find their target",
        VMLINUX_BTF
    )]
    NoBtf,
    #[error(
        "CONFIG_FUNCTION_ERROR_INJECTION is not set in this kernel's config: fmod_ret programs \
         attach only to functions on the kernel's error-injection list, which is empty without \
         it, or to security_* hooks, so no syscall's return can be modified (a kernel built \
         with CONFIG_FUNCTION_ERROR_INJECTION=y allows its syscall wrappers)"
    )]
    NoErrorInjection,
    #[error(
        "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS is not set in this kernel's config: a BPF \
         trampoline (fentry/fexit/fmod_ret) is attached to a kernel function through an ftrace \
         direct call, which this kernel cannot make (the kernel answers ENOTSUPP)"
    )]
    NoDirectCalls,
}

impl From<HostError> for SetupError {
    fn from(e: HostError) -> SetupError {
        SetupError::Unsupported(e.to_string())
    }
}

/// The running kernel's (major, minor).
pub fn kernel_version() -> Option<(u32, u32)> {
    kconfig::running_version()
}

/// `Some(false)` when the kernel config says the option is off, `None` when unknown.
fn kconfig_enabled(name: &str) -> Option<bool> {
    kconfig::enabled(name)
}

fn has_cap(caps: u64, cap: u32) -> bool {
    caps & (1u64 << cap) != 0
}

/// Whether this process may load and attach tracing programs: CAP_SYS_ADMIN, or CAP_BPF and
/// CAP_PERFMON on Linux ≥ 5.8 (which split them out of CAP_SYS_ADMIN).
pub fn check_privileges() -> Result<(), HostError> {
    let caps = crate::sys::query::effective_caps().unwrap_or(0);
    let split_caps = kernel_version().is_some_and(|v| v >= (5, 8));
    if has_cap(caps, CAP_SYS_ADMIN)
        || (split_caps && has_cap(caps, CAP_BPF) && has_cap(caps, CAP_PERFMON))
    {
        return Ok(());
    }
    let euid = crate::sys::query::euid();
    Err(HostError::NotPrivileged { euid })
}

/// Whether this process holds CAP_SYS_ADMIN (needed to mount tracefs).
pub fn is_admin() -> bool {
    crate::sys::query::effective_caps().is_some_and(|c| has_cap(c, CAP_SYS_ADMIN))
}

/// The tracefs directory tracepoint ids are read from.
pub fn tracefs_dir() -> &'static str {
    if Path::new(DEBUGFS_TRACING).exists() {
        DEBUGFS_TRACING
    } else {
        TRACEFS
    }
}

/// Whether tracefs is mounted where it is looked for.
pub fn tracefs_mounted() -> bool {
    Path::new(tracefs_dir()).join("events").is_dir()
}

/// Makes tracefs available to this process: if it is not mounted, mounts it at
/// /sys/kernel/tracing inside a private mount namespace (root only) — invisible to the rest of
/// the system and gone when the worker exits.
pub fn ensure_tracefs() -> Result<(), HostError> {
    if tracefs_mounted() {
        return Ok(());
    }
    if !Path::new(TRACEFS).is_dir() {
        return Err(HostError::NoTracefs);
    }
    if !is_admin() {
        return Err(HostError::TracefsNeedsAdmin);
    }
    crate::sys::mount::tracefs_in_own_namespace()
        .map_err(|(what, source)| HostError::Mount { what, source })
}

/// The kprobe PMU (or legacy kprobe_events) exists: CONFIG_KPROBES and CONFIG_KPROBE_EVENTS.
pub fn check_kprobes() -> Result<(), HostError> {
    let legacy = Path::new(tracefs_dir()).join("kprobe_events");
    if Path::new(KPROBE_PMU).exists() || legacy.exists() {
        return Ok(());
    }
    let config = match (
        kconfig_enabled("CONFIG_KPROBES"),
        kconfig_enabled("CONFIG_KPROBE_EVENTS"),
    ) {
        (Some(false), _) => "CONFIG_KPROBES is not set in this kernel's config",
        (_, Some(false)) => "CONFIG_KPROBE_EVENTS is not set in this kernel's config",
        _ => "CONFIG_KPROBES or CONFIG_KPROBE_EVENTS is off",
    };
    Err(HostError::NoKprobes { config })
}

/// kprobe.multi links are built on fprobe.
pub fn check_fprobe() -> Result<(), HostError> {
    if kconfig_enabled("CONFIG_FPROBE") == Some(false) {
        return Err(HostError::NoFprobe);
    }
    Ok(())
}

pub fn check_uprobes() -> Result<(), HostError> {
    if Path::new(UPROBE_PMU).exists() || kconfig_enabled("CONFIG_UPROBE_EVENTS") != Some(false) {
        return Ok(());
    }
    Err(HostError::NoUprobes)
}

/// fentry/fexit/fmod_ret resolve their target in the kernel's BTF.
pub fn check_btf() -> Result<(), HostError> {
    if Path::new(VMLINUX_BTF).exists() {
        return Ok(());
    }
    Err(HostError::NoBtf)
}

/// A trampoline on a kernel function (an ftrace location) is an ftrace direct call.
pub fn check_direct_calls() -> Result<(), HostError> {
    if kconfig_enabled("CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS") == Some(false) {
        return Err(HostError::NoDirectCalls);
    }
    Ok(())
}

/// fmod_ret needs the error-injection list (or a security hook, which no probe syscall is).
pub fn check_error_injection() -> Result<(), HostError> {
    if kconfig_enabled("CONFIG_FUNCTION_ERROR_INJECTION") == Some(false) {
        return Err(HostError::NoErrorInjection);
    }
    Ok(())
}

/// The active lockdown mode, when securityfs shows it ("integrity", "confidentiality").
pub fn lockdown() -> Option<String> {
    let text = std::fs::read_to_string("/sys/kernel/security/lockdown").ok()?;
    let start = text.find('[')?;
    let end = text[start..].find(']')?;
    Some(text[start + 1..start + end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capability_bits() {
        let caps = (1u64 << CAP_BPF) | (1u64 << CAP_PERFMON);
        assert!(has_cap(caps, CAP_BPF));
        assert!(has_cap(caps, CAP_PERFMON));
        assert!(!has_cap(caps, CAP_SYS_ADMIN));
    }
}
