//! The integration tests of `syscost-site`, one test binary (one link) with a module per area.

mod against;
mod browser;
mod build;
mod charts;
mod check;
mod common;
mod counts;
mod hostile;
mod intake;
mod lists;
/// Peak memory of the commands the tests run, measured from a fresh copy of this binary.
mod peak {
    syscost_testkit::peak_spawner!();
}
