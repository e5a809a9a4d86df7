//! `syscost-site build`: data directory → static site.
//!
//! Records are read twice, never held all at once: a first pass reads only the fields that
//! place a run in its series and order the series' runs by kernel version and time; the second
//! reads each record fully, in that order, renders its page (comparing it with the runs before
//! it in its series, whose compact summaries are at hand) and keeps a compact [`RunInfo`] for
//! the index pages. Memory therefore grows with the number of runs only through the summaries.

mod passes;

use super::{data_dir, out, CommandError};
use crate::build::load::{self, Issue};
use crate::build::staging::{Staging, Stats};
use crate::build::timing::Timings;
use crate::model::metrics::Registry;
use crate::model::summary::RunInfo;
use crate::parallel::jobs;
use crate::view::ctx::Ctx;
use crate::view::data::Data;
use crate::view::pages;
use crate::view::render::{RenderError, Renderer, STATIC};
use crate::view::tasks::{run_tasks, Task};
use passes::{first_pass, second_pass, PassOptions};
use std::collections::BTreeSet;
use std::path::PathBuf;
use syscost_record::RunRecord;

pub use crate::model::groups::VersionCount;
pub use crate::view::error::BuildError;
pub use crate::view::pager::PAGE_SIZE;
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
    /// Records summarised from the previous build's summary cache, not validated again.
    pub cached: usize,
    pub stats: Stats,
}

/// The HTML page of one record followed by the page of its machine and settings, exactly as
/// `build` renders them. For the fuzz targets and tests; the record is assumed to have passed
/// `validate`.
pub fn render_run_page(rec: &RunRecord) -> Result<String, RenderError> {
    let renderer = Renderer::new()?;
    let mut reg = Registry::default();
    let mut info = RunInfo::from_record(rec, &mut reg, None);
    let rel = format!("{}.html", info.page);
    let env = pages::run::environment(rec, &info);
    info.env_page = env.path();
    let page = pages::run::build(rec, &info, &format!("{}.json", rec.id), true);
    let page = pages::run::page(
        vec![page],
        &crate::view::format::root_of(&rel),
        pages::run::Pager::default(),
        true,
    );
    let html = match page {
        Some(p) => renderer.render("run.html", &p)?,
        None => String::new(),
    };
    Ok(html + &renderer.render("env.html", &env)?)
}

impl Report {
    /// What was built from `infos`, not yet written, with nothing left out.
    fn of(infos: &[RunInfo], data: &Data) -> Report {
        let placed = || infos.iter().filter(|r| r.is_placed());
        Report {
            runs: infos.len(),
            arches: placed()
                .map(|r| r.arch.as_str())
                .collect::<BTreeSet<_>>()
                .len(),
            kernels: VersionCount::of(placed().map(|r| r.kbase.as_str())),
            unplaced: data.g.unplaced.len(),
            changes: data.changes.len(),
            rejected: Vec::new(),
            warnings: Vec::new(),
            would_empty: None,
            written: false,
            cached: 0,
            stats: Stats::default(),
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
        program: crate::build::staging::Key::of_program().bytes(),
        shared: &shared,
    };
    let (triage, triage_issues) = crate::build::triage::read(&opts.data);
    warnings.extend(triage_issues);
    tm.phase("start (scan, program)");
    let summaries = crate::build::staging::summaries_path(&opts.out);
    let cache = crate::build::cache::Cache::read(&summaries, &ctx.program);
    tm.phase("read the summary cache");
    let entries = first_pass(scan.records, &mut rejected);
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
    let cached = pass.cached;
    drop(entries);
    drop(cache);
    let (infos, registry) = (&pass.infos, &pass.registry);
    let data = Data {
        rejected: rejected.len(),
        base_url: opts.base_url.as_deref(),
        ..Data::new(infos, registry)
    };
    tm.phase("groups and changes");
    let entries = crate::build::cache::Entries {
        infos,
        keys: &pass.keys,
        calls: &pass.calls,
        spellings: &pass.spellings,
        reg: registry,
    };
    // Written beside the index pages (it needs only the summaries), put in place at the end.
    let cache_file = std::sync::Mutex::new(None);
    let write_cache: Task = Box::new(|_| {
        let written = crate::build::cache::write(&summaries, &ctx.program, &entries);
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
    let mut report = Report {
        rejected,
        warnings,
        cached,
        stats: staging.stats(),
        ..Report::of(infos, &data)
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
    if let Err(e) = commit_cache(cache_file.into_inner().ok().flatten()) {
        staging.discard();
        return Err(crate::build::staging::OutputError::Write(summaries, e).into());
    }
    tm.phase("put the summary cache in place");
    report.stats = staging.commit(infos.len())?;
    tm.phase("manifest, swap the site in");
    tm.print();
    report.written = true;
    Ok(report)
}

/// The summary cache written beside the index pages, put in place.
fn commit_cache(
    written: Option<std::io::Result<crate::build::cache::Written>>,
) -> std::io::Result<()> {
    match written {
        Some(Ok(w)) => w.commit(),
        Some(Err(e)) => Err(e),
        None => Err(std::io::Error::other("the summary cache was not written")),
    }
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
        (
            "exports",
            Box::new(move |c| crate::view::exports::all(c, d)),
        ),
        (
            "architecture pages",
            Box::new(move |c| pages::arch::write(c, d)),
        ),
        ("matrices", Box::new(move |c| pages::matrix::write(c, d))),
        ("changes", Box::new(move |c| pages::changes::write(c, d))),
        (
            "kernel comparisons",
            Box::new(move |c| pages::compare::write(c, d)),
        ),
        (
            "runs against their series and other machines (1 of 2)",
            Box::new(move |c| pages::against::write(c, d, 0, 2)),
        ),
        (
            "runs against their series and other machines (2 of 2)",
            Box::new(move |c| pages::against::write(c, d, 1, 2)),
        ),
        ("search", Box::new(move |c| pages::search::write(c, d))),
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
                let mut t = crate::build::timing::Lap::start();
                let r = task(c);
                tm.part(name, t.lap());
                r
            })
        })
        .collect();
    run_tasks(tasks, ctx, jobs())
}

/// `syscost-site build`: the site, and one line saying what was built.
pub(super) fn run(opts: Options) -> Result<(), CommandError> {
    for u in opts.base_url.iter().chain(&opts.data_url) {
        if !(u.starts_with("https://") || u.starts_with("http://")) {
            return Err(CommandError::BaseUrl(u.clone()));
        }
    }
    data_dir(&opts.data)?;
    let report = build(&opts)?;
    let data = opts.data.display();
    for w in &report.warnings {
        eprintln!("warning: {data}/{w}");
    }
    if !report.rejected.is_empty() {
        eprintln!(
            "warning: {} record(s) left out of the site:",
            report.rejected.len()
        );
        for r in &report.rejected {
            eprintln!("  {data}/{r}");
        }
    }
    if let Some(previous) = report.would_empty {
        return Err(CommandError::WouldEmpty {
            data: opts.data,
            out: opts.out,
            previous: previous.map_or("an unknown number of".into(), |n| n.to_string()),
        });
    }
    if !report.written {
        return Err(CommandError::Strict(report.rejected.len()));
    }
    let s = &report.stats;
    out(format_args!(
        "built {}: {} ({}, {}{}; {}){}; {} files, {:.1} MB; largest page {} ({:.1} KB); {} written, the others as the previous build left them ({} pages not rendered: what they are rendered from is unchanged; {} records summarised from the previous build's cache)",
        opts.out.display(),
        count(report.runs, "run", "runs"),
        count(report.arches, "architecture", "architectures"),
        report.kernels.words(),
        if report.unplaced > 0 {
            format!("; {} unplaced", report.unplaced)
        } else {
            String::new()
        },
        count(
            report.changes,
            "change between versions",
            "changes between versions"
        ),
        if report.rejected.is_empty() {
            String::new()
        } else {
            format!(", {} left out", report.rejected.len())
        },
        s.files,
        s.bytes as f64 / 1e6,
        s.largest_page_path,
        s.largest_page as f64 / 1e3,
        s.written,
        s.not_rendered,
        report.cached
    ))
}

/// `1 architecture`, `2 architectures`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
