use clap::Parser;

fn main() {
    let cli = syscost_site::cli::Cli::parse();
    std::process::exit(syscost_site::cli::run(cli));
}
