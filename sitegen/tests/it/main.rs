//! The integration tests of `syscost-site`, one test binary (one link) with a module per area.

mod browser;
mod build;
mod charts;
mod check;
mod common;
mod hostile;
mod peak;
