//! `syscost submit` against a fake `gh` on PATH (a script that records every call it receives,
//! its arguments and what came on its standard input, and answers as GitHub would), and
//! against no `gh` at all. A record the site's check refuses is never sent.

use base64::Engine;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use syscost_record::check::check_file;

/// A record of the repository's data that passes the site's check (they all should), with the
/// path the check names for it.
fn good_record() -> (PathBuf, String) {
    let runs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/runs");
    let mut stack = vec![runs];
    let mut files = Vec::new();
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                files.push(p);
            }
        }
    }
    files.sort();
    for f in files {
        let v = check_file(&std::fs::read(&f).unwrap(), false);
        let has_machine = v
            .record
            .as_ref()
            .is_some_and(|r| r.environment.incidental.machine_hash.is_some());
        if v.passed() && has_machine {
            return (f, format!("data/{}", v.path.unwrap()));
        }
    }
    panic!("no record of data/runs passes the check");
}

const FAKE_GH: &str = r#"#!/bin/sh
# A stand-in for GitHub's gh: records each call and answers as GitHub would.
log="$FAKE_GH_DIR/calls"
printf 'CALL' >> "$log"
for a in "$@"; do printf ' %s' "$a" >> "$log"; done
printf '\n' >> "$log"
for a in "$@"; do
    if [ "$a" = "-" ]; then printf 'STDIN ' >> "$log"; cat >> "$log"; printf '\n' >> "$log"; fi
done
case "$*" in
    "auth status") if [ -e "$FAKE_GH_DIR/logged-out" ]; then exit 1; fi ;;
    "api repos/syscost/syscost")
        echo '{"full_name":"syscost/syscost","default_branch":"main","permissions":{"push":false}}' ;;
    "api repos/syscost/syscost/git/ref/heads/main") echo '{"object":{"sha":"0123abcd"}}' ;;
    "api --method POST repos/syscost/syscost/forks --input -")
        echo '{"full_name":"alice/syscost","owner":{"login":"alice"}}' ;;
    "api --method POST repos/alice/syscost/git/refs --input -") echo '{"ref":"refs/heads/x"}' ;;
    "api --method PUT repos/alice/syscost/contents/"*) echo '{"content":{}}' ;;
    "api --method POST repos/syscost/syscost/pulls --input -")
        echo '{"html_url":"https://github.com/syscost/syscost/pull/4242"}' ;;
    *) echo "fake gh: unexpected call: $*" >&2; exit 1 ;;
esac
"#;

/// A directory with the fake gh in it (and its log, once called).
fn fake_gh() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let gh = dir.path().join("gh");
    std::fs::write(&gh, FAKE_GH).unwrap();
    std::fs::set_permissions(&gh, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// `syscost ARGS` with PATH = `path` (the fake's directory first, then the system's for the
/// script's own tools), standard input not a terminal.
fn syscost_with(path: &str, gh_dir: &Path, args: &[&str]) -> Output {
    Command::new(super::common::bin())
        .args(args)
        .env("PATH", path)
        .env("FAKE_GH_DIR", gh_dir)
        .stdin(Stdio::null())
        .output()
        .expect("cannot start syscost")
}

fn calls(gh_dir: &Path) -> String {
    std::fs::read_to_string(gh_dir.join("calls")).unwrap_or_default()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn a_record_the_check_refuses_is_never_sent() {
    let (good, _) = good_record();
    let gh = fake_gh();
    let dir = tempfile::tempdir().unwrap();
    // Edited by hand: the id no longer is the content's hash.
    let bytes = std::fs::read(&good).unwrap();
    let s = text(&bytes);
    let at = s.find("\"id\":\"").expect("an id") + "\"id\":\"".len();
    let mut edited = s.into_bytes();
    edited[at] = if edited[at] == b'0' { b'1' } else { b'0' };
    let bad = dir.path().join("edited.json");
    std::fs::write(&bad, &edited).unwrap();
    let not_json = dir.path().join("notes.txt");
    std::fs::write(&not_json, "hello $(touch x)").unwrap();
    let path = format!("{}:/usr/bin:/bin", gh.path().display());
    for files in [vec![&bad, &good], vec![&not_json]] {
        let mut args = vec!["submit", "--yes"];
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        let out = syscost_with(&path, gh.path(), &args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("nothing was sent"), "{err}");
        let name = files[0].display().to_string();
        assert!(err.contains(&name), "the refused file is named: {err}");
        assert!(
            calls(gh.path()).is_empty(),
            "gh was called: {}",
            calls(gh.path())
        );
    }
    let out = syscost_with(
        &path,
        gh.path(),
        &["submit", "--yes", bad.to_str().unwrap()],
    );
    assert!(
        text(&out.stderr).contains("id:"),
        "the field is named: {}",
        text(&out.stderr)
    );
}

#[test]
fn gh_forks_branches_adds_the_file_at_its_data_path_and_opens_the_pull_request() {
    let (good, dest) = good_record();
    let gh = fake_gh();
    let path = format!("{}:/usr/bin:/bin", gh.path().display());
    let out = syscost_with(
        &path,
        gh.path(),
        &["submit", "--yes", good.to_str().unwrap()],
    );
    let (so, se) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{so}\n{se}");
    assert!(
        so.contains("https://github.com/syscost/syscost/pull/4242"),
        "the URL is printed: {so}"
    );
    // What will be published was shown: the path, the machine facts, the host name's hash.
    let rec = check_file(&std::fs::read(&good).unwrap(), false)
        .record
        .unwrap();
    let hash = rec.environment.incidental.machine_hash.clone().unwrap();
    assert!(so.contains(&dest) && so.contains(&hash), "{so}");
    assert!(so.contains(&rec.environment.comparability.kernel_release));

    let log = calls(gh.path());
    let lines: Vec<&str> = log.lines().collect();
    let call_lines: Vec<&str> = lines
        .iter()
        .copied()
        .filter(|l| l.starts_with("CALL"))
        .collect();
    let put = format!("CALL api --method PUT repos/alice/syscost/contents/{dest} --input -");
    assert_eq!(
        call_lines,
        [
            "CALL auth status",
            "CALL api repos/syscost/syscost",
            "CALL api repos/syscost/syscost/git/ref/heads/main",
            "CALL api --method POST repos/syscost/syscost/forks --input -",
            "CALL api --method POST repos/alice/syscost/git/refs --input -",
            put.as_str(),
            "CALL api --method POST repos/syscost/syscost/pulls --input -",
        ],
        "{log}"
    );
    let body = |call: &str| -> serde_json::Value {
        let i = lines.iter().position(|l| *l == call).unwrap();
        let b = lines[i + 1]
            .strip_prefix("STDIN ")
            .expect("a body on stdin");
        serde_json::from_str(b).unwrap()
    };
    let r = body("CALL api --method POST repos/alice/syscost/git/refs --input -");
    assert_eq!(r["sha"], "0123abcd", "the branch starts at upstream's main");
    let branch = r["ref"]
        .as_str()
        .unwrap()
        .strip_prefix("refs/heads/")
        .unwrap()
        .to_string();
    assert!(
        branch.starts_with(&format!("submit/{}", rec.id)),
        "{branch}"
    );
    let c = body(&put);
    assert_eq!(c["branch"], branch.as_str());
    let sent = base64::engine::general_purpose::STANDARD
        .decode(c["content"].as_str().unwrap())
        .unwrap();
    assert_eq!(
        sent,
        std::fs::read(&good).unwrap(),
        "the file is sent byte for byte"
    );
    let p = body("CALL api --method POST repos/syscost/syscost/pulls --input -");
    assert_eq!(p["head"], format!("alice:{branch}"));
    assert_eq!(p["base"], "main");
    assert!(p["body"].as_str().unwrap().contains(&dest));
}

#[test]
fn without_gh_the_steps_by_hand_name_the_exact_path() {
    let (good, dest) = good_record();
    let gh = fake_gh();
    let empty = tempfile::tempdir().unwrap();
    let out = syscost_with(
        &empty.path().display().to_string(),
        gh.path(),
        &["submit", good.to_str().unwrap()],
    );
    let so = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{so}{}", text(&out.stderr));
    assert!(
        so.contains("Nothing was sent") && so.contains("not installed"),
        "{so}"
    );
    assert!(so.contains(&format!("       {dest}   <- ")), "{so}");
    let dir = dest.rsplit_once('/').unwrap().0;
    assert!(so.contains(&format!("/upload/YOUR-BRANCH/{dir})")), "{so}");
    assert!(
        so.contains("https://github.com/syscost/syscost/fork"),
        "{so}"
    );
    assert!(
        so.contains("https://github.com/syscost/syscost/issues/new?template=submit-run.yml"),
        "{so}"
    );

    // Another repository: its address or OWNER/NAME.
    let out = syscost_with(
        &empty.path().display().to_string(),
        gh.path(),
        &[
            "submit",
            "--repo",
            "https://github.com/someone/fork-of-it",
            good.to_str().unwrap(),
        ],
    );
    let so = text(&out.stdout);
    assert!(
        so.contains("https://github.com/someone/fork-of-it/fork")
            && so.contains("pull request to someone/fork-of-it"),
        "{so}"
    );

    // gh present but logged out: asked only whether it is logged in, then the same steps.
    std::fs::write(gh.path().join("logged-out"), "").unwrap();
    let path = format!("{}:/usr/bin:/bin", gh.path().display());
    let out = syscost_with(
        &path,
        gh.path(),
        &["submit", "--yes", good.to_str().unwrap()],
    );
    let so = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{so}");
    assert!(so.contains("not logged in") && so.contains(&dest), "{so}");
    assert_eq!(calls(gh.path()), "CALL auth status\n");
}

#[test]
fn without_a_terminal_or_yes_nothing_is_sent() {
    let (good, _) = good_record();
    let gh = fake_gh();
    let path = format!("{}:/usr/bin:/bin", gh.path().display());
    let out = syscost_with(&path, gh.path(), &["submit", good.to_str().unwrap()]);
    let se = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{se}");
    assert!(
        se.contains("not a terminal") && se.contains("--yes"),
        "{se}"
    );
    assert!(!calls(gh.path()).contains("api"), "{}", calls(gh.path()));

    // `run --submit` finds it out before measuring.
    let out = syscost_with(&path, gh.path(), &["run", "--budget", "30", "--submit"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--yes"));
    assert!(!calls(gh.path()).contains("api"));

    let out = syscost_with(
        &path,
        gh.path(),
        &["submit", "--yes", "--repo", "a/b;c", good.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--repo"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn run_submit_measures_then_submits_the_record() {
    let _m = super::common::measuring();
    let gh = fake_gh();
    let empty = tempfile::tempdir().unwrap();
    let save = tempfile::tempdir().unwrap();
    let out = syscost_with(
        &empty.path().display().to_string(),
        gh.path(),
        &[
            "run",
            "--budget",
            "1",
            "--only",
            "native",
            "--save",
            save.path().to_str().unwrap(),
            "--submit",
        ],
    );
    let se = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{se}");
    // The steps by hand go to stderr (stdout is the run's table) and name the saved file.
    let saved =
        syscost_record::check::read_record(&walk_one(save.path()).expect("the record was saved"))
            .unwrap();
    let dest = format!("data/{}", saved.canonical_path());
    assert!(
        se.contains("Nothing was sent") && se.contains(&dest),
        "{se}"
    );
    assert!(!text(&out.stdout).contains("Nothing was sent"));
}

fn walk_one(dir: &Path) -> Option<PathBuf> {
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let p = e.path();
        if p.is_dir() {
            if let Some(f) = walk_one(&p) {
                return Some(f);
            }
        } else {
            return Some(p);
        }
    }
    None
}

/// On a terminal (`script` gives the command one) the question is asked: "n" sends nothing,
/// "y" sends the record.
#[test]
fn on_a_terminal_the_answer_decides() {
    let (good, _) = good_record();
    for (answer, code) in [("n", 1), ("y", 0)] {
        let gh = fake_gh();
        let line = format!("'{}' submit '{}'", super::common::bin(), good.display());
        let mut child = Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .env("PATH", format!("{}:/usr/bin:/bin", gh.path().display()))
            .env("FAKE_GH_DIR", gh.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("script (util-linux) runs the command on a terminal");
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(format!("{answer}\n").as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let all = text(&out.stdout);
        assert_eq!(out.status.code(), Some(code), "{all}");
        assert!(all.contains("[y/N]"), "{all}");
        let log = calls(gh.path());
        if answer == "n" {
            assert!(all.contains("not confirmed; nothing was sent"), "{all}");
            assert_eq!(log, "CALL auth status\n");
        } else {
            assert!(all.contains("/pull/4242"), "{all}");
            assert!(log.contains("/pulls --input -"), "{log}");
        }
    }
}
