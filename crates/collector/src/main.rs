use clap::Parser;
use syscost::cli::Cli;
use syscost::commands;
use syscost::error::Error;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => std::process::exit(arguments(e)),
    };
    let code = match commands::dispatch(&cli.command) {
        Ok(code) => code,
        Err(e) => {
            if !e.is_quiet() {
                eprintln!("{}: {e}", commands::name(&cli.command));
            }
            e.exit_code()
        }
    };
    std::process::exit(code);
}

/// What the arguments did not make a command of: `--help` and `--version`, written to
/// standard output like any output (a full disk is an error, a closed pipe leaves quietly); a
/// usage error, as clap reports it (exit 2).
fn arguments(e: clap::Error) -> i32 {
    if e.use_stderr() {
        e.exit();
    }
    match syscost::report::stdout::print(&e.render().to_string()) {
        Ok(()) => 0,
        Err(err) => {
            let err = Error::Stdout(err);
            if !err.is_quiet() {
                eprintln!("syscost: {err}");
            }
            err.exit_code()
        }
    }
}
