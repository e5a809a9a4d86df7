//! The filters whose attach cost is measured, by size.
//!
//! The 64- and 4096-instruction filters are deny-lists of syscall numbers no kernel uses (from
//! 1000 up), so every real syscall walks the whole list before reaching ALLOW: the longest
//! path the kernel's attach-time cache builder can meet. Their `nocache` twins differ in the
//! first instruction only — a load of `args[0]` instead of `arch` — which makes the builder give
//! up on every syscall at once: the difference between the two is the cache-building cost.

use crate::scenarios::seccomp::{profile_program, Filter};
use libc::sock_filter;

const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const RET_K: u16 = 0x06;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_EPERM: u32 = 0x0005_0000 | libc::EPERM as u32;
/// offsetof(struct seccomp_data, ...): nr 0, arch 4, args[0] 16.
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const OFF_ARGS0: u32 = 16;
/// The kernel's BPF_MAXINSNS.
pub const MAX_INSNS: usize = 4096;
/// First syscall number of the deny-lists: above every real one on x86_64 and aarch64.
const FIRST_UNUSED_NR: u32 = 1000;

fn insn(code: u16, jt: u8, jf: u8, k: u32) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// A deny-list filter of exactly `len` instructions (4 ≤ len ≤ 4096).
pub fn chain(len: usize, cacheable: bool) -> Vec<sock_filter> {
    assert!((4..=MAX_INSNS).contains(&len), "chain length {len}");
    let first = if cacheable { OFF_ARCH } else { OFF_ARGS0 };
    let mut p = vec![insn(LD_W_ABS, 0, 0, first), insn(LD_W_ABS, 0, 0, OFF_NR)];
    let mut nr = FIRST_UNUSED_NR;
    while p.len() + 3 <= len {
        p.push(insn(JEQ_K, 0, 1, nr));
        p.push(insn(RET_K, 0, 0, RET_EPERM));
        nr += 1;
    }
    if p.len() + 2 == len {
        p.push(insn(LD_W_ABS, 0, 0, OFF_NR)); // padding: reload nr
    }
    p.push(insn(RET_K, 0, 0, RET_ALLOW));
    p
}

/// Converts seccompiler's instructions to libc's (same layout, different type).
pub fn from_seccompiler(p: &[seccompiler::sock_filter]) -> Vec<sock_filter> {
    p.iter().map(|i| insn(i.code, i.jt, i.jf, i.k)).collect()
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

    pub fn program(self, cacheable: bool) -> Result<Vec<sock_filter>, String> {
        Ok(match self {
            Size::Two => {
                let p = Filter::ConstAllow.program()?;
                from_seccompiler(&p)
            }
            Size::I64 => chain(64, cacheable),
            Size::Docker => from_seccompiler(&profile_program()?),
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

    /// Classic BPF on (nr, arch, args[0]) for the opcodes the chains use.
    fn eval(p: &[sock_filter], nr: u32, arch: u32, arg0: u32) -> u32 {
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let i = p[pc];
            match (i.code, i.k) {
                (LD_W_ABS, OFF_NR) => acc = nr,
                (LD_W_ABS, OFF_ARCH) => acc = arch,
                (LD_W_ABS, OFF_ARGS0) => acc = arg0,
                (JEQ_K, k) => pc += if acc == k { i.jt } else { i.jf } as usize,
                (RET_K, k) => return k,
                other => panic!("unexpected instruction {other:?}"),
            }
            pc += 1;
        }
    }

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
