//! ptrace(2), as the ptrace interception paths use it (`scenarios::intercept::ptrace`): the
//! tracee's side (TRACEME, stop), and the tracer's (options, resume, the stop's syscall, the
//! return register under SYSEMU).

use std::io;

/// The type of ptrace's request argument: glibc declares it unsigned, musl signed.
#[cfg(target_env = "musl")]
type Request = libc::c_int;
#[cfg(not(target_env = "musl"))]
type Request = libc::c_uint;

/// powerpc numbers it apart (0x1d, since Linux 4.20). A kernel without it for the
/// architecture answers EIO, and the scenario is skipped saying so.
#[cfg(not(target_arch = "powerpc64"))]
const PTRACE_SYSEMU: Request = 31;
#[cfg(target_arch = "powerpc64")]
const PTRACE_SYSEMU: Request = 0x1d;
const PTRACE_GET_SYSCALL_INFO: Request = 0x420e;
pub const PTRACE_SYSCALL_INFO_ENTRY: u8 = 1;
pub const PTRACE_SYSCALL_INFO_EXIT: u8 = 2;

/// `struct ptrace_syscall_info` (include/uapi/linux/ptrace.h) with its union as the entry
/// stop's member, the largest one padded (musl's libc bindings have none).
#[repr(C)]
#[derive(Default)]
struct SyscallInfo {
    op: u8,
    pad: [u8; 3],
    arch: u32,
    instruction_pointer: u64,
    stack_pointer: u64,
    /// `entry.nr`
    nr: u64,
    args: [u64; 6],
    /// `seccomp.ret_data`, and the padding to the union's size.
    ret_data: [u32; 2],
}
/// How the tracer resumes its stopped tracee.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resume {
    /// PTRACE_SYSCALL: stop at the next syscall entry or exit.
    Syscall,
    /// PTRACE_SYSEMU: stop at the next syscall entry, and skip the call.
    Sysemu,
}

/// PTRACE_TRACEME: the parent traces the calling process from now on.
pub fn traceme() -> io::Result<()> {
    // SAFETY: takes no pointer.
    if unsafe { libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Stops the calling process with SIGSTOP (its tracer sees the stop).
pub fn stop_self() {
    // SAFETY: sends a signal; no memory is involved.
    unsafe { libc::kill(libc::getpid(), libc::SIGSTOP) };
}

/// PTRACE_SETOPTIONS on a stopped tracee.
pub fn set_options(pid: libc::pid_t, opts: libc::c_int) -> io::Result<()> {
    // SAFETY: the options are passed by value; no memory of ours is written.
    if unsafe { libc::ptrace(libc::PTRACE_SETOPTIONS, pid, 0, opts) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Resumes a stopped tracee, delivering `signal` (0: none).
pub fn resume(how: Resume, pid: libc::pid_t, signal: libc::c_int) -> io::Result<()> {
    let req = match how {
        Resume::Syscall => libc::PTRACE_SYSCALL,
        Resume::Sysemu => PTRACE_SYSEMU,
    };
    // SAFETY: the signal is passed by value; no memory of ours is written.
    if unsafe { libc::ptrace(req, pid, 0, signal) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// (op, syscall number) of the tracee's current stop.
pub fn syscall_info(pid: libc::pid_t) -> io::Result<(u8, libc::c_long)> {
    let mut info = SyscallInfo::default();
    let size = std::mem::size_of::<SyscallInfo>();
    // SAFETY: buffer of `size` bytes.
    let n = unsafe {
        libc::ptrace(
            PTRACE_GET_SYSCALL_INFO,
            pid,
            size,
            &mut info as *mut SyscallInfo,
        )
    };
    if n < 0 {
        return Err(io::Error::last_os_error());
    }
    // `nr` is the entry stop's; for other stops only `op` is used.
    let nr = info.nr as libc::c_long;
    Ok((info.op, nr))
}

/// Sets the tracee's syscall return register (at a SYSEMU entry stop).
#[cfg(target_arch = "x86_64")]
pub fn set_return(pid: libc::pid_t, value: i64) -> Result<(), SetReturnError> {
    let off = std::mem::offset_of!(libc::user_regs_struct, rax);
    // SAFETY: POKEUSER into the register area of our stopped tracee.
    if unsafe { libc::ptrace(libc::PTRACE_POKEUSER, pid, off, value) } != 0 {
        return Err(set_return_error("PTRACE_POKEUSER(rax)"));
    }
    Ok(())
}

/// The request that failed, and why.
pub type SetReturnError = (&'static str, io::Error);

fn set_return_error(what: &'static str) -> SetReturnError {
    (what, io::Error::last_os_error())
}

/// Sets the tracee's syscall return (at a SYSEMU entry stop): r3 and CR0's summary-overflow bit,
/// the ppc ABI's error flag. Both: a kernel with the generic entry code (ppc64 from 7.0)
/// leaves SO as its skip of the call set it, where older ones derived it from r3 on the way
/// out — writing r3 alone returned every result as an error there.
#[cfg(target_arch = "powerpc64")]
pub fn set_return(pid: libc::pid_t, value: i64) -> Result<(), SetReturnError> {
    const PT_CCR: usize = 38;
    let word = std::mem::size_of::<libc::c_ulong>();
    // SAFETY: PEEKUSER of our stopped tracee's register area; -1 is told apart by errno.
    let ccr = unsafe {
        *libc::__errno_location() = 0;
        let v = libc::ptrace(libc::PTRACE_PEEKUSER, pid, PT_CCR * word, 0);
        if v == -1 && *libc::__errno_location() != 0 {
            return Err(set_return_error("PTRACE_PEEKUSER(ccr)"));
        }
        v as libc::c_ulong
    };
    let mut regs = [0 as libc::c_ulong; PT_CCR + 1];
    regs[PT_CCR] = ccr;
    super::syscall::set_ppc_syscall_return(&mut regs, value);
    for (i, what) in [(3, "PTRACE_POKEUSER(r3)"), (PT_CCR, "PTRACE_POKEUSER(ccr)")] {
        // SAFETY: POKEUSER into the register area of our stopped tracee.
        if unsafe { libc::ptrace(libc::PTRACE_POKEUSER, pid, i * word, regs[i]) } != 0 {
            return Err(set_return_error(what));
        }
    }
    Ok(())
}

/// Sets the tracee's syscall return register (at a SYSEMU entry stop): x0 on arm64, a0 on
/// riscv64.
#[cfg(any(target_arch = "aarch64", target_arch = "riscv64"))]
pub fn set_return(pid: libc::pid_t, value: i64) -> Result<(), SetReturnError> {
    // SAFETY: GETREGSET/SETREGSET of NT_PRSTATUS on our stopped tracee with a matching iovec.
    unsafe {
        let mut regs: libc::user_regs_struct = std::mem::zeroed();
        let mut iov = libc::iovec {
            iov_base: &mut regs as *mut libc::user_regs_struct as *mut libc::c_void,
            iov_len: std::mem::size_of::<libc::user_regs_struct>(),
        };
        if libc::ptrace(libc::PTRACE_GETREGSET, pid, libc::NT_PRSTATUS, &mut iov) != 0 {
            return Err(set_return_error("PTRACE_GETREGSET"));
        }
        // Through the iovec's pointer: the kernel reads the registers from there.
        let regs = &mut *(iov.iov_base as *mut libc::user_regs_struct);
        #[cfg(target_arch = "aarch64")]
        {
            regs.regs[0] = value as u64;
        }
        #[cfg(target_arch = "riscv64")]
        {
            regs.a0 = value as libc::c_ulong;
        }
        if libc::ptrace(libc::PTRACE_SETREGSET, pid, libc::NT_PRSTATUS, &mut iov) != 0 {
            return Err(set_return_error("PTRACE_SETREGSET"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_syscall_info_is_the_kernels_size() {
        assert_eq!(std::mem::size_of::<SyscallInfo>(), 88);
        assert_eq!(std::mem::offset_of!(SyscallInfo, nr), 24);
    }
}
