use clap::Parser;
use syscost::cli::Cli;
use syscost::commands;

fn main() {
    let cli = Cli::parse();
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
