//! The measurement engine: forked workers ([`worker`]), the interleaved-rounds driver with its
//! time budget ([`driver`]), the kernel tool's sequential method ([`sequential`]), and what a run
//! measures ([`Plan`]).

pub mod driver;
mod peer;
mod plan;
pub mod sequential;
pub mod worker;

pub use plan::{Plan, PlanError};
