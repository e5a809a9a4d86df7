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

/// Renders templates into the staging directory.
pub struct Ctx<'a> {
    renderer: &'a Renderer,
    out: &'a mut Staging,
}

impl Ctx<'_> {
    fn page<T: Serialize>(&mut self, path: &str, template: &str, ctx: &T) -> Result<(), String> {
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

fn first_pass(cands: Vec<Candidate>, rejected: &mut Vec<Issue>) -> Vec<Entry> {
    let mut entries = Vec::with_capacity(cands.len());
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    for cand in cands {
        let reject = |m: String| Issue {
            path: cand.rel.clone(),
            message: m,
        };
        let bytes = match load::read_limited(&cand.abs) {
            Ok(b) => b,
            Err(m) => {
                rejected.push(reject(m));
                continue;
            }
        };
        let head: Head = match serde_json::from_slice(&bytes) {
            Ok(h) => h,
            Err(e) => {
                // Explain with the full format's error, which names the actual problem.
                let msg = match load::parse_record(&bytes) {
                    Err(m) => m,
                    Ok(_) => load::diagnose(&bytes, &e),
                };
                rejected.push(reject(msg));
                continue;
            }
        };
        if let Some(first) = seen.get(&head.id) {
            rejected.push(reject(format!(
                "duplicate of {first} (same id {}); only the first is used",
                head.id
            )));
            continue;
        }
        seen.insert(head.id.clone(), cand.rel.clone());
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
            None => Chain {
                machine: String::new(),
                series: None,
                alone: cand.rel.clone(),
            },
        };
        entries.push(Entry {
            chain,
            date: head.source.date.clone(),
            kernel: KernelVersion::parse(&head.environment.comparability.kernel_release),
            id: head.id,
            cand,
        });
    }
    entries.sort_by(|a, b| {
        a.chain
            .cmp(&b.chain)
            .then_with(|| a.date.cmp(&b.date))
            .then_with(|| a.kernel.cmp(&b.kernel))
            .then_with(|| a.id.cmp(&b.id))
    });
    entries
}

/// Reads, validates and renders one run; `Err` is the reason it was left out.
fn second_pass_one(
    e: &Entry,
    prev: Option<&(RunRecord, RunInfo)>,
    ctx: &mut Ctx,
    warnings: &mut Vec<Issue>,
) -> Result<Result<(RunRecord, RunInfo), String>, String> {
    let bytes = match load::read_limited(&e.cand.abs) {
        Ok(b) => b,
        Err(m) => return Ok(Err(m)),
    };
    let rec = match load::parse_record(&bytes) {
        Ok(r) => r,
        Err(m) => return Ok(Err(m)),
    };
    let problems = validate(&rec);
    if !problems.is_empty() {
        let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
        return Ok(Err(format!("invalid record: {}", list.join("; "))));
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
    ctx.page(&format!("{}.html", info.page), "run.html", &page)?;
    ctx.out.write(&format!("{}.json", info.page), &bytes)?;
    Ok(Ok((rec, info)))
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
    let mut staging = Staging::new(&opts.out)?;
    let result = (|| -> Result<Vec<RunInfo>, String> {
        let entries = first_pass(scan.records, &mut rejected);
        let mut ctx = Ctx {
            renderer: &renderer,
            out: &mut staging,
        };
        let mut infos = Vec::with_capacity(entries.len());
        let mut prev: Option<(RunRecord, RunInfo)> = None;
        let mut prev_chain: Option<&Chain> = None;
        for e in &entries {
            if prev_chain != Some(&e.chain) {
                prev = None;
                prev_chain = Some(&e.chain);
            }
            match second_pass_one(e, prev.as_ref(), &mut ctx, &mut warnings)? {
                Ok((rec, info)) => {
                    infos.push(info.clone());
                    // Only a machine's chain needs its previous record.
                    prev = (!e.chain.machine.is_empty()).then_some((rec, info));
                }
                Err(m) => rejected.push(Issue {
                    path: e.cand.rel.clone(),
                    message: m,
                }),
            }
        }
        let g = index_pages::Groups::new(&infos);
        let conf = index_pages::confidence_label(&infos);
        index_pages::home(&mut ctx, &infos, &g, rejected.len())?;
        index_pages::run_list(&mut ctx, &infos, &g)?;
        index_pages::kernel_pages(&mut ctx, &infos, &g)?;
        index_pages::arches(&mut ctx, &infos, &g, &conf)?;
        index_pages::series(&mut ctx, &infos, &g, &conf)?;
        index_pages::metrics(&mut ctx, &infos, &g, &conf)?;
        content::pages(&mut ctx)?;
        exports::all(&mut ctx, &infos, &g.newest, opts.base_url.as_deref())?;
        for (name, body) in STATIC {
            ctx.out.write(name, body.as_bytes())?;
        }
        Ok(infos)
    })();
    let infos = match result {
        Ok(i) => i,
        Err(e) => {
            staging.discard();
            return Err(e);
        }
    };
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
        stats: staging.stats.clone(),
    };
    if opts.strict && !report.rejected.is_empty() {
        staging.discard();
        return Ok(report);
    }
    report.stats = staging.commit()?;
    report.written = true;
    Ok(report)
}
