//! The guest architectures: how QEMU boots each, where its console is, and how to recognise its
//! kernel images.

use super::elf::{EM_AARCH64, EM_PPC64, EM_RISCV, EM_X86_64};
use flate2::read::GzDecoder;
use std::io::Read;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Aarch64,
    Riscv64,
    /// Little-endian 64-bit POWER (Debian's ppc64el).
    Ppc64le,
}

impl Arch {
    pub const ALL: [Arch; 4] = [Arch::X86_64, Arch::Aarch64, Arch::Riscv64, Arch::Ppc64le];

    /// `uname -m`'s name.
    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64",
            Arch::Aarch64 => "aarch64",
            Arch::Riscv64 => "riscv64",
            Arch::Ppc64le => "ppc64le",
        }
    }

    /// From `uname -m`'s, Debian's or Rust's name (Rust's `powerpc64` is taken for the
    /// little-endian one: the only one syscost is built for).
    pub fn from_name(s: &str) -> Option<Arch> {
        match s {
            "x86_64" | "amd64" => Some(Arch::X86_64),
            "aarch64" | "arm64" => Some(Arch::Aarch64),
            "riscv64" => Some(Arch::Riscv64),
            "ppc64le" | "ppc64el" | "powerpc64le" => Some(Arch::Ppc64le),
            "powerpc64" if cfg!(target_endian = "little") => Some(Arch::Ppc64le),
            _ => None,
        }
    }

    /// The architecture this syscost runs on.
    pub fn host() -> Option<Arch> {
        Arch::from_name(std::env::consts::ARCH)
    }

    pub fn qemu_binary(self) -> &'static str {
        match self {
            Arch::X86_64 => "qemu-system-x86_64",
            Arch::Aarch64 => "qemu-system-aarch64",
            Arch::Riscv64 => "qemu-system-riscv64",
            Arch::Ppc64le => "qemu-system-ppc64",
        }
    }

    /// The Debian package providing [`Arch::qemu_binary`].
    pub fn qemu_package(self) -> &'static str {
        match self {
            Arch::X86_64 => "qemu-system-x86",
            Arch::Aarch64 => "qemu-system-arm",
            Arch::Riscv64 => "qemu-system-misc",
            Arch::Ppc64le => "qemu-system-ppc",
        }
    }

    /// QEMU's machine type. riscv64's `virt` boots through OpenSBI, ppc64's `pseries` through
    /// SLOF: QEMU's default firmware for each (qemu-system-data). Under TCG, `pseries` cannot
    /// give the guest the Spectre-era capabilities its defaults ask for; they are turned off
    /// rather than warned about.
    pub fn machine(self) -> &'static str {
        match self {
            Arch::X86_64 => "pc",
            Arch::Aarch64 | Arch::Riscv64 => "virt",
            Arch::Ppc64le => {
                "pseries,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,cap-ccf-assist=off"
            }
        }
    }

    /// The CPU model: everything TCG can emulate, or the host's own CPU under KVM. On arm64,
    /// pointer authentication uses QEMU's own (fast) algorithm: the architected QARMA cipher
    /// makes every signed return several times slower to emulate. When the clock counts
    /// instructions, arm64's generic timer runs at 1 GHz — one tick per instruction under
    /// `-icount shift=0` — where QEMU before 9.0 defaults to 62.5 MHz (a tick every 16).
    pub fn cpu_model(self, kvm: bool, instructions: bool) -> &'static str {
        match (self, kvm, instructions) {
            (_, true, _) => "host",
            (Arch::X86_64, false, _) => "max",
            (Arch::Aarch64, false, false) => "max,pauth-impdef=on",
            (Arch::Aarch64, false, true) => "max,pauth-impdef=on,cntfrq=1000000000",
            (Arch::Riscv64, false, _) => "rv64",
            (Arch::Ppc64le, false, _) => "POWER9",
        }
    }

    /// The kernel's name for the first serial port, the console.
    pub fn console(self) -> &'static str {
        match self {
            Arch::X86_64 => "ttyS0",
            Arch::Aarch64 => "ttyAMA0",
            Arch::Riscv64 => "ttyS0",
            Arch::Ppc64le => "hvc0",
        }
    }

    /// Where the guest writes the record frame: a second serial port of its own on x86 (the
    /// 8250 driver is built into every x86 kernel), the console on arm64 (`virt` has one
    /// PL011, and virtio-console is a module in distribution kernels); the console too on
    /// riscv64's `virt` (one 16550) and ppc64's `pseries` (its hypervisor console).
    pub fn record_tty(self) -> &'static str {
        match self {
            Arch::X86_64 => "ttyS1",
            a => a.console(),
        }
    }

    pub fn record_on_console(self) -> bool {
        self.record_tty() == self.console()
    }

    pub fn elf_machine(self) -> u16 {
        match self {
            Arch::X86_64 => EM_X86_64,
            Arch::Aarch64 => EM_AARCH64,
            Arch::Riscv64 => EM_RISCV,
            Arch::Ppc64le => EM_PPC64,
        }
    }

    /// Rust's target for the static build of syscost that the guest runs: musl where Rust's
    /// toolchain ships it for download everywhere, else glibc linked statically (the
    /// repository's .cargo/config.toml).
    pub fn rust_target(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86_64-unknown-linux-musl",
            Arch::Aarch64 => "aarch64-unknown-linux-musl",
            Arch::Riscv64 => "riscv64gc-unknown-linux-gnu",
            Arch::Ppc64le => "powerpc64le-unknown-linux-gnu",
        }
    }
}

impl std::fmt::Display for Arch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The architecture of a kernel image, from its header: an x86 bzImage ("HdrS" at 0x202), an
/// arm64 Image ("ARM\x64" at 0x38), gzip-compressed or inside an EFI zboot image (a PE file
/// whose machine is arm64), a riscv64 Image ("RSC\x05" at 0x38, as Debian ships it: with an
/// EFI stub, so it starts "MZ" too), or a little-endian ppc64 ELF vmlinux (Debian's ppc64el
/// image).
pub fn detect_image(bytes: &[u8]) -> Option<Arch> {
    if bytes.get(0x202..0x206) == Some(b"HdrS") {
        return Some(Arch::X86_64);
    }
    if bytes.get(0x38..0x3c) == Some(b"ARM\x64") {
        return Some(Arch::Aarch64);
    }
    if bytes.get(0x38..0x3c) == Some(b"RSC\x05") {
        return Some(Arch::Riscv64);
    }
    if bytes.starts_with(b"\x7fELF\x02\x01")
        && bytes.get(0x12..0x14) == Some(&EM_PPC64.to_le_bytes()[..])
    {
        return Some(Arch::Ppc64le);
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut head = [0u8; 64];
        let mut gz = GzDecoder::new(bytes);
        if gz.read_exact(&mut head).is_ok() && &head[0x38..0x3c] == b"ARM\x64" {
            return Some(Arch::Aarch64);
        }
        return None;
    }
    if bytes.starts_with(b"MZ") {
        // PE: e_lfanew at 0x3c, then "PE\0\0" and the machine.
        let pe = u32::from_le_bytes(bytes.get(0x3c..0x40)?.try_into().ok()?) as usize;
        if bytes.get(pe..pe + 4) == Some(b"PE\0\0") {
            let machine = u16::from_le_bytes(bytes.get(pe + 4..pe + 6)?.try_into().ok()?);
            if machine == 0xaa64 {
                return Some(Arch::Aarch64);
            }
            if machine == 0x8664 && bytes.get(0x202..0x206) == Some(b"HdrS") {
                return Some(Arch::X86_64);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn recognises_kernel_images() {
        let mut bz = vec![0u8; 0x400];
        bz[0x202..0x206].copy_from_slice(b"HdrS");
        assert_eq!(detect_image(&bz), Some(Arch::X86_64));
        let mut image = vec![0u8; 0x100];
        image[0x38..0x3c].copy_from_slice(b"ARM\x64");
        assert_eq!(detect_image(&image), Some(Arch::Aarch64));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&image).unwrap();
        assert_eq!(detect_image(&gz.finish().unwrap()), Some(Arch::Aarch64));
        let mut pe = vec![0u8; 0x100];
        pe[..2].copy_from_slice(b"MZ");
        pe[0x3c] = 0x80;
        pe[0x80..0x84].copy_from_slice(b"PE\0\0");
        pe[0x84..0x86].copy_from_slice(&0xaa64u16.to_le_bytes());
        assert_eq!(detect_image(&pe), Some(Arch::Aarch64));
        assert_eq!(detect_image(b"#!/bin/sh\necho not a kernel\n"), None);
        let mut riscv = vec![0u8; 0x100];
        riscv[..2].copy_from_slice(b"MZ");
        riscv[0x38..0x3c].copy_from_slice(b"RSC\x05");
        assert_eq!(detect_image(&riscv), Some(Arch::Riscv64));
        let mut ppc = vec![0u8; 0x40];
        ppc[..6].copy_from_slice(b"\x7fELF\x02\x01");
        ppc[0x12..0x14].copy_from_slice(&21u16.to_le_bytes());
        assert_eq!(detect_image(&ppc), Some(Arch::Ppc64le));
        ppc[0x12..0x14].copy_from_slice(&62u16.to_le_bytes());
        assert_eq!(detect_image(&ppc), None);
    }

    #[test]
    fn names_round_trip() {
        for a in Arch::ALL {
            assert_eq!(Arch::from_name(a.name()), Some(a));
        }
        assert_eq!(Arch::from_name("arm64"), Some(Arch::Aarch64));
        assert_eq!(Arch::from_name("ppc64el"), Some(Arch::Ppc64le));
        assert_eq!(Arch::from_name("mips64"), None);
    }
}
