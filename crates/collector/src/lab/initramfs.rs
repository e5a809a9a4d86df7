//! The guest's root filesystem: busybox (the shell, mount, poweroff), the static syscost binary
//! for the guest's architecture (musl: no loader, no shared library to copy), the kernel's
//! configuration (moved by init to `/boot/config-$(uname -r)`, where the machine probe reads it)
//! and `/init`.

use super::arch::Arch;
use super::cpio;
use super::elf::{self, machine_name, ElfError};
use super::frame;
use std::collections::BTreeSet;
use std::fs;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// Where the guest finds syscost.
pub const GUEST_SYSCOST: &str = "/usr/bin/syscost";
/// The line init prints on the console when it starts syscost (the host measures the boot to it).
pub const INIT_MARK: &str = "SYSCOST-LAB-INIT";
/// The line init prints when syscost run has ended.
pub const DONE_MARK: &str = "SYSCOST-LAB-RUN-DONE";

/// What goes into the initramfs.
#[derive(Debug, Clone)]
pub struct Contents {
    pub arch: Arch,
    pub syscost: PathBuf,
    pub busybox: PathBuf,
    pub config: Option<PathBuf>,
    /// Arguments of `syscost run` in the guest (after `-o FILE`: the record in its compact
    /// file form, the smallest to send; the table on standard output is dropped).
    pub run_args: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum InitramfsError {
    #[error(transparent)]
    Elf(#[from] ElfError),
    #[error(
        "{} is built for {}, not {arch}: give the syscost built for the guest (--guest-binary)",
        path.display(), machine_name(*machine)
    )]
    WrongArch {
        path: PathBuf,
        machine: u16,
        arch: Arch,
    },
    #[error(
        "{} is dynamically linked ({what}): the guest needs the static syscost, built with \
         `cargo build --release -p syscost --target {}` (give it with --guest-binary)",
        path.display(), arch.rust_target()
    )]
    DynamicSyscost {
        path: PathBuf,
        what: String,
        arch: Arch,
    },
    #[error("cannot read {}: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot write the initramfs {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{} is dynamically linked (it names the loader {interpreter}): the guest needs a static \
         busybox (busybox-static; scripts/lab-kernels puts one in the lab cache)",
        path.display()
    )]
    DynamicBusybox { path: PathBuf, interpreter: String },
    #[error("a run argument contains a character the guest's command line cannot carry: {0:?}")]
    Argument(String),
}

/// Checks that `binary` is an executable of `arch` that needs nothing from the guest: no
/// dynamic loader, no shared library.
pub fn check_static(binary: &Path, arch: Arch) -> Result<(), InitramfsError> {
    let e = elf::read(binary)?;
    if e.machine != arch.elf_machine() {
        return Err(InitramfsError::WrongArch {
            path: binary.to_path_buf(),
            machine: e.machine,
            arch,
        });
    }
    let what = match (&e.interpreter, e.needed.is_empty()) {
        (Some(i), _) => format!("it names the loader {i}"),
        (None, false) => format!("it needs {}", e.needed.join(", ")),
        (None, true) => return Ok(()),
    };
    Err(InitramfsError::DynamicSyscost {
        path: binary.to_path_buf(),
        what,
        arch,
    })
}

/// A word for a POSIX shell, single-quoted.
fn quote(s: &str) -> Result<String, InitramfsError> {
    if s.contains(['\n', '\r', '\0']) {
        return Err(InitramfsError::Argument(s.to_string()));
    }
    Ok(format!("'{}'", s.replace('\'', r"'\''")))
}

/// The guest's /init (busybox sh).
pub fn init_script(arch: Arch, run_args: &[String]) -> Result<String, InitramfsError> {
    let args = run_args
        .iter()
        .map(|a| quote(a))
        .collect::<Result<Vec<_>, _>>()?
        .join(" ");
    let record = format!("/dev/{}", arch.record_tty());
    // On a shared console, kernel messages could land inside the frame: only emergencies are
    // printed while it is written (the checksum would catch the rest).
    let (quiet, loud) = if arch.record_on_console() {
        (
            "echo 1 > /proc/sys/kernel/printk",
            "echo 5 > /proc/sys/kernel/printk",
        )
    } else {
        (":", ":")
    };
    Ok(format!(
        r#"#!/bin/sh
# syscost lab: the guest's init (generated). Mounts what the probe and the scenarios read,
# runs `syscost run`, sends its record to the host framed and checksummed, and powers off.
export PATH=/usr/bin:/bin:/sbin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
[ -f /boot/kernel.config ] && mv /boot/kernel.config "/boot/config-$(uname -r)"
# Kernel notices (the audit records seccomp.log makes, one per logged call until the rate
# limit) would crawl through the emulated UART; warnings and worse still reach the console.
echo 5 > /proc/sys/kernel/printk
echo "{INIT_MARK} $(uname -r) $(cut -d' ' -f1 /proc/uptime)"
cd /tmp
{{ {syscost} run -o /tmp/record.json {args} 2>&1 >/dev/null; echo $? >/tmp/exit; }} | cat
rc=$(cat /tmp/exit)
echo "{DONE_MARK} exit=$rc $(cut -d' ' -f1 /proc/uptime)"
n=$(wc -c </tmp/record.json)
sum=$(sha256sum /tmp/record.json | cut -d' ' -f1)
{quiet}
{{ echo "{begin} exit=$rc bytes=$n sha256=$sum"; base64 /tmp/record.json; echo "{end}"; }} >{record}
{loud}
sync
poweroff -f
sleep 5
echo o >/proc/sysrq-trigger
sleep 60
"#,
        syscost = GUEST_SYSCOST,
        begin = frame::BEGIN,
        end = frame::END,
    ))
}

/// Writes the initramfs to `out`.
pub fn build(c: &Contents, out: &Path) -> Result<(), InitramfsError> {
    let read = |p: &Path| {
        fs::read(p).map_err(|source| InitramfsError::Read {
            path: p.to_path_buf(),
            source,
        })
    };
    check_static(&c.syscost, c.arch)?;
    let bb = elf::read(&c.busybox)?;
    if bb.machine != c.arch.elf_machine() {
        return Err(InitramfsError::WrongArch {
            path: c.busybox.clone(),
            machine: bb.machine,
            arch: c.arch,
        });
    }
    if let Some(interpreter) = bb.interpreter {
        return Err(InitramfsError::DynamicBusybox {
            path: c.busybox.clone(),
            interpreter,
        });
    }
    let init = init_script(c.arch, &c.run_args)?;
    let busybox = read(&c.busybox)?;
    let syscost = read(&c.syscost)?;
    let config = c.config.as_deref().map(read).transpose()?;
    let write = || -> std::io::Result<()> {
        let file = fs::File::create(out)?;
        let mut w = cpio::Writer::new(BufWriter::new(file));
        let mut made = BTreeSet::new();
        let mut dir = |w: &mut cpio::Writer<_>, path: &str| -> std::io::Result<()> {
            let mut at = String::new();
            for part in path.split('/').filter(|p| !p.is_empty()) {
                at.push('/');
                at.push_str(part);
                if made.insert(at.clone()) {
                    w.dir(&at)?;
                }
            }
            Ok(())
        };
        for d in [
            "/bin",
            "/sbin",
            "/usr/bin",
            "/usr/sbin",
            "/dev",
            "/proc",
            "/sys",
            "/tmp",
            "/run",
            "/boot",
            "/lib",
            "/etc",
            "/root",
        ] {
            dir(&mut w, d)?;
        }
        w.char_device("/dev/console", 5, 1)?;
        w.char_device("/dev/null", 1, 3)?;
        w.file("/bin/busybox", 0o755, &busybox)?;
        w.symlink("/bin/sh", "busybox")?;
        w.file(GUEST_SYSCOST, 0o755, &syscost)?;
        if let Some(cfg) = &config {
            w.file("/boot/kernel.config", 0o644, cfg)?;
        }
        w.file("/init", 0o755, init.as_bytes())?;
        w.finish()?;
        Ok(())
    };
    write().map_err(|source| InitramfsError::Write {
        path: out.to_path_buf(),
        source,
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_quoted_for_the_shell() {
        let s = init_script(
            Arch::X86_64,
            &["--only".into(), "seccomp.*,sud.*".into(), "it's".into()],
        )
        .unwrap();
        assert!(
            s.contains(r#"run -o /tmp/record.json '--only' 'seccomp.*,sud.*' 'it'\''s' 2>&1"#),
            "{s}"
        );
        assert!(s.contains(">/dev/ttyS1"));
        assert!(init_script(Arch::X86_64, &["a\nb".into()]).is_err());
        let arm = init_script(Arch::Aarch64, &[]).unwrap();
        assert!(arm.contains(">/dev/ttyAMA0") && arm.contains("echo 1 > /proc/sys/kernel/printk"));
    }

    /// A static executable (what the musl build gives): an ELF64 header and one PT_LOAD, no
    /// interpreter, no dynamic section.
    fn static_elf(machine: u16) -> Vec<u8> {
        let mut b = vec![0u8; 0x40 + 56];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2; // 64-bit
        b[5] = 1; // little-endian
        b[6] = 1;
        b[0x10] = 2; // ET_EXEC
        b[0x12..0x14].copy_from_slice(&machine.to_le_bytes());
        b[0x20..0x28].copy_from_slice(&0x40u64.to_le_bytes()); // e_phoff
        b[0x36..0x38].copy_from_slice(&56u16.to_le_bytes()); // e_phentsize
        b[0x38..0x3a].copy_from_slice(&1u16.to_le_bytes()); // e_phnum
        b[0x40..0x44].copy_from_slice(&1u32.to_le_bytes()); // PT_LOAD
        b
    }

    #[test]
    fn a_static_binary_of_the_guests_architecture_is_accepted() {
        let dir = tempfile::tempdir().unwrap();
        for arch in Arch::ALL {
            let p = dir.path().join(arch.name());
            std::fs::write(&p, static_elf(arch.elf_machine())).unwrap();
            assert!(check_static(&p, arch).is_ok(), "{arch}");
            for other in Arch::ALL.into_iter().filter(|&o| o != arch) {
                assert!(matches!(
                    check_static(&p, other),
                    Err(InitramfsError::WrongArch { .. })
                ));
            }
        }
    }

    #[test]
    fn a_dynamic_syscost_is_refused_with_the_command_that_builds_the_static_one() {
        let Some(arch) = Arch::host() else { return };
        let exe = std::env::current_exe().unwrap();
        // The test binary is linked like the workspace's default build.
        match check_static(&exe, arch) {
            Ok(()) if cfg!(target_env = "musl") => {}
            Ok(()) => panic!("a glibc test binary passed"),
            Err(e) => {
                let e = e.to_string();
                assert!(e.contains("dynamically linked"), "{e}");
                assert!(e.contains(arch.rust_target()), "{e}");
            }
        }
        let other = if arch == Arch::X86_64 {
            Arch::Aarch64
        } else {
            Arch::X86_64
        };
        assert!(matches!(
            check_static(&exe, other),
            Err(InitramfsError::WrongArch { .. })
        ));
    }
}
