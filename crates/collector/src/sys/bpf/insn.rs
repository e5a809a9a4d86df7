//! eBPF instructions, built by name: each helper is one of the kernel's `BPF_*` instruction
//! macros (include/linux/filter.h), so a program reads like the verifier's own listing.
//! [`Asm`] adds labels, so jumps name where they go instead of counting instructions.

use std::collections::BTreeMap;

// The register fields are packed for a little-endian host (`dst_reg` in the low nibble).
#[cfg(target_endian = "big")]
compile_error!("the eBPF instruction encoding here assumes a little-endian host");

/// One eBPF instruction, as `struct bpf_insn`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Insn {
    pub code: u8,
    /// `dst_reg` (low nibble) and `src_reg` (high nibble).
    pub regs: u8,
    pub off: i16,
    pub imm: i32,
}

impl Insn {
    const fn new(code: u8, dst: Reg, src: Reg, off: i16, imm: i32) -> Insn {
        Insn {
            code,
            regs: (src.0 << 4) | dst.0,
            off,
            imm,
        }
    }
    pub fn dst(self) -> Reg {
        Reg(self.regs & 0x0f)
    }
    pub fn src(self) -> Reg {
        Reg(self.regs >> 4)
    }
}

/// A register: R0 (return value, helper result), R1–R5 (arguments, R1 the context on entry),
/// R6–R9 (kept across calls), R10 (frame pointer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Reg(pub u8);

pub const R0: Reg = Reg(0);
pub const R1: Reg = Reg(1);
pub const R2: Reg = Reg(2);
pub const R3: Reg = Reg(3);
pub const R6: Reg = Reg(6);

// Instruction classes, sizes, modes, operations and sources (include/uapi/linux/bpf_common.h
// and bpf.h).
pub const BPF_LD: u8 = 0x00;
pub const BPF_LDX: u8 = 0x01;
pub const BPF_STX: u8 = 0x03;
pub const BPF_JMP: u8 = 0x05;
pub const BPF_ALU64: u8 = 0x07;
pub const BPF_W: u8 = 0x00;
pub const BPF_DW: u8 = 0x18;
pub const BPF_IMM: u8 = 0x00;
pub const BPF_MEM: u8 = 0x60;
pub const BPF_ADD: u8 = 0x00;
pub const BPF_RSH: u8 = 0x70;
pub const BPF_MOV: u8 = 0xb0;
pub const BPF_JNE: u8 = 0x50;
pub const BPF_CALL: u8 = 0x80;
pub const BPF_EXIT: u8 = 0x90;
pub const BPF_K: u8 = 0x00;
pub const BPF_X: u8 = 0x08;
/// `src_reg` of a 64-bit immediate load that the kernel replaces by the address of a map's
/// value (`imm` of the first half: the map's fd; of the second: the offset into the value).
pub const BPF_PSEUDO_MAP_VALUE: u8 = 2;

/// Helper function ids (`enum bpf_func_id`), under the kernel's names.
#[allow(non_upper_case_globals)]
pub const BPF_FUNC_get_current_pid_tgid: i32 = 14;

/// `dst = imm` (64-bit, `imm` sign-extended): BPF_MOV64_IMM.
pub const fn mov64_imm(dst: Reg, imm: i32) -> Insn {
    Insn::new(BPF_ALU64 | BPF_MOV | BPF_K, dst, R0, 0, imm)
}

/// `dst = src`: BPF_MOV64_REG.
pub const fn mov64_reg(dst: Reg, src: Reg) -> Insn {
    Insn::new(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0)
}

/// `dst += imm`: BPF_ALU64_IMM(BPF_ADD, ...).
pub const fn add64_imm(dst: Reg, imm: i32) -> Insn {
    Insn::new(BPF_ALU64 | BPF_ADD | BPF_K, dst, R0, 0, imm)
}

/// `dst >>= imm` (logical): BPF_ALU64_IMM(BPF_RSH, ...).
pub const fn rsh64_imm(dst: Reg, imm: i32) -> Insn {
    Insn::new(BPF_ALU64 | BPF_RSH | BPF_K, dst, R0, 0, imm)
}

/// `dst = *(u64 *)(src + off)`: BPF_LDX_MEM(BPF_DW, ...).
pub const fn ldx_dw(dst: Reg, src: Reg, off: i16) -> Insn {
    Insn::new(BPF_LDX | BPF_MEM | BPF_DW, dst, src, off, 0)
}

/// `dst = *(u32 *)(src + off)`: BPF_LDX_MEM(BPF_W, ...).
pub const fn ldx_w(dst: Reg, src: Reg, off: i16) -> Insn {
    Insn::new(BPF_LDX | BPF_MEM | BPF_W, dst, src, off, 0)
}

/// `*(u64 *)(dst + off) = src`: BPF_STX_MEM(BPF_DW, ...).
pub const fn stx_dw(dst: Reg, off: i16, src: Reg) -> Insn {
    Insn::new(BPF_STX | BPF_MEM | BPF_DW, dst, src, off, 0)
}

/// `dst = &value_of(map_fd)[off]`, two instructions: BPF_LD_MAP_VALUE.
pub const fn ld_map_value(dst: Reg, map_fd: i32, off: i32) -> [Insn; 2] {
    [
        Insn::new(
            BPF_LD | BPF_DW | BPF_IMM,
            dst,
            Reg(BPF_PSEUDO_MAP_VALUE),
            0,
            map_fd,
        ),
        Insn::new(0, R0, R0, 0, off),
    ]
}

/// `r0 = helper(r1, ..., r5)`: BPF_EMIT_CALL.
pub const fn call(helper: i32) -> Insn {
    Insn::new(BPF_JMP | BPF_CALL, R0, R0, 0, helper)
}

/// `return r0`: BPF_EXIT_INSN.
pub const fn exit() -> Insn {
    Insn::new(BPF_JMP | BPF_EXIT, R0, R0, 0, 0)
}

/// `if dst != imm goto +off`: BPF_JMP_IMM(BPF_JNE, ...).
pub const fn jne_imm(dst: Reg, imm: i32, off: i16) -> Insn {
    Insn::new(BPF_JMP | BPF_JNE | BPF_K, dst, R0, off, imm)
}

/// `if dst != src goto +off`: BPF_JMP_REG(BPF_JNE, ...).
pub const fn jne_reg(dst: Reg, src: Reg, off: i16) -> Insn {
    Insn::new(BPF_JMP | BPF_JNE | BPF_X, dst, src, off, 0)
}

/// Why a program could not be assembled (a mistake in the program's code, not in its input).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AsmError {
    #[error("jump to undefined label {0}")]
    Undefined(&'static str),
    #[error("label {0} defined twice")]
    Twice(&'static str),
    #[error("jump to {0} is out of range")]
    Range(&'static str),
}

/// A program under construction: instructions and labels, jumps resolved by [`Asm::finish`].
#[derive(Debug, Default)]
pub struct Asm {
    insns: Vec<Insn>,
    labels: BTreeMap<&'static str, usize>,
    /// (index of a jump, the label it goes to)
    jumps: Vec<(usize, &'static str)>,
    twice: Option<&'static str>,
}

impl Asm {
    pub fn new() -> Asm {
        Asm::default()
    }

    /// Appends instructions.
    pub fn emit(&mut self, insns: impl IntoIterator<Item = Insn>) -> &mut Asm {
        self.insns.extend(insns);
        self
    }

    /// Appends a jump (made with offset 0) that goes to `label`.
    pub fn jump(&mut self, insn: Insn, label: &'static str) -> &mut Asm {
        self.jumps.push((self.insns.len(), label));
        self.insns.push(insn);
        self
    }

    /// Marks where the next instruction will be.
    pub fn label(&mut self, name: &'static str) -> &mut Asm {
        if self.labels.insert(name, self.insns.len()).is_some() {
            self.twice = Some(name);
        }
        self
    }

    pub fn finish(mut self) -> Result<Vec<Insn>, AsmError> {
        if let Some(l) = self.twice {
            return Err(AsmError::Twice(l));
        }
        for (at, label) in self.jumps {
            let to = *self.labels.get(label).ok_or(AsmError::Undefined(label))?;
            // Offsets count from the instruction after the jump.
            let off = to as i64 - at as i64 - 1;
            self.insns[at].off = i16::try_from(off).map_err(|_| AsmError::Range(label))?;
        }
        Ok(self.insns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(i: Insn) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0] = i.code;
        b[1] = i.regs;
        b[2..4].copy_from_slice(&i.off.to_le_bytes());
        b[4..8].copy_from_slice(&i.imm.to_le_bytes());
        b
    }

    #[test]
    fn instructions_encode_as_the_kernel_macros_do() {
        // As clang emits them for `r0 >>= 32`, `call 14`, `exit`, `r2 = *(u64 *)(r1 + 0)`,
        // `*(u64 *)(r1 + 0) = r2`, `r2 += 1`, `if r0 != r1 goto +5`, `r1 = r0`.
        assert_eq!(bytes(rsh64_imm(R0, 32)), [0x77, 0x00, 0, 0, 32, 0, 0, 0]);
        assert_eq!(
            bytes(call(BPF_FUNC_get_current_pid_tgid)),
            [0x85, 0, 0, 0, 14, 0, 0, 0]
        );
        assert_eq!(bytes(exit()), [0x95, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bytes(ldx_dw(R2, R1, 0)), [0x79, 0x12, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bytes(ldx_w(R1, R6, 4)), [0x61, 0x61, 4, 0, 0, 0, 0, 0]);
        assert_eq!(bytes(stx_dw(R1, 0, R2)), [0x7b, 0x21, 0, 0, 0, 0, 0, 0]);
        assert_eq!(bytes(add64_imm(R2, 1)), [0x07, 0x02, 0, 0, 1, 0, 0, 0]);
        assert_eq!(bytes(jne_reg(R0, R1, 5)), [0x5d, 0x10, 5, 0, 0, 0, 0, 0]);
        assert_eq!(bytes(jne_imm(R1, 39, 2)), [0x55, 0x01, 2, 0, 39, 0, 0, 0]);
        assert_eq!(bytes(mov64_reg(R1, R0)), [0xbf, 0x01, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            bytes(mov64_imm(R0, -22)),
            [0xb7, 0, 0, 0, 0xea, 0xff, 0xff, 0xff]
        );
        let [a, b] = ld_map_value(R1, 7, 0);
        assert_eq!(bytes(a), [0x18, 0x21, 0, 0, 7, 0, 0, 0]);
        assert_eq!(bytes(b), [0; 8]);
        assert_eq!(std::mem::size_of::<Insn>(), 8);
    }

    #[test]
    fn jumps_go_to_their_labels() {
        let mut a = Asm::new();
        a.jump(jne_imm(R0, 1, 0), "out")
            .emit(ld_map_value(R1, 3, 0))
            .emit([exit()])
            .label("out")
            .emit([mov64_imm(R0, 0), exit()]);
        let p = a.finish().unwrap();
        // From the jump at 0 past the two-slot load and the exit: +3.
        assert_eq!(p[0].off, 3);
        assert_eq!(p.len(), 6);

        let mut back = Asm::new();
        back.label("top").jump(jne_imm(R0, 0, 0), "top");
        assert_eq!(back.finish().unwrap()[0].off, -1);

        let mut bad = Asm::new();
        bad.jump(jne_imm(R0, 0, 0), "nowhere");
        assert_eq!(bad.finish(), Err(AsmError::Undefined("nowhere")));
        let mut twice = Asm::new();
        twice.label("x").label("x");
        assert_eq!(twice.finish(), Err(AsmError::Twice("x")));
    }
}
