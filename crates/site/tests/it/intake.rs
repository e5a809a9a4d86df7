//! Runs submitted through the issue form: `syscost-site intake extract` on issue events with
//! hostile texts (a script tag, shell substitutions, a 10 MB paste, two records, records of
//! another schema or another program), and the workflow that runs it, which reads the issue's
//! text only through the event file. Nothing of a refused issue reaches the data directory or
//! a pull request, and nothing of any issue is run.

use super::common::{base_record, bin, stderr};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn record_text(seed: u64) -> String {
    String::from_utf8(syscost_synth::to_file_bytes(&base_record(seed))).unwrap()
}

/// The issue form's text around a pasted record, as GitHub writes it (CRLF line ends).
fn form_body(record: &str, notes: &str) -> String {
    format!(
        "### Record\r\n\r\n```json\r\n{}\r\n```\r\n\r\n### Anything else?\r\n\r\n{notes}",
        record.trim_end()
    )
}

struct Intake {
    tmp: tempfile::TempDir,
}

impl Intake {
    fn new() -> Intake {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("data/runs")).unwrap();
        Intake { tmp }
    }
    fn data(&self) -> PathBuf {
        self.tmp.path().join("data")
    }
    fn out(&self) -> PathBuf {
        self.tmp.path().join("out")
    }
    /// `intake extract` on an `issues` event whose issue has this text.
    fn run(&self, body: &str) -> Output {
        let event = serde_json::json!({
            "action": "opened",
            "issue": {"number": 7, "title": "Submit a run", "body": body,
                      "user": {"login": "someone"}},
            "repository": {"full_name": "syscost/syscost"},
        });
        self.run_event(event.to_string().as_bytes())
    }
    fn run_event(&self, event: &[u8]) -> Output {
        let path = self.tmp.path().join("event.json");
        std::fs::write(&path, event).unwrap();
        Command::new(bin())
            .args(["intake", "extract", "--event"])
            .arg(&path)
            .arg("--data")
            .arg(self.data())
            .arg("--out")
            .arg(self.out())
            .current_dir(self.tmp.path())
            .output()
            .unwrap()
    }
    fn comment(&self) -> String {
        std::fs::read_to_string(self.out().join("comment.md")).expect("a comment")
    }
    fn records(&self) -> Vec<String> {
        super::common::files(&self.data())
    }
    /// Refused: exit 1, a comment that says so and names `why`, nothing placed or proposed.
    fn assert_refused(&self, body: &str, why: &str) -> String {
        let out = self.run(body);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let c = self.comment();
        assert!(c.starts_with("**The record was not accepted.**"), "{c}");
        assert!(c.contains(why), "the reason ({why}) is given: {c}");
        assert!(self.records().is_empty(), "placed: {:?}", self.records());
        assert!(!self.out().join("record").exists());
        assert!(!self.out().join("pull-request.md").exists());
        inert(&c);
        c
    }
}

/// Every line of the comment that is not the tool's own words is inside an indented code
/// block: GitHub shows it as it is (no HTML, mentions or links).
fn inert(comment: &str) {
    for l in comment.lines() {
        if l.starts_with("    ") || l.is_empty() {
            continue;
        }
        for bad in ["<script", "$(", "touch", "@", "<"] {
            assert!(!l.contains(bad), "{bad} outside a code block: {l}");
        }
    }
}

#[test]
fn a_pasted_record_that_passes_is_placed_and_proposed() {
    let t = Intake::new();
    let rec = base_record(1);
    let out = t.run(&form_body(&record_text(1), "Measured on my laptop."));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let rel = rec.canonical_path();
    assert_eq!(t.records(), std::slice::from_ref(&rel));
    let placed = std::fs::read(t.data().join(&rel)).unwrap();
    assert_eq!(placed, syscost_synth::to_file_bytes(&rec));
    assert_eq!(
        std::fs::read(t.out().join("record").join(&rel)).unwrap(),
        placed
    );
    let c = t.comment();
    assert!(
        c.contains("passed `syscost-site check`") && c.contains(&rel),
        "{c}"
    );
    let pr = std::fs::read_to_string(t.out().join("pull-request.md")).unwrap();
    assert!(pr.contains(&rel) && pr.contains("closes #7"), "{pr}");
    assert!(
        !pr.contains("laptop"),
        "the issue's own words stay out: {pr}"
    );
    // `check` agrees.
    let check = super::common::run(&["check", t.data().to_str().unwrap()]);
    assert!(check.status.success(), "{}", stderr(&check));

    // The same run again, once it is in the repository: already there.
    let t2 = Intake::new();
    std::fs::create_dir_all(t2.data().join(&rel).parent().unwrap()).unwrap();
    std::fs::write(t2.data().join(&rel), &placed).unwrap();
    let out = t2.run(&form_body(&record_text(1), ""));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        t2.comment().contains("is already in the repository"),
        "{}",
        t2.comment()
    );
    assert_eq!(t2.records(), [rel]);
    assert!(!t2.out().join("pull-request.md").exists());
}

#[test]
fn hostile_issue_texts_are_refused_and_never_run() {
    let t = Intake::new();
    let marker = t.tmp.path().join("pwned");
    let m = marker.display();
    // A script tag, alone and as a record's field name.
    t.assert_refused("<script>alert(1)</script>", "no record found");
    t.assert_refused(
        &form_body(r#"{"schema":5,"<script>alert(1)</script>":1}"#, ""),
        "does not match the run-record format",
    );
    // Shell substitutions and backticks, in the text and in a record.
    let sub = format!("$(touch {m}) `touch {m}` ${{{{ github.token }}}}");
    t.assert_refused(&sub, "no record found");
    t.assert_refused(
        &form_body(&format!(r#"{{"schema":5,"id":"$(touch {m})"}}"#), &sub),
        "does not match the run-record format",
    );
    // A valid record beside hostile text: the record alone is taken; the text goes nowhere.
    let ok = Intake::new();
    let out = ok.run(&form_body(&record_text(2), &sub));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for f in ["comment.md", "pull-request.md"] {
        let s = std::fs::read_to_string(ok.out().join(f)).unwrap();
        assert!(
            !s.contains("touch") && !s.contains("github.token"),
            "{f}: {s}"
        );
    }
    assert!(!marker.exists(), "something ran the issue's text");

    // A 10 MB paste: the event is refused before it is parsed.
    let big = format!(
        "```json\n{{\"schema\":5,\"x\":\"{}\"}}\n```",
        "a".repeat(10 << 20)
    );
    t.assert_refused(&big, "the issue is too large");
    // Within the event's limit but over GitHub's own limit on an issue's text.
    t.assert_refused(&"b".repeat(70_000), "at most 65536 are read");
    // Two records.
    let two = format!(
        "{}\r\n```json\r\n{}\r\n```\r\n",
        form_body(&record_text(3), ""),
        record_text(4).trim_end()
    );
    t.assert_refused(&two, "found 2 JSON blocks: one record per issue");
    // Another schema, another program's JSON, an edited record.
    t.assert_refused(
        &form_body(r#"{"schema":99,"id":"x"}"#, ""),
        "record schema version 99 is not supported",
    );
    t.assert_refused(
        &form_body(
            r#"{"name":"left-pad","version":"1.3.0","license":"WTFPL"}"#,
            "",
        ),
        "has no \"schema\" field",
    );
    let edited = record_text(5).replacen("\"id\":\"", "\"id\":\"0", 1);
    t.assert_refused(&form_body(&edited, ""), "id:");
    // An attachment link instead of a paste.
    t.assert_refused(
        "[run.json](https://github.com/user-attachments/files/1/run.json)",
        "attachments are not read",
    );
    // Not an issue event at all.
    let out = t.run_event(b"[1,2,3]");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        t.comment().contains("not an issue event"),
        "{}",
        t.comment()
    );
    assert!(!marker.exists());
}

/// The workflow: the issue's text is never part of an expression (so never pasted into a
/// script), and no `run:` script holds an expression at all: what a script needs comes in as
/// environment variables or files.
#[test]
fn the_submit_workflow_reads_the_issue_only_through_the_event_file() {
    let wf = std::fs::read_to_string(root().join(".github/workflows/submit.yml")).unwrap();
    for bad in ["issue.body", "issue.title", "comment.body", "head_ref"] {
        assert!(!wf.contains(bad), "submit.yml names {bad}");
    }
    let mut in_run: Option<usize> = None;
    for (n, line) in wf.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        if let Some(i) = in_run {
            if line.trim().is_empty() || indent > i {
                assert!(
                    !line.contains("${{"),
                    "line {}: an expression in a script: {line}",
                    n + 1
                );
                continue;
            }
            in_run = None;
        }
        let t = line.trim_start().trim_start_matches("- ");
        if let Some(rest) = t.strip_prefix("run:") {
            assert!(
                !rest.contains("${{"),
                "line {}: an expression in a script: {line}",
                n + 1
            );
            in_run = Some(indent);
        }
    }
    assert!(wf.contains("intake extract --event \"$GITHUB_EVENT_PATH\""));
    assert!(wf.contains("run: ./scripts/submit-comment"));
    // Only a record that passed is proposed, and the job that reads the issue holds no secret.
    assert!(wf.contains(
        "  pull-request:\n    needs: check\n    if: needs.check.outputs.accepted == 'true'\n"
    ));
    let check_job = &wf[wf.find("  check:\n").unwrap()..wf.find("  pull-request:\n").unwrap()];
    assert!(!check_job.contains("secrets.") && !check_job.contains("github.token"));
    let form =
        std::fs::read_to_string(root().join(".github/ISSUE_TEMPLATE/submit-run.yml")).unwrap();
    assert!(
        form.contains("render: json"),
        "the record field is fenced as JSON"
    );
}

/// The last job's script posts the file the checker wrote (with the pull request's address,
/// or what went wrong in the workflow), through a fake `gh` here that records its arguments.
#[test]
fn the_comment_is_the_checkers_file_posted_with_body_file() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let bin_dir = tmp.path().join("bin");
    std::fs::create_dir(&bin_dir).unwrap();
    let gh = bin_dir.join("gh");
    std::fs::write(
        &gh,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > \"$GH_LOG\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = tmp.path().join("intake");
    let log = tmp.path().join("gh.log");
    let post = |intake: &str, check: &str, pr_url: &str| -> (Vec<String>, String) {
        let out = Command::new(root().join("scripts/submit-comment"))
            .env("PATH", format!("{}:/usr/bin:/bin", bin_dir.display()))
            .env("GH_LOG", &log)
            .env("NUMBER", "7")
            .env("REPO", "syscost/syscost")
            .env("DIR", &dir)
            .env("INTAKE", intake)
            .env("CHECK", check)
            .env("PR_URL", pr_url)
            .env(
                "PR_RESULT",
                if pr_url.is_empty() {
                    "failure"
                } else {
                    "success"
                },
            )
            .env(
                "RUN_URL",
                "https://github.com/syscost/syscost/actions/runs/1",
            )
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let args: Vec<String> = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        let body = std::fs::read_to_string(dir.join("comment.md")).unwrap();
        (args, body)
    };
    // No file from the checker: the workflow failed before it.
    let (args, body) = post("", "", "");
    let file = dir.join("comment.md").display().to_string();
    assert_eq!(
        args,
        [
            "issue",
            "comment",
            "7",
            "--repo",
            "syscost/syscost",
            "--body-file",
            file.as_str()
        ]
    );
    assert!(body.contains("could not be checked"), "{body}");
    // Refused by the checker: its file as it is.
    std::fs::write(dir.join("comment.md"), "REFUSED\n").unwrap();
    assert_eq!(post("failure", "skipped", "").1, "REFUSED\n");
    // Passed, and the pull request is open: its address follows.
    std::fs::write(dir.join("comment.md"), "PASSED\n").unwrap();
    let (_, body) = post(
        "success",
        "success",
        "https://github.com/syscost/syscost/pull/9",
    );
    assert_eq!(
        body,
        "PASSED\n\nPull request: https://github.com/syscost/syscost/pull/9\n"
    );
    // Passed on its own, refused with the data directory.
    let (_, body) = post("success", "failure", "");
    assert!(
        body.contains("not accepted") && body.contains("actions/runs/1"),
        "{body}"
    );
}

/// Keep in step with ACTIONLINT_VERSION in scripts/test-tools.
const ACTIONLINT: &str = "/usr/local/share/syscost-test-tools/actionlint-1.17.0/actionlint";

#[test]
#[ignore = "needs actionlint (scripts/test-tools installs it)"]
fn every_workflow_passes_actionlint() {
    let exe = if Path::new(ACTIONLINT).exists() {
        ACTIONLINT.to_string()
    } else {
        "actionlint".to_string()
    };
    let out = Command::new(&exe)
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {exe} ({e}): run scripts/test-tools"));
    assert!(
        out.status.success(),
        "actionlint:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        stderr(&out)
    );
}
