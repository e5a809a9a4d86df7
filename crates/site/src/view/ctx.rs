//! What every page writer is handed: the template renderer and the staging directory.

use crate::build::staging::{Key, Staging};
use crate::view::error::BuildError;
use crate::view::render::Renderer;
use foldhash::HashSet;
use serde::Serialize;
use std::sync::Mutex;

/// Renders templates into the staging directory. Only shared references: every thread can
/// have its own copy.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    pub(crate) renderer: &'a Renderer,
    pub(crate) out: &'a Staging,
    /// Where raw records are linked (`--data-url`, no trailing slash); `None`: copied.
    pub(crate) data_url: Option<&'a str>,
    /// This program's identity ([`Key::of_program`]), part of every page's key.
    pub(crate) program: [u8; 16],
    /// The pages many runs share (their machine and settings), claimed by the first worker
    /// that needs one, so each is written once.
    pub(crate) shared: &'a Mutex<HashSet<String>>,
}

impl Ctx<'_> {
    /// The link to a run's raw record from the page at `root` (`../..` to the site root):
    /// in the repository when the site is built with `--data-url`, else the copy beside it.
    pub fn raw_href(&self, info: &crate::model::summary::RunInfo, root: &str) -> String {
        match self.data_url {
            Some(u) => format!("{u}/{}", info.record_rel),
            None => format!("{root}{}.json", info.page),
        }
    }
}

impl Ctx<'_> {
    /// Whether the caller is the first of this build to claim `path`, a page many runs link to
    /// (the one that makes or keeps it).
    pub fn claim_shared(&self, path: &str) -> bool {
        self.shared
            .lock()
            .map(|mut s| s.insert(path.to_string()))
            .unwrap_or(false)
    }

    /// Renders `template` with `ctx` and writes it at the site path `path`, unless the
    /// previous build rendered that page from the same template and context (its key is the
    /// context's hash, [`Key::of_context`]: nothing a page shows can be missing from it).
    pub fn page<T: Serialize>(
        &self,
        path: &str,
        template: &str,
        ctx: &T,
    ) -> Result<(), BuildError> {
        self.page_into(path, template, ctx, &mut Vec::new())
    }

    /// [`Ctx::page`], rendering into `html` (a buffer kept from page to page).
    pub fn page_into<T: Serialize>(
        &self,
        path: &str,
        template: &str,
        ctx: &T,
        html: &mut Vec<u8>,
    ) -> Result<(), BuildError> {
        let key = Key::of_context(&self.program, template, ctx);
        if let Some(key) = key {
            if self.out.reuse(path, key)? {
                return Ok(());
            }
        }
        self.renderer.render_into(template, ctx, html)?;
        match key {
            Some(key) => self.out.write_keyed(path, key, html)?,
            None => self.out.write(path, html)?,
        }
        Ok(())
    }
}
