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
        "./scripts/setup",
    ] {
        assert!(ci.contains(cmd), ".ci/run lacks {cmd}");
    }
    assert!(readme.contains("cargo test --workspace"));
    assert!(readme.contains("cargo run --release -p syscost -- run"));
    assert!(readme.contains("./scripts/setup"));
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
        for line in text.lines() {
            let Some(cmd) = line.trim().strip_prefix("run: ") else {
                continue;
            };
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
