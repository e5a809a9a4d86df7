//! `data/triage.tsv`: the runs a maintainer has looked at and accepted. Until a run's id is
//! listed here, the site labels it "unverified" and `syscost-site check` compares it with its
//! series (the plausibility warnings); contributors never edit this file, maintainers do.
//!
//! One run per line: `<id> TAB accepted TAB <who / why>`; `#` starts a comment line.

use crate::build::load::Issue;
use std::collections::BTreeMap;
use std::path::Path;

/// Its name in a data directory.
pub const FILE: &str = crate::build::load::TRIAGE_FILE;
/// Largest triage file read (a line per run: 100,000 runs fit in a few MB).
const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// The accepted runs, id → the maintainer's note.
#[derive(Debug, Default, Clone)]
pub struct Triage {
    pub accepted: BTreeMap<String, String>,
}

impl Triage {
    pub fn accepts(&self, id: &str) -> bool {
        self.accepted.contains_key(id)
    }
}

/// Reads `dir/triage.tsv` (absent: nothing is accepted). Every malformed line is an issue
/// naming the file and line; the rest of the file is still read.
pub fn read(dir: &Path) -> (Triage, Vec<Issue>) {
    let path = dir.join(FILE);
    let mut t = Triage::default();
    let mut issues = Vec::new();
    let issue = |line: usize, message: String| Issue {
        path: if line == 0 {
            FILE.to_string()
        } else {
            format!("{FILE} line {line}")
        },
        message,
    };
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (t, issues),
        Err(e) => return (t, vec![issue(0, format!("cannot be read: {e}"))]),
    };
    if !meta.is_file() {
        issues.push(issue(0, "must be a regular file".to_string()));
        return (t, issues);
    }
    if meta.len() > MAX_BYTES {
        issues.push(issue(
            0,
            format!("is {} bytes; at most {MAX_BYTES}", meta.len()),
        ));
        return (t, issues);
    }
    let text = match std::fs::read(&path).map(String::from_utf8) {
        Ok(Ok(s)) => s,
        Ok(Err(_)) => return (t, vec![issue(0, "is not UTF-8 text".to_string())]),
        Err(e) => return (t, vec![issue(0, format!("cannot be read: {e}"))]),
    };
    for (i, line) in text.lines().enumerate() {
        let no = i + 1;
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let id_ok = |s: &str| s.len() == 16 && s.bytes().all(|c| c.is_ascii_hexdigit());
        match f.as_slice() {
            [id, "accepted", note] if id_ok(id) && !note.trim().is_empty() => {
                if t.accepted
                    .insert(id.to_string(), note.to_string())
                    .is_some()
                {
                    issues.push(issue(no, format!("lists {id} a second time")));
                }
            }
            _ => issues.push(issue(
                no,
                "is not `<16-hex-digit id> TAB accepted TAB <who accepted it and why>`".to_string(),
            )),
        }
    }
    (t, issues)
}
