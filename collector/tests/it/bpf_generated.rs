//! The committed BPF object is what scripts/gen-bpf makes of the committed C sources.
//!
//! Always: the stamp's hash of the sources matches the sources (so an edit without
//! regenerating fails here), and its hash of the object matches the object. With clang (an
//! ignored test, "needs clang", which CI runs after scripts/test-tools installed it): the
//! sources still compile with the recorded flags, and with the clang version recorded in the
//! stamp the result is byte-identical to the committed object (other versions may legitimately
//! emit different bytes, so they are only checked to compile).

use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bpf_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bpf")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn stamp() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(bpf_dir().join("syscost.bpf.stamp")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// As scripts/gen-bpf: for each source in byte order, "path\nsha256\n", hashed.
fn sources_sha256() -> String {
    let dir = bpf_dir();
    let mut files = vec!["syscost.bpf.c".to_string()];
    for e in std::fs::read_dir(dir.join("include")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".h") {
            files.push(format!("include/{name}"));
        }
    }
    files.sort();
    let mut list = String::new();
    for f in &files {
        let content = std::fs::read(dir.join(f)).unwrap();
        list.push_str(&format!("{f}\n{}\n", sha256(&content)));
    }
    sha256(list.as_bytes())
}

#[test]
fn the_stamp_matches_the_sources_and_the_object() {
    let s = stamp();
    assert_eq!(
        s.get("sources-sha256"),
        Some(&sources_sha256()),
        "collector/bpf sources changed since the object was generated: run scripts/gen-bpf"
    );
    let object = std::fs::read(bpf_dir().join("syscost.bpf.o")).unwrap();
    assert_eq!(
        s.get("object-sha256"),
        Some(&sha256(&object)),
        "syscost.bpf.o is not the object scripts/gen-bpf recorded"
    );
    assert!(s.get("clang").is_some_and(|c| c.contains("clang")));
    assert!(s.get("flags").is_some_and(|f| f.contains("-target bpf")));
}

#[test]
#[ignore = "needs clang (scripts/test-tools installs it)"]
fn the_sources_compile_to_the_committed_object() {
    let clang = std::env::var("CLANG").unwrap_or_else(|_| "clang".into());
    let version = Command::new(&clang)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| panic!("cannot run {clang} ({e}): install clang (scripts/test-tools)"));
    assert!(version.status.success(), "{clang} --version failed");
    let version = String::from_utf8_lossy(&version.stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_string();
    let s = stamp();
    let dir = bpf_dir();
    let out = tempfile::tempdir().unwrap();
    let obj = out.path().join("syscost.bpf.o");
    let status = Command::new(&clang)
        .args(s["flags"].split_whitespace())
        .arg(format!("-fdebug-prefix-map={}=.", dir.display()))
        .args(["-c", "syscost.bpf.c", "-o"])
        .arg(&obj)
        .current_dir(&dir)
        .status()
        .unwrap();
    assert!(status.success(), "{clang} cannot compile syscost.bpf.c");
    if version != s["clang"] {
        eprintln!(
            "{version} differs from the generator's {}: compiled, not compared",
            s["clang"]
        );
        return;
    }
    let fresh = std::fs::read(&obj).unwrap();
    let committed = std::fs::read(dir.join("syscost.bpf.o")).unwrap();
    assert!(
        fresh == committed,
        "syscost.bpf.o is stale: run scripts/gen-bpf and commit the result"
    );
}
