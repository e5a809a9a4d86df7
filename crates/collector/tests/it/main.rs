//! The collector's integration tests, in one binary (one link instead of one per file). Each
//! module was a file of its own; `common` holds what they share.
//!
//! The tests run in parallel, one thread per CPU. Those that measure hold
//! [`common::measuring`] and those that need the machine to themselves hold [`common::alone`],
//! so that no two tests disturb each other more than two measuring tests of one file always
//! did.

mod common;

mod attach;
mod bpf;
mod compare;
mod faults;
mod import_cli;
mod import_hostile;
mod intercept;
mod lab;
mod layers;
/// Peak memory of the commands the tests run, measured from a fresh copy of this binary.
mod peak {
    syscost_testkit::peak_spawner!();
}
mod repository;
mod run;
mod selfcheck;
mod sequential;
mod submit;
