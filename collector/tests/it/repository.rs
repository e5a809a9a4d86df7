//! The repository keeps its promises: CI runs the README's test command, and every command a
//! GitHub workflow runs is one the README documents (so workflows cannot drift from what is
//! documented and tested).

use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
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
/// expression, appears in the README.
#[test]
fn workflows_only_run_documented_commands() {
    let readme = read("README.md");
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
                "{}: `{prefix}` is not documented in the README",
                entry.path().display()
            );
            checked += 1;
        }
    }
    assert!(checked >= 5, "only {checked} workflow commands found");
}
