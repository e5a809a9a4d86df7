//! Whether one record file may go into a data directory: what `syscost-site check` holds every
//! file to and what `syscost submit` checks before it sends one — one function, so nothing is
//! sent that the pull request's check would refuse. Records come from strangers: every failure
//! is a message the submitter can act on (the caller names the file).

use crate::{
    is_readable_schema, validate_file, RunRecord, SourceKind, OLDEST_SCHEMA, SCHEMA_VERSION,
};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Largest record file accepted. Real records are tens of kilobytes; the limit keeps memory
/// bounded whatever is submitted.
pub const MAX_RECORD_BYTES: u64 = 1024 * 1024;

/// Why a file is not a usable record, in terms a submitter can act on (the path is reported
/// next to it).
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot be opened: {0}")]
    Open(#[source] std::io::Error),
    #[error("cannot be read: {0}")]
    Read(#[source] std::io::Error),
    #[error(
        "is {0} bytes; a record may be at most 1 MiB ({MAX_RECORD_BYTES} bytes) — is this \
         really a syscost run record?"
    )]
    TooBig(u64),
    #[error("the file is empty; it should hold one JSON run record")]
    Empty,
    #[error("starts with a byte-order mark (BOM); save it as plain UTF-8 without one")]
    ByteOrderMark,
    #[error("is not UTF-8 text (invalid byte at offset {offset}); records are UTF-8 JSON")]
    NotUtf8 { offset: usize },
    #[error("is not valid JSON: {reason} (line {line}, column {column})")]
    Syntax {
        reason: String,
        line: usize,
        column: usize,
    },
    #[error("the top level must be a JSON object (one run record), not an array or a value")]
    NotAnObject,
    #[error(
        "has no \"schema\" field: this does not look like a syscost run record (write it with \
         `syscost run` or `syscost import`)"
    )]
    NoSchema,
    /// The `schema` value as found.
    #[error("\"schema\" must be a whole number, found {0}")]
    SchemaNotANumber(String),
    #[error(
        "record schema version {version} is not supported: this program reads versions \
         {OLDEST_SCHEMA} to {SCHEMA_VERSION}{newer}",
        newer = newer_hint(.version)
    )]
    UnsupportedSchema { version: u64 },
    /// Valid JSON of the right version, but a field is missing or of the wrong type.
    #[error("does not match the run-record format: {reason} (line {line}, column {column})")]
    Format {
        reason: String,
        line: usize,
        column: usize,
    },
}

fn newer_hint(version: &u64) -> &'static str {
    if *version > u64::from(SCHEMA_VERSION) {
        " (the record is newer than this program; upgrade it)"
    } else {
        ""
    }
}

/// Reads a file, refusing anything over [`MAX_RECORD_BYTES`] without reading it all.
pub fn read_limited(path: &Path) -> Result<Vec<u8>, RecordError> {
    let mut buf = Vec::new();
    read_limited_into(path, &mut buf)?;
    Ok(buf)
}

/// [`read_limited`] into `buf` (replacing its content), which keeps its allocation.
pub fn read_limited_into(path: &Path, buf: &mut Vec<u8>) -> Result<(), RecordError> {
    buf.clear();
    let file = File::open(path).map_err(RecordError::Open)?;
    let len = file.metadata().map_err(RecordError::Read)?.len();
    if len > MAX_RECORD_BYTES {
        return Err(RecordError::TooBig(len));
    }
    buf.reserve(len as usize);
    // `take` guards against a file that grows between the size check and the read.
    file.take(MAX_RECORD_BYTES + 1)
        .read_to_end(buf)
        .map_err(RecordError::Read)?;
    if buf.len() as u64 > MAX_RECORD_BYTES {
        return Err(RecordError::TooBig(buf.len() as u64));
    }
    Ok(())
}

/// Parses a record; on failure explains what is wrong in terms a submitter can act on.
pub fn parse_record(bytes: &[u8]) -> Result<RunRecord, RecordError> {
    let rec = serde_json::from_slice::<RunRecord>(bytes).map_err(|e| diagnose(bytes, &e))?;
    // Another version that happens to fit this one's fields is still not this format.
    if !is_readable_schema(u64::from(rec.schema)) {
        return Err(RecordError::UnsupportedSchema {
            version: u64::from(rec.schema),
        });
    }
    Ok(rec)
}

/// Reads and parses one record file.
pub fn read_record(path: &Path) -> Result<RunRecord, RecordError> {
    parse_record(&read_limited(path)?)
}

/// Turns a serde error into the problem it stands for. Only runs on the error path, so
/// re-parsing is fine.
pub fn diagnose(bytes: &[u8], err: &serde_json::Error) -> RecordError {
    if bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return RecordError::Empty;
    }
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        return RecordError::ByteOrderMark;
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        return RecordError::NotUtf8 {
            offset: e.valid_up_to(),
        };
    }
    let syntax = |e: &serde_json::Error| RecordError::Syntax {
        reason: strip_position(e),
        line: e.line(),
        column: e.column(),
    };
    if err.is_syntax() || err.is_eof() {
        return syntax(err);
    }
    let value: serde_json::Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => return syntax(&e),
    };
    let Some(obj) = value.as_object() else {
        return RecordError::NotAnObject;
    };
    match obj.get("schema") {
        None => return RecordError::NoSchema,
        Some(s) => match s.as_u64() {
            None => return RecordError::SchemaNotANumber(s.to_string()),
            Some(v) if !is_readable_schema(v) => {
                return RecordError::UnsupportedSchema { version: v }
            }
            Some(_) => {}
        },
    }
    RecordError::Format {
        reason: strip_position(err),
        line: err.line(),
        column: err.column(),
    }
}

/// serde_json's message without its trailing " at line L column C" (we print our own).
fn strip_position(err: &serde_json::Error) -> String {
    let s = err.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// What [`check_file`] found in one file.
#[derive(Debug)]
pub struct Checked {
    /// The record, when the file parses as one (it may still break the rules).
    pub record: Option<RunRecord>,
    /// Every rule the file breaks, each a sentence saying what to do; empty when it may go in.
    pub problems: Vec<String>,
    /// Where the record belongs in a data directory (`runs/<arch>/<kernel>/<id>.json`), when its
    /// id is its content hash — the only case in which that name means anything.
    pub path: Option<String>,
}

impl Checked {
    pub fn passed(&self) -> bool {
        self.record.is_some() && self.problems.is_empty()
    }
}

/// Holds the bytes of one record file to every rule a data directory's record must meet on
/// its own (what is left to the directory: the file's place, copies, the triage file).
/// `allow_emulated` accepts the times of an emulator (QEMU TCG), refused otherwise.
pub fn check_file(bytes: &[u8], allow_emulated: bool) -> Checked {
    let rec = match parse_record(bytes) {
        Ok(r) => r,
        Err(e) => {
            return Checked {
                record: None,
                problems: vec![e.to_string()],
                path: None,
            }
        }
    };
    let mut problems = Vec::new();
    if rec.source.kind == SourceKind::Synthetic {
        problems.push(
            "is a synthetic record (source.kind = \"synthetic\"): generated data is for tests \
             and benchmarks and does not belong in data/"
                .to_string(),
        );
    }
    // An instruction count is emulated by design and says so in its key: it belongs in data/
    // (its series are their own kind); an emulator's times do not.
    if rec.is_emulated() && !rec.counts_instructions() && !allow_emulated {
        problems.push(format!(
            "is emulated: measured in a QEMU guest under TCG (environment.comparability.\
             virtualization.kind = \"{}\"), so its times are the emulator's, not any CPU's; \
             data/ holds measurements — run `syscost lab` under KVM, or accept it knowingly \
             with `syscost-site check --allow-emulated`",
            crate::VIRT_QEMU_TCG
        ));
    }
    // One serialisation checks the id and the file form.
    let (found, in_form) = validate_file(&rec, bytes);
    let id_ok = !found.iter().any(|p| p.field == "id" || p.field == "schema");
    for p in found {
        let hint = if p.field == "id" {
            " — regenerate the record with `syscost run`/`syscost import` instead of editing it"
        } else {
            ""
        };
        problems.push(format!("{}: {}{hint}", p.field, p.message));
    }
    // Same content, same id: what the id covers is all the file may hold.
    if problems.is_empty() && !in_form {
        problems.push(
            "is not in the form syscost writes (one line of JSON, fields in order, no extra \
             white space or defaults spelled out): the site publishes that form, so the file \
             must be it — save the record with `syscost run --save` or `syscost import --save` \
             instead of editing it"
                .to_string(),
        );
    }
    Checked {
        path: id_ok.then(|| rec.canonical_path()),
        record: Some(rec),
        problems,
    }
}
