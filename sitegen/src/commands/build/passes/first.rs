//! The first pass: each record's head (or its cached summary), enough to place it in a series and order the series' runs.

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
    /// This program and the file's bytes: the record's key in the summary cache. None when the
    /// first pass read only the head (there was no cache to look it up in).
    pub(super) key: Option<Key>,
    /// The summary cache has the record: it need not be read again.
    pub(super) cached: bool,
}

/// Reads the light [`Head`] of one candidate: enough to place it in its machine's chain. A
/// record the summary cache has is placed by its cached summary.
pub(super) fn head_entry(
    cand: Candidate,
    program: &[u8; 16],
    cache: &Cache,
    keys: &Keys,
) -> Result<Entry, Issue> {
    let reject = |why: RecordError| Issue {
        path: cand.rel.clone(),
        message: why.to_string(),
    };
    let mut buf = load::Buffer::default();
    // Nothing to look up without a cache: the head alone places the record, and records put
    // it first, so the first pass reads a few KiB of each file instead of all of it (a
    // 100,000-run build read every file twice). A file whose head is not within them is read
    // whole; a file no longer than them already is.
    let whole = cache.is_empty()
        && match buf.read_prefix(&cand.abs, HEAD_BYTES).map_err(reject)? {
            (_, true) => true,
            (prefix, false) => {
                if let Ok(head) = crate::model::summary::read_head(prefix) {
                    return Ok(entry(cand, head, None, keys));
                }
                false
            }
        };
    let bytes = match whole {
        true => buf.bytes(),
        false => buf.read(&cand.abs).map_err(reject)?,
    };
    let key = Key::of(&[program, bytes]);
    let known = cache.peek(&key, |i| {
        let chain = match i.placed {
            Ok(()) => Chain::Series(keys.share(&i.series)),
            Err(_) => Chain::Alone(i.id.clone()),
        };
        (
            chain,
            i.date.clone(),
            i.kernel.clone(),
            i.id.clone(),
            i.page.clone(),
        )
    });
    if let Some((chain, date, kernel, id, page)) = known {
        return Ok(Entry {
            chain,
            misplaced: cand.rel.strip_suffix(".json") != Some(page.as_str()),
            date,
            kernel,
            id,
            cand,
            key: Some(key),
            cached: true,
        });
    }
    let head: Head = match crate::model::summary::read_head(bytes) {
        Ok(h) => h,
        Err(e) => {
            // Explain with the full format's error, which names the actual problem.
            let why = match load::parse_record(bytes) {
                Err(why) => why,
                Ok(_) => load::diagnose(bytes, &e),
            };
            return Err(reject(why));
        }
    };
    Ok(entry(cand, head, Some(key), keys))
}

/// How much of a file the first pass reads for its head when there is no summary cache: the
/// heads of the records in data/ end within their first 4 KiB (a kernel command line can be
/// long; the larger the read, the rarer a second one).
pub(super) const HEAD_BYTES: u64 = 8 * 1024;

/// The entry of a record that is not in the summary cache, placed by its head.
pub(super) fn entry(cand: Candidate, head: Head, key: Option<Key>, keys: &Keys) -> Entry {
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
        key,
        cached: false,
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

impl Entry {
    pub fn is_cached(&self) -> bool {
        self.cached
    }
}

/// Places every candidate in its chain, on all cores. Duplicates are not judged here: a
/// broken file may claim any id, so only validated records can be duplicates of each other.
pub fn first_pass(
    cands: Vec<Candidate>,
    program: &[u8; 16],
    cache: &Cache,
    rejected: &mut Vec<Issue>,
) -> Vec<Entry> {
    let mut entries = Vec::with_capacity(cands.len());
    let keys = Keys::default();
    for r in par_map(cands, jobs(), |c| head_entry(c, program, cache, &keys)) {
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
