//! The syscall instruction itself, per architecture, and the few calls the timed loops issue
//! with it. Always inlined: a call/return around the instruction costs tens of ns on kernels
//! with return-stack mitigations, and a safe wrapper here inlines into the same loop as the
//! instruction written in place (the loops are monomorphised in `harness` and the scenarios).
//!
//! The raw instruction is private: what leaves this module is a syscall that cannot touch the
//! process's memory other than through a buffer it borrows.

use std::marker::PhantomData;

/// The buffer `sysinfo` fills: larger than `struct sysinfo` (112 bytes on 64-bit).
#[derive(Clone, Copy)]
#[repr(C, align(8))]
pub struct SysinfoBuf([u8; 128]);

impl SysinfoBuf {
    pub fn new() -> SysinfoBuf {
        SysinfoBuf([0; 128])
    }
}

impl Default for SysinfoBuf {
    fn default() -> SysinfoBuf {
        SysinfoBuf::new()
    }
}

impl std::fmt::Debug for SysinfoBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SysinfoBuf")
    }
}

/// A syscall that takes no argument and writes no memory of the process: `getpid`, `getppid`,
/// `getuid`, `gettid`, `sched_yield`. Copy, so a timed loop keeps it in a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Query(libc::c_long);

impl Query {
    pub const GETPID: Query = Query(libc::SYS_getpid);
    pub const GETPPID: Query = Query(libc::SYS_getppid);
    pub const GETUID: Query = Query(libc::SYS_getuid);
    pub const GETTID: Query = Query(libc::SYS_gettid);
    pub const SCHED_YIELD: Query = Query(libc::SYS_sched_yield);

    /// `nr` if it is one of the above.
    pub fn new(nr: libc::c_long) -> Option<Query> {
        [
            Query::GETPID,
            Query::GETPPID,
            Query::GETUID,
            Query::GETTID,
            Query::SCHED_YIELD,
        ]
        .into_iter()
        .find(|q| q.0 == nr)
    }

    pub const fn nr(self) -> libc::c_long {
        self.0
    }

    /// Issues the syscall with the raw instruction; the raw kernel return (-errno on error).
    #[inline(always)]
    pub fn call(self) -> isize {
        // SAFETY: `new` admits only the syscalls above, which take no argument and write no
        // memory of the process.
        unsafe { raw_syscall0(self.0) }
    }

    /// `syscall(nr)` through the C library, as the kernel's benchmark issues it: its return
    /// (-1 with errno on error).
    #[inline]
    pub fn libc_call(self) -> libc::c_long {
        // SAFETY: as for `call`.
        unsafe { libc::syscall(self.0) }
    }
}

/// `getpgid(0)`.
#[inline(always)]
pub fn getpgid0() -> isize {
    // SAFETY: a query of the calling process's group; writes no memory.
    unsafe { raw_syscall1(libc::SYS_getpgid, 0) }
}

/// `personality(0xffffffff)`: the persona, unchanged.
#[inline(always)]
pub fn personality_query() -> isize {
    // SAFETY: 0xffffffff only queries the persona; writes no memory.
    unsafe { raw_syscall1(libc::SYS_personality, 0xffff_ffff) }
}

/// `sysinfo(buf)`.
#[inline(always)]
pub fn sysinfo(buf: &mut SysinfoBuf) -> isize {
    // SAFETY: the kernel writes a struct sysinfo (112 bytes) into the 128 bytes `buf` borrows.
    unsafe { raw_syscall1(libc::SYS_sysinfo, buf.0.as_mut_ptr() as usize) }
}

/// `close(dup(fd))`: the return of `close`, or -1 when `dup` failed. Only the descriptor `dup`
/// made is closed, so no descriptor anyone else owns is touched.
#[inline(always)]
pub fn dup_close(fd: i32) -> isize {
    // SAFETY: dup writes no memory and makes a descriptor nobody else knows of; close then
    // closes exactly that one.
    unsafe {
        let fd = raw_syscall1(libc::SYS_dup, fd as usize);
        if fd >= 0 {
            raw_syscall1(libc::SYS_close, fd as usize)
        } else {
            -1
        }
    }
}

/// `umask(mask)`: the previous mask.
#[inline(always)]
pub fn umask(mask: u32) -> isize {
    // SAFETY: umask only sets the process's file mode mask; it writes no memory.
    unsafe { raw_syscall1(libc::SYS_umask, mask as usize) }
}

/// A syscall number no architecture assigns: the kernel (or an interception) answers it
/// with -ENOSYS.
pub const UNASSIGNED: libc::c_long = 0xff00;

/// Issues [`UNASSIGNED`].
#[inline(always)]
pub fn unassigned() -> isize {
    // SAFETY: an unassigned number does nothing but fail.
    unsafe { raw_syscall0(UNASSIGNED) }
}

/// A probe syscall with its argument, owning the buffer `sysinfo` writes into.
#[derive(Debug)]
pub struct Call {
    nr: libc::c_long,
    buf: Box<SysinfoBuf>,
}

impl Call {
    /// `nr` with argument 0 if it is a [`Query`], `getpgid` (0: the caller's group) or
    /// `personality` (0: the default persona, which writes no memory), or `sysinfo` into a
    /// buffer of its own. None for any other syscall.
    pub fn new(nr: libc::c_long) -> Option<Call> {
        let known = Query::new(nr).is_some()
            || [libc::SYS_getpgid, libc::SYS_personality, libc::SYS_sysinfo].contains(&nr);
        known.then(|| Call {
            nr,
            buf: Box::default(),
        })
    }

    pub fn nr(&self) -> libc::c_long {
        self.nr
    }

    /// The call ready for a timed loop: number and argument by value (kept in registers),
    /// borrowing the buffer for as long as it is issued.
    #[inline(always)]
    pub fn issue(&mut self) -> Issue<'_> {
        let arg = if self.nr == libc::SYS_sysinfo {
            self.buf.0.as_mut_ptr() as usize
        } else {
            0
        };
        Issue {
            nr: self.nr,
            arg,
            _buf: PhantomData,
        }
    }
}

/// A [`Call`] as a loop issues it.
#[derive(Clone, Copy)]
pub struct Issue<'a> {
    nr: libc::c_long,
    arg: usize,
    _buf: PhantomData<&'a mut SysinfoBuf>,
}

impl Issue<'_> {
    /// Issues the syscall; the raw kernel return (-errno on error).
    #[inline(always)]
    pub fn call(self) -> isize {
        // SAFETY: a `Call` is one of the syscalls `Call::new` admits, with argument 0 (none
        // writes memory then) or `sysinfo` into the buffer this value borrows (`Call::issue`),
        // alive and large enough.
        unsafe { raw_syscall1(self.nr, self.arg) }
    }
}

/// Issues syscall `nr` with no arguments; returns the raw kernel return (-errno on error).
///
/// # Safety
/// The caller must make sure the syscall is harmless to the process.
#[inline(always)]
unsafe fn raw_syscall0(nr: libc::c_long) -> isize {
    raw_syscall1(nr, 0)
}

/// Issues syscall `nr` with one argument.
///
/// # Safety
/// The caller must make sure the syscall and argument are harmless to the process.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn raw_syscall1(nr: libc::c_long, a0: usize) -> isize {
    let ret: isize;
    // `syscall` clobbers rcx (return rip) and r11 (rflags). No `nomem`: the compiler must assume
    // memory changed, so the call is neither hoisted out of the loop nor merged.
    core::arch::asm!(
        "syscall",
        inlateout("rax") nr as isize => ret,
        in("rdi") a0,
        lateout("rcx") _,
        lateout("r11") _,
        options(nostack),
    );
    ret
}

/// Issues syscall `nr` with one argument.
///
/// # Safety
/// The caller must make sure the syscall and argument are harmless to the process.
#[cfg(target_arch = "aarch64")]
#[inline(always)]
unsafe fn raw_syscall1(nr: libc::c_long, a0: usize) -> isize {
    let ret: isize;
    core::arch::asm!(
        "svc #0",
        in("x8") nr,
        inlateout("x0") a0 as isize => ret,
        options(nostack),
    );
    ret
}

/// Issues syscall `nr` with one argument.
///
/// # Safety
/// The caller must make sure the syscall and argument are harmless to the process.
#[cfg(target_arch = "riscv64")]
#[inline(always)]
unsafe fn raw_syscall1(nr: libc::c_long, a0: usize) -> isize {
    let ret: isize;
    core::arch::asm!(
        "ecall",
        in("a7") nr,
        inlateout("a0") a0 as isize => ret,
        options(nostack),
    );
    ret
}

/// Issues syscall `nr` with one argument. `sc` reports an error by setting CR0's summary
/// overflow bit with a positive errno in r3; it is negated here (as the C libraries do), so the
/// return is -errno as on the other architectures. The kernel may change r0 and r4–r12, CTR,
/// XER and CR0 (the syscall ABI's volatile registers).
///
/// # Safety
/// The caller must make sure the syscall and argument are harmless to the process.
#[cfg(target_arch = "powerpc64")]
#[inline(always)]
unsafe fn raw_syscall1(nr: libc::c_long, a0: usize) -> isize {
    let ret: isize;
    core::arch::asm!(
        "sc",
        "bns+ 2f",
        "neg 3, 3",
        "2:",
        inlateout("r0") nr => _,
        inlateout("r3") a0 as isize => ret,
        lateout("r4") _,
        lateout("r5") _,
        lateout("r6") _,
        lateout("r7") _,
        lateout("r8") _,
        lateout("r9") _,
        lateout("r10") _,
        lateout("r11") _,
        lateout("r12") _,
        lateout("cr0") _,
        lateout("ctr") _,
        lateout("xer") _,
        options(nostack),
    );
    ret
}

/// Writes a syscall's result into ppc64 registers (a signal context's or ptrace's `gpr` array,
/// `struct pt_regs` order) the way the kernel returns it: an error as a positive errno in r3
/// with CR0's summary-overflow bit set, a success with it clear.
#[cfg(target_arch = "powerpc64")]
pub fn set_ppc_syscall_return(gpr: &mut [libc::c_ulong], ret: libc::c_long) {
    /// `PT_CCR`, and CR0.SO within it.
    const CCR: usize = 38;
    const SO: libc::c_ulong = 0x1000_0000;
    if (-4095..0).contains(&ret) {
        gpr[3] = (-ret) as libc::c_ulong;
        gpr[CCR] |= SO;
    } else {
        gpr[3] = ret as libc::c_ulong;
        gpr[CCR] &= !SO;
    }
}

/// Returns `v` through an empty asm block the optimiser cannot see through: the `null`
/// scenario's stand-in for the syscall, with the same memory clobber.
#[inline(always)]
pub fn opaque(mut v: i64) -> i64 {
    // SAFETY: an empty instruction sequence.
    unsafe { core::arch::asm!("/* {0} */", inout(reg) v, options(nostack)) };
    v
}
