//! Where to read what changed upstream between two kernel versions: the commit log of the
//! stable tree (which holds every mainline and stable tag) restricted to the code a syscall's
//! interception runs through.

/// The tree whose tags cover mainline releases, release candidates and stable updates.
pub const TREE: &str = "https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git";

/// The tag of an upstream version label (`6.8`, `6.8.1`, `6.9-rc2`).
pub fn tag(label: &str) -> String {
    format!("v{label}")
}

/// Where `uname -m` keeps its syscall entry code in the kernel tree. Only x86 has an
/// `arch/<arch>/entry/` directory; the others keep it among their `kernel/` files.
pub fn arch_entry(arch: &str) -> Option<&'static str> {
    Some(match arch {
        "x86_64" | "i386" | "i486" | "i586" | "i686" => "arch/x86/entry",
        "aarch64" | "arm64" => "arch/arm64/kernel/entry-common.c",
        a if a.starts_with("arm") => "arch/arm/kernel",
        "riscv64" | "riscv32" => "arch/riscv/kernel",
        "ppc64le" | "ppc64" | "ppc" | "powerpc" => "arch/powerpc/kernel",
        "s390x" | "s390" => "arch/s390/kernel",
        "loongarch64" => "arch/loongarch/kernel",
        a if a.starts_with("mips") => "arch/mips/kernel",
        _ => return None,
    })
}

/// The paths that matter for these costs, the architecture's entry code included when known.
pub fn paths(arch: &str) -> Vec<&'static str> {
    let mut p = vec!["kernel/seccomp.c", "kernel/entry"];
    p.extend(arch_entry(arch));
    p.extend(["kernel/bpf", "kernel/trace"]);
    p
}

/// Links to the log between two versions, one per path (the web view filters on one path at a
/// time), and the `git log` command that lists them all at once.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Shortlog {
    pub links: Vec<(String, String)>,
    pub command: String,
}

pub fn shortlog(arch: &str, from: &str, to: &str) -> Shortlog {
    let range = format!("{}..{}", tag(from), tag(to));
    let paths = paths(arch);
    Shortlog {
        links: paths
            .iter()
            .map(|p| {
                // `kernel/entry` and `arch/x86/entry` were both "entry".
                (
                    p.strip_prefix("kernel/").unwrap_or(p).to_string(),
                    format!("{TREE}/log/{p}?qt=range&q={range}"),
                )
            })
            .collect(),
        command: format!("git log --oneline {range} -- {}", paths.join(" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortlog_between_two_tags_on_the_paths_that_matter() {
        let s = shortlog("x86_64", "6.7", "6.8-rc1");
        assert_eq!(
            s.command,
            "git log --oneline v6.7..v6.8-rc1 -- kernel/seccomp.c kernel/entry arch/x86/entry kernel/bpf kernel/trace"
        );
        assert_eq!(s.links.len(), 5);
        assert_eq!(
            s.links[0].1,
            "https://git.kernel.org/pub/scm/linux/kernel/git/stable/linux.git/log/kernel/seccomp.c?qt=range&q=v6.7..v6.8-rc1"
        );
        let labels: Vec<&str> = s.links.iter().map(|l| l.0.as_str()).collect();
        assert_eq!(
            labels,
            ["seccomp.c", "entry", "arch/x86/entry", "bpf", "trace"]
        );
        // An architecture whose entry code we cannot place: the other four paths.
        assert_eq!(shortlog("vax", "6.1", "6.1.5").links.len(), 4);
        assert_eq!(paths("aarch64")[2], "arch/arm64/kernel/entry-common.c");
    }
}
