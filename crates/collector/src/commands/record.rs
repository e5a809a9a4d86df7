//! `syscost record`: one stored record shown as `run` prints it (the table), or in the other
//! form — plain objects with named fields (what `run --json` prints, for jq and pandas) or the
//! compact file form `data/` stores. And the reading of record files that `compare` shares.

use crate::cli::RecordArgs;
use crate::error::Error;
use crate::report::{json, stdout, table};
use std::path::{Path, PathBuf};
use syscost_record::{is_readable_schema, RunRecord};

/// Largest file read as records (a record is ~20 KB; `import --json` of a large log, a few MB).
const MAX_BYTES: u64 = 256 << 20;

fn bad(path: &Path, reason: impl Into<String>) -> Error {
    Error::Record {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

fn parse_one(path: &Path, v: serde_json::Value) -> Result<RunRecord, Error> {
    let schema = v.get("schema").and_then(serde_json::Value::as_u64);
    match schema {
        None => return Err(bad(path, "not a run record: no `schema` number")),
        Some(s) if !is_readable_schema(s) => {
            return Err(bad(
                path,
                format!(
                    "record schema {s} is not one this syscost reads ({} to {})",
                    syscost_record::OLDEST_SCHEMA,
                    syscost_record::SCHEMA_VERSION
                ),
            ))
        }
        Some(_) => {}
    }
    serde_json::from_value(v)
        .map_err(|e| bad(path, format!("does not match the run-record format: {e}")))
}

/// The records of a file: one record, or a JSON array of them.
pub fn read_file(path: &Path) -> Result<Vec<RunRecord>, Error> {
    let meta = std::fs::metadata(path).map_err(|e| bad(path, e.to_string()))?;
    if meta.len() > MAX_BYTES {
        return Err(bad(
            path,
            format!("{} bytes is more than records take", meta.len()),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| bad(path, e.to_string()))?;
    let v: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| bad(path, format!("not JSON: {e}")))?;
    match v {
        serde_json::Value::Array(items) => {
            if items.is_empty() {
                return Err(bad(path, "an empty list: no record"));
            }
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    parse_one(path, v).map_err(|e| match e {
                        Error::Record { path, reason } => Error::Record {
                            path,
                            reason: format!("record {} of the list: {reason}", i + 1),
                        },
                        other => other,
                    })
                })
                .collect()
        }
        v => Ok(vec![parse_one(path, v)?]),
    }
}

/// The records a path names: a file's (see [`read_file`]), or for a directory, those of every
/// `*.json` file beneath it, in path order. Each comes with the file it was read from.
pub fn read_path(path: &Path) -> Result<Vec<(PathBuf, RunRecord)>, Error> {
    if !path.is_dir() {
        return Ok(read_file(path)?
            .into_iter()
            .map(|r| (path.to_path_buf(), r))
            .collect());
    }
    let mut files = Vec::new();
    let mut dirs = vec![path.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).map_err(|e| bad(&d, e.to_string()))? {
            let p = e.map_err(|e| bad(&d, e.to_string()))?.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                files.push(p);
            }
        }
    }
    files.sort();
    if files.is_empty() {
        return Err(bad(path, "a directory without any *.json record"));
    }
    let mut out = Vec::new();
    for f in files {
        for r in read_file(&f)? {
            out.push((f.clone(), r));
        }
    }
    Ok(out)
}

pub fn run(a: &RecordArgs) -> Result<i32, Error> {
    let mut records = read_file(&a.file)?;
    if records.len() != 1 {
        return Err(bad(
            &a.file,
            format!("{} records; convert one at a time", records.len()),
        ));
    }
    let record = records.remove(0);
    let text = if a.objects {
        let mut s = serde_json::to_string_pretty(&syscost_record::objects_json(&record))?;
        s.push('\n');
        s
    } else if !a.compact {
        table::render(&record)
    } else {
        for p in syscost_record::validate(&record) {
            eprintln!("syscost record: warning: the record breaks its own rules: {p}");
        }
        json::to_file_json(&record)
    };
    match &a.output {
        Some(path) => json::write_output(path, text.as_bytes())?,
        None => stdout::print(&text).map_err(Error::Stdout)?,
    }
    Ok(0)
}
