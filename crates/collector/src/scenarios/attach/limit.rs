//! Where the kernel stops a growing chain: a throwaway child attaches two-instruction filters
//! until seccomp() refuses, and reports how many it took and the errno. Run once per process,
//! when the stacking scenarios' parameters are first asked for, so the record carries the
//! refusal point this kernel actually showed rather than the formula.

use crate::scenarios::seccomp::{Filter, ProfileError};
use crate::sys::process::{self, Exit};
use crate::sys::seccomp::{self as filter, filters_in};
use crate::sys::shared::{Shared, Slots};
use std::io;
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

/// Why the refusal point could not be measured.
#[derive(Debug, thiserror::Error)]
pub enum LimitError {
    #[error(transparent)]
    Program(#[from] ProfileError),
    #[error("mmap failed: {0}")]
    Mmap(io::Error),
    #[error("fork failed: {0}")]
    Fork(io::Error),
    #[error("waitpid failed: {0}")]
    Wait(io::Error),
    #[error("no refusal within {MAX_TRIES} filters")]
    NoRefusal,
    #[error("the probing child {0}")]
    Child(Exit),
}

/// The refusal point, measured once.
pub fn probe() -> &'static Result<Limit, LimitError> {
    static LIMIT: OnceLock<Result<Limit, LimitError>> = OnceLock::new();
    LIMIT.get_or_init(measure)
}

fn measure() -> Result<Limit, LimitError> {
    let prog = Filter::ConstAllow.program()?;
    let shm: Shared<Slots> = Shared::new().map_err(LimitError::Mmap)?;
    let inherited = filters_in("/proc/self/status").unwrap_or(0);
    let mut child = process::fork(|| {
        if filter::no_new_privs().is_err() {
            return 1;
        }
        for i in 0..MAX_TRIES {
            if let Err(e) = filter::attach(&prog, 0) {
                shm.set(0, i);
                shm.set(1, e.errno() as u64);
                shm.set(2, 1);
                return 0;
            }
        }
        2
    })
    .map_err(LimitError::Fork)?;
    match child.wait().map_err(LimitError::Wait)? {
        Exit::Code(0) if shm.get(2) == 1 => Ok(Limit {
            accepted: shm.get(0),
            errno: shm.get(1) as i32,
            inherited,
        }),
        Exit::Code(2) => Err(LimitError::NoRefusal),
        other => Err(LimitError::Child(other)),
    }
}
