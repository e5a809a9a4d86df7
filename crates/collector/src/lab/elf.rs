//! Just enough of ELF64 (little-endian) to check the executable put into an initramfs: its
//! machine, its interpreter (`PT_INTERP`) and the libraries it needs (`DT_NEEDED`) — a static
//! build has neither. Works on binaries of any architecture (`ldd` runs the host's loader).

use std::path::{Path, PathBuf};

pub const EM_X86_64: u16 = 62;
pub const EM_AARCH64: u16 = 183;
pub const EM_RISCV: u16 = 243;
pub const EM_PPC64: u16 = 21;

const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const PT_INTERP: u32 = 3;
const DT_NULL: u64 = 0;
const DT_NEEDED: u64 = 1;
const DT_STRTAB: u64 = 5;

/// Why a file could not be read as the ELF executable or library the guest needs.
#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct ElfError {
    pub path: PathBuf,
    pub reason: Malformed,
}

/// What is wrong with the bytes (or the file).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Malformed {
    #[error("cannot read it: {0}")]
    Unreadable(String),
    #[error("not an ELF file")]
    NotElf,
    #[error("not a 64-bit little-endian ELF file")]
    Not64BitLittleEndian,
    #[error("truncated at byte {0}")]
    Truncated(usize),
    #[error("offset {0} does not fit this machine")]
    Offset(u64),
    #[error("string offset {0} is past the end of the file")]
    StringPastEnd(usize),
    #[error("string at {0} is not terminated")]
    Unterminated(usize),
    #[error("string at {0} is not UTF-8")]
    NotUtf8(usize),
    #[error("program header entries of {0} bytes")]
    HeaderSize(usize),
    #[error("the dynamic section has no string table")]
    NoStringTable,
    #[error("the string table lies in no loaded segment")]
    StringTableUnmapped,
}

/// What the initramfs needs to know about one ELF file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Elf {
    pub machine: u16,
    pub interpreter: Option<String>,
    pub needed: Vec<String>,
}

/// The architecture name of an ELF machine number.
pub fn machine_name(m: u16) -> String {
    match m {
        EM_X86_64 => "x86_64".into(),
        EM_AARCH64 => "aarch64".into(),
        EM_RISCV => "riscv64".into(),
        EM_PPC64 => "ppc64le".into(),
        other => format!("ELF machine {other}"),
    }
}

pub fn read(path: &Path) -> Result<Elf, ElfError> {
    let bytes = std::fs::read(path).map_err(|e| ElfError {
        path: path.to_path_buf(),
        reason: Malformed::Unreadable(e.to_string()),
    })?;
    parse(&bytes).map_err(|reason| ElfError {
        path: path.to_path_buf(),
        reason,
    })
}

fn u16_at(b: &[u8], off: usize) -> Result<u16, Malformed> {
    b.get(off..off + 2)
        .map(|s| u16::from_le_bytes([s[0], s[1]]))
        .ok_or(Malformed::Truncated(off))
}

fn u32_at(b: &[u8], off: usize) -> Result<u32, Malformed> {
    b.get(off..off + 4)
        .and_then(|s| s.try_into().ok())
        .map(u32::from_le_bytes)
        .ok_or(Malformed::Truncated(off))
}

fn u64_at(b: &[u8], off: usize) -> Result<u64, Malformed> {
    b.get(off..off + 8)
        .and_then(|s| s.try_into().ok())
        .map(u64::from_le_bytes)
        .ok_or(Malformed::Truncated(off))
}

fn usize_of(v: u64) -> Result<usize, Malformed> {
    usize::try_from(v).map_err(|_| Malformed::Offset(v))
}

fn c_string(b: &[u8], off: usize) -> Result<String, Malformed> {
    let rest = b.get(off..).ok_or(Malformed::StringPastEnd(off))?;
    let end = rest
        .iter()
        .position(|&c| c == 0)
        .ok_or(Malformed::Unterminated(off))?;
    String::from_utf8(rest[..end].to_vec()).map_err(|_| Malformed::NotUtf8(off))
}

struct Segment {
    kind: u32,
    offset: u64,
    vaddr: u64,
    filesz: u64,
}

/// Parses an ELF64 little-endian image.
pub fn parse(b: &[u8]) -> Result<Elf, Malformed> {
    if b.get(..4) != Some(b"\x7fELF") {
        return Err(Malformed::NotElf);
    }
    if b.get(4) != Some(&2) || b.get(5) != Some(&1) {
        return Err(Malformed::Not64BitLittleEndian);
    }
    let machine = u16_at(b, 0x12)?;
    let phoff = usize_of(u64_at(b, 0x20)?)?;
    let phentsize = u16_at(b, 0x36)? as usize;
    let phnum = u16_at(b, 0x38)? as usize;
    if phentsize < 56 && phnum > 0 {
        return Err(Malformed::HeaderSize(phentsize));
    }
    let mut segments = Vec::with_capacity(phnum);
    for i in 0..phnum {
        let at = phoff + i * phentsize;
        segments.push(Segment {
            kind: u32_at(b, at)?,
            offset: u64_at(b, at + 8)?,
            vaddr: u64_at(b, at + 16)?,
            filesz: u64_at(b, at + 32)?,
        });
    }
    let interpreter = match segments.iter().find(|s| s.kind == PT_INTERP) {
        Some(s) => Some(c_string(b, usize_of(s.offset)?)?),
        None => None,
    };
    let mut needed = Vec::new();
    if let Some(dynamic) = segments.iter().find(|s| s.kind == PT_DYNAMIC) {
        let start = usize_of(dynamic.offset)?;
        let count = usize_of(dynamic.filesz)? / 16;
        let mut entries = Vec::new();
        for i in 0..count {
            let tag = u64_at(b, start + i * 16)?;
            if tag == DT_NULL {
                break;
            }
            entries.push((tag, u64_at(b, start + i * 16 + 8)?));
        }
        let strtab_vaddr = entries
            .iter()
            .find(|e| e.0 == DT_STRTAB)
            .map(|e| e.1)
            .ok_or(Malformed::NoStringTable)?;
        // DT_STRTAB is an address: find the loaded segment holding it.
        let strtab = segments
            .iter()
            .filter(|s| s.kind == PT_LOAD)
            .find(|s| strtab_vaddr >= s.vaddr && strtab_vaddr < s.vaddr + s.filesz)
            .map(|s| strtab_vaddr - s.vaddr + s.offset)
            .ok_or(Malformed::StringTableUnmapped)?;
        let strtab = usize_of(strtab)?;
        for (tag, val) in entries {
            let s = || c_string(b, strtab + usize_of(val)?);
            if tag == DT_NEEDED {
                needed.push(s()?);
            }
        }
    }
    Ok(Elf {
        machine,
        interpreter,
        needed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_this_test_binary() {
        let exe = std::env::current_exe().unwrap();
        let elf = read(&exe).unwrap();
        let want = if cfg!(target_arch = "x86_64") {
            EM_X86_64
        } else if cfg!(target_arch = "riscv64") {
            EM_RISCV
        } else if cfg!(target_arch = "powerpc64") {
            EM_PPC64
        } else {
            EM_AARCH64
        };
        assert_eq!(elf.machine, want);
        if cfg!(target_env = "musl") {
            // The static build: nothing for a loader to do.
            assert!(
                elf.interpreter.is_none() && elf.needed.is_empty(),
                "{elf:?}"
            );
            return;
        }
        // Built against glibc: an interpreter and libc among the needed libraries.
        assert!(elf
            .interpreter
            .as_deref()
            .is_some_and(|i| i.contains("ld-linux")));
        assert!(
            elf.needed.iter().any(|n| n.starts_with("libc.so")),
            "{elf:?}"
        );
    }

    #[test]
    fn refuses_what_is_not_elf64_le() {
        assert_eq!(parse(b"#!/bin/sh\n").unwrap_err(), Malformed::NotElf);
        assert_eq!(
            parse(b"\x7fELF\x01\x01").unwrap_err(),
            Malformed::Not64BitLittleEndian
        );
        let mut truncated = b"\x7fELF\x02\x01\x01".to_vec();
        truncated.resize(0x14, 0);
        assert!(matches!(
            parse(&truncated).unwrap_err(),
            Malformed::Truncated(_)
        ));
    }
}
