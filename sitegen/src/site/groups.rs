//! The accepted runs grouped the ways the index pages need them, and counts over such groups.

use crate::info::{RunInfo, SeriesKey};
use crate::kver::{label_key, KernelVersion};
use std::collections::{BTreeMap, BTreeSet};

/// Runs grouped the ways the pages need them (indices into the run list).
pub struct Groups {
    pub newest: Vec<usize>,
    pub by_arch: BTreeMap<String, Vec<usize>>,
    /// Kernel base labels in ascending version order, with their runs.
    pub by_kernel: BTreeMap<KernelVersion, (String, Vec<usize>)>,
    pub by_series: BTreeMap<SeriesKey, Vec<usize>>,
}

impl Groups {
    pub fn new(runs: &[RunInfo]) -> Groups {
        let mut newest: Vec<usize> = (0..runs.len()).collect();
        newest.sort_by(|&a, &b| RunInfo::newest_first(&runs[a], &runs[b]));
        let mut g = Groups {
            newest,
            by_arch: BTreeMap::new(),
            by_kernel: BTreeMap::new(),
            by_series: BTreeMap::new(),
        };
        // Fill in newest-first order so every group lists its runs newest first too.
        for &i in &g.newest {
            let r = &runs[i];
            g.by_arch.entry(r.arch.clone()).or_default().push(i);
            g.by_kernel
                .entry(label_key(&r.kbase))
                .or_insert_with(|| (r.kbase.clone(), Vec::new()))
                .1
                .push(i);
            g.by_series.entry(r.series.clone()).or_default().push(i);
        }
        g
    }
}

/// Distinct machines among runs that carry a machine identity (imports usually do not).
pub fn machines(runs: &[RunInfo], idx: &[usize]) -> usize {
    idx.iter()
        .filter_map(|&i| runs[i].machine.as_deref())
        .collect::<BTreeSet<_>>()
        .len()
}

pub fn kernel_count(runs: &[RunInfo], idx: &[usize]) -> usize {
    idx.iter()
        .map(|&i| runs[i].kbase.as_str())
        .collect::<BTreeSet<_>>()
        .len()
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
