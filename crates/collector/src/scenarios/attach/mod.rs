//! Attach costs: how long installing a seccomp filter takes, by filter size, with and without
//! the fork around it (seed 002: "fork seems to take around 150us, seccomp attach takes around
//! 200us"), with SECCOMP_FILTER_FLAG_TSYNC across threads, cacheable against uncacheable (the
//! kernel's attach-time action-cache builder), and as the chain grows to the kernel's limit.
//!
//! A filter cannot be removed, so every operation attaches in a throwaway child and the worker
//! stays as set up. Each sample is one operation ([`Scenario::fixed_iters`]), so the samples are
//! the latency distribution: the record's median, p90 and CI describe single attaches.
//!
//! Attaches of small filters (microseconds) follow an identical untimed one. A batch of
//! syscalls amortises the cold caches its predecessor left behind over thousands of calls; a
//! single 15 µs attach does not, and in the engine's rotation a scenario's predecessor is nearly
//! always the same one, so without the warm-up its cold start would be a fixed bias (measured:
//! up to 2× on `attach.seccomp.2` after a BPF attach) rather than noise. Millisecond attaches
//! (Docker-like, 4096 instructions) skip it: the bias is small beside them, and doubling them
//! would bring a loaded machine close to the engine's per-sample timeout.
//!
//! Ids: `attach.<what>.<size>`, sizes named in `params.instructions`.

mod direct;
mod fork;
mod limit;
pub mod programs;

use super::{RunError, Scenario};
use crate::sys::process::Exit;
use direct::{Depth, Direct};
use fork::ForkAttach;
use programs::Size;

pub const FAMILY: &str = "attach";

/// Depths of the stacking sweep: the k-th filter attached onto k−1 two-instruction filters,
/// and `attach.stack.max`, the last one the kernel accepts. The kernel counts each filter's
/// length *after* its conversion to eBPF, plus 4, against MAX_INSNS_PER_PATH (32768): a
/// 2-instruction filter counts 10 on 6.x, so the limit is measured rather than computed.
pub const STACK_DEPTHS: [u64; 3] = [2, 64, 1024];
/// Thread counts of the TSYNC scenarios.
pub const TSYNC_THREADS: [usize; 2] = [1, 8];

pub fn scenarios() -> Vec<Box<dyn Scenario>> {
    let mut v: Vec<Box<dyn Scenario>> = Vec::new();
    for size in [Size::Two, Size::I64, Size::Docker, Size::Max] {
        v.push(Box::new(Direct::plain(size, true)));
    }
    for size in [Size::I64, Size::Max] {
        v.push(Box::new(Direct::plain(size, false)));
    }
    v.push(Box::new(ForkAttach::new(None)));
    for size in [Size::Two, Size::I64, Size::Docker, Size::Max] {
        v.push(Box::new(ForkAttach::new(Some(size))));
    }
    for n in TSYNC_THREADS {
        v.push(Box::new(Direct::tsync(n)));
    }
    for k in STACK_DEPTHS {
        v.push(Box::new(Direct::stack(Depth::Fixed(k))));
    }
    v.push(Box::new(Direct::stack(Depth::Last)));
    v
}

/// Why one attach in a throwaway child could not be timed.
#[derive(Debug, thiserror::Error)]
pub enum AttachError {
    #[error("the scenario was not set up")]
    NotSetUp,
    #[error("fork failed: {0}")]
    Fork(std::io::Error),
    #[error("waitpid failed: {0}")]
    Wait(std::io::Error),
    #[error("the attaching child {0}")]
    Child(Exit),
    #[error("the kernel refused the filter: {}", errno_name(*.0))]
    Refused(i32),
    /// TSYNC names the thread it could not synchronise.
    #[error("TSYNC could not synchronise thread {0}")]
    Tsync(u64),
}

impl From<AttachError> for RunError {
    fn from(e: AttachError) -> RunError {
        match e {
            AttachError::NotSetUp => RunError::NotSetUp,
            e => RunError::failed(e),
        }
    }
}

/// How long one attach sample may take before its worker is presumed hung. A 4096-instruction
/// attach takes ~5 ms of kernel time; on a loaded machine (load 9 on 2 CPUs) single ones were
/// seen at 210 ms, close to the engine's default limit.
pub(crate) const SAMPLE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

/// Whether attaches of this size get an untimed warm-up twin (see the module documentation).
pub(crate) fn warm_up(size: Option<Size>) -> bool {
    !matches!(size, Some(Size::Docker | Size::Max))
}

/// What `params.warm_up` says.
pub(crate) fn warm_up_param(warm: bool) -> String {
    if warm {
        "an identical untimed operation before each timed one".into()
    } else {
        "none (the operation takes milliseconds)".into()
    }
}

/// "ENOMEM (Cannot allocate memory)" for an errno.
pub(crate) fn errno_name(e: i32) -> String {
    let name = match e {
        libc::ENOMEM => "ENOMEM",
        libc::EINVAL => "EINVAL",
        libc::EACCES => "EACCES",
        libc::EFAULT => "EFAULT",
        libc::ENOSYS => "ENOSYS",
        libc::ESRCH => "ESRCH",
        _ => "errno",
    };
    format!("{name} ({})", std::io::Error::from_raw_os_error(e))
}
