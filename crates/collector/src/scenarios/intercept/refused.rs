//! Paths where seccomp refuses the call and no syscall body runs: SECCOMP_RET_ERRNO (the
//! cheapest interception) and SECCOMP_RET_TRACE with no tracer attached, which the kernel fails
//! with ENOSYS. The loop is the probe's loop with the expected return swapped for the refusal.

use super::{action_filter, install, Call, FAMILY};
use crate::harness::{clock, Batch, Syscall};
use crate::scenarios::{RunError, Scenario, SetupError};
use std::collections::BTreeMap;

/// The errno SECCOMP_RET_ERRNO returns: EPERM, as Docker's default profile does.
const REFUSAL_ERRNO: i32 = libc::EPERM;

pub struct Refused {
    id: &'static str,
    /// Name in /proc/sys/kernel/seccomp/actions_avail.
    action_name: &'static str,
    action: u32,
    /// The probe's return under the filter (negated errno).
    want: i64,
    syscall: Syscall,
    call: Option<Call>,
}

impl Refused {
    pub fn errno(syscall: Syscall) -> Refused {
        Refused {
            id: "seccomp.errno",
            action_name: "errno",
            action: libc::SECCOMP_RET_ERRNO | REFUSAL_ERRNO as u32,
            want: -(REFUSAL_ERRNO as i64),
            syscall,
            call: None,
        }
    }

    pub fn trace(syscall: Syscall) -> Refused {
        Refused {
            id: "seccomp.trace",
            action_name: "trace",
            action: libc::SECCOMP_RET_TRACE,
            want: -(libc::ENOSYS as i64),
            syscall,
            call: None,
        }
    }

    /// The timed loop: raw instruction, inlined, counting the calls that were refused.
    pub fn refused_loop(call: &mut Call, want: i64, iters: u64) -> Batch {
        let issue = call.issue();
        let mut refused = 0u64;
        let t0 = clock::now_ns();
        for _ in 0..iters {
            let ret = issue.call() as i64;
            refused += (ret == want) as u64;
        }
        let t1 = clock::now_ns();
        Batch {
            iters,
            elapsed_ns: t1.saturating_sub(t0),
            bad: iters - refused,
            verified: Some(refused),
        }
    }
}

impl Scenario for Refused {
    fn id(&self) -> String {
        self.id.into()
    }
    fn family(&self) -> &'static str {
        FAMILY
    }
    fn description(&self) -> String {
        let s = self.syscall.describe();
        match self.action_name {
            "errno" => format!("{s} refused by SECCOMP_RET_ERRNO (EPERM): no syscall body runs"),
            _ => format!(
                "{s} under SECCOMP_RET_TRACE with no tracer: the kernel fails it with ENOSYS"
            ),
        }
    }
    fn params(&self) -> BTreeMap<String, String> {
        let mut p = BTreeMap::new();
        p.insert("action".into(), format!("{:#010x}", self.action));
        p.insert("expected_return".into(), self.want.to_string());
        p.insert("filter_instructions".into(), "4".into());
        p
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        let mut call = Call::of(self.syscall, self.id)?;
        super::filter::require_action(self.action_name)?;
        install(&action_filter(&[call.nr], self.action), 0)?;
        let b = Self::refused_loop(&mut call, self.want, 16);
        if b.bad != 0 {
            return Err(SetupError::Failed(format!(
                "{} did not return {} under the filter ({} of 16 calls did)",
                self.syscall.describe(),
                self.want,
                b.verified.unwrap_or(0)
            )));
        }
        self.call = Some(call);
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let c = self.call.as_mut().ok_or(RunError::NotSetUp)?;
        Ok(Self::refused_loop(c, self.want, iters))
    }
    fn verification(&self) -> Option<&'static str> {
        Some("calls refused with the filter's errno")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loop_counts_only_the_expected_return() {
        // Without a filter getpid returns the pid: expecting -EPERM, every call is "bad".
        let mut call = Call::of(Syscall::Getpid, "test").unwrap();
        let b = Refused::refused_loop(&mut call, -(libc::EPERM as i64), 50);
        assert_eq!((b.bad, b.verified), (50, Some(0)));
        let pid = std::process::id() as i64;
        let b = Refused::refused_loop(&mut call, pid, 50);
        assert_eq!((b.bad, b.verified), (0, Some(50)));
    }

    #[test]
    fn mix_is_refused_with_a_reason() {
        match Call::of(Syscall::Mix, "seccomp.errno") {
            Err(SetupError::Unsupported(why)) => assert!(why.contains("single-syscall"), "{why}"),
            _ => panic!("mix must be unsupported"),
        }
    }
}
