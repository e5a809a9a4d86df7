//! What each command does and prints. Failures are returned, never printed here: `main` prints
//! them and chooses the exit code, in one place.

pub mod build;
pub mod check;
pub mod intake;
pub mod migrate;

use crate::cli::{Cli, Command, Intake};
use crate::view::error::BuildError;
use std::collections::BTreeSet;
use std::io::Write;
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
    #[error("syscost-site migrate: {0}")]
    Migrate(#[from] crate::commands::migrate::WriteError),
    /// Some records could not be migrated (they have been listed).
    #[error("syscost-site migrate: {0} record(s) could not be migrated")]
    Unmigrated(usize),
    /// A usage error: the data directory is missing, not a directory, or cannot be read.
    /// Nothing is built, checked or rewritten from it.
    #[error(
        "syscost-site: {}: {why} (give the data directory, e.g. `data`)",
        dir.display()
    )]
    Data { dir: PathBuf, why: String },
    /// The build found no run, and the site it would replace has some: an empty data
    /// directory (a wrong path, a failed checkout) would unpublish every run.
    #[error(
        "syscost-site build: {} has no usable run record, and {} is a site of {previous} run(s): \
         nothing written (give --allow-empty to replace it with an empty site)",
        data.display(),
        out.display()
    )]
    WouldEmpty {
        data: PathBuf,
        out: PathBuf,
        previous: String,
    },
    /// Standard output could not be written (a full disk, a closed pipe).
    #[error("cannot write to standard output: {0}")]
    Stdout(#[source] std::io::Error),
    #[error("syscost-site intake: {0}")]
    Intake(#[from] crate::commands::intake::IntakeError),
    /// The submission was refused (the comment file says why; the reasons have been listed).
    #[error("syscost-site intake: the record was refused ({0} reason(s))")]
    Refused(usize),
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
            allow_empty,
            base_url,
            data_url,
        } => build::run(build::Options {
            data,
            out,
            strict,
            allow_empty,
            base_url,
            data_url,
        }),
        Command::Check {
            dir,
            allow_emulated,
        } => check(&dir, allow_emulated),
        Command::Migrate { dir } => migrate(&dir),
        Command::Intake(Intake::Extract { event, data, out }) => intake(&event, &data, &out),
    }
}

/// The data directory a command reads: one that exists, is a directory (a link to one is
/// followed) and can be listed. A wrong path is an error, never an empty data set.
pub(super) fn data_dir(dir: &Path) -> Result<(), CommandError> {
    let err = |why: String| CommandError::Data {
        dir: dir.to_path_buf(),
        why,
    };
    match std::fs::metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Err(err("does not exist".to_string()))
        }
        Err(e) => Err(err(format!("cannot be read: {e}"))),
        Ok(m) if !m.is_dir() => Err(err("is not a directory".to_string())),
        Ok(_) => std::fs::read_dir(dir)
            .map(drop)
            .map_err(|e| err(format!("cannot be read: {e}"))),
    }
}

fn migrate(dir: &Path) -> Result<(), CommandError> {
    data_dir(dir)?;
    let report = crate::commands::migrate::migrate_dir(dir)?;
    for m in &report.moved {
        out(format_args!(
            "{} {} → {} {}",
            m.old_id, m.from, m.new_id, m.to
        ))?;
    }
    for (path, why) in &report.skipped {
        eprintln!("{}/{path}: left as it is: {why}", dir.display());
    }
    out(format_args!(
        "{}: {} record(s) migrated, {} already current, {} left as they are",
        dir.display(),
        report.moved.len(),
        report.unchanged,
        report.skipped.len()
    ))?;
    if report.skipped.is_empty() {
        Ok(())
    } else {
        Err(CommandError::Unmigrated(report.skipped.len()))
    }
}

fn check(dir: &Path, allow_emulated: bool) -> Result<(), CommandError> {
    data_dir(dir)?;
    let report = crate::commands::check::check_dir(dir, allow_emulated);
    for w in &report.warnings {
        eprintln!("warning: {}/{w}", dir.display());
    }
    if report.issues.is_empty() {
        return out(format_args!(
            "{}: {} record(s), no problems found{}",
            dir.display(),
            report.records,
            match report.warnings.len() {
                0 => String::new(),
                n => format!(" ({n} plausibility warning(s) above)"),
            }
        ));
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

fn intake(event: &Path, data: &Path, out_dir: &Path) -> Result<(), CommandError> {
    data_dir(data)?;
    match crate::commands::intake::extract(event, data, out_dir)? {
        crate::commands::intake::Outcome::Accepted(rel) => {
            out(format_args!("accepted: {}/{rel}", data.display()))
        }
        crate::commands::intake::Outcome::Refused(reasons) => {
            for r in &reasons {
                eprintln!("refused: {}", crate::build::load::printable(r));
            }
            Err(CommandError::Refused(reasons.len()))
        }
    }
}

/// One line on standard output; an error instead of a panic when it cannot be written.
pub(super) fn out(line: std::fmt::Arguments) -> Result<(), CommandError> {
    let mut o = std::io::stdout().lock();
    writeln!(o, "{line}")
        .and_then(|_| o.flush())
        .map_err(CommandError::Stdout)
}
