//! What a run measures: the probe syscall, the CPU the workers are pinned to, and the scenarios
//! picked by `--only`/`--skip` (with the baselines they need).

use crate::harness::Syscall;
use crate::scenarios::{self, Scenario, SelectError};
use crate::sys::affinity::allowed_cpus;

/// Why a plan cannot be made: every case is a usage error.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("--cpu {cpu} is not available to this process (allowed: {allowed:?})")]
    CpuNotAllowed { cpu: u32, allowed: Vec<u32> },
    #[error("cannot read this process's CPU affinity")]
    NoAffinity,
    #[error(transparent)]
    Select(#[from] SelectError),
}

/// Scenarios and CPU chosen by the common arguments.
pub struct Plan {
    pub syscall: Syscall,
    pub cpu: u32,
    pub scenarios: Vec<Box<dyn Scenario>>,
}

impl Plan {
    /// `cpu`: the one asked for, or (None) the highest-numbered CPU that accepts this process,
    /// as the kernel benchmark chooses.
    pub fn new(
        syscall: Syscall,
        cpu: Option<u32>,
        only: &[String],
        skip: &[String],
    ) -> Result<Plan, PlanError> {
        let allowed = allowed_cpus();
        let cpu = match cpu {
            Some(c) if allowed.contains(&c) => c,
            Some(cpu) => return Err(PlanError::CpuNotAllowed { cpu, allowed }),
            None => *allowed.last().ok_or(PlanError::NoAffinity)?,
        };
        let scenarios = scenarios::select(scenarios::all(syscall), only, skip)?;
        Ok(Plan {
            syscall,
            cpu,
            scenarios,
        })
    }
}
