//! `syscost import` as a command: output modes, saving, exit codes and messages.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use syscost_record::RunRecord;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../import/tests/fixtures")
        .join(name)
}

const SEED_000: &str = "seeds/000_3e013fb81e017806.txt";
const SEED_004: &str = "seeds/004_3ea49f3098541147.txt";

fn syscost(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_syscost"))
        .arg("import")
        .args(args)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Every file under `dir`, relative, sorted.
fn files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn json_prints_every_record_as_an_array() {
    let two = fixture("seccomp-2020-two-runs.txt");
    let sud = fixture(SEED_004);
    let out = syscost(&["--json", two.to_str().unwrap(), sud.to_str().unwrap()]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let records: Vec<RunRecord> = serde_json::from_slice(&out.stdout).unwrap();
    let formats: Vec<&str> = records
        .iter()
        .map(|r| r.source.format.as_deref().unwrap())
        .collect();
    assert_eq!(
        formats,
        ["kselftest-seccomp", "kselftest-seccomp", "kselftest-sud"]
    );
}

#[test]
fn save_writes_canonical_paths_idempotently_with_provenance() {
    let dir = tempfile::tempdir().unwrap();
    let seed = fixture(SEED_000);
    let args = [
        "--save",
        dir.path().to_str().unwrap(),
        "--source",
        "https://lore.kernel.org/r/example",
        "--note",
        "from the commit message",
        seed.to_str().unwrap(),
    ];
    let first = syscost(&args);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let printed = text(&first.stdout);
    let saved = files(dir.path());
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(saved[0].starts_with("runs/unknown/unknown/"), "{saved:?}");
    assert!(printed.trim().ends_with(&saved[0]), "{printed}");

    let r: RunRecord =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join(&saved[0])).unwrap())
            .unwrap();
    assert_eq!(
        r.source.url.as_deref(),
        Some("https://lore.kernel.org/r/example")
    );
    assert_eq!(r.source.note.as_deref(), Some("from the commit message"));
    assert!(saved[0].ends_with(&format!("{}.json", r.id)));

    // Same log, same record, same file: nothing new, no temp files.
    let again = syscost(&args);
    assert!(again.status.success());
    assert_eq!(text(&again.stdout), printed);
    assert_eq!(files(dir.path()), saved);
}

#[test]
fn save_with_json_keeps_stdout_pure_json() {
    let dir = tempfile::tempdir().unwrap();
    let ktap = fixture("seccomp-ktap.txt");
    let out = syscost(&[
        "--json",
        "--save",
        dir.path().to_str().unwrap(),
        ktap.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    let records: Vec<RunRecord> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(records.len(), 1);
    assert!(text(&out.stderr).contains("runs/x86_64/6.8.0-45-generic/"));
    assert_eq!(
        files(dir.path()),
        [format!(
            "runs/x86_64/6.8.0-45-generic/{}.json",
            records[0].id
        )]
    );
}

#[test]
fn default_output_is_a_readable_summary() {
    let seed = fixture(SEED_004);
    let out = syscost(&[seed.to_str().unwrap()]);
    assert!(out.status.success());
    let s = text(&out.stdout);
    assert!(s.contains("kselftest-sud"), "{s}");
    assert!(
        s.contains("sud.allow") && s.contains("147.0 ns") && s.contains("+13.0 ns"),
        "{s}"
    );
}

#[test]
fn garbage_fails_with_file_and_line_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = fixture(SEED_000);
    let bad = fixture("garbage.txt");
    let out = syscost(&[
        "--save",
        dir.path().to_str().unwrap(),
        good.to_str().unwrap(),
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("no supported benchmark result found in"),
        "{err}"
    );
    assert!(
        err.contains("garbage.txt") && err.contains("line 1"),
        "{err}"
    );
    assert!(
        files(dir.path()).is_empty(),
        "one bad file must fail the whole import"
    );
}

#[test]
fn explicit_format_mismatch_names_the_tool() {
    let seed = fixture(SEED_004);
    let out = syscost(&["--format", "kselftest-seccomp", seed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no seccomp_benchmark result found in"));
}

#[test]
fn unreadable_file_is_named() {
    let out = syscost(&["/nonexistent/run.log"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("cannot read /nonexistent/run.log"), "{err}");
}

#[test]
fn unknown_format_is_a_usage_error() {
    let seed = fixture(SEED_004);
    let out = syscost(&["--format", "unixbench", seed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
}
