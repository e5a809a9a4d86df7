//! `syscost-site check`: validates a data directory the way a pull request needs it, without
//! building anything. Every problem names the file and says how to fix it; plausibility
//! warnings (a run far from its series) are reported without failing the check.

use crate::build::load::{self, Issue};
use crate::build::triage;
use crate::model::metrics::Registry;
use crate::model::plausible;
use std::collections::BTreeMap;
use std::path::Path;
use syscost_record::check::check_file;

pub struct Report {
    pub records: usize,
    pub issues: Vec<Issue>,
    /// Runs that pass every rule but lie far from their series (not a failure).
    pub warnings: Vec<Issue>,
}

/// A record that passed every rule, for the duplicate and plausibility checks.
struct Good {
    rel: String,
    canonical: String,
    id: String,
}

/// Checks every file under `dir`. The directory must exist. `allow_emulated` accepts records
/// made under QEMU's TCG (`syscost lab` without KVM), which are refused otherwise: their times
/// are an emulator's, and data/ collects measurements.
pub fn check_dir(dir: &Path, allow_emulated: bool) -> Report {
    let scan = load::scan(dir);
    let mut issues = scan.issues;
    for rel in scan.unexpected {
        issues.push(Issue {
            path: rel,
            message: format!(
                "unexpected file: a data directory holds only run records \
                 (runs/<arch>/<kernel>/<id>.json), a README.md and {}",
                triage::FILE
            ),
        });
    }
    let (triage, triage_issues) = triage::read(dir);
    issues.extend(triage_issues);
    let mut good: Vec<Good> = Vec::new();
    let mut peers: Vec<plausible::Run> = Vec::new();
    let mut reg = Registry::default();
    let mut records = 0;
    let mut reader = load::Reader::default();
    for cand in &scan.records {
        let issue = |message: String| Issue {
            path: cand.rel.clone(),
            message,
        };
        let bytes = match reader.bytes(&cand.abs) {
            Ok(b) => b,
            Err(m) => {
                issues.push(issue(m.to_string()));
                continue;
            }
        };
        // The rules of one file are the record crate's, shared with `syscost submit`.
        let verdict = check_file(bytes, allow_emulated);
        let Some(rec) = verdict.record else {
            issues.extend(verdict.problems.into_iter().map(issue));
            continue;
        };
        records += 1;
        let before = issues.len();
        issues.extend(verdict.problems.into_iter().map(issue));
        // Name checks are only meaningful once the id is the content hash.
        if let Some(want) = verdict.path {
            if cand.rel != want {
                issues.push(issue(format!(
                    "wrong place or name: this record must be saved as {want} (its arch, \
                     kernel release and content id) — move it there"
                )));
            }
            good.push(Good {
                rel: cand.rel.clone(),
                canonical: want,
                id: rec.id.clone(),
            });
        }
        if issues.len() == before {
            peers.push(plausible::Run::of(
                cand.rel.clone(),
                &rec,
                &mut reg,
                triage.accepts(&rec.id),
            ));
        }
    }
    issues.extend(duplicates(&good));
    for id in triage.accepted.keys() {
        if !good.iter().any(|g| &g.id == id) {
            issues.push(Issue {
                path: triage::FILE.to_string(),
                message: format!("accepts {id}, but no valid record in this directory has that id"),
            });
        }
    }
    let warnings = plausible::outliers(&peers)
        .into_iter()
        .map(|o| Issue {
            path: o.path.clone(),
            message: o.to_string(),
        })
        .collect();
    issues.sort();
    Report {
        records,
        issues,
        warnings,
    }
}

/// Copies of one record (same id): the one at its canonical path is the record, every other
/// copy a duplicate; when none is there, the first by name.
fn duplicates(good: &[Good]) -> Vec<Issue> {
    let mut by_id: BTreeMap<&str, Vec<&Good>> = BTreeMap::new();
    for g in good {
        by_id.entry(g.id.as_str()).or_default().push(g);
    }
    let mut out = Vec::new();
    for (id, copies) in by_id {
        if copies.len() < 2 {
            continue;
        }
        let keep = copies
            .iter()
            .find(|g| g.rel == g.canonical)
            .unwrap_or(&copies[0]);
        for g in &copies {
            if g.rel != keep.rel {
                out.push(Issue {
                    path: g.rel.clone(),
                    message: format!(
                        "duplicate: the same record (id {id}) is already at {}; delete this copy",
                        keep.rel
                    ),
                });
            }
        }
    }
    out
}
