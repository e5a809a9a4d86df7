//! Command-line interface: the argument types only. What each command does is in
//! `commands.rs`.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

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
        /// Replace a site that has runs with one that has none. Without it, a build that finds
        /// no run record leaves such a site as it is (exit 1).
        #[arg(long)]
        allow_empty: bool,
        /// Absolute URL the site is published at, for the Atom feed only
        /// (e.g. https://user.github.io/syscost/). Pages always link relatively.
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// URL of the data directory's files in the repository (e.g.
        /// https://github.com/OWNER/REPO/blob/main/data). Run pages then link each raw record
        /// there instead of the site carrying a copy.
        #[arg(long, value_name = "URL")]
        data_url: Option<String>,
    },
    /// Rewrite the records of a data directory in the current schema and file form (a schema
    /// 1 or 2 record's id changes once, its numbers rounded to the precision their intervals
    /// justify; a schema 3 record keeps its id).
    Migrate {
        /// Data directory.
        #[arg(default_value = "data")]
        dir: PathBuf,
    },
    /// Check a data directory for submission problems without building.
    Check {
        /// Data directory.
        #[arg(default_value = "data")]
        dir: PathBuf,
        /// Accept records emulated under QEMU's TCG (`syscost lab` without KVM) that timed.
        /// They are refused by default: their times are an emulator's. Accepted, they appear on
        /// their own run and series pages only, never pooled with measurements. (An emulated
        /// record that counted instructions, `syscost lab --count instructions`, is accepted
        /// without this: its series are instruction counts, labelled so.)
        #[arg(long)]
        allow_emulated: bool,
    },
    /// Runs submitted through the repository's issue form (the workflow `submit.yml`).
    #[command(subcommand)]
    Intake(Intake),
}

#[derive(Debug, Subcommand)]
pub enum Intake {
    /// Read an `issues` event (GitHub's event file), take the one JSON record in a fenced block
    /// of the text, check it as `check` would in the data directory it would join, and
    /// write the outcome under OUT: comment.md (always), pull-request.md and
    /// record/runs/<arch>/<kernel>/<id>.json (when it passed; it is then also in DATA). Exit 0
    /// when it passed, 1 when it was refused (comment.md says why).
    Extract {
        /// The event file ($GITHUB_EVENT_PATH).
        #[arg(long, value_name = "FILE")]
        event: PathBuf,
        /// The data directory the record would join.
        #[arg(long, default_value = "data")]
        data: PathBuf,
        /// Where the outcome is written.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
}
