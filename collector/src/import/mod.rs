//! `syscost import`: published kernel benchmark logs → run records.

use crate::cli::ImportArgs;

pub fn main(_args: &ImportArgs) -> i32 {
    eprintln!("syscost import: not implemented yet");
    crate::cli::EXIT_USAGE
}
