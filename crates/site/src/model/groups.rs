//! The accepted runs grouped the ways the index pages need them, and counts over such groups.
//! Only placed runs (known architecture and upstream version) enter the groups by architecture,
//! kernel and series; unplaced ones are listed on their own.

use crate::model::kver::{label_key, KernelVersion};
use crate::model::series::SeriesKey;
use crate::model::summary::RunInfo;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// One series' runs.
pub struct SeriesRuns {
    pub key: Arc<SeriesKey>,
    /// Newest first.
    pub runs: Vec<usize>,
    /// Upstream versions, ascending, each with its runs oldest first.
    pub versions: Vec<(String, Vec<usize>)>,
}

/// Runs grouped the ways the pages need them (indices into the run list).
pub struct Groups {
    /// Every run, newest first.
    pub newest: Vec<usize>,
    /// Runs that cannot be placed on the version axis, newest first.
    pub unplaced: Vec<usize>,
    pub by_arch: BTreeMap<String, Vec<usize>>,
    /// Kernel base labels in ascending version order, with their runs.
    pub by_kernel: BTreeMap<KernelVersion, (String, Vec<usize>)>,
    pub by_series: BTreeMap<Arc<SeriesKey>, SeriesRuns>,
    /// Each run's version as an index into `by_kernel`'s ascending order (`None` if unplaced),
    /// so that charts need not parse versions again.
    pub version_of: Vec<Option<u32>>,
    /// The version labels in ascending order.
    pub versions: Vec<String>,
    /// Each placed run's series as its rank in `by_series`' order (`u32::MAX` if unplaced), so
    /// that charts group runs without comparing keys.
    pub series_rank: Vec<u32>,
}

impl Groups {
    pub fn new(runs: &[RunInfo]) -> Groups {
        let mut newest: Vec<usize> = (0..runs.len()).collect();
        newest.sort_by(|&a, &b| RunInfo::newest_first(&runs[a], &runs[b]));
        let mut g = Groups {
            newest: Vec::new(),
            unplaced: Vec::new(),
            by_arch: BTreeMap::new(),
            by_kernel: BTreeMap::new(),
            by_series: BTreeMap::new(),
            version_of: vec![None; runs.len()],
            versions: Vec::new(),
            series_rank: vec![u32::MAX; runs.len()],
        };
        let mut versions: BTreeMap<&Arc<SeriesKey>, BTreeMap<KernelVersion, Vec<usize>>> =
            BTreeMap::new();
        // Fill in newest-first order so every group lists its runs newest first too.
        for &i in &newest {
            let r = &runs[i];
            if !r.is_placed() {
                g.unplaced.push(i);
                continue;
            }
            g.by_arch.entry(r.arch.clone()).or_default().push(i);
            g.by_kernel
                .entry(label_key(&r.kbase))
                .or_insert_with(|| (r.kbase.clone(), Vec::new()))
                .1
                .push(i);
            g.by_series
                .entry(Arc::clone(&r.series))
                .or_insert_with(|| SeriesRuns {
                    key: Arc::clone(&r.series),
                    runs: Vec::new(),
                    versions: Vec::new(),
                })
                .runs
                .push(i);
            versions
                .entry(&r.series)
                .or_default()
                .entry(label_key(&r.kbase))
                .or_default()
                .push(i);
        }
        for (key, per) in versions {
            if let Some(s) = g.by_series.get_mut(key) {
                s.versions = per
                    .into_iter()
                    .map(|(k, mut idx)| {
                        idx.reverse();
                        (k.base_label(), idx)
                    })
                    .collect();
            }
        }
        for (vi, (label, idx)) in g.by_kernel.values().enumerate() {
            g.versions.push(label.clone());
            for &i in idx {
                g.version_of[i] = Some(vi as u32);
            }
        }
        for (rank, s) in g.by_series.values().enumerate() {
            for &i in &s.runs {
                g.series_rank[i] = rank as u32;
            }
        }
        g.newest = newest;
        g
    }

    /// The series of one architecture, best covered first (then by key).
    pub fn series_of<'a>(&'a self, arch: &'a str) -> Vec<&'a SeriesRuns> {
        let mut v: Vec<&SeriesRuns> = self
            .by_series
            .values()
            .filter(|s| s.key.arch == arch)
            .collect();
        v.sort_by_key(|s| std::cmp::Reverse(s.runs.len()));
        v
    }
}

/// The order architectures are shown in: the most used first (x86_64, arm64, riscv64,
/// ppc64le), then the others by name.
pub fn arch_order(a: &str) -> (usize, &str) {
    const FIRST: [&str; 4] = ["x86_64", "aarch64", "riscv64", "ppc64le"];
    (FIRST.iter().position(|x| *x == a).unwrap_or(FIRST.len()), a)
}

/// Distinct machines among runs that carry a machine identity (imports usually do not).
pub fn machines(runs: &[RunInfo], idx: &[usize]) -> usize {
    idx.iter()
        .filter_map(|&i| runs[i].machine.as_deref())
        .collect::<BTreeSet<_>>()
        .len()
}

/// Distinct kernel versions among placed runs: (measured releases, versions stated only
/// approximately). The two are never added up.
pub fn kernel_count(runs: &[RunInfo], idx: &[usize]) -> VersionCount {
    VersionCount::of(
        idx.iter()
            .filter(|&&i| runs[i].is_placed())
            .map(|&i| runs[i].kbase.as_str()),
    )
}

/// Kernel versions, counted apart by whether the release is known or only approximate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct VersionCount {
    pub exact: usize,
    pub approximate: usize,
}

impl VersionCount {
    pub fn of<'a>(labels: impl Iterator<Item = &'a str>) -> VersionCount {
        let set: BTreeSet<&str> = labels.collect();
        let approximate = set
            .iter()
            .filter(|l| l.starts_with(crate::model::kver::APPROX))
            .count();
        VersionCount {
            exact: set.len() - approximate,
            approximate,
        }
    }

    /// `3 kernel versions`, `3 kernel versions and 2 stated only approximately`, `1 kernel
    /// version stated only approximately`.
    pub fn words(&self) -> String {
        let n = |k: usize| format!("{k} kernel version{}", if k == 1 { "" } else { "s" });
        match (self.exact, self.approximate) {
            (e, 0) => n(e),
            (0, a) => format!("{} stated only approximately", n(a)),
            (e, a) => format!("{} and {a} stated only approximately", n(e)),
        }
    }
}

/// Confidence level as shown ("95%"): the most common one among the runs.
pub fn confidence_label(runs: &[RunInfo]) -> String {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for r in runs {
        *counts
            .entry(format!("{}%", r.confidence * 100.0))
            .or_default() += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|(k, _)| k)
        .unwrap_or_else(|| "95%".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_stated_approximately_are_counted_apart() {
        let c = |l: &[&str]| VersionCount::of(l.iter().copied()).words();
        assert_eq!(c(&["5.11-rc5", "6.18.44", "6.18.44"]), "2 kernel versions");
        assert_eq!(c(&["6.1"]), "1 kernel version");
        assert_eq!(
            c(&["5.11-rc5", "≈5.9-rc", "6.1", "≈5.7-rc"]),
            "2 kernel versions and 2 stated only approximately"
        );
        assert_eq!(
            c(&["≈6.14-rc"]),
            "1 kernel version stated only approximately"
        );
        assert_eq!(c(&[]), "0 kernel versions");
    }
}
