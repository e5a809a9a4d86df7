//! Why a build could not finish (bad records never stop it: they are reported and left out).

use crate::build::staging::OutputError;
use crate::view::render::RenderError;

#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error(transparent)]
    Render(#[from] RenderError),
    #[error(transparent)]
    Output(#[from] OutputError),
    /// A record read earlier in the build could not be read again when its page was made.
    #[error("{path} changed while the site was built: {why}")]
    Changed {
        path: String,
        why: crate::build::load::RecordError,
    },
    #[error("a rendering thread panicked")]
    Panicked,
}
