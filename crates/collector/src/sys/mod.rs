//! The thin, unsafe layer over the kernel and the CPU: every `unsafe` of the collector is here,
//! each behind a safe function that says why it is sound. CPU affinity, signals, forked
//! children with the channel and the memory they share with their parent, seccomp filters and
//! notifications, BPF programs (bpf(2) and the perf events they attach to), the vDSO's clock,
//! the raw syscall instruction and the CPU's counter the timed loops use, ptrace, the audit
//! netlink socket, Syscall User Dispatch, and plain queries of the process.
//! Everything above it is safe code (`tests/it/layers.rs` checks).

pub mod affinity;
pub mod bpf;
pub mod channel;
pub mod counter;
pub mod mount;
pub mod netlink;
pub mod process;
pub mod ptrace;
pub mod query;
pub mod seccomp;
pub mod shared;
pub mod signals;
pub mod sud;
pub mod syscall;
pub mod trap;
pub mod ufunc;
pub mod vdso;
