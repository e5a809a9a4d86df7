//! The two passes over the records. The first reads only the head of each record, to put a
//! machine's runs in time order; the second reads each record in full, in that order,
//! validates it and writes its run page next to the machine's previous run.

use super::ctx::Ctx;
use super::error::BuildError;
use super::links::Links;
use super::pages::run;
use super::parallel::{jobs, par_map};
use crate::info::{Head, RunInfo, SeriesKey};
use crate::kver::KernelVersion;
use crate::load::{self, Candidate, Issue, RecordError};
use crate::triage::Triage;
use std::collections::BTreeMap;
use std::ops::Range;
use std::time::{Duration, Instant};
use syscost_record::{canonical_path_for, to_file_json, validate, Problem, RunRecord, SourceKind};

/// A machine's runs form a chain ordered in time; runs without a machine identity are alone.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Chain {
    machine: String,
    series: Option<SeriesKey>,
    alone: String,
}

pub struct Entry {
    cand: Candidate,
    chain: Chain,
    date: Option<String>,
    kernel: KernelVersion,
    id: String,
    /// Not at the path its arch, kernel and id give: of two copies of one record, the one at
    /// its canonical path is used (false sorts first).
    misplaced: bool,
}

/// Reads the light [`Head`] of one candidate: enough to place it in its machine's chain.
fn head_entry(cand: Candidate) -> Result<Entry, Issue> {
    let reject = |why: RecordError| Issue {
        path: cand.rel.clone(),
        message: why.to_string(),
    };
    let bytes = load::read_limited(&cand.abs).map_err(reject)?;
    let head: Head = match crate::info::read_head(&bytes) {
        Ok(h) => h,
        Err(e) => {
            // Explain with the full format's error, which names the actual problem.
            let why = match load::parse_record(&bytes) {
                Err(why) => why,
                Ok(_) => load::diagnose(&bytes, &e),
            };
            return Err(reject(why));
        }
    };
    let machine = head
        .environment
        .incidental
        .machine_hash
        .clone()
        .filter(|m| !m.trim().is_empty());
    let chain = match machine {
        Some(m) => Chain {
            machine: m,
            series: Some(head.series()),
            alone: String::new(),
        },
        // Keyed by the claimed id, so that copies of one record share a chain (and a worker)
        // and are recognised as duplicates once they have been validated.
        None => Chain {
            machine: String::new(),
            series: None,
            alone: head.id.clone(),
        },
    };
    let c = &head.environment.comparability;
    let misplaced = cand.rel != canonical_path_for(&c.arch, &c.kernel_release, &head.id);
    Ok(Entry {
        chain,
        misplaced,
        date: head.source.date.clone(),
        kernel: KernelVersion::parse(&head.environment.comparability.kernel_release),
        id: head.id,
        cand,
    })
}

/// Places every candidate in its chain, on all cores. Duplicates are not judged here: a
/// broken file may claim any id, so only validated records can be duplicates of each other.
pub fn first_pass(cands: Vec<Candidate>, rejected: &mut Vec<Issue>) -> Vec<Entry> {
    let mut entries = Vec::with_capacity(cands.len());
    for r in par_map(cands, jobs(), head_entry) {
        match r {
            Ok(e) => entries.push(e),
            Err(i) => rejected.push(i),
        }
    }
    // Copies of one record: the one at its canonical path first, then in file-name order
    // (the sort is stable), so the first is the one kept.
    entries.sort_by(|a, b| {
        a.chain
            .cmp(&b.chain)
            .then_with(|| a.date.cmp(&b.date))
            .then_with(|| a.kernel.cmp(&b.kernel))
            .then_with(|| a.id.cmp(&b.id))
            .then_with(|| a.misplaced.cmp(&b.misplaced))
    });
    entries
}

/// Where build time goes, printed with `SYSCOST_SITE_TIMINGS=1` (for the benchmark).
#[derive(Default, Clone, Copy)]
pub struct Timings {
    pub first_pass: Duration,
    read_parse: Duration,
    validate: Duration,
    page: Duration,
    render: Duration,
    write: Duration,
    pub indexes: Duration,
}

impl Timings {
    pub fn add(&mut self, o: &Timings) {
        self.read_parse += o.read_parse;
        self.validate += o.validate;
        self.page += o.page;
        self.render += o.render;
        self.write += o.write;
    }

    pub fn print(&self) {
        eprintln!(
            "timings: first pass {:.2}s, read+parse {:.2}s, validate {:.2}s, page data {:.2}s, render {:.2}s, write {:.2}s, index pages {:.2}s",
            self.first_pass.as_secs_f64(),
            self.read_parse.as_secs_f64(),
            self.validate.as_secs_f64(),
            self.page.as_secs_f64(),
            self.render.as_secs_f64(),
            self.write.as_secs_f64(),
            self.indexes.as_secs_f64()
        );
    }
}

pub fn lap(t: &mut Instant) -> Duration {
    let now = Instant::now();
    let d = now - *t;
    *t = now;
    d
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

/// Reads, validates and renders one run; the inner `Err` is the reason it was left out.
fn second_pass_one(
    e: &Entry,
    prev: Option<&(RunRecord, RunInfo)>,
    ctx: &Ctx,
    opts: &PassOptions,
    out: &mut Share,
) -> Result<Result<(RunRecord, RunInfo), Rejection>, BuildError> {
    let tm = &mut out.timings;
    let mut t = Instant::now();
    let read = load::read_limited(&e.cand.abs).and_then(|b| Ok((load::parse_record(&b)?, b)));
    let (rec, bytes) = match read {
        Ok(x) => x,
        Err(m) => return Ok(Err(m.into())),
    };
    tm.read_parse += lap(&mut t);
    let mut problems = validate(&rec);
    // A name the site uses for its own pages would make a directory collide with a page.
    problems.extend(crate::names::problems(&rec));
    tm.validate += lap(&mut t);
    if !problems.is_empty() {
        return Ok(Err(Rejection::Invalid(problems)));
    }
    // Generated data is labelled on every page it appears on; a strict (production) build
    // refuses it, as `check` does.
    if opts.strict && rec.source.kind == SourceKind::Synthetic {
        return Ok(Err(Rejection::Synthetic));
    }
    let want = rec.canonical_path();
    if e.cand.rel != want {
        out.warnings.push(Issue {
            path: e.cand.rel.clone(),
            message: format!("should be stored as {want}; published under that name"),
        });
    }
    // What is published is the canonical form, which is what the content id covers: never the
    // file's own bytes.
    let canonical = to_file_json(&rec);
    if bytes != canonical.as_bytes() {
        out.warnings.push(Issue {
            path: e.cand.rel.clone(),
            message: "is not in the form syscost writes; its canonical form is published"
                .to_string(),
        });
    }
    let mut info = RunInfo::from_record(&rec);
    info.accepted = opts.triage.accepts(&rec.id);
    let page = run::build(&rec, &info, prev.map(|(r, i)| (r, i)), &Links);
    tm.page += lap(&mut t);
    let html = ctx.renderer.render("run.html", &page)?;
    tm.render += lap(&mut t);
    ctx.out
        .write(&format!("{}.html", info.page), html.as_bytes())?;
    ctx.out
        .write(&format!("{}.json", info.page), canonical.as_bytes())?;
    tm.write += lap(&mut t);
    Ok(Ok((rec, info)))
}

/// Why a later copy of an accepted record's id is left out: a copy if it truly has the same
/// content (ids are content hashes), or whatever is wrong with it.
fn duplicate(e: &Entry, first: &str) -> Rejection {
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

/// What the second pass needs besides the records.
pub struct PassOptions<'a> {
    /// `--strict`: synthetic records are refused, not published.
    pub strict: bool,
    pub triage: &'a Triage,
}

/// What the second pass produced.
#[derive(Default)]
pub struct Rendered {
    /// Accepted runs, in entry order.
    pub infos: Vec<RunInfo>,
    /// Records left out, with why.
    pub rejected: Vec<Issue>,
    /// Problems that did not stop a record from being used.
    pub warnings: Vec<Issue>,
    pub timings: Timings,
}

/// One worker's share of [`Rendered`]; accepted runs carry their entry index.
#[derive(Default)]
struct Share {
    infos: Vec<(usize, RunInfo)>,
    rejected: Vec<Issue>,
    warnings: Vec<Issue>,
    timings: Timings,
}

/// The chains (ranges of consecutive entries with the same chain) spread over `jobs` workers:
/// each goes to the worker with the fewest runs so far, so the split is deterministic.
fn assign_chains(entries: &[Entry], jobs: usize) -> Vec<Vec<Range<usize>>> {
    let mut work: Vec<Vec<Range<usize>>> = vec![Vec::new(); jobs];
    let mut load = vec![0usize; jobs];
    let mut start = 0;
    for i in 1..=entries.len() {
        if i == entries.len() || entries[i].chain != entries[start].chain {
            if i > start {
                let w = (0..jobs).min_by_key(|&w| (load[w], w)).unwrap_or(0);
                load[w] += i - start;
                work[w].push(start..i);
            }
            start = i;
        }
    }
    work
}

/// Renders the runs of some chains, each chain in order so every run is compared with the
/// previous run of its machine.
fn render_chains(
    entries: &[Entry],
    chains: &[Range<usize>],
    ctx: &Ctx,
    opts: &PassOptions,
) -> Result<Share, BuildError> {
    let mut out = Share::default();
    for chain in chains {
        let mut prev: Option<(RunRecord, RunInfo)> = None;
        // Valid copies of one record have the same content, hence the same chain.
        let mut kept: BTreeMap<&str, &str> = BTreeMap::new();
        for i in chain.clone() {
            let e = &entries[i];
            let reject = |why: Rejection| Issue {
                path: e.cand.rel.clone(),
                message: why.to_string(),
            };
            if let Some(first) = kept.get(e.id.as_str()) {
                out.rejected.push(reject(duplicate(e, first)));
                continue;
            }
            match second_pass_one(e, prev.as_ref(), ctx, opts, &mut out)? {
                Ok((rec, info)) => {
                    kept.insert(e.id.as_str(), e.cand.rel.as_str());
                    out.infos.push((i, info.clone()));
                    // Only a machine's chain needs its previous record.
                    prev = (!e.chain.machine.is_empty()).then_some((rec, info));
                }
                Err(why) => out.rejected.push(reject(why)),
            }
        }
    }
    Ok(out)
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
    let shares: Vec<Result<Share, BuildError>> = std::thread::scope(|s| {
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
    let mut infos = Vec::new();
    for share in shares {
        let share = share?;
        infos.extend(share.infos);
        out.rejected.extend(share.rejected);
        out.warnings.extend(share.warnings);
        out.timings.add(&share.timings);
    }
    infos.sort_by_key(|(i, _)| *i);
    out.infos = infos.into_iter().map(|(_, r)| r).collect();
    Ok(out)
}
