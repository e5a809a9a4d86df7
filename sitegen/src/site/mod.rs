//! `syscost-site build`: data directory → static site.
//!
//! Records are read twice, never held all at once: a first pass reads only the fields that
//! order a machine's runs in time; the second reads each record fully, in that order, renders
//! its page (comparing it with the machine's previous run, the one record kept in memory) and
//! keeps a compact [`RunInfo`] for the index pages. Memory therefore grows with the number of
//! runs only through the small summaries.

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

use crate::info::RunInfo;
use crate::load::{self, Issue};
use crate::out::{Staging, Stats};
use crate::render::{RenderError, Renderer, STATIC};
use ctx::Ctx;
use groups::{confidence_label, Groups};
use links::Links;
use parallel::{jobs, run_tasks, Task};
use passes::{first_pass, lap, second_pass, PassOptions, Timings};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Instant;
use syscost_record::RunRecord;

pub use error::BuildError;
pub use pager::PAGE_SIZE;

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

/// The HTML page of one record, optionally compared with a previous run, exactly as `build`
/// renders it. For the fuzz targets and tests; the record is assumed to have passed `validate`.
pub fn render_run_page(rec: &RunRecord, prev: Option<&RunRecord>) -> Result<String, RenderError> {
    let renderer = Renderer::new()?;
    let info = RunInfo::from_record(rec);
    let prev = prev.map(|p| (p, RunInfo::from_record(p)));
    let page = pages::run::build(rec, &info, prev.as_ref().map(|(r, i)| (*r, i)), &Links);
    renderer.render("run.html", &page)
}

pub fn build(opts: &Options) -> Result<Report, BuildError> {
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
    let ctx = Ctx {
        renderer: &renderer,
        out: &staging,
    };
    let mut tm = Timings::default();
    let mut t = Instant::now();
    let (triage, triage_issues) = crate::triage::read(&opts.data);
    warnings.extend(triage_issues);
    let entries = first_pass(scan.records, &mut rejected);
    tm.first_pass = lap(&mut t);
    let pass_opts = PassOptions {
        strict: opts.strict,
        triage: &triage,
    };
    let infos = match second_pass(&entries, &ctx, &pass_opts) {
        Ok(pass) => {
            rejected.extend(pass.rejected);
            warnings.extend(pass.warnings);
            tm.add(&pass.timings);
            pass.infos
        }
        Err(e) => {
            staging.discard();
            return Err(e);
        }
    };
    // The index pages need only the summaries.
    drop(entries);
    let mut t = Instant::now();
    if let Err(e) = index_pages(ctx, &infos, rejected.len(), opts.base_url.as_deref()) {
        staging.discard();
        return Err(e);
    }
    tm.indexes = lap(&mut t);
    if std::env::var_os("SYSCOST_SITE_TIMINGS").is_some() {
        tm.print();
    }
    rejected.sort();
    warnings.sort();
    let count = |f: fn(&RunInfo) -> &str| infos.iter().map(f).collect::<BTreeSet<_>>().len();
    let mut report = Report {
        runs: infos.len(),
        arches: count(|r| r.arch.as_str()),
        kernels: count(|r| r.kbase.as_str()),
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

/// Everything but the run pages: index, chart and export pages, prose and static files.
fn index_pages(
    ctx: Ctx,
    infos: &[RunInfo],
    rejected: usize,
    base_url: Option<&str>,
) -> Result<(), BuildError> {
    let g = &Groups::new(infos);
    let conf = &confidence_label(infos);
    // Each task writes its own files, so they can run side by side; the output does not
    // depend on which finishes first.
    let tasks: Vec<Task> = vec![
        Box::new(move |c| pages::series::write(c, infos, g, conf)),
        Box::new(move |c| pages::kernels::write(c, infos, g)),
        Box::new(move |c| pages::arch::write(c, infos, g, conf)),
        Box::new(move |c| pages::metrics::write(c, infos, g, conf)),
        Box::new(move |c| pages::matrix::write(c, infos, g, conf)),
        Box::new(move |c| exports::all(c, infos, &g.newest, base_url)),
        Box::new(move |c| pages::runs::write(c, infos, g)),
        Box::new(move |c| pages::home::write(c, infos, g, rejected)),
        Box::new(pages::content::write),
        Box::new(|c| {
            for (name, body) in STATIC {
                c.out.write(name, body.as_bytes())?;
            }
            Ok(())
        }),
    ];
    run_tasks(tasks, ctx, jobs())
}
