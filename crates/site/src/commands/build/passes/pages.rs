//! The pages of a series' runs on one version, filled as the chains' runs are read.

use super::*;

/// Makes the page `rel` of the runs `runs` (in page order), unless the previous build rendered
/// it from the same context ([`crate::view::ctx::Ctx::page`]).
pub(super) fn make_page(
    w: &mut Worker,
    rel: &str,
    runs: &mut Vec<Pending>,
    pager: run::Pager,
    alone: bool,
) -> Result<(), BuildError> {
    let mut t = Lap::start();
    let root = crate::view::format::root_of(rel);
    // Drained, so each worker keeps one list of these large entries.
    let parts: Vec<run::RunPage> = runs.drain(..).filter_map(|p| p.part).collect();
    let Some(page) = run::page(parts, &root, pager, alone) else {
        return Ok(());
    };
    w.out.parts.page += t.lap();
    w.ctx.page_into(rel, "run.html", &page, &mut w.html)?;
    w.out.parts.render += t.lap();
    drop(page);
    w.out.parts.free += t.lap();
    Ok(())
}

/// The runs of one series on one version so far: those of the page being filled, and the
/// path of the page before it.
pub(super) struct Filling {
    pub(super) base: Option<crate::model::kver::Base>,
    pub(super) arch: String,
    pub(super) kbase: String,
    pub(super) series: Arc<SeriesKey>,
    /// Runs on the pages before this one.
    pub(super) before: usize,
    pub(super) runs: Vec<Pending>,
    pub(super) older: Option<String>,
}

impl Filling {
    /// The path of page `n` (1-based).
    pub(super) fn rel(&self, n: usize) -> String {
        Links.runs_of(&self.arch, &self.kbase, &self.series, n)
    }

    /// The path of the page being filled.
    pub(super) fn current(&self) -> String {
        self.rel(self.before / RUNS_A_PAGE + 1)
    }

    /// Makes the page being filled; `more` when later runs of its version go on the next page.
    pub(super) fn finish(&mut self, w: &mut Worker, more: bool) -> Result<(), BuildError> {
        let rel = self.current();
        let newer = more.then(|| self.rel(self.before / RUNS_A_PAGE + 2));
        let pager = run::Pager {
            older: self.older.take(),
            newer,
            against: Some(crate::view::pages::against::path(
                &self.arch,
                &self.kbase,
                &self.series.id(),
            )),
        };
        make_page(w, &rel, &mut self.runs, pager, false)?;
        self.before += RUNS_A_PAGE;
        self.older = Some(rel);
        Ok(())
    }
}

/// One accepted run and what the next build's summary cache needs of it.
pub(super) struct Accepted {
    pub(super) info: RunInfo,
    /// Its cache key; none for a record not in its file form.
    pub(super) key: Option<Key>,
    /// The spellings of its metric keys (the worker's until merged), shared by the runs that
    /// met the same ones.
    pub(super) calls: Arc<[u32]>,
}

/// Why a later copy of an accepted record's id is left out: a copy if it truly has the same
/// content (ids are content hashes), or whatever is wrong with it.
pub(super) fn duplicate(e: &Entry, first: &str) -> Rejection {
    match load::Reader::default().record(&e.cand.abs) {
        Ok((rec, _)) => match validate(&rec) {
            problems if problems.is_empty() => Rejection::Duplicate {
                first: first.to_string(),
                id: e.id.clone(),
            },
            problems => Rejection::Invalid(problems),
        },
        Err(m) => m.into(),
    }
}
