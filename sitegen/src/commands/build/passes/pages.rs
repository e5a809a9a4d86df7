//! The pages of a series' runs on one version, filled as the chains' runs are read.

use super::*;

/// Makes the page `rel` of the runs `runs` (in page order), unless the previous build made it
/// from the same inputs: their records, acceptance and raw-record links, the runs each is
/// compared with (their ids are content hashes: their summaries), the pages around it, and
/// this program.
pub(super) fn make_page(
    entries: &[Entry],
    w: &mut Worker,
    rel: &str,
    runs: &mut Vec<Pending>,
    pager: run::Pager,
    alone: bool,
) -> Result<(), BuildError> {
    let mut t = Lap::start();
    let infos = &w.out.infos;
    // A run compared with: its id, and the page it is on (which moves when runs are added
    // before it on its version).
    let other = |i: Option<usize>| {
        i.map_or((&b""[..], [0; 4]), |i| {
            let r = &infos[i].1.info;
            (r.id.as_bytes(), r.shown_on.to_le_bytes())
        })
    };
    let mut parts: Vec<&[u8]> = vec![&w.ctx.program, rel.as_bytes()];
    let around = [pager.older.as_deref(), pager.newer.as_deref()].map(|p| p.unwrap_or(""));
    parts.extend(around.iter().map(|p| p.as_bytes()));
    /// A run's key and, for each run it is compared with, that run's id and page number.
    type RunKey<'a> = ([u8; 16], [(&'a [u8], [u8; 4]); 2]);
    let keys: Vec<RunKey> = runs
        .iter()
        .map(|p| (p.key.bytes(), [other(p.prev), other(p.same)]))
        .collect();
    for (k, cmp) in &keys {
        parts.push(&k[..]);
        for (id, page) in cmp {
            parts.extend([*id, &page[..], b"/"]);
        }
    }
    let key = Key::of(&parts);
    w.out.parts.page += t.lap();
    if w.ctx.out.reuse(rel, key)? {
        runs.clear();
        return Ok(());
    }
    let root = crate::view::format::root_of(rel);
    let mut pages = Vec::with_capacity(runs.len());
    // Drained, so each worker keeps one list of these large entries.
    for mut p in runs.drain(..) {
        if p.part.is_none() {
            let e = &entries[p.entry];
            read(e, &mut p.rec, &mut None).map_err(|why| BuildError::Changed {
                path: e.cand.rel.clone(),
                why,
            })?;
            w.out.parts.read_parse += t.lap();
            p.prepare_timed(w, pages.is_empty());
            t.lap();
        }
        pages.extend(p.part);
    }
    let parts = &mut w.out.parts;
    let Some(page) = run::page(pages, &root, pager, alone) else {
        return Ok(());
    };
    parts.page += t.lap();
    w.ctx.renderer.render_into("run.html", &page, &mut w.html)?;
    parts.render += t.lap();
    w.ctx.out.write_keyed(rel, key, &w.html)?;
    parts.write += t.lap();
    drop(page);
    parts.free += t.lap();
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
    pub(super) fn finish(
        &mut self,
        entries: &[Entry],
        w: &mut Worker,
        more: bool,
    ) -> Result<(), BuildError> {
        let rel = self.current();
        let newer = more.then(|| self.rel(self.before / RUNS_A_PAGE + 2));
        let pager = run::Pager {
            older: self.older.take(),
            newer,
        };
        make_page(entries, w, &rel, &mut self.runs, pager, false)?;
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

/// The runs of a chain a new run can be compared with, as indices into the worker's accepted
/// runs: those of the nearest earlier version, and those of the current one so far.
#[derive(Clone, Copy)]
pub(super) struct ChainCmp<'a> {
    pub(super) prev: &'a [usize],
    pub(super) cur: &'a [usize],
}

impl ChainCmp<'_> {
    /// The nearest earlier version's run to compare with: the same machine's if there is one,
    /// a run of good enough quality before a low one, the latest before the earlier.
    pub(super) fn choose_prev(&self, infos: &[(usize, Accepted)], this: &RunInfo) -> Option<usize> {
        let same = |i: &usize| this.machine.is_some() && infos[*i].1.info.machine == this.machine;
        let ok = |i: &usize| !infos[*i].1.info.is_low();
        let latest = |f: &dyn Fn(&usize) -> bool| self.prev.iter().rev().copied().find(|i| f(i));
        latest(&|i| same(i) && ok(i))
            .or_else(|| latest(&same))
            .or_else(|| latest(&ok))
            .or_else(|| self.prev.last().copied())
    }

    /// The same machine's previous run on this version.
    pub(super) fn choose_same(&self, infos: &[(usize, Accepted)], this: &RunInfo) -> Option<usize> {
        this.machine.as_ref()?;
        self.cur
            .iter()
            .rev()
            .copied()
            .find(|&i| infos[i].1.info.machine == this.machine)
    }
}

/// Why a later copy of an accepted record's id is left out: a copy if it truly has the same
/// content (ids are content hashes), or whatever is wrong with it.
pub(super) fn duplicate(e: &Entry, first: &str) -> Rejection {
    match load::read_record(&e.cand.abs) {
        Ok(rec) => match validate(&rec) {
            problems if problems.is_empty() => Rejection::Duplicate {
                first: first.to_string(),
                id: e.id.clone(),
            },
            problems => Rejection::Invalid(problems),
        },
        Err(m) => m.into(),
    }
}
