//! What every page writer is handed: the template renderer and the staging directory.

use crate::build::staging::Staging;
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
    /// This program's identity ([`crate::build::staging::Key::of_program`]), part of every page's inputs.
    pub(crate) program: [u8; 16],
    /// The pages many runs share (their machine and settings), claimed by the first worker
    /// that needs one, so each is written once.
    pub(crate) shared: &'a Mutex<HashSet<String>>,
    /// While a group of pages is made ([`Ctx::group`]): the pages written.
    pub(crate) made: Option<&'a std::sync::Mutex<Vec<String>>>,
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

    /// Renders `template` with `ctx` and writes it at the site path `path`.
    pub fn page<T: Serialize>(
        &self,
        path: &str,
        template: &str,
        ctx: &T,
    ) -> Result<(), BuildError> {
        let mut html = Vec::new();
        self.renderer.render_into(template, ctx, &mut html)?;
        self.out.write(path, &html)?;
        if let Some(made) = self.made {
            if let Ok(mut m) = made.lock() {
                m.push(path.to_string());
            }
        }
        Ok(())
    }

    /// Makes a group of pages with `f` (every page through [`Ctx::page`]), unless the previous
    /// build made the group from the same inputs: `key` must cover everything its pages are
    /// made from (this program is added here).
    pub fn group(
        &self,
        key: &[&[u8]],
        f: impl FnOnce(&mut Ctx<'_>) -> Result<(), BuildError>,
    ) -> Result<(), BuildError> {
        let mut parts: Vec<&[u8]> = vec![&self.program];
        parts.extend_from_slice(key);
        let key = crate::build::staging::Key::of(&parts);
        if self.out.reuse_group(key)? {
            return Ok(());
        }
        let made = std::sync::Mutex::new(Vec::new());
        let mut sub = Ctx {
            made: Some(&made),
            ..*self
        };
        f(&mut sub)?;
        let made = made.into_inner().unwrap_or_default();
        self.out.group_made(key, &made);
        Ok(())
    }
}
