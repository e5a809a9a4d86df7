//! SECCOMP_RET_LOG: the call runs, and the kernel creates an audit record for it first. With no
//! audit daemon the records end in dmesg through printk's rate limit ("kauditd_printk_skb: N
//! callbacks suppressed") — a few lines per run, not millions; with an audit daemon every call
//! would be written to its log, so the scenario refuses to run then.
//!
//! Verification: the audit serials of two marker calls (`sched_yield`, also logged) taken just
//! before and after each batch must be exactly `iters` apart (see [`audit`]). Another process
//! creating audit records at the same moment makes the count differ and the scenario fail,
//! loudly rather than silently.
//!
//! [`audit`]: super::audit

use super::audit::{self, AuditError};
use super::{action_filter, install, FAMILY};
use crate::harness::{Batch, Probe, Syscall};
use crate::scenarios::{RunError, Scenario, SetupError};
use crate::sys::syscall::Query;
use std::collections::BTreeMap;

/// The logged marker syscall around each batch; never a probe.
const MARKER: Query = Query::SCHED_YIELD;
const MARKER_NR: libc::c_long = MARKER.nr();

pub struct Log {
    syscall: Syscall,
    probe: Option<Probe>,
    pid: u32,
}

impl Log {
    pub fn new(syscall: Syscall) -> Log {
        Log {
            syscall,
            probe: None,
            pid: 0,
        }
    }

    fn per_op(&self) -> u64 {
        self.syscall.nrs().len() as u64
    }

    fn marker(&self) -> Result<u64, AuditError> {
        audit::marker_serial(self.pid, MARKER_NR, || {
            MARKER.call();
        })
    }
}

fn check_logged() -> Result<(), SetupError> {
    let path = "/proc/sys/kernel/seccomp/actions_logged";
    let logged = std::fs::read_to_string(path)
        .map_err(|e| SetupError::Unsupported(format!("cannot read {path}: {e}")))?;
    if !logged.split_whitespace().any(|a| a == "log") {
        return Err(SetupError::Unsupported(format!(
            "{path} does not include 'log' ({}): SECCOMP_RET_LOG would log nothing and be \
             the ALLOW path",
            logged.trim()
        )));
    }
    Ok(())
}

impl Scenario for Log {
    fn preemption_is_noise(&self) -> bool {
        // The audit daemon's kernel thread each call wakes may run on the worker's CPU.
        false
    }
    fn id(&self) -> String {
        "seccomp.log".into()
    }
    fn family(&self) -> &'static str {
        FAMILY
    }
    fn description(&self) -> String {
        format!(
            "{} under SECCOMP_RET_LOG: an audit record per call, then the call runs",
            self.syscall.describe()
        )
    }
    fn params(&self) -> BTreeMap<String, String> {
        let mut p = BTreeMap::new();
        p.insert("action".into(), format!("{:#010x}", libc::SECCOMP_RET_LOG));
        p.insert(
            "audit_daemon".into(),
            "none (required: with one, every call would be written to its log)".into(),
        );
        p.insert(
            "verified_by".into(),
            "audit record serials of a logged marker call before and after each batch".into(),
        );
        p
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        super::filter::require_action("log")?;
        check_logged()?;
        audit::can_read().map_err(|e| {
            SetupError::Unsupported(format!(
                "cannot read audit records ({e}): counting what SECCOMP_RET_LOG logs needs \
                 CONFIG_AUDIT and CAP_AUDIT_READ (run as root)"
            ))
        })?;
        match audit::daemon_pid() {
            Ok(0) => {}
            Ok(pid) => {
                return Err(SetupError::Unsupported(format!(
                    "an audit daemon (pid {pid}) is registered: every logged call would be \
                     written to its log; stop it to measure this path"
                )))
            }
            Err(e) => {
                return Err(SetupError::Unsupported(format!(
                    "cannot ask the kernel whether an audit daemon runs ({e}); not flooding \
                     a possible audit log"
                )))
            }
        }
        self.pid = std::process::id();
        let probe = Probe::new(self.syscall)?;
        let mut nrs = self.syscall.nrs();
        nrs.push(MARKER_NR);
        install(&action_filter(&nrs, libc::SECCOMP_RET_LOG), 0)?;
        self.probe = Some(probe);
        let (s0, s1) = (
            self.marker().map_err(SetupError::failed)?,
            self.marker().map_err(SetupError::failed)?,
        );
        if s1 != s0 + 1 {
            return Err(SetupError::Failed(format!(
                "two consecutive logged markers got audit serials {s0} and {s1}: other audit \
                 activity would make the count unreliable"
            )));
        }
        let b = self.run(16).map_err(SetupError::failed)?;
        if b.bad != 0 || b.verified != Some(16 * self.per_op()) {
            return Err(SetupError::Failed(format!(
                "16 logged operations: {} wrong results, {:?} audit records",
                b.bad, b.verified
            )));
        }
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        if self.probe.is_none() {
            return Err(RunError::NotSetUp);
        }
        let s0 = self.marker().map_err(RunError::failed)?;
        let mut b = match &mut self.probe {
            Some(p) => p.run(iters, false),
            None => return Err(RunError::NotSetUp),
        };
        let s1 = self.marker().map_err(RunError::failed)?;
        b.verified = (s1 > s0).then(|| s1 - s0 - 1);
        Ok(b)
    }
    fn verification(&self) -> Option<&'static str> {
        Some("audit records created (serial difference around the batch)")
    }
    fn expected_verified(&self, iters: u64) -> u64 {
        iters * self.per_op()
    }
}
