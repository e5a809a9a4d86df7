//! The vDSO's `clock_gettime`, found by the collector itself. musl looks vDSO symbols up only
//! through the SysV hash table (`DT_HASH`), and kernels whose vDSO is linked with
//! `--hash-style=gnu` carry only `DT_GNU_HASH` (Debian's arm64 6.12): there the static build's
//! clock reads were all syscalls — every sample paid one, and `ptrace.sysemu`, which skips the
//! tracee's syscalls, could not be timed. glibc reads both tables; so does this.

use std::ffi::CStr;
use std::sync::OnceLock;

/// The kernel's `clock_gettime`: 0, or a negative errno (it makes the syscall itself when its
/// clocksource has no vDSO mode).
pub type ClockGettime = unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> libc::c_int;

#[cfg(any(target_arch = "x86_64", target_arch = "riscv64"))]
const CLOCK_GETTIME: &CStr = c"__vdso_clock_gettime";
// ppc64's returns an error as `sc` does (CR0.SO, positive errno); only success is used here.
#[cfg(any(target_arch = "aarch64", target_arch = "powerpc64"))]
const CLOCK_GETTIME: &CStr = c"__kernel_clock_gettime";

const PT_LOAD: u32 = 1;
const PT_DYNAMIC: u32 = 2;
const DT_NULL: u64 = 0;
const DT_HASH: u64 = 4;
const DT_STRTAB: u64 = 5;
const DT_SYMTAB: u64 = 6;
const DT_GNU_HASH: u64 = 0x6fff_fef5;
const STT_FUNC: u8 = 2;
const SYM_SIZE: usize = 24;

/// Which hash table a lookup walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Gnu,
    Sysv,
}

/// This process's vDSO `clock_gettime`, looked up once; None without a vDSO or the symbol.
pub fn clock_gettime() -> Option<ClockGettime> {
    static F: OnceLock<Option<ClockGettime>> = OnceLock::new();
    *F.get_or_init(|| {
        let addr = lookup(CLOCK_GETTIME, None)?;
        // SAFETY: the vDSO's clock_gettime has this C signature on every architecture.
        Some(unsafe { std::mem::transmute::<usize, ClockGettime>(addr) })
    })
}

/// Nanoseconds on `clock`, through the vDSO's `clock_gettime` when this process has one.
#[inline]
pub fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    match clock_gettime() {
        // SAFETY: the vDSO's clock_gettime, a valid clock id and pointer.
        Some(f) => unsafe { f(clock, &mut ts) },
        // SAFETY: valid clock id and pointer.
        None => unsafe { libc::clock_gettime(clock, &mut ts) },
    };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The address of the function `name` in this process's vDSO, through `table` (None: the GNU
/// table when there is one, else the SysV one).
pub fn lookup(name: &CStr, table: Option<Table>) -> Option<usize> {
    // SAFETY: getauxval only reads the auxiliary vector.
    let base = unsafe { libc::getauxval(libc::AT_SYSINFO_EHDR) } as usize;
    if base == 0 {
        return None;
    }
    // SAFETY: the kernel maps the whole vDSO image, read-only, at AT_SYSINFO_EHDR for the
    // process's lifetime; `Image` reads only inside its first loadable segment, which holds
    // the headers, the dynamic section and the tables.
    let image = unsafe { Image::at(base)? };
    image.find(name.to_bytes(), table)
}

struct Image {
    /// Load bias: the image's address minus its link address.
    bias: usize,
    /// The loadable segment's bounds, as addresses of this process.
    start: usize,
    end: usize,
    dynamic: usize,
}

impl Image {
    /// # Safety
    /// `base` must be the address of a mapped ELF64 image of this machine's byte order.
    unsafe fn at(base: usize) -> Option<Image> {
        // The ELF and program headers lie at the start of the first loadable segment.
        let r = |off: usize, n: usize| std::slice::from_raw_parts((base + off) as *const u8, n);
        let eh = r(0, 64);
        if &eh[..4] != b"\x7fELF" || eh[4] != 2 {
            return None;
        }
        let phoff = u64::from_ne_bytes(eh[0x20..0x28].try_into().ok()?) as usize;
        let phentsize = u16::from_ne_bytes(eh[0x36..0x38].try_into().ok()?) as usize;
        let phnum = u16::from_ne_bytes(eh[0x38..0x3a].try_into().ok()?) as usize;
        // Within the image's first page, which every mapped image has.
        if phentsize < 56 || phoff.checked_add(phnum * phentsize)? > 4096 {
            return None;
        }
        let (mut load, mut dynamic) = (None, None);
        for i in 0..phnum {
            let ph = r(phoff + i * phentsize, 56);
            let kind = u32::from_ne_bytes(ph[0..4].try_into().ok()?);
            let offset = u64::from_ne_bytes(ph[8..16].try_into().ok()?) as usize;
            let vaddr = u64::from_ne_bytes(ph[16..24].try_into().ok()?) as usize;
            let filesz = u64::from_ne_bytes(ph[32..40].try_into().ok()?) as usize;
            match kind {
                PT_LOAD if load.is_none() => load = Some((offset, vaddr, filesz)),
                PT_DYNAMIC => dynamic = Some(offset),
                _ => {}
            }
        }
        let (offset, vaddr, filesz) = load?;
        let bias = (base + offset).wrapping_sub(vaddr);
        let image = Image {
            bias,
            start: base + offset,
            end: base + offset + filesz,
            dynamic: base + dynamic?,
        };
        (image.start == base && image.dynamic < image.end).then_some(image)
    }

    /// `n` bytes at `addr`, when they lie inside the loadable segment.
    fn bytes(&self, addr: usize, n: usize) -> Option<&[u8]> {
        if addr < self.start || addr.checked_add(n)? > self.end {
            return None;
        }
        // SAFETY: inside the mapped segment (checked above), which lives as long as the process.
        Some(unsafe { std::slice::from_raw_parts(addr as *const u8, n) })
    }

    fn u32_at(&self, addr: usize) -> Option<u32> {
        Some(u32::from_ne_bytes(self.bytes(addr, 4)?.try_into().ok()?))
    }

    fn u64_at(&self, addr: usize) -> Option<u64> {
        Some(u64::from_ne_bytes(self.bytes(addr, 8)?.try_into().ok()?))
    }

    fn find(&self, name: &[u8], table: Option<Table>) -> Option<usize> {
        let (mut strtab, mut symtab, mut sysv, mut gnu) = (None, None, None, None);
        for i in 0..256 {
            let at = self.dynamic + i * 16;
            let tag = self.u64_at(at)?;
            let addr = (self.u64_at(at + 8)? as usize).wrapping_add(self.bias);
            match tag {
                DT_NULL => break,
                DT_STRTAB => strtab = Some(addr),
                DT_SYMTAB => symtab = Some(addr),
                DT_HASH => sysv = Some(addr),
                DT_GNU_HASH => gnu = Some(addr),
                _ => {}
            }
        }
        let (strtab, symtab) = (strtab?, symtab?);
        let matches = |i: usize| -> Option<usize> {
            let sym = self.bytes(symtab + i * SYM_SIZE, SYM_SIZE)?;
            let name_off = u32::from_ne_bytes(sym[0..4].try_into().ok()?) as usize;
            let shndx = u16::from_ne_bytes(sym[6..8].try_into().ok()?);
            let value = u64::from_ne_bytes(sym[8..16].try_into().ok()?) as usize;
            let s = self.bytes(strtab + name_off, name.len() + 1)?;
            (sym[4] & 0xf == STT_FUNC
                && shndx != 0
                && &s[..name.len()] == name
                && s[name.len()] == 0)
                .then(|| value.wrapping_add(self.bias))
        };
        let table = table.unwrap_or(if gnu.is_some() {
            Table::Gnu
        } else {
            Table::Sysv
        });
        match table {
            Table::Gnu => {
                let t = gnu?;
                let nbuckets = self.u32_at(t)? as usize;
                let symoffset = self.u32_at(t + 4)? as usize;
                let bloom_words = self.u32_at(t + 8)? as usize;
                if nbuckets == 0 {
                    return None;
                }
                let buckets = t + 16 + bloom_words * 8;
                let chains = buckets + nbuckets * 4;
                let h = gnu_hash(name);
                let mut i = self.u32_at(buckets + (h as usize % nbuckets) * 4)? as usize;
                if i < symoffset {
                    return None;
                }
                loop {
                    let h2 = self.u32_at(chains + (i - symoffset) * 4)?;
                    if h | 1 == h2 | 1 {
                        if let Some(addr) = matches(i) {
                            return Some(addr);
                        }
                    }
                    if h2 & 1 == 1 {
                        return None;
                    }
                    i += 1;
                }
            }
            Table::Sysv => {
                let t = sysv?;
                let nbucket = self.u32_at(t)? as usize;
                let nchain = self.u32_at(t + 4)? as usize;
                if nbucket == 0 {
                    return None;
                }
                let mut i = self.u32_at(t + 8 + (sysv_hash(name) as usize % nbucket) * 4)? as usize;
                // A chain is at most every symbol long.
                for _ in 0..nchain {
                    if i == 0 || i >= nchain {
                        return None;
                    }
                    if let Some(addr) = matches(i) {
                        return Some(addr);
                    }
                    i = self.u32_at(t + 8 + (nbucket + i) * 4)? as usize;
                }
                None
            }
        }
    }
}

/// The GNU hash (`dl_new_hash`).
fn gnu_hash(name: &[u8]) -> u32 {
    name.iter().fold(5381u32, |h, &c| {
        h.wrapping_mul(33).wrapping_add(u32::from(c))
    })
}

/// The SysV ELF hash.
fn sysv_hash(name: &[u8]) -> u32 {
    name.iter().fold(0u32, |h, &c| {
        let h = (h << 4).wrapping_add(u32::from(c));
        let g = h & 0xf000_0000;
        (h ^ (g >> 24)) & !g
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_the_elf_ones() {
        assert_eq!(gnu_hash(b""), 5381);
        assert_eq!(gnu_hash(b"printf"), 0x156b_2bb8);
        assert_eq!(sysv_hash(b"printf"), 0x0779_05a6);
    }

    fn read(f: ClockGettime) -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid clock and pointer.
        assert_eq!(unsafe { f(libc::CLOCK_MONOTONIC_RAW, &mut ts) }, 0);
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    fn libc_read() -> u64 {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: a valid clock and pointer.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC_RAW, &mut ts) };
        ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
    }

    #[test]
    fn this_processs_clock_gettime_is_found_and_reads_the_same_clock() {
        let f = clock_gettime().expect("the vDSO's clock_gettime");
        let (a, b, c) = (libc_read(), read(f), libc_read());
        assert!(a <= b && b <= c, "{a} {b} {c}");
    }

    #[test]
    fn both_tables_find_the_same_function() {
        // This machine's vDSO (x86 links it with --hash-style=both) has both; a kernel may
        // carry either alone.
        let gnu = lookup(CLOCK_GETTIME, Some(Table::Gnu));
        let sysv = lookup(CLOCK_GETTIME, Some(Table::Sysv));
        assert!(gnu.is_some() || sysv.is_some());
        if gnu.is_some() && sysv.is_some() {
            assert_eq!(gnu, sysv);
        }
        assert_eq!(lookup(c"__vdso_no_such_function", None), None);
    }
}
