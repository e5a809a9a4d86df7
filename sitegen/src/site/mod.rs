//! `syscost-site build`: data directory → static site.
//!
//! Records are read twice, never held all at once: a first pass reads only the fields that
//! order a machine's runs in time; the second reads each record fully, in that order, renders
//! its page (comparing it with the machine's previous run, the one record kept in memory) and
//! keeps a compact [`RunInfo`] for the index pages. Memory therefore grows with the number of
//! runs only through the small summaries.

mod common;
mod content;
mod exports;
mod index_pages;
mod run_page;

use crate::info::{Head, RunInfo, SeriesKey};
use crate::kver::KernelVersion;
use crate::load::{self, Candidate, Issue};
use crate::out::{Staging, Stats};
use crate::render::{Renderer, STATIC};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use syscost_record::{validate, RunRecord};

pub use index_pages::PAGE_SIZE;

pub struct Options {
    pub data: PathBuf,
    pub out: PathBuf,
    pub strict: bool,
    /// Absolute URL of the published site, used only in the Atom feed.
    pub base_url: Option<String>,
}

pub struct Report {
    pub runs: usize,
    pub arches: usize,
    pub kernels: usize,
    /// Records left out of the site, with why.
    pub rejected: Vec<Issue>,
    /// Problems that did not stop a record from being used.
    pub warnings: Vec<Issue>,
    pub data_missing: bool,
    /// False when `--strict` refused to publish.
    pub written: bool,
    pub stats: Stats,
}

/// Renders templates into the staging directory. Only shared references: every thread can
/// have its own copy.
#[derive(Clone, Copy)]
pub struct Ctx<'a> {
    renderer: &'a Renderer,
    out: &'a Staging,
}

impl Ctx<'_> {
    fn page<T: Serialize>(&self, path: &str, template: &str, ctx: &T) -> Result<(), String> {
        let html = self.renderer.render(template, ctx)?;
        self.out.write(path, html.as_bytes())
    }
}

/// A machine's runs form a chain ordered in time; runs without a machine identity are alone.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Chain {
    machine: String,
    series: Option<SeriesKey>,
    alone: String,
}

struct Entry {
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

/// Splits `items` into at most `jobs` contiguous parts, runs `f` on each in its own thread and
/// returns the results in the original order, so output never depends on scheduling.
fn par_map<T: Send, R: Send>(items: Vec<T>, jobs: usize, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let per = items.len().div_ceil(jobs.max(1)).max(1);
    let mut parts: Vec<Vec<T>> = Vec::new();
    let mut it = items.into_iter().peekable();
    while it.peek().is_some() {
        parts.push(it.by_ref().take(per).collect());
    }
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|p| s.spawn(move || p.into_iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// A piece of the build that writes its own files.
type Task<'t> = Box<dyn FnOnce(&mut Ctx) -> Result<(), String> + Send + 't>;

/// Runs independent tasks on up to `jobs` threads, each taking the next task from a shared
/// queue; the first error (in task order) is returned.
fn run_tasks(tasks: Vec<Task>, ctx: Ctx, jobs: usize) -> Result<(), String> {
    let n = tasks.len();
    let queue = std::sync::Mutex::new(tasks.into_iter().enumerate());
    let mut errors: Vec<(usize, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs.min(n).max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut ctx = ctx;
                    let mut errs = Vec::new();
                    loop {
                        let next = queue.lock().ok().and_then(|mut q| q.next());
                        let Some((i, task)) = next else { break };
                        if let Err(e) = task(&mut ctx) {
                            errs.push((i, e));
                        }
                    }
                    errs
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    errors.sort();
    match errors.into_iter().next() {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// Number of threads for the passes over records (`SYSCOST_SITE_JOBS` overrides).
fn jobs() -> usize {
    std::env::var("SYSCOST_SITE_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 16)
}

/// Places every candidate in its chain, on all cores. Duplicates are not judged here: a
/// broken file may claim any id, so only validated records can be duplicates of each other.
fn first_pass(cands: Vec<Candidate>, rejected: &mut Vec<Issue>) -> Vec<Entry> {
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
struct Timings {
    first_pass: Duration,
    read_parse: Duration,
    validate: Duration,
    page: Duration,
    render: Duration,
    write: Duration,
    indexes: Duration,
}

impl Timings {
    fn add(&mut self, o: &Timings) {
        self.read_parse += o.read_parse;
        self.validate += o.validate;
        self.page += o.page;
        self.render += o.render;
        self.write += o.write;
    }
}

fn lap(t: &mut Instant) -> Duration {
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
    let page = run_page::build(&rec, &info, prev.map(|(r, i)| (r, i)), &common::Links);
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
type PassResult = (Vec<RunInfo>, Vec<Issue>, Vec<Issue>, Timings);

/// Renders every run page. Chains (a machine's runs in time order) are independent, so they
/// are spread over the available cores; results are put back in entry order so the output
/// does not depend on scheduling.
fn second_pass(entries: &[Entry], ctx: &Ctx) -> Result<PassResult, String> {
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

/// The HTML page of one record, optionally compared with a previous run, exactly as `build`
/// renders it. For the fuzz targets and tests; the record is assumed to have passed `validate`.
pub fn render_run_page(rec: &RunRecord, prev: Option<&RunRecord>) -> Result<String, String> {
    let renderer = Renderer::new()?;
    let info = RunInfo::from_record(rec);
    let prev = prev.map(|p| (p, RunInfo::from_record(p)));
    let page = run_page::build(
        rec,
        &info,
        prev.as_ref().map(|(r, i)| (*r, i)),
        &common::Links,
    );
    renderer.render("run.html", &page)
}

pub fn build(opts: &Options) -> Result<Report, String> {
    let renderer = Renderer::new()?;
    let data_missing = !opts.data.is_dir();
    let scan = load::scan(&opts.data);
    let mut rejected = scan.issues;
    let mut warnings: Vec<Issue> = scan
        .unexpected
        .into_iter()
        .map(|p| Issue {
            path: p,
            message: "not a run record; ignored".to_string(),
        })
        .collect();
    let staging = Staging::new(&opts.out)?;
    let mut tm = Timings::default();
    let result = (|| -> Result<Vec<RunInfo>, String> {
        let mut t = Instant::now();
        let entries = first_pass(scan.records, &mut rejected);
        tm.first_pass = lap(&mut t);
        let ctx = Ctx {
            renderer: &renderer,
            out: &staging,
        };
        let (infos, lost, warned, t2) = second_pass(&entries, &ctx)?;
        // The index pages need only the summaries.
        drop(entries);
        rejected.extend(lost);
        warnings.extend(warned);
        tm.add(&t2);
        let mut t = Instant::now();
        let g = index_pages::Groups::new(&infos);
        let conf = index_pages::confidence_label(&infos);
        let n_rejected = rejected.len();
        let (infos_r, g, conf) = (&infos, &g, conf.as_str());
        let base_url = opts.base_url.as_deref();
        // Each task writes its own files, so they can run side by side; the output does not
        // depend on which finishes first.
        let tasks: Vec<Task> = vec![
            Box::new(move |c| index_pages::series(c, infos_r, g, conf)),
            Box::new(move |c| index_pages::kernel_pages(c, infos_r, g)),
            Box::new(move |c| index_pages::arches(c, infos_r, g, conf)),
            Box::new(move |c| index_pages::metrics(c, infos_r, g, conf)),
            Box::new(move |c| exports::all(c, infos_r, &g.newest, base_url)),
            Box::new(move |c| index_pages::run_list(c, infos_r, g)),
            Box::new(move |c| index_pages::home(c, infos_r, g, n_rejected)),
            Box::new(content::pages),
            Box::new(|c| {
                for (name, body) in STATIC {
                    c.out.write(name, body.as_bytes())?;
                }
                Ok(())
            }),
        ];
        run_tasks(tasks, ctx, jobs())?;
        tm.indexes = lap(&mut t);
        Ok(infos)
    })();
    let infos = match result {
        Ok(i) => i,
        Err(e) => {
            staging.discard();
            return Err(e);
        }
    };
    if std::env::var_os("SYSCOST_SITE_TIMINGS").is_some() {
        eprintln!(
            "timings: first pass {:.2}s, read+parse {:.2}s, validate {:.2}s, page data {:.2}s, render {:.2}s, write {:.2}s, index pages {:.2}s",
            tm.first_pass.as_secs_f64(),
            tm.read_parse.as_secs_f64(),
            tm.validate.as_secs_f64(),
            tm.page.as_secs_f64(),
            tm.render.as_secs_f64(),
            tm.write.as_secs_f64(),
            tm.indexes.as_secs_f64()
        );
    }
    rejected.sort();
    warnings.sort();
    let arches = infos
        .iter()
        .map(|r| r.arch.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let kernels = infos
        .iter()
        .map(|r| r.kbase.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let mut report = Report {
        runs: infos.len(),
        arches,
        kernels,
        rejected,
        warnings,
        data_missing,
        written: false,
        stats: staging.stats(),
    };
    if opts.strict && !report.rejected.is_empty() {
        staging.discard();
        return Ok(report);
    }
    report.stats = staging.commit()?;
    report.written = true;
    Ok(report)
}
