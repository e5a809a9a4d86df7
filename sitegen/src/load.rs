//! Finding record files under a data directory and reading them defensively: records come from
//! strangers, so every failure becomes a message naming the file and what to do about it.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use syscost_record::{is_readable_schema, RunRecord, OLDEST_SCHEMA, SCHEMA_VERSION};
use walkdir::WalkDir;

/// Largest record file accepted. Real records are tens of kilobytes; the limit keeps memory
/// bounded whatever is submitted.
pub const MAX_RECORD_BYTES: u64 = 1024 * 1024;

/// Something wrong with one file, for the person who submitted it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Issue {
    /// Path relative to the data directory, `/`-separated.
    pub path: String,
    pub message: String,
}

impl std::fmt::Display for Issue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", printable(&self.path), printable(&self.message))
    }
}

/// The maintainers' triage file in a data directory (read by [`crate::triage`]).
pub const TRIAGE_FILE: &str = "triage.tsv";

/// Characters that change how text around them is shown without being control characters:
/// bidirectional overrides and isolates (U+202E turns `txt.json` into `nosj.txt`), zero-width
/// characters, line and paragraph separators, the byte-order mark and the invisible tag
/// characters.
pub fn is_invisible_format(c: char) -> bool {
    matches!(c,
        '\u{ad}' | '\u{61c}' | '\u{180e}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}' | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}')
}

/// Text from a file name or a record, made safe to print one message per line: control
/// characters (line breaks, terminal escapes) and invisible formatting characters
/// (bidirectional overrides, zero-width characters) are shown escaped, so a stranger's file can
/// neither forge a line of output (such as a CI annotation), nor drive the terminal, nor make
/// a name read as another.
pub fn printable(s: &str) -> std::borrow::Cow<'_, str> {
    let odd = |c: char| c.is_control() || is_invisible_format(c);
    if !s.chars().any(odd) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if odd(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A file that looks like a record (`runs/**.json`, a regular file, not a symlink).
#[derive(Debug, Clone)]
pub struct Candidate {
    pub rel: String,
    pub abs: PathBuf,
}

#[derive(Debug, Default)]
pub struct Scan {
    pub records: Vec<Candidate>,
    /// Files or entries that cannot be records at all (symlinks, odd names, unreadable).
    pub issues: Vec<Issue>,
    /// Regular files that are not records and not allowed in a data directory.
    pub unexpected: Vec<String>,
}

/// Walks `dir` in name order without following symbolic links. A missing directory is an empty
/// scan; the caller decides whether that is an error.
pub fn scan(dir: &Path) -> Scan {
    let mut out = Scan::default();
    if !dir.exists() {
        return out;
    }
    for entry in WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name()
        .min_depth(1)
    {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let path = e
                    .path()
                    .map(|p| display_rel(dir, p))
                    .unwrap_or_else(|| ".".to_string());
                out.issues.push(Issue {
                    path,
                    message: format!("cannot be read: {e}"),
                });
                continue;
            }
        };
        let rel_path = entry.path().strip_prefix(dir).unwrap_or(entry.path());
        let Some(rel) = rel_path.to_str().map(|s| s.replace('\\', "/")) else {
            out.issues.push(Issue {
                path: display_rel(dir, entry.path()),
                message: "the file name is not valid UTF-8; rename it (records are named \
                          runs/<arch>/<kernel>/<id>.json in ASCII)"
                    .to_string(),
            });
            continue;
        };
        let ft = entry.file_type();
        if ft.is_symlink() {
            out.issues.push(Issue {
                path: rel,
                message: "is a symbolic link; links are refused and never followed — commit \
                          the record file itself"
                    .to_string(),
            });
            continue;
        }
        if ft.is_dir() {
            continue;
        }
        if !ft.is_file() {
            out.issues.push(Issue {
                path: rel,
                message: "is not a regular file (device, socket or pipe); remove it".to_string(),
            });
            continue;
        }
        let name = entry.file_name().to_str().unwrap_or("");
        if rel.starts_with("runs/") && name.ends_with(".json") {
            out.records.push(Candidate {
                rel,
                abs: entry.path().to_path_buf(),
            });
        } else if rel == "README.md" || rel == TRIAGE_FILE || name == ".gitkeep" {
            // Documentation, the maintainers' triage and placeholders belong in a data
            // directory.
        } else {
            out.unexpected.push(rel);
        }
    }
    out
}

fn display_rel(dir: &Path, p: &Path) -> String {
    p.strip_prefix(dir)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

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
        "record schema version {version} is not supported: this site reads versions \
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
        " (the record is newer than this syscost-site; upgrade it)"
    } else {
        ""
    }
}

/// Reads a file, refusing anything over [`MAX_RECORD_BYTES`] without reading it all.
pub fn read_limited(path: &Path) -> Result<Vec<u8>, RecordError> {
    let mut buf = Vec::new();
    read_into(path, &mut buf)?;
    Ok(buf)
}

/// [`read_limited`] into `buf` (replacing its content), which keeps its allocation.
fn read_into(path: &Path, buf: &mut Vec<u8>) -> Result<(), RecordError> {
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

/// A buffer to read records into that each thread keeps (taken, and given back when dropped):
/// reading a build's records allocates no file-sized buffer per record (glibc's heap tidies all
/// its small free chunks before each large allocation, and a build holds many small ones).
pub struct Buffer(Vec<u8>);

thread_local! {
    static BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Buffer {
    pub fn take() -> Buffer {
        Buffer(BUFFER.take())
    }

    /// [`read_limited`], into this buffer.
    pub fn read(&mut self, path: &Path) -> Result<&[u8], RecordError> {
        read_into(path, &mut self.0)?;
        Ok(&self.0)
    }

    /// What the last read left in the buffer.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The first `n` bytes of the file at `path` (all of it when it is shorter), refusing what
    /// [`read_limited`] refuses; true when that is the whole file.
    pub fn read_prefix(&mut self, path: &Path, n: u64) -> Result<(&[u8], bool), RecordError> {
        self.0.clear();
        let file = File::open(path).map_err(RecordError::Open)?;
        let len = file.metadata().map_err(RecordError::Read)?.len();
        if len > MAX_RECORD_BYTES {
            return Err(RecordError::TooBig(len));
        }
        file.take(n)
            .read_to_end(&mut self.0)
            .map_err(RecordError::Read)?;
        Ok((&self.0, len <= n))
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        BUFFER.set(std::mem::take(&mut self.0));
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(text: &[u8]) -> String {
        parse_record(text).unwrap_err().to_string()
    }

    #[test]
    fn diagnoses_name_the_problem() {
        assert!(msg(b"").contains("empty"));
        assert!(msg(b"  \n").contains("empty"));
        assert!(msg(b"\xEF\xBB\xBF{}").contains("byte-order mark"));
        assert!(msg(b"{\"a\": \xff}").contains("not UTF-8"));
        let m = msg(b"{\n  \"schema\": 1,\n  \"id\": }");
        assert!(m.contains("not valid JSON") && m.contains("line 3"), "{m}");
        assert!(msg(b"[1,2]").contains("top level must be a JSON object"));
        assert!(msg(b"{\"id\": \"x\"}").contains("no \"schema\" field"));
        assert!(msg(b"{\"schema\": \"1\"}").contains("whole number"));
        let m = msg(b"{\"schema\": 99}");
        assert!(m.contains("version 99") && m.contains("upgrade"), "{m}");
        let m = msg(b"{\"schema\": 1, \"id\": \"x\"}");
        assert!(m.contains("does not match the run-record format"), "{m}");
        assert!(m.contains("missing field"), "{m}");
    }

    #[test]
    fn messages_print_on_one_line_without_terminal_escapes() {
        let i = Issue {
            path: "runs/a\n::error::x.json".to_string(),
            message: "unknown variant `k\u{1b}[31m`".to_string(),
        };
        let s = i.to_string();
        assert!(!s.contains('\n') && !s.contains('\u{1b}'), "{s}");
        assert!(
            s.contains("a\\n::error") && s.contains("\\u{1b}[31m"),
            "{s}"
        );
        assert_eq!(printable("plain ü"), "plain ü");
        // Issue 17: a bidirectional override in a file name was printed raw.
        assert_eq!(
            printable("runs/x\u{202e}nosj.txt"),
            "runs/x\\u{202e}nosj.txt"
        );
        assert_eq!(
            printable("a\u{200b}b\u{2028}c\u{feff}"),
            "a\\u{200b}b\\u{2028}c\\u{feff}"
        );
    }

    #[test]
    fn a_future_schema_that_fits_this_one_is_still_refused() {
        let mut v: serde_json::Value = serde_json::from_slice(&syscost_site_bench::to_file_bytes(
            &syscost_site_bench::generate(1, 1).next().unwrap(),
        ))
        .unwrap();
        v["schema"] = serde_json::json!(SCHEMA_VERSION + 1);
        let m = msg(v.to_string().as_bytes());
        let want = format!("version {}", SCHEMA_VERSION + 1);
        assert!(m.contains(&want) && m.contains("upgrade"), "{m}");
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let mut s = String::from("{\"schema\":1,\"notes\":");
        s.push_str(&"[".repeat(100_000));
        let m = msg(s.as_bytes());
        assert!(m.contains("recursion limit"), "{m}");
    }
}
