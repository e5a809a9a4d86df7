//! The measurement engine: forked workers ([`worker`]), the interleaved-rounds driver with its
//! time budget ([`driver`]), and the `run`/`list` commands that tie probe, engine, analysis and
//! output together ([`run`]).

pub mod driver;
pub mod run;
pub mod sequential;
pub mod worker;
