//! `syscost-site check`: validates a data directory the way a pull request needs it, without
//! building anything. Every problem names the file and says how to fix it.

use crate::load::{self, Issue};
use std::collections::BTreeMap;
use std::path::Path;
use syscost_record::{validate, SourceKind};

pub struct Report {
    pub records: usize,
    pub issues: Vec<Issue>,
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
            message: "unexpected file: a data directory holds only run records \
                      (runs/<arch>/<kernel>/<id>.json) and a README.md"
                .to_string(),
        });
    }
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut records = 0;
    for cand in &scan.records {
        let issue = |message: String| Issue {
            path: cand.rel.clone(),
            message,
        };
        let bytes = match load::read_limited(&cand.abs) {
            Ok(b) => b,
            Err(m) => {
                issues.push(issue(m.to_string()));
                continue;
            }
        };
        let rec = match load::parse_record(&bytes) {
            Ok(r) => r,
            Err(m) => {
                issues.push(issue(m.to_string()));
                continue;
            }
        };
        records += 1;
        if rec.source.kind == SourceKind::Synthetic {
            issues.push(issue(
                "is a synthetic record (source.kind = \"synthetic\"): generated data is for \
                 tests and benchmarks and does not belong in data/"
                    .to_string(),
            ));
        }
        if rec.is_emulated() && !allow_emulated {
            issues.push(issue(format!(
                "is emulated: measured in a QEMU guest under TCG (environment.comparability.\
                 virtualization.kind = \"{}\"), so its times are the emulator's, not any \
                 CPU's; data/ holds measurements — run `syscost lab` under KVM, or accept it \
                 knowingly with `syscost-site check --allow-emulated`",
                syscost_record::VIRT_QEMU_TCG
            )));
        }
        let problems = validate(&rec);
        let id_ok = !problems
            .iter()
            .any(|p| p.field == "id" || p.field == "schema");
        for p in problems {
            let hint = if p.field == "id" {
                " — regenerate the record with `syscost run`/`syscost import` instead of editing it"
            } else {
                ""
            };
            issues.push(issue(format!("{}: {}{hint}", p.field, p.message)));
        }
        // Name checks are only meaningful once the id is the content hash.
        if id_ok {
            let want = rec.canonical_path();
            if cand.rel != want {
                issues.push(issue(format!(
                    "wrong place or name: this record must be saved as {want} (its arch, \
                     kernel release and content id) — move it there"
                )));
            }
            if let Some(first) = seen.get(&rec.id) {
                issues.push(issue(format!(
                    "duplicate: the same record (id {}) is already at {first}; delete this copy",
                    rec.id
                )));
            } else {
                seen.insert(rec.id.clone(), cand.rel.clone());
            }
        }
    }
    issues.sort();
    Report { records, issues }
}
