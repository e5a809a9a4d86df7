//! The two passes over the records. The first reads only the head of each record, to put a
//! machine's runs in time order; the second reads each record in full, in that order,
//! validates it and writes its run page next to the machine's previous run.

use super::ctx::Ctx;
use super::links::Links;
use super::pages::run;
use super::parallel::{jobs, par_map};
use crate::info::{Head, RunInfo, SeriesKey};
use crate::kver::KernelVersion;
use crate::load::{self, Candidate, Issue};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use syscost_record::{validate, RunRecord};

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
}

/// Reads the light [`Head`] of one candidate: enough to place it in its machine's chain.
fn head_entry(cand: Candidate) -> Result<Entry, Issue> {
    let reject = |m: String| Issue {
        path: cand.rel.clone(),
        message: m,
    };
    let bytes = load::read_limited(&cand.abs).map_err(reject)?;
    let head: Head = match crate::info::read_head(&bytes) {
        Ok(h) => h,
        Err(e) => {
            // Explain with the full format's error, which names the actual problem.
            let msg = match load::parse_record(&bytes) {
                Err(m) => m,
                Ok(_) => load::diagnose(&bytes, &e),
            };
            return Err(reject(msg));
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
    Ok(Entry {
        chain,
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
    // Stable: copies of one record stay in file-name order, so the first is the one kept.
    entries.sort_by(|a, b| {
        a.chain
            .cmp(&b.chain)
            .then_with(|| a.date.cmp(&b.date))
            .then_with(|| a.kernel.cmp(&b.kernel))
            .then_with(|| a.id.cmp(&b.id))
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

fn invalid(rec: &RunRecord) -> String {
    let list: Vec<String> = validate(rec).iter().map(ToString::to_string).collect();
    format!("invalid record: {}", list.join("; "))
}

/// Reads, validates and renders one run; `Err` is the reason it was left out.
fn second_pass_one(
    e: &Entry,
    prev: Option<&(RunRecord, RunInfo)>,
    ctx: &Ctx,
    warnings: &mut Vec<Issue>,
    tm: &mut Timings,
) -> Result<Result<(RunRecord, RunInfo), String>, String> {
    let mut t = Instant::now();
    let bytes = match load::read_limited(&e.cand.abs) {
        Ok(b) => b,
        Err(m) => return Ok(Err(m)),
    };
    let rec = match load::parse_record(&bytes) {
        Ok(r) => r,
        Err(m) => return Ok(Err(m)),
    };
    tm.read_parse += lap(&mut t);
    let problems = validate(&rec);
    tm.validate += lap(&mut t);
    if !problems.is_empty() {
        return Ok(Err(invalid(&rec)));
    }
    let want = rec.canonical_path();
    if e.cand.rel != want {
        warnings.push(Issue {
            path: e.cand.rel.clone(),
            message: format!("should be stored as {want}; published under that name"),
        });
    }
    let info = RunInfo::from_record(&rec);
    let page = run::build(&rec, &info, prev.map(|(r, i)| (r, i)), &Links);
    tm.page += lap(&mut t);
    let html = ctx.renderer.render("run.html", &page)?;
    tm.render += lap(&mut t);
    ctx.out
        .write(&format!("{}.html", info.page), html.as_bytes())?;
    ctx.out.write(&format!("{}.json", info.page), &bytes)?;
    tm.write += lap(&mut t);
    Ok(Ok((rec, info)))
}

/// What one rendering thread hands back: accepted runs (by entry index), rejections,
/// warnings and where its time went.
type PassOut = (Vec<(usize, RunInfo)>, Vec<Issue>, Vec<Issue>, Timings);
/// Accepted runs in entry order, rejections, warnings, timings.
pub type PassResult = (Vec<RunInfo>, Vec<Issue>, Vec<Issue>, Timings);

/// Renders every run page. Chains (a machine's runs in time order) are independent, so they
/// are spread over the available cores; results are put back in entry order so the output
/// does not depend on scheduling.
pub fn second_pass(entries: &[Entry], ctx: &Ctx) -> Result<PassResult, String> {
    let mut chains: Vec<std::ops::Range<usize>> = Vec::new();
    let mut start = 0;
    for i in 1..=entries.len() {
        if i == entries.len() || entries[i].chain != entries[start].chain {
            if i > start {
                chains.push(start..i);
            }
            start = i;
        }
    }
    let jobs = jobs();
    // Deterministic balance: each chain goes to the worker with the fewest runs so far.
    let mut work: Vec<Vec<std::ops::Range<usize>>> = vec![Vec::new(); jobs];
    let mut load = vec![0usize; jobs];
    for c in chains {
        let w = (0..jobs).min_by_key(|&w| (load[w], w)).unwrap_or(0);
        load[w] += c.len();
        work[w].push(c);
    }
    let run_worker = |ranges: &[std::ops::Range<usize>]| -> Result<PassOut, String> {
        let (mut ok, mut lost, mut warned, mut tm) =
            (Vec::new(), Vec::new(), Vec::new(), Timings::default());
        for r in ranges {
            let mut prev: Option<(RunRecord, RunInfo)> = None;
            // Valid copies of one record have the same content, hence the same chain.
            let mut kept: BTreeMap<&str, &str> = BTreeMap::new();
            for i in r.clone() {
                let e = &entries[i];
                if let Some(first) = kept.get(e.id.as_str()) {
                    // Only a record that validated is in `kept`, and ids are content hashes:
                    // this file claims the same content; if it truly has it, it is a copy.
                    let msg = match load::read_limited(&e.cand.abs)
                        .and_then(|b| load::parse_record(&b))
                    {
                        Ok(rec) if validate(&rec).is_empty() => format!(
                            "duplicate of {first} (same id {}); only the first is used",
                            e.id
                        ),
                        Ok(rec) => invalid(&rec),
                        Err(m) => m,
                    };
                    lost.push(Issue {
                        path: e.cand.rel.clone(),
                        message: msg,
                    });
                    continue;
                }
                match second_pass_one(e, prev.as_ref(), ctx, &mut warned, &mut tm)? {
                    Ok((rec, info)) => {
                        kept.insert(e.id.as_str(), e.cand.rel.as_str());
                        ok.push((i, info.clone()));
                        // Only a machine's chain needs its previous record.
                        prev = (!e.chain.machine.is_empty()).then_some((rec, info));
                    }
                    Err(m) => lost.push(Issue {
                        path: e.cand.rel.clone(),
                        message: m,
                    }),
                }
            }
        }
        Ok((ok, lost, warned, tm))
    };
    let outs: Vec<Result<PassOut, String>> = std::thread::scope(|s| {
        let handles: Vec<_> = work.iter().map(|w| s.spawn(|| run_worker(w))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err("a rendering thread panicked".to_string()))
            })
            .collect()
    });
    let (mut infos, mut lost, mut warned, mut tm) =
        (Vec::new(), Vec::new(), Vec::new(), Timings::default());
    for o in outs {
        let (a, b, c, t) = o?;
        infos.extend(a);
        lost.extend(b);
        warned.extend(c);
        tm.add(&t);
    }
    infos.sort_by_key(|(i, _)| *i);
    Ok((
        infos.into_iter().map(|(_, r)| r).collect(),
        lost,
        warned,
        tm,
    ))
}
