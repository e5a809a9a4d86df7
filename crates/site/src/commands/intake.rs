//! `syscost-site intake extract`: a run submitted through the repository's issue form ("Submit
//! a run"). The issue's text is a stranger's: it is read only from the event file GitHub
//! writes for the workflow, bounded in size, and the only thing taken from it is one JSON
//! record in a fenced block — which must then pass what `check` holds every record to, in the
//! data directory it would join. The outcome is written as files (the comment for the issue,
//! the pull request's body, the record at its place) for the workflow to pass on; nothing
//! from the issue is ever run, and no text of it goes anywhere but that record.
//!
//! Attachments are not read: a record is 2–31 KB (the repository's largest is 31 KB), well
//! within the 65,536 characters of an issue, and fetching a stranger's link would be a second,
//! networked way in for no record that pasting cannot carry.

use crate::build::load::printable;
use crate::commands::check;
use serde::Deserialize;
use std::io::Read;
use std::path::{Path, PathBuf};
use syscost_record::check::check_file;

/// Largest event file read. GitHub's own limit on an issue's text is 65,536 characters (up to
/// 256 KiB of UTF-8); the rest of the event is the issue's and repository's metadata.
pub const MAX_EVENT_BYTES: u64 = 1024 * 1024;
/// Longest issue text read, in characters: GitHub's own limit.
pub const MAX_BODY_CHARS: usize = 65_536;
/// Problems listed in the comment (the rest are counted).
const MAX_LISTED: usize = 20;
/// Longest problem line in the comment, in characters.
const MAX_LINE: usize = 400;

/// The files the workflow passes on, under `--out`.
pub const COMMENT_FILE: &str = "comment.md";
pub const PR_BODY_FILE: &str = "pull-request.md";
/// The record at its place, `record/runs/<arch>/<kernel>/<id>.json` (only when it passed).
pub const RECORD_DIR: &str = "record";

/// The workflow's own failures (not the submission's): nothing could be written.
#[derive(Debug, thiserror::Error)]
pub enum IntakeError {
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// What became of a submission.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The record passed and is at this path (relative to the data directory).
    Accepted(String),
    /// Refused; every reason, as the comment lists them.
    Refused(Vec<String>),
}

/// The parts of GitHub's `issues` event read here; everything else in it is ignored.
#[derive(Deserialize)]
struct Event {
    issue: Issue,
}

#[derive(Deserialize)]
struct Issue {
    number: u64,
    #[serde(default)]
    body: Option<String>,
}

/// Reads the event, extracts and checks the record, places it in `data` (and in
/// `out/record/...`), and writes `out/comment.md` (always) and `out/pull-request.md` (when it
/// passed).
pub fn extract(event: &Path, data: &Path, out: &Path) -> Result<Outcome, IntakeError> {
    let (number, outcome) = match read_event(event) {
        Ok(ev) => (
            Some(ev.issue.number),
            judge(ev.issue.body.as_deref().unwrap_or(""), data),
        ),
        Err(why) => (None, Err(vec![why.to_string()])),
    };
    let outcome = match outcome {
        Ok((rel, bytes, rec, warnings)) => {
            place(data, out, &rel, &bytes)?;
            write(
                &out.join(PR_BODY_FILE),
                pr_body(&rel, Some(&rec), number).as_bytes(),
            )?;
            write(&out.join(COMMENT_FILE), passed(&rel, &warnings).as_bytes())?;
            Outcome::Accepted(rel)
        }
        Err(reasons) => {
            write(&out.join(COMMENT_FILE), refused(&reasons).as_bytes())?;
            Outcome::Refused(reasons)
        }
    };
    Ok(outcome)
}

/// Why the event file gave no issue; its text becomes the refusal's reason.
#[derive(Debug, thiserror::Error)]
enum EventError {
    #[error("the event file cannot be opened: {0}")]
    Open(std::io::Error),
    #[error("the event file cannot be read: {0}")]
    Read(std::io::Error),
    #[error(
        "the issue is too large: its event is over {MAX_EVENT_BYTES} bytes (a record is tens of \
         kilobytes; paste only the record file's content)"
    )]
    TooLarge,
    #[error("the event is not an issue event: {0}")]
    NotAnIssue(serde_json::Error),
}

fn read_event(path: &Path) -> Result<Event, EventError> {
    let file = std::fs::File::open(path).map_err(EventError::Open)?;
    let mut bytes = Vec::new();
    file.take(MAX_EVENT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(EventError::Read)?;
    if bytes.len() as u64 > MAX_EVENT_BYTES {
        return Err(EventError::TooLarge);
    }
    serde_json::from_slice(&bytes).map_err(EventError::NotAnIssue)
}

/// The record the issue's text holds, checked: its place, its bytes, the record and any
/// plausibility warnings; or every reason it is refused.
#[allow(clippy::type_complexity)]
fn judge(
    body: &str,
    data: &Path,
) -> Result<(String, Vec<u8>, syscost_record::RunRecord, Vec<String>), Vec<String>> {
    let chars = body.chars().count();
    if chars > MAX_BODY_CHARS {
        return Err(vec![format!(
            "the issue's text is {chars} characters; at most {MAX_BODY_CHARS} are read (paste \
             only the record file's content)"
        )]);
    }
    let blocks = json_blocks(body);
    let text = match blocks.as_slice() {
        [one] => one,
        [] if body.contains("github.com/user-attachments/") => {
            return Err(vec![
                "attachments are not read: paste the record file's content into the Record \
                 field instead (a record is a few tens of kilobytes and fits)"
                    .to_string(),
            ])
        }
        [] => {
            return Err(vec![
                "no record found: paste the record file's content (one line of JSON, as \
                 `syscost run --save` wrote it) into the form's Record field"
                    .to_string(),
            ])
        }
        more => {
            return Err(vec![format!(
                "found {} JSON blocks: one record per issue (open one issue per record, or \
                 use `syscost submit` for several)",
                more.len()
            )])
        }
    };
    // The file form is one line ending in a newline; a paste loses or adds white space
    // around it, never inside it.
    let mut bytes = text.trim().as_bytes().to_vec();
    bytes.push(b'\n');
    let verdict = check_file(&bytes, false);
    if !verdict.passed() {
        return Err(verdict.problems);
    }
    let (Some(rel), Some(rec)) = (verdict.path, verdict.record) else {
        return Err(vec!["the record has no valid id".to_string()]);
    };
    let target = data.join(&rel);
    if target.exists() {
        return Err(vec![format!(
            "{rel} is already in the repository: this run has been submitted before"
        )]);
    }
    // The data directory as it will be with the record in it, checked as a pull request is.
    write(&target, &bytes).map_err(|e| vec![e.to_string()])?;
    let report = check::check_dir(data, false);
    if !report.issues.is_empty() {
        let _ = std::fs::remove_file(&target);
        return Err(report.issues.iter().map(|i| i.to_string()).collect());
    }
    let warnings = report.warnings.iter().map(|w| w.to_string()).collect();
    Ok((rel, bytes, rec, warnings))
}

/// The contents of the fenced code blocks (``` or ~~~, CommonMark's rule: a closing fence of
/// the same character at least as long) that hold JSON objects.
fn json_blocks(body: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut open: Option<(char, usize, String)> = None;
    for line in body.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let indent = line.len() - line.trim_start_matches(' ').len();
        let t = line.trim_start_matches(' ');
        let fence = |c: char| t.chars().take_while(|&x| x == c).count();
        match &mut open {
            None if indent < 4 => {
                for c in ['`', '~'] {
                    if fence(c) >= 3 {
                        open = Some((c, fence(c), String::new()));
                    }
                }
            }
            None => {}
            Some((c, n, text)) => {
                if indent < 4 && fence(*c) >= *n && t.trim_start_matches(*c).trim().is_empty() {
                    if text.trim_start().starts_with('{') {
                        blocks.push(std::mem::take(text));
                    }
                    open = None;
                } else {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    // A block left open runs to the end of the text, as CommonMark reads it.
    if let Some((_, _, text)) = open {
        if text.trim_start().starts_with('{') {
            blocks.push(text);
        }
    }
    blocks
}

fn place(data: &Path, out: &Path, rel: &str, bytes: &[u8]) -> Result<(), IntakeError> {
    debug_assert!(data.join(rel).exists());
    write(&out.join(RECORD_DIR).join(rel), bytes)
}

/// Lines a stranger's text may have shaped, made inert in the comment: one line each
/// (control characters escaped), bounded, in an indented code block (shown as it is: no
/// HTML, no mentions, no links).
fn code_lines(lines: &[String]) -> String {
    let mut s = String::new();
    for l in lines.iter().take(MAX_LISTED) {
        let one: String = printable(l).chars().take(MAX_LINE).collect();
        s.push_str("    ");
        s.push_str(&one);
        s.push('\n');
    }
    if lines.len() > MAX_LISTED {
        s.push_str(&format!(
            "\n({} more not listed)\n",
            lines.len() - MAX_LISTED
        ));
    }
    s
}

fn refused(reasons: &[String]) -> String {
    format!(
        "**The record was not accepted.** `syscost-site check` (or reading the issue) \
         found:\n\n{}\nNothing was proposed. Fix the record (save it again with `syscost run \
         --save`, never edit it by hand) and edit this issue to paste it again, or send it \
         with `syscost submit`.\n",
        code_lines(reasons)
    )
}

fn passed(rel: &str, warnings: &[String]) -> String {
    let mut s = format!(
        "**The record passed `syscost-site check`.** A pull request adds it as \
         `data/{rel}`; it is published labelled *unverified* until a maintainer accepts it.\n"
    );
    if !warnings.is_empty() {
        s.push_str(&format!(
            "\nPlausibility warnings (not failures: a new kernel may really differ):\n\n{}",
            code_lines(warnings)
        ));
    }
    s
}

/// The pull request's body: the record's place and facts from the checked record only (no
/// text of the issue), and the issue it closes.
fn pr_body(rel: &str, rec: Option<&syscost_record::RunRecord>, issue: Option<u64>) -> String {
    let mut s = format!("Adds `data/{rel}`, submitted through the issue form");
    if let Some(n) = issue {
        s.push_str(&format!(" (closes #{n})"));
    }
    s.push_str(". The record passed `syscost-site check` before this was opened.\n");
    if let Some(r) = rec {
        let c = &r.environment.comparability;
        s.push_str(&format!(
            "\n- kernel `{}` on `{}`\n- CPU `{}`\n- virtualization `{}`\n",
            printable(&c.kernel_release),
            printable(&c.arch),
            printable(c.cpu.model_name.as_deref().unwrap_or("-")).replace('`', "'"),
            printable(&c.virtualization.kind),
        ));
    }
    s
}

/// Written beside and renamed over: a reader sees the old file or the new one, whole.
fn write(path: &Path, bytes: &[u8]) -> Result<(), IntakeError> {
    let err = |source| IntakeError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes).map_err(err)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fenced_blocks_are_found_as_commonmark_reads_them() {
        let b = "### Record\r\n\r\n```json\r\n{\"a\":1}\r\n```\r\n\r\n### Notes\r\n\r\ntext\r\n";
        assert_eq!(json_blocks(b), ["{\"a\":1}\n"]);
        // A longer fence holds a shorter one; a tilde fence is not closed by backticks.
        let b = "````\n{\"x\":\"```\"}\n```\n````\n~~~\n{}\n```\n";
        assert_eq!(json_blocks(b), ["{\"x\":\"```\"}\n```\n", "{}\n```\n\n"]);
        // Not JSON, indented four spaces (code, not a fence): not a record.
        assert!(json_blocks("```\nhello\n```\n    ```\n    {}\n    ```\n").is_empty());
    }
}
