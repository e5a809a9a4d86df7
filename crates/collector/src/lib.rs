//! syscost: what does it cost a Linux system call to be watched or filtered?
//!
//! Layout (see ARCHITECTURE.md), lower layers first; no module imports one above it:
//! - [`sys`]: the unsafe plumbing everything shares (affinity, processes, seccomp, signals).
//! - [`harness`]: the timed loop — the raw syscall instruction, inlined.
//! - [`stats`]: medians, order-statistic intervals, paired differences — no I/O.
//! - [`machine`]: what machine this is.
//! - [`scenarios`]: the families (baseline, seccomp, sud, intercept, bpf, attach).
//! - [`engine`]: forked workers, rounds of comparison groups, calibration, the time budget.
//! - [`analysis`]: samples → the record's numbers, the kernel benchmark's estimates and
//!   expectations judged on intervals.
//! - [`report`]: progress, the human table, the JSON record written atomically.
//! - [`lab`]: boots a kernel in QEMU and brings the guest's record back.
//! - [`commands`] (with [`cli`] and [`error`]): arguments in, exit codes out.

pub mod analysis;
pub mod cli;
pub mod commands;
pub mod compare;
pub mod engine;
pub mod error;
pub mod harness;
pub mod lab;
pub mod machine;
pub mod report;
pub mod scenarios;
pub mod stats;
pub mod sys;
