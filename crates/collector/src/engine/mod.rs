//! The measurement engine: forked workers ([`worker`]), the driver that samples comparison
//! groups in short rounds within the time budget ([`driver`]) and gives each round to the group
//! that needs it (`allocate`), the kernel tool's sequential method ([`sequential`]), and what a
//! run measures ([`Plan`]).

mod allocate;
pub mod driver;
mod peer;
mod plan;
pub mod quiet;
pub mod sequential;
pub mod worker;

pub use plan::{Plan, PlanError};
