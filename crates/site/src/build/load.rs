//! Finding record files under a data directory and reading them defensively, each through one
//! [`Reader`]: records come from strangers, so every failure becomes a message naming the file
//! and what to do about it.

use crate::model::summary::{read_head, Head};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
// Reading and parsing one record is the record crate's, shared with `syscost submit`.
use syscost_record::check::read_limited_into;
pub use syscost_record::check::{diagnose, parse_record, RecordError, MAX_RECORD_BYTES};
use syscost_record::RunRecord;
use walkdir::WalkDir;

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

/// The maintainers' triage file in a data directory (read by [`crate::build::triage`]).
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

/// The one reader of record files, for every command (`build`, `check`, `migrate`): a file is
/// read whole, once, into a buffer kept from record to record, refusing what [`read_limited`]
/// refuses; its bytes (what a record's content key and the summary cache's key are made of),
/// its record or only its head are taken from that read.
#[derive(Default)]
pub struct Reader(Vec<u8>);

impl Reader {
    /// The bytes of the file at `path`.
    pub fn bytes(&mut self, path: &Path) -> Result<&[u8], RecordError> {
        read_limited_into(path, &mut self.0)?;
        Ok(&self.0)
    }

    /// The record in the file at `path`, with its bytes.
    pub fn record(&mut self, path: &Path) -> Result<(RunRecord, &[u8]), RecordError> {
        let bytes = self.bytes(path)?;
        Ok((parse_record(bytes)?, bytes))
    }

    /// What places the record at `path` ([`Head`]), read from the first [`HEAD_BYTES`] of the
    /// file (the whole file when its head does not end within them). A file without a head is
    /// explained with the full format's error, which names the actual problem.
    pub fn head(&mut self, path: &Path) -> Result<Head, RecordError> {
        self.0.clear();
        let file = File::open(path).map_err(RecordError::Open)?;
        let len = file.metadata().map_err(RecordError::Read)?.len();
        if len > MAX_RECORD_BYTES {
            return Err(RecordError::TooBig(len));
        }
        file.take(HEAD_BYTES)
            .read_to_end(&mut self.0)
            .map_err(RecordError::Read)?;
        if len > HEAD_BYTES {
            if let Ok(head) = read_head(&self.0) {
                return Ok(head);
            }
            self.bytes(path)?;
        }
        read_head(&self.0).map_err(|e| match parse_record(&self.0) {
            Err(why) => why,
            Ok(_) => diagnose(&self.0, &e),
        })
    }
}

/// How much of a file is read for its head: the heads of the records in data/ end within their
/// first 4 KiB (a kernel command line can be long; the larger the read, the rarer a second).
pub const HEAD_BYTES: u64 = 8 * 1024;

#[cfg(test)]
mod tests {
    use super::*;
    use syscost_record::SCHEMA_VERSION;

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
        let mut v: serde_json::Value = serde_json::from_slice(&syscost_synth::to_file_bytes(
            &syscost_synth::generate(1, 1).next().unwrap(),
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
