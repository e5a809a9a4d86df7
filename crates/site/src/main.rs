use clap::Parser;
use std::process::ExitCode;
use syscost_site::cli::Cli;
use syscost_site::commands::{self, CommandError};

/// mimalloc rather than glibc's allocator: a build makes and frees millions of small strings and
/// rows while it keeps the site's data, and with glibc's it took markedly more CPU time and
/// memory (docs/benchmarks.md, "The site generator, in detail"). `site-bench` uses the same allocator, so the parse floor
/// it measures is the floor of this program.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Exit code for bad usage, as clap uses for argument errors.
const EXIT_USAGE: u8 = 2;
/// Exit code when standard output was closed: what a shell reports for a program killed by
/// SIGPIPE (128 + 13).
const EXIT_PIPE: u8 = 141;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return arguments(e),
    };
    match commands::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // The reader went away (`syscost-site check | head`): nothing to say, as a program
        // ended by SIGPIPE says nothing.
        Err(CommandError::Stdout(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::from(EXIT_PIPE)
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(match e {
                CommandError::BaseUrl(_) | CommandError::Data { .. } => EXIT_USAGE,
                CommandError::WouldEmpty { .. }
                | CommandError::Build(_)
                | CommandError::Strict(_)
                | CommandError::Problems { .. }
                | CommandError::Intake(_)
                | CommandError::Refused(_)
                | CommandError::Migrate(_)
                | CommandError::Unmigrated(_)
                | CommandError::Stdout(_) => 1,
            })
        }
    }
}

/// What the arguments did not make a command of: `--help` and `--version`, written to
/// standard output like any output (a full disk is an error, a closed pipe leaves quietly); a
/// usage error, as clap reports it (exit 2).
fn arguments(e: clap::Error) -> ExitCode {
    use std::io::Write;
    if e.use_stderr() {
        e.exit();
    }
    let mut o = std::io::stdout().lock();
    match write!(o, "{}", e.render()).and_then(|()| o.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(EXIT_PIPE),
        Err(e) => {
            eprintln!("syscost-site: {}", CommandError::Stdout(e));
            ExitCode::from(1)
        }
    }
}
