//! `syscost-site build`: data directory → static site.
//!
//! Records are read twice, never held all at once: a first pass reads only the fields that
//! place a run in its series and order the series' runs by kernel version and time; the second
//! reads each record fully, in that order, renders its page (comparing it with the runs before
//! it in its series, whose compact summaries are at hand) and keeps a compact [`RunInfo`] for
//! the index pages. Memory therefore grows with the number of runs only through the summaries.

mod cache;
mod charts;
mod ctx;
mod error;
mod exports;
mod groups;
mod links;
mod pager;
mod pages;
mod parallel;
mod passes;
mod rows;
mod sweep;
mod timing;
mod trends;

use crate::info::RunInfo;
use crate::load::{self, Issue};
use crate::metrics::{Compared, Registry, METRICS};
use crate::out::{Staging, Stats};
use crate::render::{RenderError, Renderer, STATIC};
use ctx::Ctx;
use groups::{confidence_label, Groups};
use pages::run::Comparisons;
pub use parallel::jobs;
use parallel::{run_tasks, Task};
use passes::{first_pass, second_pass, PassOptions};
use std::collections::BTreeSet;
use std::path::PathBuf;
use syscost_record::RunRecord;
use timing::Timings;
use trends::Change;

pub use error::BuildError;
pub use groups::VersionCount;
pub use pager::PAGE_SIZE;
pub use passes::RUNS_A_PAGE;

pub struct Options {
    pub data: PathBuf,
    pub out: PathBuf,
    pub strict: bool,
    /// Replace a site of runs with one of none.
    pub allow_empty: bool,
    /// Absolute URL of the published site, used only in the Atom feed.
    pub base_url: Option<String>,
    /// URL of the data directory in the repository: raw records are linked there, not copied.
    pub data_url: Option<String>,
}

pub struct Report {
    pub runs: usize,
    /// Architectures and kernel versions of the placed runs.
    pub arches: usize,
    pub kernels: VersionCount,
    /// Runs whose architecture or kernel version is unknown.
    pub unplaced: usize,
    /// Steps detected between kernel versions.
    pub changes: usize,
    /// Records left out of the site, with why.
    pub rejected: Vec<Issue>,
    /// Problems that did not stop a record from being used.
    pub warnings: Vec<Issue>,
    /// The build has no run and the site at `out` has some (`None`: a site of an earlier
    /// syscost-site, which does not say how many): nothing was written.
    pub would_empty: Option<Option<usize>>,
    /// False when `--strict` refused to publish, or `would_empty`.
    pub written: bool,
    /// Records summarised from the previous build's summary cache, not read.
    pub cached: usize,
    pub stats: Stats,
}

/// The HTML page of one record, optionally compared with an earlier run (as the previous
/// version's run, or as the machine's previous run when it is on the same version), followed
/// by the page of its machine and settings, exactly as `build` renders them. For the fuzz
/// targets and tests; the record is assumed to have passed `validate`.
pub fn render_run_page(rec: &RunRecord, prev: Option<&RunRecord>) -> Result<String, RenderError> {
    let renderer = Renderer::new()?;
    let mut reg = Registry::default();
    let prev = prev.map(|p| RunInfo::from_record(p, &mut reg, None));
    let mut info = RunInfo::from_record(rec, &mut reg, None);
    let rel = format!("{}.html", info.page);
    let same = prev.as_ref().filter(|p| p.kernel.base == info.kernel.base);
    let cmp = Comparisons {
        prev_version: prev.as_ref().filter(|_| same.is_none()),
        same_version: same,
    };
    let env = pages::run::environment(rec, &info);
    info.env_page = env.path();
    let page = pages::run::build(
        rec,
        &info,
        &cmp,
        &reg,
        // Without spellings: every metric is looked up by its texts.
        &Compared::default(),
        &format!("{}.json", rec.id),
        true,
    );
    let page = pages::run::page(
        vec![page],
        &crate::fmt::root_of(&rel),
        pages::run::Pager::default(),
        true,
    );
    let html = match page {
        Some(p) => renderer.render("run.html", &p)?,
        None => String::new(),
    };
    Ok(html + &renderer.render("env.html", &env)?)
}

/// What the index pages are written from: the run summaries, their metrics and groups, and the
/// steps found between kernel versions.
pub struct Data<'a> {
    pub runs: &'a [RunInfo],
    pub reg: &'a Registry,
    pub g: Groups,
    pub changes: Vec<Change>,
    /// The confidence level most runs use ("95%").
    pub conf: String,
    /// What each series' pages say of its metrics, in `g.by_series` order.
    pub trends: Vec<Vec<trends::Kept>>,
    /// The steps of each series (indices into `changes`).
    pub series_changes:
        std::collections::BTreeMap<std::sync::Arc<crate::series::SeriesKey>, Vec<usize>>,
    /// The registry id of each headline metric, when some run has it.
    pub headline: Vec<Option<u32>>,
    /// Records that could not be used.
    pub rejected: usize,
    pub base_url: Option<&'a str>,
    /// What every page made from a group of runs also depends on: the metrics with their names
    /// and descriptions (merged over all runs), the headline ids and the confidence label.
    pub shared: [u8; 16],
}

/// The inputs of a group of pages made from some runs and [`Data::shared`]: the runs' ids
/// (content hashes, so their summaries) and acceptance, in the order given.
pub fn runs_key(runs: &[RunInfo], idx: &[usize]) -> Vec<u8> {
    let mut v = Vec::with_capacity(idx.len() * 18);
    for &i in idx {
        v.extend_from_slice(runs[i].id.as_bytes());
        v.push(u8::from(runs[i].accepted));
        // Where it is shown: the page of its version's runs it is on.
        v.extend_from_slice(&runs[i].shown_on.to_le_bytes());
        v.push(0);
    }
    v
}

impl<'a> Data<'a> {
    pub fn new(runs: &'a [RunInfo], reg: &'a Registry) -> Data<'a> {
        let g = Groups::new(runs);
        let paged = |m| crate::metrics::headline_of(reg.key(m)).is_some();
        let (changes, trends) = trends::detect(runs, &g, &paged);
        let mut series_changes = std::collections::BTreeMap::new();
        for (i, c) in changes.iter().enumerate() {
            series_changes
                .entry(std::sync::Arc::clone(&c.series))
                .or_insert_with(Vec::new)
                .push(i);
        }
        let conf = confidence_label(runs);
        let headline: Vec<Option<u32>> = METRICS.iter().map(|m| reg.find_key(&m.key())).collect();
        let mut shared = Vec::new();
        for m in reg.ids() {
            let (k, meta) = (reg.key(m), reg.meta(m));
            for t in [k.id.as_str(), &k.vs, &meta.family, &meta.description] {
                shared.extend_from_slice(&(t.len() as u64).to_le_bytes());
                shared.extend_from_slice(t.as_bytes());
            }
            shared.push(k.kind as u8);
        }
        for h in &headline {
            shared.extend_from_slice(&h.map_or(u64::MAX, u64::from).to_le_bytes());
        }
        shared.extend_from_slice(conf.as_bytes());
        Data {
            changes,
            trends,
            series_changes,
            g,
            runs,
            reg,
            conf,
            headline,
            rejected: 0,
            base_url: None,
            shared: crate::out::Key::of(&[&shared]).bytes(),
        }
    }
}

pub fn build(opts: &Options) -> Result<Report, BuildError> {
    let mut tm = Timings::new();
    let renderer = Renderer::new()?;
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
    let shared = std::sync::Mutex::default();
    let ctx = Ctx {
        renderer: &renderer,
        out: &staging,
        data_url: opts.data_url.as_deref().map(|u| u.trim_end_matches('/')),
        program: crate::out::Key::of_program().bytes(),
        shared: &shared,
        made: None,
    };
    let (triage, triage_issues) = crate::triage::read(&opts.data);
    warnings.extend(triage_issues);
    tm.phase("start (scan, program)");
    let summaries = crate::out::summaries_path(&opts.out);
    let cache = cache::Cache::read(&summaries, &ctx.program);
    tm.phase("read the summary cache");
    let entries = first_pass(scan.records, &ctx.program, &cache, &mut rejected);
    tm.phase("first pass");
    let pass_opts = PassOptions {
        strict: opts.strict,
        triage: &triage,
        cache: &cache,
        timings: &tm,
    };
    let pass = second_pass(&entries, &ctx, &pass_opts);
    tm.phase("second pass");
    let pass = match pass {
        Ok(mut pass) => {
            rejected.append(&mut pass.rejected);
            warnings.append(&mut pass.warnings);
            pass
        }
        Err(e) => {
            staging.discard();
            return Err(e);
        }
    };
    // The index pages need only the summaries.
    let cached = entries.iter().filter(|e| e.is_cached()).count();
    drop(entries);
    drop(cache);
    let (infos, registry) = (&pass.infos, &pass.registry);
    let data = Data {
        rejected: rejected.len(),
        base_url: opts.base_url.as_deref(),
        ..Data::new(infos, registry)
    };
    tm.phase("groups and changes");
    let entries = cache::Entries {
        infos,
        keys: &pass.keys,
        calls: &pass.calls,
        spellings: &pass.spellings,
        reg: registry,
    };
    // Written beside the index pages (it needs only the summaries), put in place at the end.
    let cache_file = std::sync::Mutex::new(None);
    let write_cache: Task = Box::new(|_| {
        let written = cache::write(&summaries, &ctx.program, &entries);
        if let Ok(mut slot) = cache_file.lock() {
            *slot = Some(written);
        }
        Ok(())
    });
    let indexes = index_pages(ctx, &data, &tm, ("summary cache", write_cache));
    tm.phase("index pages and the summary cache");
    if let Err(e) = indexes {
        staging.discard();
        return Err(e);
    }
    rejected.sort();
    warnings.sort();
    let count = |f: fn(&RunInfo) -> &str| {
        infos
            .iter()
            .filter(|r| r.is_placed())
            .map(f)
            .collect::<BTreeSet<_>>()
            .len()
    };
    let kernels = groups::VersionCount::of(
        infos
            .iter()
            .filter(|r| r.is_placed())
            .map(|r| r.kbase.as_str()),
    );
    let mut report = Report {
        runs: infos.len(),
        arches: count(|r| r.arch.as_str()),
        kernels,
        unplaced: data.g.unplaced.len(),
        changes: data.changes.len(),
        rejected,
        warnings,
        would_empty: None,
        written: false,
        cached,
        stats: staging.stats(),
    };
    if opts.strict && !report.rejected.is_empty() {
        staging.discard();
        return Ok(report);
    }
    if infos.is_empty() && !opts.allow_empty {
        match staging.previous_runs() {
            Some(0) => {}
            previous => {
                report.would_empty = Some(previous);
                staging.discard();
                return Ok(report);
            }
        }
    }
    let written = cache_file.into_inner().ok().flatten();
    let committed = match written {
        Some(Ok(w)) => w.commit(),
        Some(Err(e)) => Err(e),
        None => Err(std::io::Error::other("the summary cache was not written")),
    };
    if let Err(e) = committed {
        staging.discard();
        return Err(crate::out::OutputError::Write(summaries, e).into());
    }
    tm.phase("put the summary cache in place");
    report.stats = staging.commit(infos.len())?;
    tm.phase("manifest, swap the site in");
    tm.print();
    report.written = true;
    Ok(report)
}

/// Everything but the run pages: index, chart and export pages, prose and static files; and
/// `first`, another task run beside them.
fn index_pages<'t>(
    ctx: Ctx,
    d: &'t Data,
    tm: &'t Timings,
    first: (&'static str, Task<'t>),
) -> Result<(), BuildError> {
    // Each task writes its own files, so they can run side by side; the output does not
    // depend on which finishes first.
    // `first` (the summary cache, ~0.5 s), then the largest, so that the last to finish is a
    // small one.
    let tasks: Vec<(&'static str, Task)> = vec![
        first,
        (
            "metric pages (1 of 2)",
            Box::new(move |c| pages::metrics::write(c, d, 0, 2)),
        ),
        (
            "metric pages (2 of 2)",
            Box::new(move |c| pages::metrics::write(c, d, 1, 2)),
        ),
        (
            "kernel pages (1 of 2)",
            Box::new(move |c| pages::kernels::write(c, d, 0, 2)),
        ),
        (
            "kernel pages (2 of 2)",
            Box::new(move |c| pages::kernels::write(c, d, 1, 2)),
        ),
        ("run lists", Box::new(move |c| pages::runs::write(c, d))),
        (
            "series pages (1 of 2)",
            Box::new(move |c| pages::series::write(c, d, 0, 2)),
        ),
        (
            "series pages (2 of 2)",
            Box::new(move |c| pages::series::write(c, d, 1, 2)),
        ),
        ("exports", Box::new(move |c| exports::all(c, d))),
        (
            "architecture pages",
            Box::new(move |c| pages::arch::write(c, d)),
        ),
        ("matrices", Box::new(move |c| pages::matrix::write(c, d))),
        ("changes", Box::new(move |c| pages::changes::write(c, d))),
        (
            "unplaced runs",
            Box::new(move |c| pages::unplaced::write(c, d)),
        ),
        ("home", Box::new(move |c| pages::home::write(c, d))),
        ("content pages", Box::new(pages::content::write)),
        (
            "static files",
            Box::new(|c| {
                for (name, body) in STATIC {
                    c.out.write(name, body.as_bytes())?;
                }
                Ok(())
            }),
        ),
    ];
    let tasks: Vec<Task> = tasks
        .into_iter()
        .map(|(name, task)| -> Task {
            Box::new(move |c| {
                let mut t = timing::Lap::start();
                let r = task(c);
                tm.part(name, t.lap());
                r
            })
        })
        .collect();
    run_tasks(tasks, ctx, jobs())
}
