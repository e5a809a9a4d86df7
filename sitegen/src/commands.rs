//! What each command does and prints. Failures are returned, never printed here: `main` prints
//! them and chooses the exit code, in one place.

use crate::cli::{Cli, Command};
use crate::site::{self, BuildError};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Why a command failed; the text is the last line the user sees.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    /// A usage error: `--base-url` is not an absolute web address.
    #[error("syscost-site build: --base-url must be an absolute http(s) URL, got {0:?}")]
    BaseUrl(String),
    #[error("syscost-site build: {0}")]
    Build(#[from] BuildError),
    /// `--strict` and some records were unusable (they have been listed).
    #[error("syscost-site build: --strict: {0} unusable record(s); nothing written")]
    Strict(usize),
    /// A usage error: `check` needs an existing directory.
    #[error(
        "syscost-site check: {} is not a directory (give the data directory, e.g. `data`)",
        .0.display()
    )]
    NotADirectory(PathBuf),
    /// `check` found problems (they have been listed).
    #[error("{}: {problems} problem(s) in {files} file(s); {records} record(s) parsed", dir.display())]
    Problems {
        dir: PathBuf,
        problems: usize,
        files: usize,
        records: usize,
    },
}

pub fn run(cli: Cli) -> Result<(), CommandError> {
    match cli.command {
        Command::Build {
            data,
            out,
            strict,
            base_url,
        } => build(site::Options {
            data,
            out,
            strict,
            base_url,
        }),
        Command::Check {
            dir,
            allow_emulated,
        } => check(&dir, allow_emulated),
    }
}

fn build(opts: site::Options) -> Result<(), CommandError> {
    if let Some(u) = &opts.base_url {
        if !(u.starts_with("https://") || u.starts_with("http://")) {
            return Err(CommandError::BaseUrl(u.clone()));
        }
    }
    let report = site::build(&opts)?;
    let data = opts.data.display();
    if report.data_missing {
        eprintln!("note: {data} does not exist; building a site with no runs");
    }
    for w in &report.warnings {
        eprintln!("warning: {data}/{w}");
    }
    if !report.rejected.is_empty() {
        eprintln!(
            "warning: {} record(s) left out of the site:",
            report.rejected.len()
        );
        for r in &report.rejected {
            eprintln!("  {data}/{r}");
        }
    }
    if !report.written {
        return Err(CommandError::Strict(report.rejected.len()));
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
    Ok(())
}

fn check(dir: &Path, allow_emulated: bool) -> Result<(), CommandError> {
    if !dir.is_dir() {
        return Err(CommandError::NotADirectory(dir.to_path_buf()));
    }
    let report = crate::check::check_dir(dir, allow_emulated);
    if report.issues.is_empty() {
        println!(
            "{}: {} record(s), no problems found",
            dir.display(),
            report.records
        );
        return Ok(());
    }
    for i in &report.issues {
        eprintln!("{}/{i}", dir.display());
    }
    let files: BTreeSet<&str> = report.issues.iter().map(|i| i.path.as_str()).collect();
    Err(CommandError::Problems {
        dir: dir.to_path_buf(),
        problems: report.issues.len(),
        files: files.len(),
        records: report.records,
    })
}
