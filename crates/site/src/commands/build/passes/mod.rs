//! The two passes over the records. The first reads only the head of each record, to put a
//! series' runs in kernel-version and time order; the second reads each record in full, in
//! that order, validates it and writes its run page among the runs of its series on its
//! version.

mod pages;
use pages::*;

mod chains;
use chains::*;

mod first;
pub use first::first_pass;
use first::*;

use crate::build::cache::Cache;
use crate::build::load::{self, Candidate, Issue, RecordError};
use crate::build::staging::Key;
use crate::build::timing::{Lap, Timings};
use crate::build::triage::Triage;
use crate::model::kver::KernelVersion;
use crate::model::metrics::{Registry, Spelling, Spellings, Values};
use crate::model::series::SeriesKey;
use crate::model::summary::{Head, RunInfo};
use crate::parallel::{jobs, par_map};
use crate::view::ctx::Ctx;
use crate::view::error::BuildError;
use crate::view::links::Links;
use crate::view::pages::run;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;
use syscost_record::{
    canonical_path_for, to_file_json, validate, validate_file, Problem, RunRecord, SourceKind,
};

/// Where a worker's time goes (see [`crate::build::timing`]).
#[derive(Default, Clone, Copy)]
struct Parts {
    read_parse: Duration,
    validate: Duration,
    summarise: Duration,
    page: Duration,
    render: Duration,
    write: Duration,
    free: Duration,
}

impl Parts {
    fn report(&self, tm: &Timings) {
        tm.part("read and parse", self.read_parse);
        tm.part("validate", self.validate);
        tm.part("summarise", self.summarise);
        tm.part("run page data", self.page);
        tm.part("render", self.render);
        tm.part("write", self.write);
        tm.part("free the record", self.free);
    }
}

/// Why a record was left out of the site.
#[derive(Debug, thiserror::Error)]
enum Rejection {
    #[error(transparent)]
    Unusable(#[from] RecordError),
    #[error("invalid record: {}", list(.0))]
    Invalid(Vec<Problem>),
    #[error("duplicate of {first} (same id {id}); only the first is used")]
    Duplicate { first: String, id: String },
    #[error(
        "is a synthetic record (source.kind = \"synthetic\"): generated data is never \
         published by --strict"
    )]
    Synthetic,
}

fn list(problems: &[Problem]) -> String {
    let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
    list.join("; ")
}

/// What one worker keeps while it renders its chains.
struct Worker<'a> {
    ctx: &'a Ctx<'a>,
    opts: &'a PassOptions<'a>,
    reg: Registry,
    sp: Spellings,
    /// What runs share, held once: their lists of spellings.
    calls: Lists,
    /// The summary cache's spellings as this worker's registry and spellings have them.
    replayed: Vec<Option<(u32, u32)>>,
    /// The page being written, its allocation kept from page to page.
    html: Vec<u8>,
    /// Reads the records, one after another, into one buffer.
    reader: load::Reader,
    /// The shared pages of the runs so far, by their inputs (`run::environment_key`).
    envs: foldhash::HashMap<Key, String>,
    out: Share,
}

/// Lists of numbers held once for all the runs that have the same one.
#[derive(Default)]
struct Lists(foldhash::HashMap<Box<[u32]>, Arc<[u32]>>);

impl Lists {
    fn share(&mut self, l: Vec<u32>) -> Arc<[u32]> {
        if let Some(a) = self.0.get(l.as_slice()) {
            return Arc::clone(a);
        }
        let a: Arc<[u32]> = l.as_slice().into();
        self.0.insert(l.into_boxed_slice(), Arc::clone(&a));
        a
    }
}

/// One accepted run as the second pass has it.
struct Got {
    info: RunInfo,
    /// The spellings of the metric keys it met (the worker's).
    calls: Vec<u32>,
    rec: RunRecord,
    /// What it shares with its machine's other runs, unless this worker made that page.
    env: Option<run::EnvPage>,
    /// What is published, when the site carries the raw records.
    canonical: Option<Vec<u8>>,
    /// This program and the published bytes: for a record in its file form its key in the
    /// summary cache.
    content: Key,
    /// In its file form, so cached for the next build.
    cacheable: bool,
    /// Summarised from the summary cache.
    cached: bool,
}

/// Reads one record, once, and summarises it: from the summary cache when the previous build
/// of this program summarised the same bytes, else validated and summarised anew; the `Err` is
/// why it was left out.
fn load_run(e: &Entry, w: &mut Worker, series: Option<&Arc<SeriesKey>>) -> Result<Got, Rejection> {
    let tm = &mut w.out.parts;
    let mut t = Lap::start();
    let (rec, bytes) = w.reader.record(&e.cand.abs)?;
    let key = Key::of(&[&w.ctx.program, bytes]);
    tm.read_parse += t.lap();
    // Copied only when the site carries the raw records.
    let copy = w.ctx.data_url.is_none();
    let cache = w.opts.cache;
    let hit = cache.take(&key).and_then(|hit| {
        let (values, calls) = Values::replay(
            &hit.calls,
            &cache.spellings,
            &hit.values,
            &mut w.reg,
            &mut w.sp,
            &mut w.replayed,
        )?;
        let mut info = hit.info;
        info.values = values;
        // Runs of one series share their key.
        if let Some(s) = series.filter(|s| **s == info.series) {
            info.series = Arc::clone(s);
        }
        Some((info, calls))
    });
    let (mut info, calls, canonical, content, cacheable, cached) = match hit {
        Some((info, calls)) => (info, calls, copy.then(|| bytes.to_vec()), key, true, true),
        None => {
            // The file-form check and the content id, without a copy of the record's text.
            let (problems, in_form) = validate_file(&rec, bytes);
            tm.validate += t.lap();
            if !problems.is_empty() {
                return Err(Rejection::Invalid(problems));
            }
            // What is published is the file form (of the record's schema), which is what the
            // content id covers: a file in another form is published in the form syscost
            // writes.
            let (canonical, content) = if in_form {
                (copy.then(|| bytes.to_vec()), key)
            } else {
                let c = to_file_json(&rec).into_bytes();
                let k = Key::of(&[&w.ctx.program, &c]);
                (copy.then_some(c), k)
            };
            let (info, calls) =
                RunInfo::from_record_spelled(&rec, &mut w.reg, series, Some(&mut w.sp));
            (info, calls, canonical, content, in_form, false)
        }
    };
    // The page of what the run shares with its machine's other runs: made once per worker
    // and inputs, not once a run (hundreds of runs share one).
    let env_inputs = run::environment_key(&rec, &info);
    let env = match w.envs.get(&env_inputs) {
        Some(path) => {
            info.env_page.clone_from(path);
            None
        }
        None => {
            let env = run::environment(&rec, &info);
            info.env_page = env.path();
            w.envs.insert(env_inputs, info.env_page.clone());
            Some(env)
        }
    };
    debug_assert_eq!(info.env_page, run::environment(&rec, &info).path());
    w.out.parts.summarise += t.lap();
    Ok(Got {
        info,
        calls,
        rec,
        env,
        canonical,
        content,
        cacheable,
        cached,
    })
}

/// An accepted run whose page is still to be made: its page is made once the runs that share
/// it are known.
struct Pending {
    /// Its index in the worker's accepted runs.
    at: usize,
    rec: Option<RunRecord>,
    /// Its part of the page, made while its record is at hand.
    part: Option<run::RunPage>,
    raw: String,
}

/// Summarises one run and makes what is its alone (its machine-and-settings page, its
/// published record); the inner `Err` is the reason it was left out. Its page is made by
/// [`make_page`].
fn second_pass_one(
    e: &Entry,
    w: &mut Worker,
    series: Option<&Arc<SeriesKey>>,
) -> Result<Result<(Accepted, Pending), Rejection>, BuildError> {
    let got = match load_run(e, w, series) {
        Ok(g) => g,
        Err(why) => return Ok(Err(why)),
    };
    let mut t = Lap::start();
    let Got {
        mut info,
        calls,
        rec,
        env,
        canonical,
        content,
        cacheable,
        cached,
    } = got;
    // Generated data is labelled on every page it appears on; a strict (production) build
    // refuses it, as `check` does.
    if w.opts.strict && info.kind == SourceKind::Synthetic {
        return Ok(Err(Rejection::Synthetic));
    }
    w.out.cached += usize::from(cached);
    let want = format!("{}.json", info.page);
    if e.cand.rel != want {
        w.out.warnings.push(Issue {
            path: e.cand.rel.clone(),
            message: format!("should be stored as {want}; published under that name"),
        });
    }
    if !cacheable {
        w.out.warnings.push(Issue {
            path: e.cand.rel.clone(),
            message: "is not in the form syscost writes; its canonical form is published"
                .to_string(),
        });
    }
    info.accepted = w.opts.triage.accepts(&info.id);
    info.record_rel.clone_from(&e.cand.rel);
    // Every page of runs is as deep as the record's canonical path, so the raw record's link
    // is the same from either.
    let raw = w.ctx.raw_href(
        &info,
        &crate::view::format::root_of(&format!("{}.html", info.page)),
    );
    w.out.parts.page += t.lap();
    // What the run shares with others of its machine is one page for all of them, named by its
    // content's hash: made by the first run of the build that links it.
    if w.ctx.claim_shared(&info.env_page) {
        let env = env.unwrap_or_else(|| run::environment(&rec, &info));
        w.ctx
            .page_into(&info.env_page, "env.html", &env, &mut w.html)?;
        w.out.parts.render += t.lap();
    }
    if let Some(c) = &canonical {
        w.ctx.out.write(&format!("{}.json", info.page), c)?;
    }
    w.out.parts.write += t.lap();
    drop(canonical);
    w.out.parts.free += t.lap();
    let pending = Pending {
        at: w.out.infos.len(),
        rec: Some(rec),
        part: None,
        raw,
    };
    Ok(Ok((
        Accepted {
            info,
            key: cacheable.then_some(content),
            calls: w.calls.share(calls),
        },
        pending,
    )))
}

impl Pending {
    /// Makes its part of the page from its record, if it has been read, and hands the record
    /// back to be freed (the caller times that apart).
    fn prepare(&mut self, w: &Worker, first: bool) -> Option<RunRecord> {
        let rec = self.rec.take()?;
        let run = &w.out.infos[self.at].1;
        self.part = Some(run::build(&rec, &run.info, &self.raw, first));
        Some(rec)
    }

    /// [`Pending::prepare`], its time counted as the page's data and the record's freeing.
    fn prepare_timed(&mut self, w: &mut Worker, first: bool) {
        let mut t = Lap::start();
        let used = self.prepare(w, first);
        w.out.parts.page += t.lap();
        drop(used);
        w.out.parts.free += t.lap();
    }
}

/// The most runs on one page of a series' runs on one version (its tables have two columns a
/// run; the runs of a version beyond these go on further pages). What a page says once (its
/// chrome, notes, and the tables' row labels) is ~5 KB: at 8 a page it was 0.6 KB a run, 84 MB
/// of a site of 100,000 runs that must fit in 1 GB; 12 keeps a page near 80 KB.
pub const RUNS_A_PAGE: usize = 12;

/// What the second pass needs besides the records.
pub struct PassOptions<'a> {
    /// `--strict`: synthetic records are refused, not published.
    pub strict: bool,
    pub triage: &'a Triage,
    /// The previous build's summaries.
    pub cache: &'a Cache,
    pub timings: &'a Timings,
}

/// What the second pass produced.
#[derive(Default)]
pub struct Rendered {
    /// Accepted runs, in entry order, their metric ids those of `registry`.
    pub infos: Vec<RunInfo>,
    /// Every metric met, in display order.
    pub registry: Registry,
    /// For the next build's summary cache, per run: its key (none when not cacheable) and the
    /// spellings of its metric keys (indices into `spellings`).
    pub keys: Vec<Option<Key>>,
    pub calls: Vec<Arc<[u32]>>,
    pub spellings: Vec<Spelling>,
    /// Records left out, with why.
    pub rejected: Vec<Issue>,
    /// Problems that did not stop a record from being used.
    pub warnings: Vec<Issue>,
    /// Runs summarised from the previous build's summary cache.
    pub cached: usize,
}

/// Renders every run page. Chains (a machine's runs in time order) are independent, so they
/// are spread over the available cores; results are put back in entry order so the output
/// does not depend on scheduling.
pub fn second_pass(
    entries: &[Entry],
    ctx: &Ctx,
    opts: &PassOptions,
) -> Result<Rendered, BuildError> {
    let work = assign_chains(entries, jobs());
    let shares: Vec<Result<(Share, Registry, Spellings), BuildError>> = std::thread::scope(|s| {
        let handles: Vec<_> = work
            .iter()
            .map(|w| s.spawn(|| render_chains(entries, w, ctx, opts)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(BuildError::Panicked)))
            .collect()
    });
    let mut out = Rendered::default();
    let mut parts = Vec::new();
    let mut regs = Vec::new();
    let mut sps = Vec::new();
    for share in shares {
        let (share, reg, sp) = share?;
        parts.push(share.infos);
        regs.push(reg);
        sps.push(sp);
        out.rejected.extend(share.rejected);
        out.warnings.extend(share.warnings);
        out.cached += share.cached;
    }
    // One registry in display order, whichever worker met which metric first.
    let (registry, maps) = Registry::merge(regs);
    // One table of spellings, each worker's numbers mapped onto it.
    let mut table: foldhash::HashMap<Spelling, u32> = foldhash::HashMap::default();
    let sp_maps: Vec<Vec<u32>> = sps
        .into_iter()
        .map(|sp| {
            sp.list
                .into_iter()
                .map(|s| {
                    let n = table.len() as u32;
                    *table.entry(s).or_insert(n)
                })
                .collect()
        })
        .collect();
    let mut spellings: Vec<(u32, Spelling)> = table.into_iter().map(|(s, n)| (n, s)).collect();
    spellings.sort_by_key(|(n, _)| *n);
    out.spellings = spellings.into_iter().map(|(_, s)| s).collect();
    let mut infos = Vec::new();
    for ((part, map), sp_map) in parts.into_iter().zip(&maps).zip(&sp_maps) {
        // A worker's lists of spellings are renumbered once each, and stay shared (the map
        // holds each original, so no address is reused while it is in use).
        type Renumbered = (Arc<[u32]>, Arc<[u32]>);
        let mut renumbered: foldhash::HashMap<*const [u32], Renumbered> =
            foldhash::HashMap::default();
        for (i, mut a) in part {
            a.info.values.renumber(map);
            let (_, new) = renumbered.entry(Arc::as_ptr(&a.calls)).or_insert_with(|| {
                let new = a
                    .calls
                    .iter()
                    .map(|c| sp_map.get(*c as usize).copied().unwrap_or(u32::MAX))
                    .collect();
                (Arc::clone(&a.calls), new)
            });
            a.calls = Arc::clone(new);
            infos.push((i, a));
        }
    }
    infos.sort_by_key(|(i, _)| *i);
    for (_, a) in infos {
        out.infos.push(a.info);
        out.keys.push(a.key);
        out.calls.push(a.calls);
    }
    out.registry = registry;
    Ok(out)
}
