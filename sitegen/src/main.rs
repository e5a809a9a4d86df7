use clap::Parser;
use std::process::ExitCode;
use syscost_site::cli::Cli;
use syscost_site::commands::{self, CommandError};

/// Exit code for bad usage, as clap uses for argument errors.
const EXIT_USAGE: u8 = 2;
/// Exit code when standard output was closed: what a shell reports for a program killed by
/// SIGPIPE (128 + 13).
const EXIT_PIPE: u8 = 141;

fn main() -> ExitCode {
    match commands::run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`syscost-site check | head`): nothing to say, as a program
        // ended by SIGPIPE says nothing.
        Err(CommandError::Stdout(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(EXIT_PIPE)
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(match e {
                CommandError::BaseUrl(_) | CommandError::NotADirectory(_) => EXIT_USAGE,
                CommandError::Build(_)
                | CommandError::Strict(_)
                | CommandError::Problems { .. }
                | CommandError::Migrate(_)
                | CommandError::Unmigrated(_)
                | CommandError::Stdout(_) => 1,
            })
        }
    }
}
