//! Site paths (relative to the site root) of the pages every other page links to.

use crate::model::series::SeriesKey;
use crate::model::summary::RunInfo;
use crate::view::format::slug;

pub struct Links;

impl Links {
    pub fn arch(&self, arch: &str) -> String {
        format!("arch/{}/index.html", slug(arch))
    }
    pub fn kernel(&self, kbase: &str) -> String {
        format!("kernels/{}/index.html", slug(kbase))
    }
    /// Page `n` (1-based) of a kernel's run list.
    pub fn kernel_page(&self, kbase: &str, n: usize) -> String {
        if n <= 1 {
            self.kernel(kbase)
        } else {
            format!("kernels/{}/page-{n}.html", slug(kbase))
        }
    }
    pub fn series(&self, s: &SeriesKey) -> String {
        format!("series/{}.html", s.id())
    }
    /// One metric of one series: its trend and kernel-vs-kernel table.
    pub fn series_metric(&self, s: &SeriesKey, metric_slug: &str) -> String {
        format!("series/{}/{metric_slug}.html", s.id())
    }
    pub fn metric(&self, metric_slug: &str) -> String {
        format!("metrics/{metric_slug}.html")
    }
    pub fn matrix(&self, metric_slug: &str) -> String {
        format!("matrix/{metric_slug}.html")
    }
    /// Page `n` (1-based) of the detected changes.
    pub fn changes(&self, n: usize) -> String {
        if n <= 1 {
            "changes/index.html".to_string()
        } else {
            format!("changes/page-{n}.html")
        }
    }
    /// Every step of one series between two versions.
    pub fn change_group(&self, s: &SeriesKey, from: &str, to: &str) -> String {
        format!("changes/{}/{}/{}.html", s.id(), slug(from), slug(to))
    }
    /// Page `n` (1-based) of the runs of one series on one upstream kernel version: the runs
    /// are its columns, each addressed as `#<id>` (see `site::pages::run`).
    pub fn runs_of(&self, arch: &str, kbase: &str, s: &SeriesKey, n: usize) -> String {
        let (a, k, s) = (slug(arch), slug(kbase), s.id());
        if n <= 1 {
            format!("runs/{a}/{k}/{s}.html")
        } else {
            format!("runs/{a}/{k}/{s}-{n}.html")
        }
    }
    /// Where a run is shown: its section of the page of its series' runs on its version, or
    /// its page alone.
    pub fn run(&self, r: &RunInfo) -> String {
        match r.shown_on {
            0 => format!("{}.html#{}", r.page, r.id),
            n => format!(
                "{}#{}",
                self.runs_of(&r.arch, &r.kbase, &r.series, n as usize),
                r.id
            ),
        }
    }
    pub fn unplaced(&self) -> String {
        "unplaced.html".to_string()
    }
}
