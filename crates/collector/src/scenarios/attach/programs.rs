//! The filters whose attach cost is measured, by size.
//!
//! The 64- and 4096-instruction filters are deny-lists of syscall numbers no kernel uses (from
//! 1000 up), so every real syscall walks the whole list before reaching ALLOW: the longest
//! path the kernel's attach-time cache builder can meet. Their `nocache` twins differ in the
//! first instruction only — a load of `args[0]` instead of `arch` — which makes the builder give
//! up on every syscall at once: the difference between the two is the cache-building cost.

use crate::scenarios::seccomp::{profile_program, Filter, ProfileError};
use crate::sys::seccomp::{jeq, load_arch, load_arg0, load_nr, ret, Insn, RET_ALLOW};

const RET_EPERM: u32 = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
/// The kernel's BPF_MAXINSNS.
pub const MAX_INSNS: usize = 4096;
/// First syscall number of the deny-lists: above every real one on x86_64 and aarch64.
const FIRST_UNUSED_NR: u32 = 1000;

/// A deny-list filter of exactly `len` instructions (4 ≤ len ≤ 4096).
pub fn chain(len: usize, cacheable: bool) -> Vec<Insn> {
    assert!((4..=MAX_INSNS).contains(&len), "chain length {len}");
    let first = if cacheable { load_arch() } else { load_arg0() };
    let mut p = vec![first, load_nr()];
    let mut nr = FIRST_UNUSED_NR;
    while p.len() + 3 <= len {
        p.push(jeq(nr, 0, 1));
        p.push(ret(RET_EPERM));
        nr += 1;
    }
    if p.len() + 2 == len {
        p.push(load_nr()); // padding: reload nr
    }
    p.push(ret(RET_ALLOW));
    p
}

/// A filter size offered by the attach scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    /// The kernel benchmark's `ld nr; ret ALLOW`.
    Two,
    /// A 64-instruction deny-list.
    I64,
    /// The Docker-like profile (seccompiler).
    Docker,
    /// A 4096-instruction deny-list, the largest filter the kernel takes.
    Max,
}

impl Size {
    /// The name in scenario ids.
    pub fn name(self) -> &'static str {
        match self {
            Size::Two => "2",
            Size::I64 => "64",
            Size::Docker => "docker",
            Size::Max => "max",
        }
    }

    pub fn program(self, cacheable: bool) -> Result<Vec<Insn>, ProfileError> {
        Ok(match self {
            Size::Two => Filter::ConstAllow.program()?,
            Size::I64 => chain(64, cacheable),
            Size::Docker => profile_program()?,
            Size::Max => chain(MAX_INSNS, cacheable),
        })
    }

    /// Instruction count, for params (computed, not assumed).
    pub fn instructions(self) -> String {
        self.program(true)
            .map(|p| p.len().to_string())
            .unwrap_or_else(|e| format!("unknown ({e})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::seccomp::eval;

    #[test]
    fn chains_have_the_exact_length_and_allow_real_syscalls() {
        for len in [4, 5, 63, 64, 4095, MAX_INSNS] {
            for cacheable in [true, false] {
                let p = chain(len, cacheable);
                assert_eq!(p.len(), len);
                for nr in [0, 39, 231, 450] {
                    assert_eq!(eval(&p, nr, 0xc000_003e, 7), RET_ALLOW, "len {len} nr {nr}");
                }
                if len >= 5 {
                    assert_eq!(eval(&p, 1000, 0, 0), RET_EPERM, "len {len}");
                }
            }
        }
        // The twins differ in their first instruction only.
        let (a, b) = (chain(64, true), chain(64, false));
        assert_ne!(a[0].k, b[0].k);
        assert!(a[1..]
            .iter()
            .zip(&b[1..])
            .all(|(x, y)| x.k == y.k && x.code == y.code));
    }

    #[test]
    fn named_sizes() {
        assert_eq!(Size::Two.program(true).unwrap().len(), 2);
        assert_eq!(Size::I64.instructions(), "64");
        assert_eq!(Size::Max.instructions(), "4096");
        let docker: usize = Size::Docker.instructions().parse().unwrap();
        assert!(docker > 300 && docker <= MAX_INSNS, "{docker}");
    }
}
