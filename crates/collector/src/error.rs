//! The one place where the collector's failures become messages and exit codes.

use crate::engine::PlanError;
use crate::harness::clock::ClockError;
use crate::lab::LabError;
use crate::report::json::WriteError;
use std::path::PathBuf;

/// Exit code: a scenario failed (the record is still written), or a command could not finish.
pub const EXIT_FAILED: i32 = 1;
/// Exit code: bad usage or bad input (unknown scenario, budget ≤ 0, unavailable CPU...).
pub const EXIT_USAGE: i32 = 2;
/// Exit code of `syscost compare --fail-above PCT`: a cost regressed by more than PCT.
pub const EXIT_REGRESSION: i32 = 3;
/// Exit code: stopped by SIGINT/SIGTERM; nothing was written.
pub const EXIT_INTERRUPTED: i32 = 130;
/// Exit code when the reader of standard output went away: what a shell reports for a program
/// ended by SIGPIPE (128 + 13), and as quietly.
pub const EXIT_PIPE: i32 = 141;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument out of its range (the message names the flag and the value).
    #[error("{0}")]
    Argument(String),
    #[error(transparent)]
    Plan(#[from] PlanError),
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The destination was checked before measuring and cannot be written: nothing was
    /// measured.
    #[error("{0}; nothing was measured")]
    Destination(WriteError),
    #[error("cannot write to standard output: {0}")]
    Stdout(std::io::Error),
    /// Every destination failed; the record was saved elsewhere (or printed) as said.
    #[error("the record could not be written where asked ({0})")]
    Lost(String),
    #[error("interrupted after {rounds} rounds ({seconds:.1} s); every worker was stopped and no record was written")]
    Interrupted { rounds: usize, seconds: f64 },
    #[error("interrupted; the worker was stopped and no record was written")]
    InterruptedSequential,
    #[error("{} scenario(s) failed: {} (see the reasons in the record)", .0.len(), .0.join(", "))]
    ScenariosFailed(Vec<String>),
    /// Every file's own error has been printed; nothing was saved.
    #[error("nothing was imported")]
    NothingImported,
    /// A log read twice (checked, then written) gave different text the second time.
    #[error("{} changed while it was imported; import it again", .0.display())]
    ChangedWhileImporting(PathBuf),
    #[error("cannot encode the records: {0}")]
    Encode(#[from] serde_json::Error),
    #[error("cannot find syscost itself: {0}")]
    SelfExe(std::io::Error),
    #[error("cannot start syscost run: {0}")]
    Spawn(std::io::Error),
    /// A saved record given to `selfcheck --suite --records` that cannot be read.
    #[error("cannot read the record {}: {reason}", .path.display())]
    ReadRecord { path: PathBuf, reason: String },
    #[error("syscost run {args} produced no record ({error}): {stderr}")]
    NoRecord {
        args: String,
        error: serde_json::Error,
        stderr: String,
    },
    #[error(transparent)]
    Lab(#[from] LabError),
    /// `--clock instructions` on a clock that does not count them: nothing was measured.
    #[error("--clock instructions: {0}; nothing was measured")]
    Clock(#[from] ClockError),
    /// The matrix found cells whose cause is not the kernel (they have been printed).
    #[error("{0} kernel × scenario cell(s) failed or disagree with their kernel (see the table)")]
    MatrixFailed(usize),
    /// `submit`: records the site's check refuses (each problem has been printed).
    #[error("{0} record(s) would be refused by the site's check (see above); nothing was sent")]
    Refused(usize),
    #[error(
        "standard input is not a terminal, so no one can confirm what will be published: \
         give --yes to submit without asking; nothing was sent"
    )]
    NoTerminal,
    #[error("not confirmed; nothing was sent")]
    NotConfirmed,
    #[error(
        "{0} (the records were not all sent: see the pull requests and branches of your fork)"
    )]
    Gh(#[from] GhError),
    /// A record file that cannot be read as records (names the file and the reason).
    #[error("{}: {reason}", .path.display())]
    Record { path: PathBuf, reason: String },
    /// Records whose comparability keys differ, compared without `--force` (each message
    /// names the parts that differ).
    #[error("{}; compare them anyway with --force", .0.join("; "))]
    Incomparable(Vec<String>),
    /// Costs slower by more than `--fail-above` (they have been printed).
    #[error("{count} cost(s) slower by more than {pct}% (listed above)")]
    Regression { pct: f64, count: usize },
    #[error("cannot save {path}: {source}")]
    Save {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Error {
    /// Whether `main` says nothing: the reader of standard output went away.
    pub fn is_quiet(&self) -> bool {
        matches!(self, Error::Stdout(e) if e.kind() == std::io::ErrorKind::BrokenPipe)
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Argument(_)
            | Error::Plan(_)
            | Error::Destination(_)
            | Error::Clock(_)
            | Error::Refused(_)
            | Error::NoTerminal
            | Error::Record { .. }
            | Error::Incomparable(_) => EXIT_USAGE,
            Error::Regression { .. } => EXIT_REGRESSION,
            Error::Stdout(e) if e.kind() == std::io::ErrorKind::BrokenPipe => EXIT_PIPE,
            Error::Lab(
                LabError::UnknownImage(_)
                | LabError::ArchMismatch { .. }
                | LabError::IcountSmp { .. },
            ) => EXIT_USAGE,
            Error::Lab(LabError::Interrupted) => EXIT_INTERRUPTED,
            Error::Interrupted { .. } | Error::InterruptedSequential => EXIT_INTERRUPTED,
            _ => EXIT_FAILED,
        }
    }
}

/// A `gh` call that failed: what was asked and what gh said.
#[derive(Debug, thiserror::Error)]
pub enum GhError {
    #[error("cannot start gh: {0}")]
    Spawn(std::io::Error),
    #[error("`gh {call}` failed ({status}): {said}")]
    Failed {
        call: String,
        status: String,
        said: String,
    },
    #[error("`gh {call}` answered without {what}: {said}")]
    Answer {
        call: String,
        what: &'static str,
        said: String,
    },
}
