//! The subcommands: the only code that reads arguments, prints, and chooses exit codes (through
//! [`crate::error::Error`]).

pub mod compare;
pub mod import;
pub mod lab;
pub mod lab_matrix;
pub mod list;
pub mod record;
pub mod run;
pub mod selfcheck;
pub mod submit;

use crate::cli::{Command, SyscallArg};
use crate::error::Error;
use crate::harness::Syscall;

/// Runs one subcommand; Ok(exit code) or the error `main` reports.
pub fn dispatch(command: &Command) -> Result<i32, Error> {
    match command {
        Command::Run(args) => run::run(args),
        Command::List(args) => list::run(args),
        Command::Submit(args) => submit::run(&args.records, &args.to),
        Command::Import(args) => import::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Record(args) => record::run(args),
        Command::Selfcheck(args) => selfcheck::run(args),
        Command::Lab(args) => lab::run(args),
        Command::LabMatrix(args) => lab_matrix::run(args),
    }
}

/// What `main` prefixes its messages with.
pub fn name(command: &Command) -> &'static str {
    match command {
        Command::Run(_) | Command::List(_) => "syscost",
        Command::Import(_) => "syscost import",
        Command::Submit(_) => "syscost submit",
        Command::Compare(_) => "syscost compare",
        Command::Record(_) => "syscost record",
        Command::Selfcheck(_) => "syscost selfcheck",
        Command::Lab(_) => "syscost lab",
        Command::LabMatrix(_) => "syscost lab-matrix",
    }
}

/// The harness's probe for a `--syscall` value.
pub fn syscall(s: SyscallArg) -> Syscall {
    match s {
        SyscallArg::Getpid => Syscall::Getpid,
        SyscallArg::Getppid => Syscall::Getppid,
        SyscallArg::Getpgid => Syscall::Getpgid,
        SyscallArg::Getuid => Syscall::Getuid,
        SyscallArg::Gettid => Syscall::Gettid,
        SyscallArg::Sysinfo => Syscall::Sysinfo,
        SyscallArg::Mix => Syscall::Mix,
    }
}
