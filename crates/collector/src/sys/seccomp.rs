//! Classic-BPF seccomp filters: the instructions the scenarios build their filters from, and
//! the one installer (NO_NEW_PRIVS, then `seccomp(SECCOMP_SET_MODE_FILTER, flags, prog)`).
//! seccompiler compiles the Docker-like JSON profile; [`from_seccompiler`] makes its output one
//! of these programs.

use libc::{c_long, c_ulong, sock_filter, sock_fprog};

/// One classic-BPF instruction.
pub type Insn = sock_filter;

/// BPF_LD | BPF_W | BPF_ABS: load a 32-bit word of `struct seccomp_data`.
pub const LD_W_ABS: u16 = 0x20;
/// BPF_JMP | BPF_JEQ | BPF_K
pub const JEQ_K: u16 = 0x15;
/// BPF_RET | BPF_K
pub const RET_K: u16 = 0x06;

/// offsetof(struct seccomp_data, nr)
pub const OFF_NR: u32 = 0;
/// offsetof(struct seccomp_data, arch)
pub const OFF_ARCH: u32 = 4;
/// offsetof(struct seccomp_data, args[0]): nr (4) + arch (4) + instruction_pointer (8).
pub const OFF_ARGS0: u32 = 16;

pub const RET_ALLOW: u32 = libc::SECCOMP_RET_ALLOW;

const fn insn(code: u16, jt: u8, jf: u8, k: u32) -> Insn {
    sock_filter { code, jt, jf, k }
}

/// `ld [nr]`
pub const fn load_nr() -> Insn {
    insn(LD_W_ABS, 0, 0, OFF_NR)
}

/// `ld [arch]`
pub const fn load_arch() -> Insn {
    insn(LD_W_ABS, 0, 0, OFF_ARCH)
}

/// `ld [args[0]]` (its low word): a filter that loads an argument defeats the action cache.
pub const fn load_arg0() -> Insn {
    insn(LD_W_ABS, 0, 0, OFF_ARGS0)
}

/// `jeq #k, +jt, +jf`: skip `jt` instructions if the accumulator is `k`, else `jf`.
pub const fn jeq(k: u32, jt: u8, jf: u8) -> Insn {
    insn(JEQ_K, jt, jf, k)
}

/// `ret #action`
pub const fn ret(action: u32) -> Insn {
    insn(RET_K, 0, 0, action)
}

/// seccompiler's instructions as ours (the same layout, another type).
pub fn from_seccompiler(p: &[seccompiler::sock_filter]) -> Vec<Insn> {
    p.iter().map(|i| insn(i.code, i.jt, i.jf, i.k)).collect()
}

/// Why a filter could not be installed; the errno says whether the kernel lacks the feature
/// or refused this filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SeccompError {
    #[error("prctl(PR_SET_NO_NEW_PRIVS) failed: {}", std::io::Error::from_raw_os_error(*.0))]
    NoNewPrivs(i32),
    #[error("seccomp(SECCOMP_SET_MODE_FILTER) failed: {}", std::io::Error::from_raw_os_error(*.0))]
    Refused(i32),
}

impl SeccompError {
    pub fn errno(self) -> i32 {
        match self {
            SeccompError::NoNewPrivs(e) | SeccompError::Refused(e) => e,
        }
    }
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// Sets NO_NEW_PRIVS, which unprivileged filters need; the callers never exec, so it changes
/// nothing else.
pub fn no_new_privs() -> Result<(), SeccompError> {
    // SAFETY: plain prctl.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(SeccompError::NoNewPrivs(errno()));
    }
    Ok(())
}

/// `seccomp(SECCOMP_SET_MODE_FILTER, flags, prog)` alone, NO_NEW_PRIVS already set: what the
/// attach scenarios time. Returns what seccomp() returned: 0, the listener fd with
/// SECCOMP_FILTER_FLAG_NEW_LISTENER, or with TSYNC the id of a thread it could not synchronise.
#[inline]
pub fn attach(prog: &[Insn], flags: c_ulong) -> Result<c_long, SeccompError> {
    let fprog = sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_ptr() as *mut sock_filter,
    };
    // SAFETY: fprog points at `prog`, alive for the call; the kernel copies it.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            flags,
            &fprog as *const sock_fprog,
        )
    };
    if rc < 0 {
        return Err(SeccompError::Refused(errno()));
    }
    Ok(rc)
}

/// Installs `prog` on the calling thread: NO_NEW_PRIVS, then [`attach`].
pub fn install(prog: &[Insn], flags: c_ulong) -> Result<c_long, SeccompError> {
    no_new_privs()?;
    attach(prog, flags)
}

/// `Seccomp_filters` of a /proc status file: the number of filters attached to that task
/// (Linux ≥ 5.9).
pub fn filters_in(status_path: &str) -> Option<u64> {
    let text = std::fs::read_to_string(status_path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Seccomp_filters:"))
        .and_then(|v| v.trim().parse().ok())
}

/// Runs a classic-BPF program of the instructions above on (nr, arch, args[0]), as the kernel
/// would: what tests check the builders with.
#[cfg(test)]
pub fn eval(p: &[Insn], nr: u32, arch: u32, arg0: u32) -> u32 {
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

/// SECCOMP_IOCTL_NOTIF_SET_FLAGS on a notification listener.
pub fn notif_set_flags(listener: i32, flags: u64) -> std::io::Result<()> {
    // SAFETY: the flags are passed by value, as SECCOMP_IOCTL_NOTIF_SET_FLAGS expects.
    if unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SET_FLAGS, flags) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The next notification of a listener (SECCOMP_IOCTL_NOTIF_RECV; waits for one).
pub fn notif_recv(listener: i32) -> std::io::Result<libc::seccomp_notif> {
    // SAFETY: plain integers; the kernel requires a zeroed buffer for NOTIF_RECV.
    let mut req: libc::seccomp_notif = unsafe { std::mem::zeroed() };
    // SAFETY: a buffer of the size the ioctl number encodes.
    if unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut req) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(req)
}

/// Answers a notification (SECCOMP_IOCTL_NOTIF_SEND).
pub fn notif_send(listener: i32, resp: &libc::seccomp_notif_resp) -> std::io::Result<()> {
    // SAFETY: a response of the size the ioctl number encodes, which the kernel only reads.
    if unsafe { libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SEND, resp) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::process::{fork, Exit};
    use crate::sys::shared::{Shared, Slots};

    #[test]
    fn the_builders_encode_what_they_name() {
        assert_eq!((load_nr().code, load_nr().k), (0x20, 0));
        assert_eq!(load_arch().k, 4);
        assert_eq!(load_arg0().k, 16);
        let j = jeq(39, 2, 0);
        assert_eq!((j.code, j.jt, j.jf, j.k), (0x15, 2, 0, 39));
        assert_eq!((ret(RET_ALLOW).code, ret(RET_ALLOW).k), (0x06, 0x7fff_0000));
        let p = [load_nr(), jeq(39, 1, 0), ret(RET_ALLOW), ret(7)];
        assert_eq!(eval(&p, 39, 0, 0), 7);
        assert_eq!(eval(&p, 40, 0, 0), RET_ALLOW);
    }

    #[test]
    fn an_installed_filter_is_in_force_and_a_refusal_carries_its_errno() {
        let mut child = fork(|| {
            // An empty program: the kernel answers EINVAL.
            match install(&[], 0) {
                Err(SeccompError::Refused(libc::EINVAL)) => {}
                _ => return 1,
            }
            let p = [
                load_nr(),
                jeq(libc::SYS_getppid as u32, 0, 1),
                ret(libc::SECCOMP_RET_ERRNO | 33),
                ret(RET_ALLOW),
            ];
            if install(&p, 0) != Ok(0) {
                return 2;
            }
            // SAFETY: getppid is a query; under the filter it fails with errno 33.
            let r = unsafe { libc::syscall(libc::SYS_getppid) };
            if r == -1 && errno() == 33 {
                0
            } else {
                3
            }
        })
        .unwrap();
        assert_eq!(child.wait().unwrap(), Exit::Code(0));
        assert_eq!(
            SeccompError::Refused(libc::ENOMEM).to_string(),
            format!(
                "seccomp(SECCOMP_SET_MODE_FILTER) failed: {}",
                std::io::Error::from_raw_os_error(libc::ENOMEM)
            )
        );
    }

    #[test]
    fn the_status_file_counts_filters() {
        assert_eq!(filters_in("/nonexistent"), None);
        let base = filters_in("/proc/self/status").unwrap();
        let shm: Shared<Slots> = Shared::new().unwrap();
        let prog = [load_nr(), ret(RET_ALLOW)];
        let mut c = fork(|| {
            if install(&prog, 0).is_err() {
                return 1;
            }
            shm.set(0, filters_in("/proc/self/status").unwrap_or(0));
            0
        })
        .unwrap();
        assert_eq!(c.wait().unwrap(), Exit::Code(0));
        assert_eq!(shm.get(0), base + 1);
    }
}
