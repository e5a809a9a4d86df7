//! Where the kernel stops a growing chain: a throwaway child attaches two-instruction filters
//! until seccomp() refuses, and reports how many it took and the errno. Run once per process,
//! when the stacking scenarios' parameters are first asked for, so the record carries the
//! refusal point this kernel actually showed rather than the formula.

use super::child::{fork_run, reap, seccomp_filters, Exit, Shared, Slots};
use super::{no_new_privs, programs, seccomp_attach};
use crate::scenarios::seccomp::Filter;
use std::sync::OnceLock;

/// Far past any limit (32768 / 6 = 5461 filters): the probe gives up there.
const MAX_TRIES: u64 = 100_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    /// Filters the child attached before the refusal.
    pub accepted: u64,
    /// The refusal's errno (ENOMEM for the instruction limit).
    pub errno: i32,
    /// Filters the child inherited (a containerised run starts with some).
    pub inherited: u64,
}

/// The refusal point, measured once.
pub fn probe() -> &'static Result<Limit, String> {
    static LIMIT: OnceLock<Result<Limit, String>> = OnceLock::new();
    LIMIT.get_or_init(measure)
}

fn measure() -> Result<Limit, String> {
    let prog = programs::from_seccompiler(&Filter::ConstAllow.program()?);
    let shm: Shared<Slots> = Shared::new().map_err(|e| format!("mmap failed: {e}"))?;
    let inherited = seccomp_filters("/proc/self/status").unwrap_or(0);
    let pid = fork_run(|| {
        if no_new_privs().is_err() {
            return 1;
        }
        for i in 0..MAX_TRIES {
            if let Err(e) = seccomp_attach(&prog, 0) {
                shm.set(0, i);
                shm.set(1, e as u64);
                shm.set(2, 1);
                return 0;
            }
        }
        2
    })
    .map_err(|e| format!("fork failed: {e}"))?;
    match reap(pid).map_err(|e| format!("waitpid failed: {e}"))? {
        Exit::Code(0) if shm.get(2) == 1 => Ok(Limit {
            accepted: shm.get(0),
            errno: shm.get(1) as i32,
            inherited,
        }),
        Exit::Code(2) => Err(format!("no refusal within {MAX_TRIES} filters")),
        other => Err(format!("the probing child {other}")),
    }
}
