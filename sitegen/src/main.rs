use clap::Parser;
use std::process::ExitCode;
use syscost_site::cli::Cli;
use syscost_site::commands::{self, CommandError};

/// Exit code for bad usage, as clap uses for argument errors.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    match commands::run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(match e {
                CommandError::BaseUrl(_) | CommandError::NotADirectory(_) => EXIT_USAGE,
                CommandError::Build(_)
                | CommandError::Strict(_)
                | CommandError::Problems { .. }
                | CommandError::Migrate(_)
                | CommandError::Unmigrated(_) => 1,
            })
        }
    }
}
