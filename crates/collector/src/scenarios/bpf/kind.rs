//! The attach types, and what each one attaches to for a given probe syscall.

use crate::harness::Syscall;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Tp,
    RawTp,
    Kprobe,
    Kretprobe,
    KprobeMulti,
    Fentry,
    Fexit,
    Fmodret,
    Uprobe,
    Uretprobe,
}

impl Kind {
    pub const ALL: [Kind; 10] = [
        Kind::Tp,
        Kind::RawTp,
        Kind::Kprobe,
        Kind::Kretprobe,
        Kind::KprobeMulti,
        Kind::Fentry,
        Kind::Fexit,
        Kind::Fmodret,
        Kind::Uprobe,
        Kind::Uretprobe,
    ];

    /// The id suffix: `bpf.<name>`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Tp => "tp",
            Kind::RawTp => "rawtp",
            Kind::Kprobe => "kprobe",
            Kind::Kretprobe => "kretprobe",
            Kind::KprobeMulti => "kprobe_multi",
            Kind::Fentry => "fentry",
            Kind::Fexit => "fexit",
            Kind::Fmodret => "fmodret",
            Kind::Uprobe => "uprobe",
            Kind::Uretprobe => "uretprobe",
        }
    }

    /// The program's name (in the kernel: ≤ 15 bytes).
    pub fn program(self) -> &'static str {
        match self {
            Kind::Tp => "syscost_tp",
            Kind::RawTp => "syscost_rawtp",
            Kind::Kprobe => "syscost_kprobe",
            Kind::Kretprobe => "syscost_kretp",
            Kind::KprobeMulti => "syscost_kpmulti",
            Kind::Fentry => "syscost_fentry",
            Kind::Fexit => "syscost_fexit",
            Kind::Fmodret => "syscost_fmodret",
            Kind::Uprobe => "syscost_uprobe",
            Kind::Uretprobe => "syscost_uretp",
        }
    }

    /// The first kernel release with this attach type.
    pub fn min_kernel(self) -> (u32, u32) {
        match self {
            Kind::Tp => (4, 7),
            Kind::RawTp => (4, 17),
            Kind::Kprobe | Kind::Kretprobe => (4, 1),
            Kind::KprobeMulti => (5, 18),
            Kind::Fentry | Kind::Fexit => (5, 5),
            Kind::Fmodret => (5, 7),
            Kind::Uprobe | Kind::Uretprobe => (4, 3),
        }
    }

    /// How the program is attached; kinds sharing one attach alike.
    pub fn mechanism(self) -> &'static str {
        match self {
            Kind::Tp => "perf tracepoint",
            Kind::RawTp => "raw tracepoint link",
            Kind::Kprobe | Kind::Kretprobe => "perf kprobe",
            Kind::KprobeMulti => "kprobe.multi link",
            Kind::Fentry | Kind::Fexit | Kind::Fmodret => "BPF trampoline",
            Kind::Uprobe | Kind::Uretprobe => "perf uprobe",
        }
    }

    /// Probes a user function rather than the syscall.
    pub fn is_user(self) -> bool {
        matches!(self, Kind::Uprobe | Kind::Uretprobe)
    }

    /// Attached through a BPF trampoline, resolved in the kernel's BTF at load time.
    pub fn is_trampoline(self) -> bool {
        matches!(self, Kind::Fentry | Kind::Fexit | Kind::Fmodret)
    }
}

/// The syscall a BPF program watches: the probe itself, or for the mix its first syscall
/// (`dup`, issued once per iteration, so hits still equal operations).
pub fn watched_syscall(syscall: Syscall) -> (&'static str, libc::c_long) {
    match syscall.nr() {
        Some(nr) => (syscall.name(), nr),
        None => ("dup", libc::SYS_dup),
    }
}

/// The prefix of the architecture's syscall wrappers (`SYSCALL_DEFINE` under
/// CONFIG_ARCH_HAS_SYSCALL_WRAPPER): x86_64 since 4.17, arm64 since 4.19; riscv64 and ppc64
/// kernels have them from some version on (Debian's riscv64 6.12 does, its ppc64el 6.1 names
/// the function `sys_getpid`), so there the running kernel's symbols decide.
#[cfg(target_arch = "x86_64")]
const WRAPPER_PREFIX: &str = "__x64_sys_";
#[cfg(target_arch = "aarch64")]
const WRAPPER_PREFIX: &str = "__arm64_sys_";
#[cfg(target_arch = "riscv64")]
const WRAPPER_PREFIX: &str = "__riscv_sys_";
#[cfg(target_arch = "powerpc64")]
const WRAPPER_PREFIX: &str = "__powerpc_sys_";

/// The kernel function behind a syscall: the architecture's syscall wrapper — or, on a
/// riscv64 or ppc64 kernel older than its wrappers, `sys_<name>` itself.
pub fn kernel_function(syscall_name: &str) -> String {
    if cfg!(any(target_arch = "riscv64", target_arch = "powerpc64")) && !has_wrappers() {
        return format!("sys_{syscall_name}");
    }
    format!("{WRAPPER_PREFIX}{syscall_name}")
}

/// Whether the running kernel's symbols include the architecture's syscall wrappers (read
/// once from /proc/kallsyms; an unreadable one is taken to have them).
fn has_wrappers() -> bool {
    static HAS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAS.get_or_init(|| {
        let Ok(text) = std::fs::read_to_string("/proc/kallsyms") else {
            return true;
        };
        let probe = format!(" {WRAPPER_PREFIX}getpid");
        text.lines().any(|l| l.contains(&probe))
    })
}

/// Names under which a BPF trampoline may find the syscall's function in the kernel's BTF:
/// the wrapper, then the body it may be an alias of (for argument-less syscalls such as getpid
/// the BTF can carry only `__do_sys_getpid`, at the same address).
pub fn trampoline_targets(syscall_name: &str) -> Vec<String> {
    vec![
        kernel_function(syscall_name),
        format!("__do_sys_{syscall_name}"),
    ]
}

/// What the program is attached to, as recorded in `params.attached_to`.
pub fn attached_to(kind: Kind, syscall: Syscall) -> String {
    let (name, _) = watched_syscall(syscall);
    let func = kernel_function(name);
    match kind {
        Kind::Tp => format!("tracepoint syscalls/sys_enter_{name}"),
        Kind::RawTp => format!("raw tracepoint sys_enter, filtered on syscall id of {name}"),
        Kind::Kprobe => format!("kprobe {func}"),
        Kind::Kretprobe => format!("kretprobe {func}"),
        Kind::KprobeMulti => format!("kprobe.multi {func}"),
        Kind::Fentry | Kind::Fexit | Kind::Fmodret => {
            let names = trampoline_targets(name);
            let what = match kind {
                Kind::Fentry => "fentry",
                Kind::Fexit => "fexit",
                _ => "fmod_ret",
            };
            format!(
                "{what} {} (or {}, the same code, when the kernel's BTF has only that name)",
                names[0], names[1]
            )
        }
        Kind::Uprobe => format!("uprobe {} in the syscost executable", super::ufunc::SYMBOL),
        Kind::Uretprobe => format!(
            "uretprobe {} in the syscost executable",
            super::ufunc::SYMBOL
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn program_names_fit_the_kernel_limit_and_are_distinct() {
        let mut names: Vec<_> = Kind::ALL.iter().map(|k| k.program()).collect();
        assert!(names
            .iter()
            .all(|n| n.len() <= 15 && n.starts_with("syscost_")));
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Kind::ALL.len());
    }

    #[test]
    fn the_mix_watches_its_first_syscall() {
        assert_eq!(watched_syscall(Syscall::Mix), ("dup", libc::SYS_dup));
        assert_eq!(
            watched_syscall(Syscall::Getpgid),
            ("getpgid", libc::SYS_getpgid)
        );
        assert!(attached_to(Kind::Tp, Syscall::Getpid).ends_with("sys_enter_getpid"));
    }
}
