use clap::Parser;

fn main() {
    let cli = syscost::cli::Cli::parse();
    std::process::exit(syscost::cli::dispatch(cli));
}
