//! Site paths (relative to the site root) of the pages every other page links to.

use crate::fmt::slug;
use crate::info::SeriesKey;

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
    pub fn metric(&self, metric_slug: &str) -> String {
        format!("metrics/{metric_slug}.html")
    }
    pub fn matrix(&self, metric_slug: &str) -> String {
        format!("matrix/{metric_slug}.html")
    }
}
