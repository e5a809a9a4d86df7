//! The timed loops the shared probe cannot run: calls of a user function (what uprobes watch)
//! and a syscall whose return is rewritten by fmod_ret. Both mirror `Probe::timed`: a
//! monomorphised loop, the clock read once before and once after.

use crate::harness::{clock, Batch};
use crate::sys::syscall::Issue;
use std::path::PathBuf;

/// The user function's symbol (also what `params.attached_to` names).
pub const SYMBOL: &str = "syscost_ufunc";

pub use crate::sys::ufunc::ufunc_addr;

/// Times `iters` calls of [`ufunc`](crate::sys::ufunc::ufunc), checking each result.
pub fn timed_calls(iters: u64) -> Batch {
    let mut bad = 0u64;
    let t0 = clock::now_ns();
    for i in 0..iters {
        // black_box: the call must happen with an unknown argument, every iteration.
        let x = std::hint::black_box(i);
        if crate::sys::ufunc::ufunc(x) != x.wrapping_mul(3).wrapping_add(1) {
            bad += 1;
        }
    }
    let t1 = clock::now_ns();
    Batch {
        iters,
        elapsed_ns: t1.saturating_sub(t0),
        bad,
        verified: None,
    }
}

/// Times `iters` calls of a syscall that must each return `expected`.
pub fn timed_syscall(issue: Issue<'_>, expected: isize, iters: u64) -> Batch {
    let mut bad = 0u64;
    let t0 = clock::now_ns();
    for _ in 0..iters {
        if issue.call() != expected {
            bad += 1;
        }
    }
    let t1 = clock::now_ns();
    Batch {
        iters,
        elapsed_ns: t1.saturating_sub(t0),
        bad,
        verified: None,
    }
}

/// Why the probed function's place in a file is unknown.
#[derive(Debug, thiserror::Error)]
pub enum LocateError {
    #[error("cannot read /proc/self/maps: {0}")]
    Maps(std::io::Error),
    #[error("no file-backed executable mapping holds {0:#x} in /proc/self/maps")]
    Unmapped(usize),
}

/// The file and file offset holding the code at `addr`, found in /proc/self/maps: where a
/// uprobe on that code must be placed.
pub fn locate(addr: usize) -> Result<(PathBuf, usize), LocateError> {
    let maps = std::fs::read_to_string("/proc/self/maps").map_err(LocateError::Maps)?;
    locate_in(&maps, addr).ok_or(LocateError::Unmapped(addr))
}

/// Parses maps lines: `start-end perms offset dev inode path`.
pub fn locate_in(maps: &str, addr: usize) -> Option<(PathBuf, usize)> {
    for line in maps.lines() {
        let mut f = line.split_whitespace();
        let (range, perms, offset) = (f.next()?, f.next()?, f.next()?);
        let (_dev, _inode) = (f.next()?, f.next()?);
        let path: Vec<&str> = f.collect();
        let (start, end) = range.split_once('-')?;
        let (Ok(start), Ok(end), Ok(offset)) = (
            usize::from_str_radix(start, 16),
            usize::from_str_radix(end, 16),
            usize::from_str_radix(offset, 16),
        ) else {
            continue;
        };
        if addr < start || addr >= end || !perms.contains('x') {
            continue;
        }
        let path = path.join(" ");
        if !path.starts_with('/') {
            return None;
        }
        return Some((PathBuf::from(path), addr - start + offset));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAPS: &str = "\
55d0c8a00000-55d0c8a50000 r--p 00000000 fd:01 1234 /opt/syscost bin
55d0c8a50000-55d0c8c00000 r-xp 00050000 fd:01 1234 /opt/syscost bin
7ffd1000-7ffd2000 r-xp 00000000 00:00 0 [vdso]
";

    #[test]
    fn finds_the_file_offset_of_code() {
        let (path, off) = locate_in(MAPS, 0x55d0c8a50000 + 0x123).unwrap();
        assert_eq!(path, PathBuf::from("/opt/syscost bin"));
        assert_eq!(off, 0x50123);
        // Not executable, anonymous, or unmapped: no place for a uprobe.
        assert_eq!(locate_in(MAPS, 0x55d0c8a00010), None);
        assert_eq!(locate_in(MAPS, 0x7ffd1010), None);
        assert_eq!(locate_in(MAPS, 0x10), None);
    }

    #[test]
    fn the_function_is_found_in_this_process() {
        let (path, off) = locate(ufunc_addr()).unwrap();
        assert!(path.is_absolute());
        assert!(off > 0);
        let b = timed_calls(1000);
        assert_eq!((b.iters, b.bad), (1000, 0));
    }
}
