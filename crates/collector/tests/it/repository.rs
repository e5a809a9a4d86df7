//! The repository keeps its promises: CI runs the README's test command, and every command a
//! GitHub workflow runs is one docs/workflows.md documents (so workflows cannot drift from what is
//! documented and tested).

use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn ci_runs_the_readme_test_command() {
    let readme = read("README.md");
    let ci = read(".ci/run");
    for cmd in [
        "cargo test --workspace",
        "cargo fmt --all --check",
        "cargo clippy --workspace --all-targets -- -D warnings",
        "cargo package --workspace",
    ] {
        assert!(ci.contains(cmd), ".ci/run lacks {cmd}");
    }
    // The quick start is two commands: nothing to install first.
    let start = readme
        .split_once("## Quick start")
        .and_then(|(_, rest)| rest.split_once("```sh\n"))
        .and_then(|(_, rest)| rest.split_once("```"))
        .map(|(block, _)| block)
        .expect("a Quick start section with a sh block");
    let commands: Vec<&str> = start
        .lines()
        .map(|l| l.split_once('#').map_or(l, |(cmd, _)| cmd).trim())
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(
        commands,
        [
            "cargo run --release -p syscost -- run",
            "cargo test --workspace"
        ]
    );
}

/// The commands of a workflow's `run:` steps: the one after `run: `, or each line of a
/// `run: |` block.
fn run_commands(workflow: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block: Option<usize> = None;
    for line in workflow.lines() {
        let indent = line.len() - line.trim_start().len();
        if let Some(at) = block {
            if line.trim().is_empty() {
                continue;
            }
            if indent > at {
                out.push(line.trim().to_string());
                continue;
            }
            block = None;
        }
        let Some(cmd) = line.trim().trim_start_matches("- ").strip_prefix("run: ") else {
            continue;
        };
        if cmd.trim() == "|" {
            block = Some(indent);
        } else {
            out.push(cmd.to_string());
        }
    }
    out
}

#[test]
fn block_steps_are_read_line_by_line() {
    let w = "    steps:\n      - run: one ${{ x }}\n      - name: b\n        run: |\n          two\n\n          three\n      - uses: y\n";
    assert_eq!(run_commands(w), ["one ${{ x }}", "two", "three"]);
}

/// Every `run:` step of every workflow, up to the argument holding its first `${{ }}`
/// expression, appears in docs/workflows.md.
#[test]
fn workflows_only_run_documented_commands() {
    let readme = read("docs/workflows.md");
    let dir = root().join(".github/workflows");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for cmd in run_commands(&text) {
            let cmd = cmd.as_str();
            // Up to the first expression, without the argument the expression is part of.
            let prefix = match cmd.split_once("${{") {
                Some((head, _)) => head.rsplit_once(' ').map_or(head, |(h, _)| h),
                None => cmd,
            }
            .trim();
            assert!(
                readme.contains(prefix),
                "{}: `{prefix}` is not documented in docs/workflows.md",
                entry.path().display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} workflow commands found");
}

/// Every workflow file, by name.
fn workflows() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(root().join(".github/workflows"))
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The text of every `run:` step, block scalars (`run: |`) included.
fn run_scripts(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start().trim_start_matches("- ");
        let Some(cmd) = t.strip_prefix("run:") else {
            continue;
        };
        let cmd = cmd.trim();
        if cmd == "|" || cmd == ">" {
            let block: Vec<&str> = lines[i + 1..]
                .iter()
                .take_while(|b| b.trim().is_empty() || indent(b) > indent(l))
                .copied()
                .collect();
            out.push(block.join("\n"));
        } else {
            out.push(cmd.to_string());
        }
    }
    out
}

/// The lines of the job `name` (up to the next job).
fn job<'a>(text: &'a str, name: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut inside = false;
    for l in text.lines() {
        if l.starts_with("  ") && !l.starts_with("   ") && l.trim_end().ends_with(':') {
            inside = l.trim() == format!("{name}:");
            continue;
        }
        if inside {
            out.push(l);
        }
    }
    assert!(!out.is_empty(), "no job {name}");
    out
}

#[test]
fn workflow_inputs_reach_the_shell_as_data_never_as_code() {
    // Issue 17: `${{ inputs.budget }}` was pasted into a `run:` script.
    for (name, text) in workflows() {
        for script in run_scripts(&text) {
            for expr in ["${{ inputs.", "${{ github.event.", "${{ github.head_ref"] {
                assert!(
                    !script.contains(expr),
                    "{name}: {expr} in a run: script (pass it through env:): {script}"
                );
            }
        }
    }
}

#[test]
fn collect_keeps_every_run_and_writes_only_from_its_own_job() {
    let text = read(".github/workflows/collect.yml");
    // Write permissions nowhere: the measuring job runs code under sudo, and the pull request
    // is opened with an App's token, not GITHUB_TOKEN.
    assert!(
        !text.contains(": write"),
        "collect.yml grants a write permission"
    );
    let measure = job(&text, "run").join("\n");
    assert!(
        measure.contains("permissions:\n      contents: read"),
        "{measure}"
    );
    // A failed scenario (exit 1) keeps its record; the upload runs whatever happened before.
    assert!(
        measure.contains("--save data || test $? -eq 1"),
        "a failed scenario fails the step: {measure}"
    );
    let upload = measure
        .split("- uses: actions/upload-artifact")
        .nth(1)
        .expect("an upload step");
    assert!(upload.contains("if: ${{ !cancelled() }}"), "{upload}");
    // The pull request is opened whatever became of one architecture, with a token that
    // triggers the checks on it.
    let pr = job(&text, "pull-request").join("\n");
    assert!(pr.contains("if: ${{ !cancelled() }}"), "{pr}");
    assert!(pr.contains("token: ${{ steps.app.outputs.token }}"), "{pr}");
    let steps: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    assert!(!steps.contains("GITHUB_TOKEN") && !steps.contains("secrets.GITHUB"));
    let contributing = read("CONTRIBUTING.md");
    for needed in [
        "COLLECT_APP_CLIENT_ID",
        "COLLECT_APP_PRIVATE_KEY",
        "Pull requests: read and write",
    ] {
        assert!(
            contributing.contains(needed),
            "CONTRIBUTING.md lacks {needed}"
        );
        assert!(
            needed.starts_with("Pull") || text.contains(needed),
            "collect.yml lacks {needed}"
        );
    }
}

#[test]
fn pull_requests_are_checked_by_the_base_branch_checker() {
    // Issue 17: check-data.yml ran the pull request's own checker, which the pull request
    // could change along with its data.
    let text = read(".github/workflows/check-data.yml");
    let base = text
        .find("ref: ${{ github.event.pull_request.base.sha }}")
        .expect("the base branch is checked out");
    let build = text
        .find("run: cargo build --release -p syscost-site")
        .expect("the checker is built");
    let head = text
        .find("ref: ${{ github.event.pull_request.head.sha }}")
        .expect("the pull request is checked out");
    let check = text
        .find("run: ./scripts/check-pr-data data pr/data")
        .expect("its data is checked");
    assert!(
        base < build && build < head && head < check,
        "order of the steps"
    );
    assert!(
        text[head..check].contains("path: pr"),
        "into pr/, beside the checker"
    );
    assert!(
        !text.contains("cargo run"),
        "nothing is built from the pull request"
    );
}

#[test]
fn the_published_site_links_the_raw_records() {
    // Issue 14: GitHub Pages publishes at most 1 GB; at 100,000 runs the site is ~870 MB, and
    // a copy of every record would add ~2.1 GB. pages.yml built without `--data-url`.
    let text = read(".github/workflows/pages.yml");
    let build = run_commands(&text)
        .into_iter()
        .find(|c| c.contains("syscost-site -- build"))
        .expect("pages.yml builds the site");
    assert!(build.contains("--data-url \"$DATA_URL\""), "{build}");
    assert!(
        text.contains(
            "DATA_URL: \"https://github.com/${{ github.repository }}/blob/${{ github.sha }}/data\""
        ),
        "the records at the commit built"
    );
}

#[test]
fn workflows_run_on_node24_actions_and_cache_cargo() {
    // Issue 17: move every action off the deprecated node20 runtime. The first major version
    // of each action whose action.yml says `using: node24` (or that is composite and uses only
    // such actions).
    const NODE24_SINCE: &[(&str, u32)] = &[
        ("actions/checkout", 5),
        ("actions/cache", 5),
        ("actions/upload-artifact", 6),
        ("actions/download-artifact", 7),
        ("actions/upload-pages-artifact", 5),
        ("actions/deploy-pages", 5),
        ("actions/create-github-app-token", 3),
        ("peter-evans/create-pull-request", 8),
    ];
    // Composite actions without a Node runtime.
    const COMPOSITE: &[&str] = &["dtolnay/rust-toolchain"];
    for (name, text) in workflows() {
        for l in text.lines() {
            let Some(uses) = l.trim().trim_start_matches("- ").strip_prefix("uses: ") else {
                continue;
            };
            let (action, version) = uses.split_once('@').expect("uses: ACTION@VERSION");
            if COMPOSITE.contains(&action) {
                continue;
            }
            let since = NODE24_SINCE
                .iter()
                .find(|(a, _)| *a == action)
                .unwrap_or_else(|| panic!("{name}: {action} is not known to run on node24"))
                .1;
            let major: u32 = version
                .trim_start_matches('v')
                .split('.')
                .next()
                .and_then(|m| m.parse().ok())
                .unwrap_or_else(|| panic!("{name}: {uses}: not a version"));
            assert!(
                major >= since,
                "{name}: {uses} runs on an older Node than node24"
            );
        }
        // Every workflow that builds caches cargo's downloads and target/.
        if text.contains("cargo build") || text.contains("cargo run") || text.contains(".ci/run") {
            assert!(
                text.contains("uses: actions/cache@") && text.contains("target/"),
                "{name} builds without a cargo cache"
            );
        }
    }
}

/// Writes an executable shell script.
fn script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn ci_names_the_step_that_failed_and_times_every_step() {
    // Issue 42: `.ci/run` printed only apt's `E:` line, not which step failed or how long any
    // took. Run it against stand-ins: the first step passes, the second fails.
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join(".ci")).unwrap();
    std::fs::copy(root().join(".ci/run"), tmp.path().join(".ci/run")).unwrap();
    script(
        &tmp.path().join("scripts/test-tools"),
        "echo tools installed",
    );
    script(
        &tmp.path().join("scripts/lab-kernels"),
        "echo 'E: Release file for http://x/dists/sid/InRelease is expired' >&2; exit 7",
    );
    let out = std::process::Command::new("sh")
        .arg(tmp.path().join(".ci/run"))
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(7), "{stdout}{stderr}");
    assert!(
        stderr.contains("== FAILED: ./scripts/lab-kernels x86_64:5.10 aarch64:6.12 riscv64:6.12 ppc64le:6.1 (exit 7, after"),
        "{stderr}"
    );
    // A step's seconds are whole seconds of the clock: a stand-in that straddles a second reads 1.
    let seconds = |l: &str, rest: &str| {
        l.trim_start()
            .split_once(rest)
            .is_some_and(|(n, _)| n.trim().parse::<u64>().is_ok())
    };
    assert!(
        stdout.lines().any(|l| l
            .strip_prefix("== ./scripts/test-tools: ")
            .is_some_and(|t| t.ends_with(" s"))),
        "{stdout}"
    );
    // The times of every step that ran, the failed one marked, and the total.
    let times = stdout
        .split_once("== steps (seconds):\n")
        .map(|(_, t)| t)
        .unwrap_or_else(|| panic!("no list of step times: {stdout}"));
    let lines: Vec<&str> = times.lines().collect();
    assert_eq!(lines.len(), 3, "{times}");
    assert!(seconds(lines[0], "  ./scripts/test-tools"), "{times}");
    assert!(
        lines[1].ends_with("./scripts/lab-kernels x86_64:5.10 aarch64:6.12 riscv64:6.12 ppc64le:6.1  FAILED (exit 7)"),
        "{times}"
    );
    assert!(lines[2].starts_with("== total: "), "{times}");
}

#[test]
fn lab_apt_fetches_only_the_suites_asked_for_and_a_failing_one_stops_no_other() {
    // Issue 42: `lab-apt update` fetched all five suites and stopped at sid's expired Release
    // file, though CI needs two. A stand-in apt-get records what it is asked and fails for sid.
    let tmp = tempfile::tempdir().unwrap();
    let bin = tmp.path().join("bin");
    let calls = tmp.path().join("calls");
    script(
        &bin.join("apt-get"),
        &format!(
            r#"list=$(printf '%s\n' "$@" | sed -n 's/^Dir::Etc::SourceList=//p' | tail -n 1)
suites=$(awk '{{print $5}}' "$list" | tr '\n' ' ')
echo "$suites" >>"{}"
case " $suites " in *" sid "*)
    echo "E: Release file for http://mirror.invalid/debian/dists/sid/InRelease is expired (invalid since 1d 2h 3min 4s). Updates for this repository will not be applied."
    exit 100 ;;
esac"#,
            calls.display()
        ),
    );
    let cache = tmp.path().join("cache");
    let lab_apt = |args: &[&str]| {
        std::process::Command::new(root().join("scripts/lab-apt"))
            .args(args)
            .env("SYSCOST_LAB_CACHE", &cache)
            .env("LAB_DEBIAN_MIRROR", "http://mirror.invalid/debian")
            .env(
                "PATH",
                format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
            )
            .output()
            .unwrap()
    };
    let called = || std::fs::read_to_string(&calls).unwrap_or_default();
    let has = |suite: &str| lab_apt(&["has", suite]).status.success();

    // Only the suites asked for, each on its own.
    let out = lab_apt(&["update", "bullseye", "trixie"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(called(), "bullseye \ntrixie \n");
    assert!(has("bullseye") && has("trixie") && !has("sid") && !has("bookworm"));
    // Kept a day: asked again, nothing is fetched.
    assert!(lab_apt(&["update", "trixie"]).status.success());
    assert_eq!(called(), "bullseye \ntrixie \n");

    // A failing suite is named, the others are still fetched, and the update fails.
    let out = lab_apt(&["update", "--force", "sid", "bookworm"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(called(), "bullseye \ntrixie \nsid \nbookworm \n");
    assert!(
        err.contains("lab-apt: sid: E: Release file for http://mirror.invalid/debian/dists/sid/InRelease is expired"),
        "{err}"
    );
    assert!(err.contains("lab-apt: could not update: sid"), "{err}");
    assert!(has("bookworm") && !has("sid"));
    // What `get` and `cache` read: the suites that were fetched.
    let sources = std::fs::read_to_string(cache.join("apt/etc/sources.list")).unwrap();
    let listed: Vec<&str> = sources
        .lines()
        .map(|l| l.split_whitespace().nth(4).unwrap())
        .collect();
    assert_eq!(listed, ["bullseye", "bookworm", "trixie"], "{sources}");

    let out = lab_apt(&["update", "buster"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown suite buster"));
}

/// Every path a document names in backticks exists: a file moved or deleted takes its mentions
/// with it. Paths start at the repository's root, or (`src/…`, `tests/…`, `templates/…`) at a
/// crate's root or the document's own directory; placeholders (`…`, `...`, upper-case words)
/// are not paths.
#[test]
fn every_path_the_docs_name_exists() {
    let mut crates: Vec<String> = std::fs::read_dir(root().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| format!("crates/{}", e.file_name().to_string_lossy()))
        .collect();
    crates.push("fuzz".into());
    let mut docs = vec![
        "README.md".to_string(),
        "ARCHITECTURE.md".into(),
        "CONTRIBUTING.md".into(),
    ];
    let mut dirs = vec!["docs".to_string()];
    dirs.extend(crates.iter().map(|c| c.to_string()));
    for dir in &dirs {
        let Ok(entries) = std::fs::read_dir(root().join(dir)) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".md") {
                docs.push(format!("{dir}/{name}"));
            }
        }
    }
    let tops: Vec<String> = std::fs::read_dir(root())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut missing = Vec::new();
    for doc in &docs {
        let text = read(doc);
        let here = Path::new(doc).parent().unwrap_or(Path::new(""));
        for (i, span) in text.split('`').enumerate() {
            // Odd pieces are inside backticks.
            let is_path = i % 2 == 1
                && span.contains('/')
                && !span.contains("...")
                && !span.contains('…')
                && span
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "/._-".contains(c))
                && !span.split('/').any(|part| {
                    part.len() > 2 && part.chars().all(|c| c.is_ascii_uppercase() || c == '_')
                });
            if !is_path || span.starts_with('/') || span.contains("//") {
                continue;
            }
            let first = span.split('/').next().unwrap_or_default();
            let exists = if tops.iter().any(|t| t == first) {
                root().join(span).exists()
            } else if ["src", "tests", "templates", "content", "static", "benches"].contains(&first)
            {
                crates
                    .iter()
                    .map(Path::new)
                    .chain([here])
                    .any(|c| root().join(c).join(span).exists())
            } else {
                continue;
            };
            if !exists {
                missing.push(format!("{doc}: `{span}`"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths the docs name that do not exist:\n{}",
        missing.join("\n")
    );
}

/// The README is for users: usage first, short; history and figures live in docs/.
#[test]
fn the_readme_stays_short() {
    let lines = read("README.md").lines().count();
    assert!(lines <= 250, "README.md has {lines} lines (at most 250)");
}
