//! `syscost import` fed the hostile logs of `tests/hostile/logs/` (repository root), plus what
//! cannot be committed: a 100 MB log, `/dev/zero`, a directory, a missing file. Each must give
//! valid records saved inside `--save DIR` or a clear error naming the file; nothing may panic,
//! hang, or read a huge input whole (peak RSS of the child measured with `wait4`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use syscost_record::{validate, RunRecord};

/// Far below the 100 MB input: a process that read it whole could not stay under this.
const RSS_LIMIT_KB: i64 = 80 * 1024;
const TIMEOUT: Duration = Duration::from_secs(120);

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/hostile")
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    max_rss_kb: i64,
}

/// Runs `syscost import ARGS` with a deadline; output goes to files so no pipe can fill up.
// The child is reaped with wait4 (for its rusage), not `Child::wait`.
#[allow(clippy::zombie_processes)]
fn import(args: &[&OsStr], scratch: &Path) -> Ran {
    let out_path = scratch.join("stdout");
    let err_path = scratch.join("stderr");
    let child = Command::new(env!("CARGO_BIN_EXE_syscost"))
        .arg("import")
        .args(args)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let start = Instant::now();
    let mut status = 0;
    // SAFETY: waiting on our own child; rusage is a valid out-pointer.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut ru) };
        assert!(r >= 0, "wait4 failed");
        if r == pid {
            break;
        }
        if start.elapsed() > TIMEOUT {
            unsafe { libc::kill(pid, libc::SIGKILL) };
            unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
            panic!("syscost import {args:?} hung (killed after {TIMEOUT:?})");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        libc::WIFEXITED(status),
        "syscost import {args:?} was killed by signal {}: a crash",
        libc::WTERMSIG(status)
    );
    Ran {
        code: libc::WEXITSTATUS(status),
        stdout: String::from_utf8_lossy(&std::fs::read(&out_path).unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&std::fs::read(&err_path).unwrap()).into_owned(),
        max_rss_kb: ru.ru_maxrss,
    }
}

/// Every file under `dir`, with its path relative to `dir`.
fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let ft = e.file_type().unwrap();
            assert!(!ft.is_symlink(), "{}", e.path().display());
            if ft.is_dir() {
                stack.push(e.path());
            } else {
                out.push(e.path().strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

fn no_forged_lines(what: &str, out: &str) {
    for l in out.lines() {
        assert!(!l.contains('\u{1b}'), "{what}: terminal escape in {l:?}");
        assert!(!l.contains('\u{7}'), "{what}: bell in {l:?}");
    }
}

#[test]
fn every_hostile_log_gives_valid_records_or_a_clear_error() {
    let text = std::fs::read_to_string(corpus().join("logs.tsv")).unwrap();
    let cases: Vec<(String, bool, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 3, "logs.tsv: {l:?}");
            (f[0].to_string(), f[1] == "ok", f[2].to_string())
        })
        .collect();
    let mut listed: Vec<&str> = cases.iter().map(|c| c.0.as_str()).collect();
    listed.sort();
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus().join("logs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    assert_eq!(
        listed, on_disk,
        "every log is listed in logs.tsv, and only those"
    );

    let mut wrong = Vec::new();
    for (name, ok, needle) in &cases {
        let tmp = tempfile::tempdir().unwrap();
        let save = tmp.path().join("saved");
        let log = corpus().join("logs").join(name);
        let r = import(
            &[
                log.as_os_str(),
                OsStr::new("--json"),
                OsStr::new("--save"),
                save.as_os_str(),
                OsStr::new("--source"),
                OsStr::new("javascript:alert(1)"),
            ],
            tmp.path(),
        );
        no_forged_lines(name, &r.stderr);
        if *ok {
            if r.code != 0 {
                wrong.push(format!("{name}: exit {} ({})", r.code, r.stderr.trim()));
                continue;
            }
            let records: Vec<RunRecord> = serde_json::from_str(&r.stdout).unwrap();
            assert!(!records.is_empty(), "{name}");
            for rec in &records {
                assert!(validate(rec).is_empty(), "{name}: {:?}", validate(rec));
                assert_eq!(rec.source.url.as_deref(), Some("javascript:alert(1)"));
            }
            if !needle.is_empty()
                && !records
                    .iter()
                    .any(|x| x.notes.iter().any(|n| n.contains(needle)))
            {
                wrong.push(format!("{name}: no note contains {needle:?}"));
            }
            // Saved where the records say, every path inside --save and sanitised.
            let saved = files(&save);
            assert_eq!(saved.len(), records.len(), "{name}: {saved:?}");
            for rec in &records {
                let p = PathBuf::from(rec.canonical_path());
                assert!(saved.contains(&p), "{name}: {p:?} not in {saved:?}");
                assert!(p
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_))));
            }
        } else {
            if r.code != 1 {
                wrong.push(format!("{name}: exit {}, want 1", r.code));
            }
            let line = r.stderr.lines().next().unwrap_or("");
            if !(line.contains(name.as_str()) && line.contains(needle.as_str())) {
                wrong.push(format!(
                    "{name}: want {needle:?} naming the file, got {line:?}"
                ));
            }
            assert!(!save.exists(), "{name}: a failed import saved something");
        }
    }
    // Nothing escaped the temporary directories: the traversal log's release stays a name.
    assert!(!Path::new("/tmp/escaped").exists());
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn one_bad_file_among_good_ones_saves_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let save = tmp.path().join("saved");
    let good = corpus().join("logs/latin1.txt");
    let bad = corpus().join("logs/binary.txt");
    let r = import(
        &[
            good.as_os_str(),
            bad.as_os_str(),
            OsStr::new("--save"),
            save.as_os_str(),
        ],
        tmp.path(),
    );
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("binary.txt") && r.stderr.contains("nothing was imported"));
    assert!(!save.exists());
}

#[test]
fn huge_inputs_are_refused_without_being_read_whole() {
    let tmp = tempfile::tempdir().unwrap();
    // 100 MB of a real log repeated: parseable, so only its size can refuse it.
    let huge = tmp.path().join("huge.txt");
    {
        use std::io::Write;
        let log = std::fs::read(corpus().join("logs/latin1.txt")).unwrap();
        let mut f = std::io::BufWriter::new(std::fs::File::create(&huge).unwrap());
        let mut n = 0;
        while n < 100 << 20 {
            f.write_all(&log).unwrap();
            n += log.len();
        }
    }
    let r = import(&[huge.as_os_str()], tmp.path());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("huge.txt is larger than"), "{}", r.stderr);
    eprintln!("peak RSS {} KB", r.max_rss_kb);
    assert!(r.max_rss_kb < RSS_LIMIT_KB, "peak RSS {} KB", r.max_rss_kb);

    // A device with no size and no end is cut off at the limit.
    let r = import(&[OsStr::new("/dev/zero")], tmp.path());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("/dev/zero is larger than"),
        "{}",
        r.stderr
    );
    eprintln!("peak RSS {} KB", r.max_rss_kb);
    assert!(r.max_rss_kb < RSS_LIMIT_KB, "peak RSS {} KB", r.max_rss_kb);
}

#[test]
fn directories_and_missing_files_are_named() {
    let tmp = tempfile::tempdir().unwrap();
    let r = import(&[tmp.path().as_os_str()], tmp.path());
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("is a directory"), "{}", r.stderr);
    let missing = tmp.path().join("no-such-log.txt");
    let r = import(&[missing.as_os_str()], tmp.path());
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("cannot read") && r.stderr.contains("no-such-log.txt"));
}

#[test]
fn a_long_noisy_log_is_read_in_bounded_time() {
    // Many megabytes of console noise around one run: parsing must stay linear (the deadline
    // in `import` catches a quadratic scan).
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("noisy.txt");
    let log = String::from_utf8_lossy(&std::fs::read(corpus().join("logs/latin1.txt")).unwrap())
        .into_owned();
    let mut text = String::new();
    for i in 0..60_000 {
        text.push_str(&format!(
            "[{i:>8}.123456][   C3] > > noise: Avg syscall time {i}\n"
        ));
    }
    text.push_str(&String::from_utf8_lossy(
        &std::fs::read(corpus().join("logs/interleaved-console.txt")).unwrap(),
    ));
    text.push_str(&log);
    std::fs::write(&path, text).unwrap();
    let r = import(&[path.as_os_str(), OsStr::new("--json")], tmp.path());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let records: Vec<RunRecord> = serde_json::from_str(&r.stdout).unwrap();
    assert!(records.iter().any(|x| x.result("native").is_some()));
}
