//! Faults around the collector: where the record goes cannot be written, and several
//! collectors at once.

use crate::common;

use common::*;
use std::process::Command;
use syscost_record::{validate, Status};
use syscost_testkit::sys;

/// A disk that fills up mid-write, simulated with RLIMIT_FSIZE (writes past the limit fail
/// with EFBIG once SIGXFSZ is ignored, as ENOSPC would): a clear error naming the path, and
/// nothing half-written left behind.
#[test]
fn a_full_disk_leaves_no_partial_record() {
    let _m = measuring();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    let data = dir.path().join("data");
    for (flag, target) in [("-o", &file), ("--save", &data)] {
        let mut cmd = Command::new(bin());
        cmd.args(["run", "--budget", "1", "--only", "native", flag])
            .arg(target);
        sys::limit_file_size(&mut cmd, 512);
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{flag}: {err}");
        assert!(
            err.contains("cannot write") && err.contains(dir.path().to_str().unwrap()),
            "{err}"
        );
        let mut leftovers = Vec::new();
        for e in walk(dir.path()) {
            if e.is_file() {
                leftovers.push(e);
            }
        }
        assert!(leftovers.is_empty(), "{flag}: left {leftovers:?}");
    }
}

fn walk(p: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut v = Vec::new();
    for e in std::fs::read_dir(p).unwrap().flatten() {
        let path = e.path();
        if path.is_dir() {
            v.extend(walk(&path));
        }
        v.push(path);
    }
    v
}

/// A directory the collector may not write to: as root, the collector runs as `nobody` (root
/// ignores permission bits); otherwise the directory is made read-only.
#[test]
fn an_unwritable_directory_is_a_clear_error() {
    let _m = measuring();
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let mut cmd;
    if sys::is_root() {
        // The tempdir is 0700; let nobody traverse it but not write into `ro`.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
        cmd = Command::new("setpriv");
        cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin()]);
    } else {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        cmd = Command::new(bin());
    }
    let out = cmd
        .args(["run", "--budget", "1", "--only", "native", "--save"])
        .arg(&ro)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    // Found before measuring: a usage error, and nothing was measured.
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot create") || err.contains("cannot write"),
        "{err}"
    );
    assert!(err.contains("nothing was measured"), "{err}");
    assert!(err.contains(ro.to_str().unwrap()), "{err}");
    assert_eq!(std::fs::read_dir(&ro).unwrap().count(), 0);
}

/// Two collectors at once: both finish with valid records and verified interceptions (each
/// worker counts only its own process's events).
#[test]
fn two_collectors_at_once_both_produce_valid_records() {
    let _m = measuring();
    let only = "native,seccomp.bitmap.1,sud.block";
    let spawn = || {
        Command::new(bin())
            .args(["run", "--json", "--budget", "3", "--only", only])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (spawn(), spawn());
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let r: syscost_record::RunRecord = serde_json::from_slice(&out.stdout).unwrap();
        assert!(validate(&r).is_empty(), "{:?}", validate(&r));
        for x in &r.results {
            assert_eq!(x.status, Status::Measured, "{}: {:?}", x.id, x.reason);
        }
        let v = result(&r, "sud.block").verification.clone().unwrap();
        assert_eq!(v.expected, v.observed);
    }
}
