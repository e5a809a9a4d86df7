//! What every page writer is handed: the template renderer and the staging directory.

use super::error::BuildError;
use crate::out::Staging;
use crate::render::Renderer;
use serde::Serialize;
use std::collections::HashSet;
use std::sync::Mutex;

/// Renders templates into the staging directory. Only shared references: every thread can
/// have its own copy.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub(super) renderer: &'a Renderer,
    pub(super) out: &'a Staging,
    /// Where raw records are linked (`--data-url`, no trailing slash); `None`: copied.
    pub(super) data_url: Option<&'a str>,
    /// This program's identity ([`crate::out::Key::of_program`]), part of every page's inputs.
    pub(super) program: [u8; 16],
    /// The pages many runs share (their machine and settings), claimed by the first worker
    /// that needs one, so each is written once.
    pub(super) shared: &'a Mutex<HashSet<String>>,
}

impl Ctx<'_> {
    /// The link to a run's raw record from the page at `root` (`../..` to the site root):
    /// in the repository when the site is built with `--data-url`, else the copy beside it.
    pub fn raw_href(&self, info: &crate::info::RunInfo, root: &str) -> String {
        match self.data_url {
            Some(u) => format!("{u}/{}", info.record_rel),
            None => format!("{root}{}.json", info.page),
        }
    }
}

impl Ctx<'_> {
    /// Writes a page many runs link to at `path`, with what `make` renders, unless another run
    /// already did.
    pub fn shared_page(
        &self,
        path: &str,
        make: impl FnOnce() -> Result<String, BuildError>,
    ) -> Result<(), BuildError> {
        let first = self
            .shared
            .lock()
            .map(|mut s| s.insert(path.to_string()))
            .unwrap_or(false);
        if first {
            self.out.write(path, make()?.as_bytes())?;
        }
        Ok(())
    }

    /// Renders `template` with `ctx` and writes it at the site path `path`.
    pub fn page<T: Serialize>(
        &self,
        path: &str,
        template: &str,
        ctx: &T,
    ) -> Result<(), BuildError> {
        let html = self.renderer.render(template, ctx)?;
        Ok(self.out.write(path, html.as_bytes())?)
    }
}
