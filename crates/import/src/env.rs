//! What a log says about the machine: `uname -a` and sysctl lines. Nothing is guessed: a field
//! neither the log nor its source gives stays "unknown" and the record says so.

use crate::parsed::UNKNOWN;
use syscost_record::{machine_hash, RunRecord};

/// The parts of a `uname -a` line that decide comparability, and the host name (kept only as
/// a hash).
#[derive(Debug, Clone, PartialEq)]
pub struct Uname {
    pub host: String,
    pub release: String,
    pub version: Option<String>,
    pub arch: Option<String>,
}

/// Machine names `uname -m` prints on Linux.
fn is_arch(s: &str) -> bool {
    const ARCHES: &[&str] = &[
        "x86_64",
        "i386",
        "i486",
        "i586",
        "i686",
        "aarch64",
        "aarch64_be",
        "arm64",
        "riscv64",
        "riscv32",
        "ppc",
        "ppc64",
        "ppc64le",
        "s390",
        "s390x",
        "mips",
        "mips64",
        "loongarch64",
        "sparc64",
        "parisc",
        "parisc64",
        "alpha",
        "m68k",
        "sh4",
        "ia64",
        "armv8b",
        "arc",
    ];
    ARCHES.contains(&s) || (s.starts_with("armv") && s.len() <= 8)
}

/// Parses `Linux <host> <release> <version...> <machine> [<processor> <platform>] <os>`. The
/// version string contains blanks, so it is whatever lies between the release and the
/// trailing machine fields.
pub fn parse_uname(line: &str) -> Option<Uname> {
    let t: Vec<&str> = line.split_whitespace().collect();
    if t.len() < 4 || t[0] != "Linux" || t[1] == "version" {
        return None;
    }
    let release = t[2];
    if !release.starts_with(|c: char| c.is_ascii_digit()) || !release.contains('.') {
        return None;
    }
    let mut end = t.len();
    if t[end - 1].ends_with("Linux") {
        end -= 1;
    }
    // `uname -p` and `-i` print "unknown" on many systems.
    while end > 3 && t[end - 1] == "unknown" {
        end -= 1;
    }
    let mut arch = None;
    if end > 3 && is_arch(t[end - 1]) {
        arch = Some(t[end - 1].to_string());
        // ... or repeat the machine name.
        while end > 3 && (Some(t[end - 1]) == arch.as_deref() || t[end - 1] == "unknown") {
            end -= 1;
        }
    }
    let version = (end > 3).then(|| t[3..end].join(" "));
    Some(Uname {
        host: t[1].to_string(),
        release: release.to_string(),
        version,
        arch,
    })
}

/// Parses `net.core.bpf_jit_enable = 1` (sysctl) and `/proc/sys/net/core/bpf_jit_enable:1`
/// (`grep -H .`) into (dotted key, value).
pub fn parse_sysctl(line: &str) -> Option<(String, String)> {
    if let Some(path) = line.strip_prefix("/proc/sys/") {
        let (key, value) = path.split_once(':')?;
        if key.is_empty() || key.contains(' ') {
            return None;
        }
        return Some((key.replace('/', "."), value.trim().to_string()));
    }
    let (key, value) = line.split_once(" = ")?;
    let key = key.trim();
    let known = ["net.", "kernel.", "vm.", "dev."];
    if !known.iter().any(|p| key.starts_with(p)) || key.contains(' ') {
        return None;
    }
    Some((key.to_string(), value.trim().to_string()))
}

/// Puts a uname into the record.
pub fn apply_uname(record: &mut RunRecord, u: &Uname) -> Option<String> {
    let c = &mut record.environment.comparability;
    // A release no kernel prints (markup, a path) is not taken as one: it would name the
    // record's directory and the site's pages.
    let note = if syscost_record::format::is_kernel_release(&u.release) {
        c.kernel_release = u.release.clone();
        None
    } else {
        Some(format!(
            "The log's uname line gives the kernel release {:?}, which is no release as \
             uname -r prints it: kernel_release is unknown.",
            crate::lex::excerpt(&u.release)
        ))
    };
    c.kernel_version = u.version.clone();
    if let Some(a) = &u.arch {
        c.arch = a.clone();
    }
    record.environment.incidental.machine_hash = Some(machine_hash(&u.host));
    note
}

/// Puts a sysctl into the record: the BPF JIT settings decide comparability, the rest is kept
/// as incidental.
pub fn apply_sysctl(record: &mut RunRecord, key: &str, value: &str) {
    let c = &mut record.environment.comparability;
    match key {
        "net.core.bpf_jit_enable" => c.bpf_jit_enable = Some(value.to_string()),
        "net.core.bpf_jit_harden" => c.bpf_jit_harden = Some(value.to_string()),
        _ => {
            record
                .environment
                .incidental
                .other
                .insert(format!("sysctl {key}"), value.to_string());
        }
    }
}

/// Says which facts the source states rather than the log, and which neither gives.
pub fn note_unknowns(record: &mut RunRecord) {
    let c = &record.environment.comparability;
    let stated = record.source.stated.clone().unwrap_or_default();
    let mut notes = Vec::new();
    let mut from_source = Vec::new();
    if let Some(k) = &stated.kernel {
        if !k.approximate && c.kernel_release == k.release {
            from_source.push(format!("kernel release {}", k.release));
        }
    }
    if let Some(a) = &stated.arch {
        from_source.push(format!("architecture {a}"));
    }
    if stated.machine.is_some() {
        from_source.push("the machine".to_string());
    }
    if stated.date.is_some() {
        from_source.push("the date".to_string());
    }
    if !from_source.is_empty() {
        notes.push(format!(
            "Stated by the source, not printed in the log: {} (source.stated{}).",
            from_source.join(", "),
            stated
                .stated_in
                .as_deref()
                .map(|s| format!(": {s}"))
                .unwrap_or_default()
        ));
    }
    let mut missing = Vec::new();
    if c.kernel_release == UNKNOWN {
        match stated.kernel.as_ref().filter(|k| k.approximate) {
            Some(k) => notes.push(format!(
                "The log does not print the kernel release and its source gives it only \
                 approximately (around {}, source.stated.kernel): kernel_release is \"unknown\", \
                 so the run is never placed as if measured on that release.",
                k.release
            )),
            None => missing.push("kernel release"),
        }
    }
    if c.arch == UNKNOWN {
        missing.push("architecture");
    }
    if !missing.is_empty() {
        let what = missing.join(" and ");
        notes.push(format!(
            "Neither the log nor its source states the {what}; recorded as \"unknown\" rather \
             than guessed."
        ));
    }
    record.notes.extend(notes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uname_gnu_full() {
        let u = parse_uname("Linux ci-42 6.8.0-45-generic #45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024 x86_64 x86_64 x86_64 GNU/Linux").unwrap();
        assert_eq!(u.release, "6.8.0-45-generic");
        assert_eq!(
            u.version.as_deref(),
            Some("#45-Ubuntu SMP PREEMPT_DYNAMIC Fri Aug 30 12:02:04 UTC 2024")
        );
        assert_eq!(u.arch.as_deref(), Some("x86_64"));
    }

    #[test]
    fn uname_unknown_processor_and_busybox() {
        let u = parse_uname(
            "Linux rk 6.12.0-rc3 #1 SMP PREEMPT Tue Oct 15 2024 aarch64 unknown unknown GNU/Linux",
        )
        .unwrap();
        assert_eq!(u.arch.as_deref(), Some("aarch64"));
        assert_eq!(u.version.as_deref(), Some("#1 SMP PREEMPT Tue Oct 15 2024"));
        let u =
            parse_uname("Linux buildroot 5.10.0 #1 SMP Tue Jan 5 2021 armv7l GNU/Linux").unwrap();
        assert_eq!(u.arch.as_deref(), Some("armv7l"));
    }

    #[test]
    fn uname_without_machine_keeps_arch_unknown() {
        let u = parse_uname("Linux host 6.1.0 #1 SMP weird").unwrap();
        assert_eq!(u.arch, None);
        assert_eq!(u.version.as_deref(), Some("#1 SMP weird"));
    }

    #[test]
    fn not_uname() {
        assert_eq!(parse_uname("Linux version 6.8.0 (gcc) #1 SMP"), None);
        assert_eq!(parse_uname("Linux is great and fast"), None);
        assert_eq!(parse_uname("Linux"), None);
    }

    #[test]
    fn sysctls() {
        assert_eq!(
            parse_sysctl("net.core.bpf_jit_enable = 1"),
            Some(("net.core.bpf_jit_enable".into(), "1".into()))
        );
        assert_eq!(
            parse_sysctl("/proc/sys/net/core/bpf_jit_harden:0"),
            Some(("net.core.bpf_jit_harden".into(), "0".into()))
        );
        assert_eq!(parse_sysctl("a = b"), None);
        assert_eq!(parse_sysctl("129.3 - 0.008 = 1293 (129.4s)"), None);
    }
}
