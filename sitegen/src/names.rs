//! The names the site writes its own files under, against the names taken from records.
//!
//! A record's architecture and kernel release become directory names (`runs/<arch>/<kernel>/`,
//! `arch/<arch>/`, `kernels/<version>/`) beside the site's own pages (`runs/index.html`,
//! `kernels/page-2.html`). The record crate holds them to `uname`'s grammar; this holds them
//! off the site's file names: every file the site writes ends in one of [`PAGE_EXTENSIONS`] or
//! begins with a dot (the output marker), a test builds a site and checks, and no name from a
//! record may, so none can collide.

use crate::fmt::slug;
use crate::kver::KernelVersion;
use syscost_record::{Problem, RunRecord};

/// The extensions of every file the site writes.
pub const PAGE_EXTENSIONS: &[&str] = &["html", "json", "xml", "csv", "css", "js", "svg"];

/// Whether `name` could be (or become) one of the site's own file names.
pub fn is_site_file_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with('.')
        || PAGE_EXTENSIONS
            .iter()
            .any(|ext| lower.ends_with(&format!(".{ext}")))
}

/// Every path component a record contributes to the site that could collide with the site's
/// own files, each as a problem naming the field.
pub fn problems(r: &RunRecord) -> Vec<Problem> {
    let c = &r.environment.comparability;
    let kbase = KernelVersion::parse(&c.kernel_release).base_label();
    let mut out = Vec::new();
    for (field, value, dir) in [
        (
            "environment.comparability.arch",
            c.arch.as_str(),
            "runs/ and arch/",
        ),
        (
            "environment.comparability.kernel_release",
            c.kernel_release.as_str(),
            "runs/<arch>/",
        ),
        (
            "environment.comparability.kernel_release",
            &slug(&kbase),
            "kernels/",
        ),
    ] {
        if is_site_file_name(value) {
            out.push(Problem {
                field: field.to_string(),
                message: format!(
                    "{value:?} is named like one of the site's own pages (it would become \
                     {dir}{value}, beside the site's index.html and page-N.html); a real \
                     uname never prints that"
                ),
            });
        }
    }
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_names_are_site_file_names() {
        for n in [
            "index.html",
            "page-2.html",
            "feed.xml",
            "runs.csv",
            "INDEX.HTML",
        ] {
            assert!(is_site_file_name(n), "{n}");
        }
        for n in ["x86_64", "6.8.0-45-generic", "5.10-rc4", "unknown", "html"] {
            assert!(!is_site_file_name(n), "{n}");
        }
    }
}
