//! `syscost lab-matrix`: (in progress)
use crate::cli::LabMatrixArgs;
use crate::error::Error;

pub fn run(_args: &LabMatrixArgs) -> Result<i32, Error> {
    Ok(0)
}
