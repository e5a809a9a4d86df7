//! The first pass: each record's head, enough to place it in a series and order the series' runs.

use super::*;

/// A series' runs form a chain ordered by kernel version and time; a run that cannot be placed
/// on the version axis is alone (keyed by its claimed id, so that copies of one record share a
/// chain and a worker and are recognised as duplicates once validated).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Chain {
    /// Shared by the entries of one series (the key is large; there can be 100,000 entries).
    Series(Arc<SeriesKey>),
    Alone(String),
}

pub struct Entry {
    pub(super) cand: Candidate,
    pub(super) chain: Chain,
    pub(super) date: Option<String>,
    pub(super) kernel: KernelVersion,
    pub(super) id: String,
    /// Not at the path its arch, kernel and id give: of two copies of one record, the one at
    /// its canonical path is used (false sorts first).
    pub(super) misplaced: bool,
}

/// Reads the [`Head`] of one candidate: enough to place it in its machine's chain.
pub(super) fn head_entry(cand: Candidate, keys: &Keys) -> Result<Entry, Issue> {
    match load::Reader::default().head(&cand.abs) {
        Ok(head) => Ok(entry(cand, head, keys)),
        Err(why) => Err(Issue {
            path: cand.rel.clone(),
            message: why.to_string(),
        }),
    }
}

/// The entry of a record, placed by its head.
pub(super) fn entry(cand: Candidate, head: Head, keys: &Keys) -> Entry {
    let chain = match head.placement() {
        Ok(()) => Chain::Series(keys.share(&Arc::new(crate::model::series::series_key(
            &head.series_input(),
        )))),
        Err(_) => Chain::Alone(head.id.clone()),
    };
    let c = &head.environment.comparability;
    let misplaced = cand.rel != canonical_path_for(&c.arch, &c.kernel_release, &head.id);
    Entry {
        chain,
        misplaced,
        date: head.source.date.clone(),
        kernel: head.kernel(),
        id: head.id,
        cand,
    }
}

/// The series keys met so far, each once.
#[derive(Default)]
pub(super) struct Keys(std::sync::Mutex<foldhash::HashSet<Arc<SeriesKey>>>);

impl Keys {
    pub(super) fn share(&self, k: &SeriesKey) -> Arc<SeriesKey> {
        let Ok(mut set) = self.0.lock() else {
            return Arc::new(k.clone());
        };
        match set.get(k) {
            Some(a) => Arc::clone(a),
            None => {
                let a = Arc::new(k.clone());
                set.insert(Arc::clone(&a));
                a
            }
        }
    }
}

/// Places every candidate in its chain, on all cores. Duplicates are not judged here: a
/// broken file may claim any id, so only validated records can be duplicates of each other.
pub fn first_pass(cands: Vec<Candidate>, rejected: &mut Vec<Issue>) -> Vec<Entry> {
    let mut entries = Vec::with_capacity(cands.len());
    let keys = Keys::default();
    for r in par_map(cands, jobs(), |c| head_entry(c, &keys)) {
        match r {
            Ok(e) => entries.push(e),
            Err(i) => rejected.push(i),
        }
    }
    // Copies of one record: the one at its canonical path first, then in file-name order
    // (the sort is stable), so the first is the one kept. Within a series: by upstream
    // version, then time, so the runs of the previous version have been seen when a version's
    // runs are rendered.
    entries.sort_by(|a, b| {
        a.chain
            .cmp(&b.chain)
            .then_with(|| a.kernel.base.cmp(&b.kernel.base))
            .then_with(|| a.date.cmp(&b.date))
            .then_with(|| a.kernel.release.cmp(&b.kernel.release))
            .then_with(|| a.id.cmp(&b.id))
            .then_with(|| a.misplaced.cmp(&b.misplaced))
    });
    entries
}
