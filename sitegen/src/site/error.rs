//! Why a build could not finish (bad records never stop it: they are reported and left out).

use crate::out::OutputError;
use crate::render::RenderError;

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Output(#[from] OutputError),
    #[error("a rendering thread panicked")]
    Panicked,
}
