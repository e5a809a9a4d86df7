//! Command-line interface: argument types and dispatch. The work lives in the other modules.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Exit code for bad usage (clap uses the same for argument errors).
pub const EXIT_USAGE: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "syscost-site",
    version,
    about = "Static site of syscost run records: trends per kernel version and architecture"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build the site from a data directory of run records.
    Build {
        /// Data directory (records under runs/<arch>/<kernel>/<id>.json).
        #[arg(long, default_value = "data")]
        data: PathBuf,
        /// Output directory; replaced as a whole when the build succeeds.
        #[arg(long, default_value = "site")]
        out: PathBuf,
        /// Fail (exit 1, nothing written) if any record is unusable.
        #[arg(long)]
        strict: bool,
        /// Absolute URL the site is published at, for the Atom feed only
        /// (e.g. https://user.github.io/syscost/). Pages always link relatively.
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
    },
    /// Check a data directory for submission problems without building.
    Check {
        /// Data directory.
        #[arg(default_value = "data")]
        dir: PathBuf,
    },
    /// Read and parse every record and nothing else: the floor a build is measured against.
    #[command(hide = true)]
    Parse {
        #[arg(long, default_value = "data")]
        data: PathBuf,
    },
}

pub fn run(cli: Cli) -> i32 {
    match cli.command {
        Command::Build {
            data,
            out,
            strict,
            base_url,
        } => build(crate::site::Options {
            data,
            out,
            strict,
            base_url,
        }),
        Command::Check { dir } => crate::check::run(&dir),
        Command::Parse { data } => parse_floor(&data),
    }
}

fn build(opts: crate::site::Options) -> i32 {
    if let Some(u) = &opts.base_url {
        if !(u.starts_with("https://") || u.starts_with("http://")) {
            eprintln!("syscost-site build: --base-url must be an absolute http(s) URL, got {u:?}");
            return EXIT_USAGE;
        }
    }
    let report = match crate::site::build(&opts) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("syscost-site build: {e}");
            return 1;
        }
    };
    if report.data_missing {
        eprintln!(
            "note: {} does not exist; building a site with no runs",
            opts.data.display()
        );
    }
    for w in &report.warnings {
        eprintln!("warning: {}/{w}", opts.data.display());
    }
    if !report.rejected.is_empty() {
        eprintln!(
            "warning: {} record(s) left out of the site:",
            report.rejected.len()
        );
        for r in &report.rejected {
            eprintln!("  {}/{r}", opts.data.display());
        }
    }
    if !report.written {
        eprintln!(
            "syscost-site build: --strict: {} unusable record(s); nothing written",
            report.rejected.len()
        );
        return 1;
    }
    let s = &report.stats;
    println!(
        "built {}: {} runs ({} architectures, {} kernel versions){}; {} files, {:.1} MB; largest page {} ({:.1} KB)",
        opts.out.display(),
        report.runs,
        report.arches,
        report.kernels,
        if report.rejected.is_empty() {
            String::new()
        } else {
            format!(", {} left out", report.rejected.len())
        },
        s.files,
        s.bytes as f64 / 1e6,
        s.largest_page_path,
        s.largest_page as f64 / 1e3
    );
    0
}

fn parse_floor(data: &std::path::Path) -> i32 {
    let scan = crate::load::scan(data);
    let (mut ok, mut bad) = (0usize, 0usize);
    for c in &scan.records {
        match crate::load::read_limited(&c.abs).and_then(|b| crate::load::parse_record(&b)) {
            Ok(_) => ok += 1,
            Err(_) => bad += 1,
        }
    }
    println!("parsed {ok} records ({bad} unreadable)");
    0
}
