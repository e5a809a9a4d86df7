//! The filter every seccomp interception path uses: the probe's syscalls get the action under
//! test, everything else is allowed. The probe's comparison comes first, so its path through the
//! filter is the same three instructions whatever the action — only the action differs.

use crate::scenarios::SetupError;
use crate::sys::seccomp::{jeq, load_nr, ret, Insn, RET_ALLOW};
use libc::c_long;

/// `ld nr; jeq nr_0 → action; ...; jeq nr_m → action; ret ALLOW; ret action`.
pub fn action_filter(nrs: &[c_long], action: u32) -> Vec<Insn> {
    let m = nrs.len();
    let mut p = vec![load_nr()];
    for (i, nr) in nrs.iter().enumerate() {
        // Jump over the remaining comparisons and the ALLOW to the action.
        p.push(jeq(*nr as u32, (m - i) as u8, 0));
    }
    p.push(ret(RET_ALLOW));
    p.push(ret(action));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::seccomp::eval;

    #[test]
    fn probe_syscalls_get_the_action_and_others_are_allowed() {
        let p = action_filter(&[39], 0x0005_0001);
        assert_eq!(p.len(), 4);
        assert_eq!(eval(&p, 39, 0, 0), 0x0005_0001);
        assert_eq!(eval(&p, 40, 0, 0), RET_ALLOW);
        let nrs = [32, 3, 39, 102, 95];
        let p = action_filter(&nrs, 0x7ffc_0000);
        for nr in nrs {
            assert_eq!(eval(&p, nr as u32, 0, 0), 0x7ffc_0000, "nr {nr}");
        }
        for nr in [0, 1, 60, 231] {
            assert_eq!(eval(&p, nr, 0, 0), RET_ALLOW, "nr {nr}");
        }
    }
}
