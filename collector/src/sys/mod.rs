//! The thin, unsafe layer over the kernel interfaces the engine and the scenarios share: CPU
//! affinity and signals. Everything above it is safe code.

pub mod affinity;
pub mod signals;
