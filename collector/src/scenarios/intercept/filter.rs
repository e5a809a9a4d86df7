//! The filter every seccomp interception path uses: the probe's syscalls get the action under
//! test, everything else is allowed. The probe's comparison comes first, so its path through the
//! filter is the same three instructions whatever the action — only the action differs.

use crate::scenarios::SetupError;
use libc::{c_long, c_ulong, sock_filter, sock_fprog};

const LD_NR: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
const JEQ_K: u16 = 0x15; // BPF_JMP | BPF_JEQ | BPF_K
const RET_K: u16 = 0x06; // BPF_RET | BPF_K
pub const RET_ALLOW: u32 = 0x7fff_0000;

fn insn(code: u16, jt: u8, jf: u8, k: u32) -> sock_filter {
    sock_filter { code, jt, jf, k }
}

/// `ld nr; jeq nr_0 → action; ...; jeq nr_m → action; ret ALLOW; ret action`.
pub fn action_filter(nrs: &[c_long], action: u32) -> Vec<sock_filter> {
    let m = nrs.len();
    let mut p = vec![insn(LD_NR, 0, 0, 0)];
    for (i, nr) in nrs.iter().enumerate() {
        // Jump over the remaining comparisons and the ALLOW to the action.
        p.push(insn(JEQ_K, (m - i) as u8, 0, *nr as u32));
    }
    p.push(insn(RET_K, 0, 0, RET_ALLOW));
    p.push(insn(RET_K, 0, 0, action));
    p
}

/// Fails with Unsupported unless the kernel lists `action` in
/// /proc/sys/kernel/seccomp/actions_avail (a filter returning an unknown action would kill).
pub fn require_action(action: &str) -> Result<(), SetupError> {
    let path = "/proc/sys/kernel/seccomp/actions_avail";
    let avail = std::fs::read_to_string(path).map_err(|e| {
        SetupError::Unsupported(format!(
            "cannot read {path} ({e}): this kernel has no seccomp filters"
        ))
    })?;
    if avail.split_whitespace().any(|a| a == action) {
        Ok(())
    } else {
        Err(SetupError::Unsupported(format!(
            "this kernel does not offer the seccomp action '{action}' ({path}: {})",
            avail.trim()
        )))
    }
}

/// Sets NO_NEW_PRIVS and attaches `prog` to the calling thread with `flags`; returns what
/// seccomp() returned (the listener fd with SECCOMP_FILTER_FLAG_NEW_LISTENER).
pub fn install(prog: &[sock_filter], flags: c_ulong) -> Result<c_long, SetupError> {
    // SAFETY: plain prctl.
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(SetupError::Failed(format!(
            "prctl(PR_SET_NO_NEW_PRIVS) failed: {}",
            std::io::Error::last_os_error()
        )));
    }
    let fprog = sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_ptr() as *mut sock_filter,
    };
    // SAFETY: fprog points at `prog`, alive for the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            flags,
            &fprog as *const sock_fprog,
        )
    };
    if rc < 0 {
        let e = std::io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::ENOSYS) => SetupError::Unsupported(
                "this kernel has no seccomp() syscall (CONFIG_SECCOMP is off)".into(),
            ),
            Some(libc::EINVAL) if flags != 0 => SetupError::Unsupported(format!(
                "the kernel refused seccomp filter flags {flags:#x} with EINVAL (too old for them)"
            )),
            _ => SetupError::Failed(format!("seccomp(SECCOMP_SET_MODE_FILTER) failed: {e}")),
        });
    }
    Ok(rc)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the classic BPF program on a syscall number, as the kernel would.
    fn eval(p: &[sock_filter], nr: u32) -> u32 {
        let (mut pc, mut acc) = (0usize, 0u32);
        loop {
            let i = p[pc];
            match i.code {
                LD_NR => acc = nr,
                JEQ_K => {
                    pc += if acc == i.k { i.jt } else { i.jf } as usize;
                }
                RET_K => return i.k,
                c => panic!("unexpected opcode {c:#x}"),
            }
            pc += 1;
        }
    }

    #[test]
    fn probe_syscalls_get_the_action_and_others_are_allowed() {
        let p = action_filter(&[39], 0x0005_0001);
        assert_eq!(p.len(), 4);
        assert_eq!(eval(&p, 39), 0x0005_0001);
        assert_eq!(eval(&p, 40), RET_ALLOW);
        let nrs = [32, 3, 39, 102, 95];
        let p = action_filter(&nrs, 0x7ffc_0000);
        for nr in nrs {
            assert_eq!(eval(&p, nr as u32), 0x7ffc_0000, "nr {nr}");
        }
        for nr in [0, 1, 60, 231] {
            assert_eq!(eval(&p, nr), RET_ALLOW, "nr {nr}");
        }
    }
}
