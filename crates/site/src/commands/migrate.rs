//! `syscost-site migrate`: rewrites the records of a data directory in the current schema and
//! file form (`syscost_record::migrate`, `to_file_json`). A record of schema 1 or 2 has its
//! numbers rounded to the precision their intervals justify, so its content, hence its id and
//! file name, change once; one of schema 3 or later changes only its form and keeps its id. A new file
//! replaces the old one atomically, and `triage.tsv` (the maintainers' verdicts, keyed by id)
//! follows. Running it again changes nothing.

use crate::build::load;
use std::path::{Path, PathBuf};
use syscost_record::{migrate, to_file_json, validate};

/// One record that was rewritten.
#[derive(Debug)]
pub struct Moved {
    pub from: String,
    pub to: String,
    pub old_id: String,
    pub new_id: String,
}

#[derive(Debug, Default)]
pub struct Report {
    pub moved: Vec<Moved>,
    pub unchanged: usize,
    /// Records left as they are, with why: they do not read or do not validate, or are no
    /// file to rewrite (a symbolic link, which is never followed, a pipe, a name that is not
    /// UTF-8).
    pub skipped: Vec<(String, String)>,
}

#[derive(Debug, thiserror::Error)]
#[error("cannot write {}: {source}", path.display())]
pub struct WriteError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), WriteError> {
    let err = |source| WriteError {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    let tmp = path.with_extension("json.migrating");
    std::fs::write(&tmp, bytes).map_err(err)?;
    std::fs::rename(&tmp, path).map_err(err)
}

/// Migrates every record under `dir`.
pub fn migrate_dir(dir: &Path) -> Result<Report, WriteError> {
    let mut report = Report::default();
    let scan = load::scan(dir);
    // What the scan would not read is said, as check says it.
    for i in scan.issues {
        report.skipped.push((i.path, i.message));
    }
    let mut reader = load::Reader::default();
    for c in scan.records {
        let (rec, read) = match reader.record(&c.abs) {
            Ok(r) => r,
            Err(e) => {
                report.skipped.push((c.rel, e.to_string()));
                continue;
            }
        };
        let problems = validate(&rec);
        if !problems.is_empty() {
            let list: Vec<String> = problems.iter().map(ToString::to_string).collect();
            report
                .skipped
                .push((c.rel, format!("invalid: {}", list.join("; "))));
            continue;
        }
        let old_id = rec.id.clone();
        let new = migrate(rec);
        let bytes = to_file_json(&new);
        let to = new.canonical_path();
        let same_file = to == c.rel;
        if same_file && read == bytes.as_bytes() {
            report.unchanged += 1;
            continue;
        }
        write_atomic(&dir.join(&to), bytes.as_bytes())?;
        if !same_file {
            std::fs::remove_file(&c.abs).map_err(|source| WriteError {
                path: c.abs.clone(),
                source,
            })?;
        }
        report.moved.push(Moved {
            from: c.rel,
            to,
            old_id,
            new_id: new.id,
        });
    }
    follow_triage(dir, &report.moved)?;
    Ok(report)
}

/// Renames migrated ids in `triage.tsv` (first field of each line), when there is one.
fn follow_triage(dir: &Path, moved: &[Moved]) -> Result<(), WriteError> {
    let path = dir.join("triage.tsv");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let renamed: std::collections::HashMap<&str, &str> = moved
        .iter()
        .map(|m| (m.old_id.as_str(), m.new_id.as_str()))
        .collect();
    let out: String = text
        .split_inclusive('\n')
        .map(|line| match line.split_once('\t') {
            Some((id, rest)) if renamed.contains_key(id) => format!("{}\t{rest}", renamed[id]),
            _ => line.to_string(),
        })
        .collect();
    if out != text {
        write_atomic(&path, out.as_bytes())?;
    }
    Ok(())
}
