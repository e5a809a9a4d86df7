//! syscost: what does it cost a Linux system call to be watched or filtered?
//!
//! Layout (see ARCHITECTURE.md):
//! - [`probe`]: the timed loop — the raw syscall instruction, inlined.
//! - [`engine`]: forked workers, interleaved rounds, calibration, the time budget.
//! - [`stats`]: medians, order-statistic intervals, paired differences — no I/O.
//! - [`scenarios`]: the families (baseline, seccomp, sud, ...), each a set of scenarios.
//! - [`analysis`]: the kernel benchmark's estimates and expectations, judged on intervals.
//! - [`envprobe`]: what machine this is.
//! - [`output`]: progress and the human table; [`export`]: the record, written atomically.
//! - [`import`]: published kernel benchmark logs → run records.
//! - [`selfcheck`]: evidence about syscost's own measurements (method comparison, precision).

pub mod analysis;
pub mod cli;
pub mod engine;
pub mod envprobe;
pub mod export;
pub mod import;
pub mod output;
pub mod probe;
pub mod scenarios;
pub mod selfcheck;
pub mod stats;
