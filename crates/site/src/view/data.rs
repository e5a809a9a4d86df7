//! What the index pages are written from, worked out once per build.

use crate::model::changes::trends::Change;
use crate::model::groups::{confidence_label, Groups};
use crate::model::metrics::{Registry, METRICS};
use crate::model::summary::RunInfo;

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
    pub trends: Vec<Vec<crate::model::changes::trends::Kept>>,
    /// The steps of each series (indices into `changes`).
    pub series_changes:
        std::collections::BTreeMap<std::sync::Arc<crate::model::series::SeriesKey>, Vec<usize>>,
    /// The registry id of each headline metric, when some run has it.
    pub headline: Vec<Option<u32>>,
    /// Records that could not be used.
    pub rejected: usize,
    pub base_url: Option<&'a str>,
}

impl<'a> Data<'a> {
    pub fn new(runs: &'a [RunInfo], reg: &'a Registry) -> Data<'a> {
        let g = Groups::new(runs);
        let paged = |m| crate::model::metrics::headline_of(reg.key(m)).is_some();
        let (mut changes, trends) = crate::model::changes::trends::detect(runs, &g, &paged);
        // An A/A copy of a scenario steps with its original: listing both says it twice.
        changes.retain(|c| !reg.key(c.metric).is_replica());
        let mut series_changes = std::collections::BTreeMap::new();
        for (i, c) in changes.iter().enumerate() {
            series_changes
                .entry(std::sync::Arc::clone(&c.series))
                .or_insert_with(Vec::new)
                .push(i);
        }
        let conf = confidence_label(runs);
        let headline: Vec<Option<u32>> = METRICS.iter().map(|m| reg.find_key(&m.key())).collect();
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
        }
    }
}
