//! `syscost import` fed the hostile logs of `tests/hostile/logs/` (repository root), plus what
//! cannot be committed: a 100 MB log, `/dev/zero`, a directory, a missing file. Each must give
//! valid records saved inside `--save DIR` or a clear error naming the file; nothing may panic,
//! hang, or read a huge input whole (peak RSS of the child measured with `wait4`).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;
use syscost_record::{validate, RunRecord};

const TIMEOUT: Duration = Duration::from_secs(120);

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hostile")
}

/// Runs `syscost import ARGS` with a deadline; output in files, peak RSS of exactly that
/// command (see `peak`).
fn import(args: &[&OsStr], scratch: &Path) -> Ran {
    let mut all: Vec<&OsStr> = vec![OsStr::new("import")];
    all.extend_from_slice(args);
    let r = crate::peak::run_measured(
        Path::new(env!("CARGO_BIN_EXE_syscost")),
        &all,
        scratch,
        TIMEOUT,
    );
    Ran {
        code: r.code.unwrap_or(-1),
        stdout: r.stdout,
        stderr: r.stderr,
        max_rss_kb: r.max_rss_kb,
    }
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
    max_rss_kb: i64,
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
            // Issue 42: what import writes, `syscost-site check` accepts — the same rules
            // (syscost_record::validate_file, as check applies them to the file), the form
            // syscost writes, at the path the record names.
            for rel in &saved {
                let bytes = std::fs::read(save.join(rel)).unwrap();
                let rec: RunRecord = serde_json::from_slice(&bytes).unwrap();
                let (problems, in_form) = syscost_record::validate_file(&rec, &bytes);
                if !problems.is_empty() || !in_form {
                    wrong.push(format!(
                        "{name}: check would refuse {}: {problems:?}, in form: {in_form}",
                        rel.display()
                    ));
                }
                assert_eq!(rel, &PathBuf::from(rec.canonical_path()));
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
    // The importer's own footprint, measured the same way on a log of a few KB: the peaks
    // below are taken over it, so that what they count is what was read, not the binary, its
    // runtime or the build profile.
    let small = corpus().join("logs/latin1.txt");
    let base = import(&[small.as_os_str()], tmp.path());
    assert_eq!(base.code, 0, "{}", base.stderr);
    let over = |r: &Ran| r.max_rss_kb - base.max_rss_kb;
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
    eprintln!(
        "peak RSS {} KB, {} KB importing a small log",
        r.max_rss_kb, base.max_rss_kb
    );
    // Refused by its size: not one megabyte of it was read.
    assert!(
        over(&r) < 1024,
        "peak RSS {} KB over the small log's",
        over(&r)
    );

    // A device with no size and no end is cut off at the limit: it holds the limit's worth at
    // most (twice that while a buffer grown by doubling moves), never more.
    let r = import(&[OsStr::new("/dev/zero")], tmp.path());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("/dev/zero is larger than"),
        "{}",
        r.stderr
    );
    eprintln!("peak RSS {} KB", r.max_rss_kb);
    let limit_kb = (syscost_import::MAX_LOG_BYTES / 1024) as i64;
    assert!(
        over(&r) < 2 * limit_kb,
        "peak RSS {} KB over the small log's, limit {limit_kb} KB",
        over(&r)
    );
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

/// The SUD run of the importer's fixture, once.
fn sud_run() -> String {
    let log = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../import/tests/fixtures/sud-two-runs.txt"),
    )
    .unwrap();
    let run = log.split("$ ./sud_benchmark").nth(1).unwrap();
    format!("$ ./sud_benchmark{run}")
}

#[test]
fn impossible_numbers_are_refused_with_line_and_reason() {
    // Issue 17: 1e999, negative, full-width and 2^64 values were dropped with only
    // "Incomplete log (truncated?)".
    let tmp = tempfile::tempdir().unwrap();
    let log = corpus().join("logs/seccomp-refused-numbers.txt");
    let r = import(&[log.as_os_str(), OsStr::new("--json")], tmp.path());
    assert_eq!(r.code, 0, "{}", r.stderr);
    for (line, why) in [
        (16, "1e999 ns is not a whole number"),
        (18, "-318 ns is negative"),
        (20, "ns is written in digits other than 0-9"),
        (22, "18446744073709551616 ns is larger than any count"),
    ] {
        let w = r
            .stderr
            .lines()
            .find(|l| l.contains(&format!(" line {line}: ")))
            .unwrap_or_else(|| panic!("no warning about line {line}:\n{}", r.stderr));
        assert!(
            w.starts_with("syscost import: warning: ") && w.contains(why),
            "{w}"
        );
        assert!(w.contains("not recorded; the rest of its run is"), "{w}");
    }
    let records: Vec<RunRecord> = serde_json::from_str(&r.stdout).unwrap();
    let rec = &records[0];
    assert!(rec.result("native").is_none() && rec.result("seccomp.bitmap.1").is_none());
    assert!(rec
        .notes
        .iter()
        .any(|n| n.starts_with("Not recorded: line 16")));
    assert!(validate(rec).is_empty(), "{:?}", validate(rec));
    // A loop claiming 10^12 syscalls in 7 s cannot have taken 302 ns each.
    let log = corpus().join("logs/seccomp-contradicting-timing.txt");
    let r = import(&[log.as_os_str()], tmp.path());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("302 ns per call contradicts its own timing: 1000000000000 calls"),
        "{}",
        r.stderr
    );
}

#[test]
fn runs_and_lines_per_log_are_limited_and_memory_stays_bounded() {
    // Seconds of CPU on 32 MiB logs: not beside a measurement.
    let _m = crate::common::alone();
    // Issue 17: a 31 MiB log of one SUD run repeated gave 139,510 records and 1.1 GB of RSS.
    let tmp = tempfile::tempdir().unwrap();
    let run = sud_run();
    let repeated = tmp.path().join("repeated.txt");
    let n = (31 << 20) / run.len();
    std::fs::write(&repeated, run.repeat(n)).unwrap();
    let r = import(&[repeated.as_os_str(), OsStr::new("--json")], tmp.path());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("lines, more than 250000"), "{}", r.stderr);
    assert!(r.stdout.is_empty());
    eprintln!("repeated 31 MiB: peak RSS {} KB", r.max_rss_kb);
    assert!(r.max_rss_kb < 100 * 1024, "peak RSS {} KB", r.max_rss_kb);

    // One run more than a log may give.
    let many = tmp.path().join("many.txt");
    std::fs::write(&many, run.repeat(syscost_import::MAX_RUNS + 1)).unwrap();
    let r = import(&[many.as_os_str()], tmp.path());
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("holds more than 1000 sud_benchmark runs"),
        "{}",
        r.stderr
    );

    // The worst a log under every limit can do: nearly 32 MiB in nearly as many lines as
    // allowed, with 999 runs, quoted-printable (every line decoded: text of its own beside the
    // log). Imported, streamed, within 100 MB.
    let worst = tmp.path().join("worst.txt");
    let body = run.repeat(999);
    let fill = syscost_import::MAX_LOG_LINES - body.lines().count() - 10;
    let filler = format!(
        "{}\n",
        "x".repeat(((32 << 20) - body.len() - 100) / fill - 1)
    );
    std::fs::write(&worst, format!("a=3Db\n{body}{}", filler.repeat(fill))).unwrap();
    let r = import(&[worst.as_os_str(), OsStr::new("--json")], tmp.path());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let records: Vec<RunRecord> = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(records.len(), 999);
    eprintln!("worst case under the limits: peak RSS {} KB", r.max_rss_kb);
    assert!(r.max_rss_kb < 100 * 1024, "peak RSS {} KB", r.max_rss_kb);
}

#[test]
fn an_unwritable_stdout_is_an_error_not_a_panic() {
    // Issue 17: `syscost import LOG > /dev/full` (and `list`) panicked with exit 101.
    let log = corpus().join("logs/latin1.txt");
    for args in [
        vec![OsStr::new("import"), log.as_os_str()],
        vec![
            OsStr::new("list"),
            OsStr::new("--only"),
            OsStr::new("native"),
        ],
        // Issue 42: exited 0 silently.
        vec![OsStr::new("--help")],
        vec![OsStr::new("--version")],
        vec![OsStr::new("run"), OsStr::new("--help")],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_syscost"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(full)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("cannot write to standard output"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        // A reader that went away: quiet, as a program ended by SIGPIPE.
        let o = Command::new(env!("CARGO_BIN_EXE_syscost"))
            .args(&args)
            .stdin(Stdio::null())
            .stdout(closed_pipe())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(141), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&o.stderr), "", "{args:?}");
    }
    // Written, they are what they were; a usage error is still clap's, on stderr, exit 2.
    let o = Command::new(env!("CARGO_BIN_EXE_syscost"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let version = format!("syscost {}\n", env!("CARGO_PKG_VERSION"));
    assert_eq!(String::from_utf8_lossy(&o.stdout), version);
    let o = Command::new(env!("CARGO_BIN_EXE_syscost"))
        .args(["run", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unexpected argument '--bogus'"));
}

/// A pipe whose reading end is already closed: every write to the other end fails (EPIPE).
pub fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

#[test]
fn a_log_captured_from_a_terminal_gives_every_figure() {
    // Issue 42: colour codes around each line gave 0 scenarios and 7 estimates, exit 0, with
    // a note claiming the scenario lines were missing.
    let tmp = tempfile::tempdir().unwrap();
    let plain = corpus().join("logs/latin1.txt");
    let coloured = corpus().join("logs/ansi-colours.txt");
    let r = import(&[coloured.as_os_str(), OsStr::new("--json")], tmp.path());
    assert_eq!(r.code, 0, "{}", r.stderr);
    let records: Vec<RunRecord> = serde_json::from_str(&r.stdout).unwrap();
    let rec = &records[0];
    assert_eq!(rec.results.len(), 5, "{:?}", rec.results);
    assert_eq!(rec.estimates.len(), 7);
    assert_eq!(rec.expectations.len(), 7);
    assert!(
        rec.notes.iter().all(|n| !n.contains("missing")),
        "{:?}",
        rec.notes
    );
    // The same figures as the log without colours.
    let r = import(&[plain.as_os_str(), OsStr::new("--json")], tmp.path());
    let plain: Vec<RunRecord> = serde_json::from_str(&r.stdout).unwrap();
    let medians =
        |r: &RunRecord| -> Vec<Option<f64>> { r.results.iter().map(|x| x.median_ns).collect() };
    assert_eq!(medians(rec), medians(&plain[0]));
}

#[test]
fn figures_that_contradict_each_other_refuse_the_log_naming_the_lines() {
    // Issue 42: estimates, overheads and rates that contradict the lines they are computed
    // from were kept without a warning. The log is refused, naming every line concerned.
    let tmp = tempfile::tempdir().unwrap();
    for (log, lines) in [
        (
            "seccomp-estimate-contradicts-scenarios.txt",
            &[70, 63, 66][..],
        ),
        ("seccomp-total-contradicts-overhead.txt", &[25, 16, 18]),
        ("seccomp-compare-contradicts-scenarios.txt", &[33, 16, 18]),
        ("sud-overhead-contradicts-averages.txt", &[8, 4, 7]),
        ("sud-percent-contradicts-averages.txt", &[8, 4, 7]),
        ("perf-rate-contradicts-usecs.txt", &[6, 5]),
        ("bpf-scaling-contradicts-total.txt", &[2]),
    ] {
        let save = tmp.path().join(log);
        let path = corpus().join("logs").join(log);
        let r = import(
            &[path.as_os_str(), OsStr::new("--save"), save.as_os_str()],
            tmp.path(),
        );
        assert_eq!(r.code, 1, "{log}: {}", r.stderr);
        let first = r.stderr.lines().next().unwrap_or("");
        for l in lines {
            assert!(
                first.contains(&format!("line {l} (")),
                "{log}: line {l}: {first}"
            );
        }
        assert!(first.contains("none of it is imported"), "{log}: {first}");
        assert!(!save.exists(), "{log}: something was saved");
    }
    // The published logs and the importer's fixtures all agree with themselves.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../import/tests/fixtures");
    let mut logs: Vec<PathBuf> = Vec::new();
    for dir in [fixtures.clone(), fixtures.join("published")] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() && p.file_name().is_some_and(|n| n != "garbage.txt") {
                logs.push(p);
            }
        }
    }
    assert!(logs.len() > 20, "{logs:?}");
    for log in logs {
        let r = import(&[log.as_os_str()], tmp.path());
        assert_eq!(r.code, 0, "{}: {}", log.display(), r.stderr);
    }
}
