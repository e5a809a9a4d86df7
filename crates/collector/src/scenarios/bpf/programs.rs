//! syscost's BPF programs: one per attach type, each counting the calls made by the measuring
//! worker in a one-element array map. Built from instructions (no compiler, no object file);
//! each is shown beside the C it is the equivalent of.
//!
//! The worker's configuration is written into the instructions as immediates, so the verifier
//! knows it exactly and the tgid test costs one compare. The counter has one writer only (the
//! worker is single-threaded and pinned to one CPU), so a plain increment is exact and avoids a
//! locked instruction in the measured path.

use super::kind::Kind;
use crate::sys::bpf::insn::{
    add64_imm, call, exit, jne_imm, ld_map_value, ldx_dw, mov64_imm, rsh64_imm, stx_dw, Asm,
    AsmError, BPF_FUNC_get_current_pid_tgid, Insn, R0, R1, R2,
};
use crate::sys::bpf::{AttachType, ProgType};
use std::ffi::CStr;

/// GPL-compatible, as tracing helpers require.
pub const LICENSE: &CStr = c"Dual MIT/GPL";

/// What a program is told about its worker.
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// Only this process's calls count (and, for fmod_ret, are rewritten).
    pub tgid: u32,
    /// Syscall number the raw tracepoint filters on.
    pub nr: i64,
    /// What fmod_ret returns for the worker's calls.
    pub ret: i64,
}

/// Why a program cannot be built for this configuration.
#[derive(Debug, thiserror::Error)]
pub enum ProgramError {
    #[error("{what} {value} does not fit a 32-bit immediate")]
    Immediate { what: &'static str, value: i64 },
    #[error(transparent)]
    Asm(#[from] AsmError),
}

fn imm(what: &'static str, value: i64) -> Result<i32, ProgramError> {
    i32::try_from(value).map_err(|_| ProgramError::Immediate { what, value })
}

/// The program type and expected attach type of a kind.
pub fn types(kind: Kind) -> (ProgType, AttachType) {
    match kind {
        Kind::Tp => (ProgType::Tracepoint, AttachType::Unspecified),
        Kind::RawTp => (ProgType::RawTracepoint, AttachType::Unspecified),
        Kind::Kprobe | Kind::Kretprobe | Kind::Uprobe | Kind::Uretprobe => {
            (ProgType::Kprobe, AttachType::Unspecified)
        }
        Kind::KprobeMulti => (ProgType::Kprobe, AttachType::TraceKprobeMulti),
        Kind::Fentry => (ProgType::Tracing, AttachType::TraceFentry),
        Kind::Fexit => (ProgType::Tracing, AttachType::TraceFexit),
        Kind::Fmodret => (ProgType::Tracing, AttachType::ModifyReturn),
    }
}

/// ```c
/// if ((bpf_get_current_pid_tgid() >> 32) != cfg.tgid)
///         goto skip;
/// ```
fn unless_mine(a: &mut Asm, tgid: i32, skip: &'static str) {
    a.emit([call(BPF_FUNC_get_current_pid_tgid), rsh64_imm(R0, 32)]);
    a.jump(jne_imm(R0, tgid, 0), skip);
}

/// ```c
/// hits++;
/// ```
fn count_hit(a: &mut Asm, hits_fd: i32) {
    a.emit(ld_map_value(R1, hits_fd, 0));
    a.emit([ldx_dw(R2, R1, 0), add64_imm(R2, 1), stx_dw(R1, 0, R2)]);
}

/// The instructions of `kind`'s program; `hits_fd` is the counter map's descriptor.
pub fn program(kind: Kind, cfg: &Config, hits_fd: i32) -> Result<Vec<Insn>, ProgramError> {
    let tgid = imm("tgid", cfg.tgid.into())?;
    let mut a = Asm::new();
    match kind {
        // SEC("raw_tp") int syscost_rawtp(__u64 *ctx)
        // {
        //         if (ctx[1] != cfg.nr)            /* sys_enter(regs, id): every syscall */
        //                 return 0;
        //         if ((bpf_get_current_pid_tgid() >> 32) == cfg.tgid)
        //                 hits++;
        //         return 0;
        // }
        Kind::RawTp => {
            a.emit([ldx_dw(R1, R1, 8)]);
            a.jump(jne_imm(R1, imm("syscall number", cfg.nr)?, 0), "out");
            unless_mine(&mut a, tgid, "out");
            count_hit(&mut a, hits_fd);
            a.label("out").emit([mov64_imm(R0, 0), exit()]);
        }
        // SEC("fmod_ret") int syscost_fmodret(void *ctx)
        // {
        //         if ((bpf_get_current_pid_tgid() >> 32) != cfg.tgid)
        //                 return 0;                /* everyone else's calls run normally */
        //         hits++;
        //         return cfg.ret;                  /* non-zero: the body is skipped */
        // }
        Kind::Fmodret => {
            unless_mine(&mut a, tgid, "out");
            count_hit(&mut a, hits_fd);
            a.emit([mov64_imm(R0, imm("return value", cfg.ret)?), exit()]);
            a.label("out").emit([mov64_imm(R0, 0), exit()]);
        }
        // SEC("tracepoint"), SEC("kprobe"), SEC("kretprobe"), SEC("kprobe.multi"),
        // SEC("fentry"), SEC("fexit"), SEC("uprobe"), SEC("uretprobe"):
        // int syscost_<kind>(void *ctx)
        // {
        //         if ((bpf_get_current_pid_tgid() >> 32) == cfg.tgid)
        //                 hits++;
        //         return 0;                        /* tracepoints must return 0 (Linux ≥ 6.8) */
        // }
        Kind::Tp
        | Kind::Kprobe
        | Kind::Kretprobe
        | Kind::KprobeMulti
        | Kind::Fentry
        | Kind::Fexit
        | Kind::Uprobe
        | Kind::Uretprobe => {
            unless_mine(&mut a, tgid, "out");
            count_hit(&mut a, hits_fd);
            a.label("out").emit([mov64_imm(R0, 0), exit()]);
        }
    }
    Ok(a.finish()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::bpf::insn::{Reg, BPF_PSEUDO_MAP_VALUE};

    const HITS_FD: i32 = 42;

    /// A value in the interpreter: a number, or a pointer into the context or the counter.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Val {
        Num(u64),
        Ctx(i64),
        Hits(i64),
    }

    /// Runs a program of the instructions used above, as the kernel would: `ctx` the context
    /// (u64 words), `pid_tgid` what the helper returns. Returns (r0, the counter).
    fn run(p: &[Insn], ctx: &[u64], pid_tgid: u64) -> (u64, u64) {
        let mut r = [Val::Num(0); 11];
        r[1] = Val::Ctx(0);
        let mut hits = 0u64;
        let mut pc = 0usize;
        let num = |v: Val| match v {
            Val::Num(n) => n,
            other => panic!("pointer {other:?} used as a number"),
        };
        let reg = |x: Reg| x.0 as usize;
        for _ in 0..1000 {
            let i = p[pc];
            let (d, s) = (reg(i.dst()), reg(i.src()));
            pc += 1;
            match i.code {
                0xb7 => r[d] = Val::Num(i.imm as i64 as u64),
                0xbf => r[d] = r[s],
                0x07 => r[d] = Val::Num(num(r[d]).wrapping_add(i.imm as i64 as u64)),
                0x77 => r[d] = Val::Num(num(r[d]) >> i.imm),
                0x79 => {
                    r[d] = match r[s] {
                        Val::Ctx(o) => Val::Num(ctx[((o + i.off as i64) / 8) as usize]),
                        Val::Hits(0) if i.off == 0 => Val::Num(hits),
                        other => panic!("load from {other:?}"),
                    }
                }
                0x7b => match r[d] {
                    Val::Hits(0) if i.off == 0 => hits = num(r[s]),
                    other => panic!("store to {other:?}"),
                },
                0x18 => {
                    assert_eq!(i.src().0, BPF_PSEUDO_MAP_VALUE);
                    assert_eq!(i.imm, HITS_FD, "the program names the counter map");
                    r[d] = Val::Hits(p[pc].imm as i64);
                    pc += 1;
                }
                0x85 => {
                    assert_eq!(i.imm, BPF_FUNC_get_current_pid_tgid);
                    r[0] = Val::Num(pid_tgid);
                }
                0x55 => {
                    if num(r[d]) != i.imm as i64 as u64 {
                        pc = (pc as i64 + i.off as i64) as usize;
                    }
                }
                0x95 => return (num(r[0]), hits),
                c => panic!("instruction {c:#x} not interpreted"),
            }
        }
        panic!("the program did not end");
    }

    const CFG: Config = Config {
        tgid: 4242,
        nr: 39,
        ret: -22,
    };
    const MINE: u64 = (4242 << 32) | 4243;
    const OTHERS: u64 = (77 << 32) | 4242;

    #[test]
    fn every_program_counts_only_its_workers_calls() {
        for kind in Kind::ALL {
            let p = program(kind, &CFG, HITS_FD).unwrap();
            let ctx = [0, CFG.nr as u64];
            let expected_ret = if kind == Kind::Fmodret {
                -22i64 as u64
            } else {
                0
            };
            assert_eq!(run(&p, &ctx, MINE), (expected_ret, 1), "{kind:?}");
            assert_eq!(run(&p, &ctx, OTHERS), (0, 0), "{kind:?}");
        }
    }

    #[test]
    fn the_raw_tracepoint_counts_only_its_syscall() {
        let p = program(Kind::RawTp, &CFG, HITS_FD).unwrap();
        assert_eq!(run(&p, &[0, 40], MINE), (0, 0));
        assert_eq!(run(&p, &[0, 39], MINE), (0, 1));
    }

    #[test]
    fn a_configuration_that_does_not_fit_is_an_error() {
        let cfg = Config { nr: 1 << 40, ..CFG };
        let e = program(Kind::RawTp, &cfg, HITS_FD).unwrap_err();
        assert!(e.to_string().contains("syscall number"), "{e}");
    }
}
