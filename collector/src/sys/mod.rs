//! The thin, unsafe layer over the kernel interfaces the engine and the scenarios share: CPU
//! affinity, signals, forked children with the channel and the memory they share with their
//! parent, seccomp filters, BPF programs (bpf(2) and the perf events they attach to), and the
//! vDSO's clock.
//! Everything above it is safe code.

pub mod affinity;
pub mod bpf;
pub mod channel;
pub mod process;
pub mod seccomp;
pub mod shared;
pub mod signals;
pub mod vdso;
