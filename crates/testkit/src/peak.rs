//! Runs a command with a deadline and measures its peak RSS — its own, not the test binary's.
//!
//! Linux carries a process's memory high-water mark over `exec`: a child spawned by a test
//! binary (which holds other tests' fixtures, tens of megabytes) starts with the binary's mark
//! and reports it as its own peak. So the command is started by a fresh copy of the test binary
//! (the spawner), which is small when it spawns, and which reports the command's `wait4` usage
//! back through a file.
//!
//! The spawner is a test of the binary that uses this module, run alone by the fresh copy; a
//! test binary declares it, with the `run_measured` that goes through it, by expanding
//! [`peak_spawner!`](crate::peak_spawner) in a module of its own:
//!
//! ```ignore
//! mod peak {
//!     syscost_testkit::peak_spawner!();
//! }
//! // … crate::peak::run_measured(program, args, scratch, timeout)
//! ```
//!
//! Run as an ordinary test, the spawner checks the measurement itself instead.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::sys;

/// Declares, in the module it is expanded in, the test `peak_spawner` (this binary's spawner,
/// or the measurement's own test) and `run_measured(program, args, scratch, timeout)`, which
/// runs a command through it (see [`run_measured`](crate::peak::run_measured)).
#[macro_export]
macro_rules! peak_spawner {
    () => {
        /// The spawner when this test binary runs as one; otherwise a test of the measurement.
        #[test]
        fn peak_spawner() {
            $crate::peak::spawner(concat!(module_path!(), "::peak_spawner"));
        }

        /// Runs a command through this binary's spawner: see `syscost_testkit::peak`.
        pub fn run_measured(
            program: &::std::path::Path,
            args: &[&::std::ffi::OsStr],
            scratch: &::std::path::Path,
            timeout: ::std::time::Duration,
        ) -> $crate::peak::Ran {
            $crate::peak::run_measured(
                concat!(module_path!(), "::peak_spawner"),
                program,
                args,
                scratch,
                timeout,
            )
        }
    };
}

/// Set, to the scratch directory, in the copy of the test binary that spawns the command.
const SPAWNER: &str = "SYSCOST_TEST_PEAK_SPAWNER";

/// What the command did.
pub struct Ran {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Peak resident set size of the command, KB.
    pub max_rss_kb: i64,
}

/// The spawner test's name as the test harness takes it: its path without the crate's name.
fn test_name(spawner: &str) -> &str {
    spawner.split_once("::").map_or(spawner, |(_, rest)| rest)
}

/// Runs `program args` with stdin closed and its output in files under `scratch` (no pipe can
/// fill up), through the spawner test at `spawner` (its full path, crate first); panics if it
/// runs longer than `timeout` (killed: a hang) or dies of a signal (a crash).
pub fn run_measured(
    spawner: &str,
    program: &Path,
    args: &[&OsStr],
    scratch: &Path,
    timeout: Duration,
) -> Ran {
    let mut spec = program.as_os_str().as_bytes().to_vec();
    for a in args {
        spec.push(0);
        spec.extend_from_slice(a.as_bytes());
    }
    std::fs::write(scratch.join("peak.spec"), &spec).unwrap();
    std::fs::write(
        scratch.join("peak.timeout"),
        timeout.as_millis().to_string(),
    )
    .unwrap();
    let _ = std::fs::remove_file(scratch.join("peak.result"));
    let o = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            test_name(spawner),
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(SPAWNER, scratch)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let result = std::fs::read_to_string(scratch.join("peak.result")).unwrap_or_else(|_| {
        panic!(
            "the spawner wrote no result: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        )
    });
    let f: Vec<&str> = result.split_whitespace().collect();
    let what = || format!("{} {args:?}", program.display());
    match f.as_slice() {
        ["hung", ..] => panic!("{} hung (killed after {timeout:?})", what()),
        ["signal", sig, ..] => panic!("{} was killed by signal {sig}: a crash", what()),
        ["exit", code, rss] => Ran {
            code: Some(code.parse().unwrap()),
            stdout: read_lossy(&scratch.join("peak.stdout")),
            stderr: read_lossy(&scratch.join("peak.stderr")),
            max_rss_kb: rss.parse().unwrap(),
        },
        _ => panic!("spawner result {result:?}"),
    }
}

fn read_lossy(p: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned()
}

/// The body of the spawner test at `spawner`: spawns and reports when [`SPAWNER`] is set;
/// otherwise checks the measurement: with 100 MB of this process resident, a small command
/// must still report a small peak.
pub fn spawner(spawner: &str) {
    let Some(scratch) = std::env::var_os(SPAWNER).map(PathBuf::from) else {
        let ballast = vec![1u8; 100 << 20];
        // Touched, so it is resident.
        assert_eq!(
            ballast
                .iter()
                .step_by(4096)
                .map(|&b| b as usize)
                .sum::<usize>(),
            25600
        );
        let tmp = tempfile::tempdir().unwrap();
        let r = run_measured(
            spawner,
            Path::new("/bin/sh"),
            &[OsStr::new("-c"), OsStr::new("echo ok")],
            tmp.path(),
            Duration::from_secs(60),
        );
        drop(ballast);
        assert_eq!((r.code, r.stdout.as_str()), (Some(0), "ok\n"));
        assert!(r.max_rss_kb < 50 * 1024, "sh reported {} KB", r.max_rss_kb);
        return;
    };
    spawn_and_report(&scratch);
}

// The child is reaped with wait4 (for its rusage), not `Child::wait`.
#[allow(clippy::zombie_processes)]
fn spawn_and_report(scratch: &Path) {
    let spec = std::fs::read(scratch.join("peak.spec")).unwrap();
    let mut parts = spec
        .split(|&b| b == 0)
        .map(|p| OsString::from_vec(p.to_vec()));
    let program = parts.next().unwrap();
    let timeout = Duration::from_millis(
        std::fs::read_to_string(scratch.join("peak.timeout"))
            .unwrap()
            .parse()
            .unwrap(),
    );
    let mut child = Command::new(program)
        .args(parts)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(scratch.join("peak.stdout")).unwrap())
        .stderr(std::fs::File::create(scratch.join("peak.stderr")).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let result = loop {
        if let Some(ended) = sys::try_wait4(child.id()).expect("wait4") {
            break match (ended.status.code(), ended.status.signal()) {
                (Some(code), _) => format!("exit {code} {}", ended.max_rss_kb),
                (None, sig) => format!("signal {}", sig.unwrap_or(0)),
            };
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = sys::wait4(child.id());
            break "hung".to_string();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    std::fs::write(scratch.join("peak.result"), result).unwrap();
}
