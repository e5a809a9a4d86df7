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
            shared: crate::build::staging::Key::of(&[&shared]).bytes(),
        }
    }
}
