//! `site-bench synth`: same seed, same files; never into a directory named `data`. The floors,
//! `site-bench ratio`, and `site-bench pool` of what it printed.

use std::process::Command;

fn site_bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_site-bench"))
        .args(args)
        .output()
        .expect("run site-bench")
}

#[test]
fn synth_writes_records_and_refuses_data() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("records");
    let o = site_bench(&[
        "synth",
        "--runs",
        "5",
        "--seed",
        "3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("wrote 5 synthetic records"));
    assert!(out.join("runs").is_dir());

    let data = tmp.path().join("data");
    let o = site_bench(&["synth", "--runs", "1", "--out", data.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("refusing to write synthetic records"));
    assert!(!data.exists());
}

#[test]
fn both_floors_parse_every_record_and_count_the_unreadable() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("records");
    let o = site_bench(&["synth", "--runs", "7", "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // One record that cannot be parsed.
    let bad = out.join("runs/x86_64/6.1/0000000000000000.json");
    std::fs::create_dir_all(bad.parent().unwrap()).unwrap();
    std::fs::write(&bad, "{").unwrap();
    for (floor, says) in [
        ("parse", "parsed 7 records ("),
        ("parse-all", "parsed 7 records on "),
    ] {
        let o = site_bench(&["--child", floor, "--data", out.to_str().unwrap()]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.starts_with(says), "{floor}: {text}");
        assert!(text.contains("(1 unreadable)"), "{floor}: {text}");
    }
}

/// `site-bench ratio`: a row per round, the floors and the build first in turn, and each
/// ratio's median with its interval and a verdict against the goal; too few rounds for an
/// interval say so and decide nothing.
#[test]
fn ratio_measures_rounds_and_states_an_interval() {
    let tmp = tempfile::tempdir().unwrap();
    let recs = tmp.path().join("records");
    let o = site_bench(&["synth", "--runs", "5", "--out", recs.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let work = tmp.path().join("work");
    let run = |rounds: &str, goal: &str| {
        let o = site_bench(&[
            "ratio",
            "--data",
            recs.to_str().unwrap(),
            "--rounds",
            rounds,
            "--goal",
            goal,
            "--work",
            work.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let text = run("6", "1000000");
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| round"))
        .collect();
    assert_eq!(rows.len(), 6, "{text}");
    for (i, row) in rows.iter().enumerate() {
        let first = if i % 2 == 0 { "floors" } else { "build" };
        assert!(
            row.starts_with(&format!("| {} | {first} |", i + 1)),
            "{row}"
        );
    }
    // Six rounds: the interval is the smallest and the largest ratio (coverage 1 − 2/64).
    let cpu = text
        .lines()
        .find(|l| l.starts_with("build CPU ÷ 1-thread floor CPU: median "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(cpu.contains("96.9 % interval ["), "{cpu}");
    assert!(cpu.ends_with("over 6 rounds; ≤ 1000000×: met"), "{cpu}");
    assert!(
        text.contains("  by order: floors first median ")
            && text.contains("× (3 rounds), build first median "),
        "{text}"
    );
    // The site and its summary cache are removed; the scratch directory given is kept.
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
    // Pooled, one set says what it said of itself (its interval's ends, as printed), and two
    // copies of it are twice the rounds, each order twice as many.
    let saved = tmp.path().join("set.txt");
    std::fs::write(&saved, &text).unwrap();
    let pool = |files: &[&std::path::Path]| {
        let mut args = vec!["pool", "--goal", "1000000"];
        args.extend(files.iter().map(|f| f.to_str().unwrap()));
        let o = site_bench(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    let bracket = |line: &str| line[line.find(" % interval [").unwrap()..].to_string();
    let one = pool(&[&saved]);
    assert!(one.starts_with("6 rounds from 1 set\n"), "{one}");
    let pooled = one
        .lines()
        .find(|l| l.starts_with("build CPU ÷ 1-thread floor CPU: median "))
        .unwrap_or_else(|| panic!("{one}"));
    assert_eq!(bracket(pooled), bracket(cpu), "{one}");
    let two = pool(&[&saved, &saved]);
    assert!(two.starts_with("12 rounds from 2 sets\n"), "{two}");
    assert!(two.contains("over 12 rounds; ≤ 1000000×: met"), "{two}");
    assert!(two.contains("× (6 rounds), build first median "), "{two}");
    // A build (templates, pages, validation) costs more than reading the records alone.
    let text = run("6", "1");
    assert!(text.contains("over 6 rounds; ≤ 1×: missed"), "{text}");
    let text = run("2", "0.5");
    assert!(
        text.contains("2 rounds are too few for a 95 % interval (6 at least); ≤ 0.5×: undecided"),
        "{text}"
    );
    for goal in ["NaN", "0", "-1", "inf", "three"] {
        let arg = format!("--goal={goal}");
        let o = site_bench(&["ratio", "--data", recs.to_str().unwrap(), &arg]);
        assert_eq!(o.status.code(), Some(2), "--goal {goal}");
        assert!(
            String::from_utf8_lossy(&o.stderr).contains("is not a ratio above 0"),
            "--goal {goal}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let o = site_bench(&["ratio", "--data", tmp.path().join("none").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a directory of records"));
}

/// `site-bench ratio`'s scratch: a directory of its own (in `TMPDIR`) is removed whole at the
/// end; a round whose build fails ends the command with the round and the child named, and
/// its scratch removed.
#[test]
fn ratio_cleans_its_own_scratch_and_names_a_failed_round() {
    let tmp = tempfile::tempdir().unwrap();
    let recs = tmp.path().join("records");
    let o = site_bench(&["synth", "--runs", "3", "--out", recs.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let temp = tmp.path().join("temp");
    std::fs::create_dir(&temp).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_site-bench"))
        .args(["ratio", "--data", recs.to_str().unwrap(), "--rounds", "2"])
        .env("TMPDIR", &temp)
        .output()
        .expect("run site-bench");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("| 1 | floors |") && out.contains("| 2 | build |"),
        "{out}"
    );
    assert_eq!(std::fs::read_dir(&temp).unwrap().count(), 0);

    // A work directory so deep that the scratch directory can be made in it but not the
    // site's pages (a path is at most 4,096 bytes): the first round's build fails.
    let mut work = tmp.path().to_path_buf();
    while work.as_os_str().len() < 4040 {
        let room = 4040 - work.as_os_str().len();
        work.push("w".repeat(room.clamp(1, 200)));
    }
    std::fs::create_dir_all(&work).unwrap();
    let o = site_bench(&[
        "ratio",
        "--data",
        recs.to_str().unwrap(),
        "--work",
        work.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("site-bench ratio: round 1: the measured child") && err.contains("failed"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&work).unwrap().count(), 0);
}

/// No measurement at all is refused before anything is generated (the one more run is built
/// into the last repetition's site).
#[test]
fn bench_refuses_zero_repetitions() {
    let o = site_bench(&["--sizes", "10", "--repeat", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--repeat"));
    assert!(o.stdout.is_empty());
}

/// `site-bench pool` refuses what it cannot pool, naming the file and why: an unreadable file,
/// text that is not `ratio`'s, a damaged round (with its line), and sets whose wall floors ran
/// on different thread counts. (Any number of rounds pools: the median's interval is walked in
/// log space.)
#[test]
fn pool_names_the_file_it_cannot_pool() {
    let tmp = tempfile::tempdir().unwrap();
    let set = |threads: u32, ratio: &str| {
        format!(
            "| round | first | floor, 1 thread: CPU | floor, {threads} threads: wall | build: CPU (wall) | ÷ floor: CPU | ÷ {threads}-thread floor: wall |\n\
             |---:|---|---:|---:|---:|---:|---:|\n\
             | 1 | floors | 1.00 s | 0.50 s | 2.00 s (1.00 s) | {ratio} | 2.000× |\n"
        )
    };
    let write = |name: &str, text: &str| {
        let p = tmp.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let (two, four) = (
        write("two.txt", &set(2, "2.000×")),
        write("four.txt", &set(4, "2.000×")),
    );
    let fail = |args: &[&str], says: &str| {
        let o = site_bench(args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
    };
    let ok = site_bench(&["pool", &two, &two]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    fail(
        &["pool", &two, &four],
        "four.txt: its wall floor ran on 4 threads, ",
    );
    let missing = tmp.path().join("missing.txt");
    fail(&["pool", &two, missing.to_str().unwrap()], "missing.txt: ");
    let notes = write("notes.txt", "a set was planned\n");
    fail(&["pool", &notes], "notes.txt: no table of rounds");
    let damaged = write("damaged.txt", &set(2, "2.0"));
    fail(
        &["pool", &damaged],
        "damaged.txt: line 3: \"2.0\" is not a ratio",
    );
}

/// The saved sets (`crates/bench/sets/`) still read, and pool to the verdict docs/benchmarks.md
/// states for the disk: what `ratio` printed then stays poolable whatever it prints now.
#[test]
fn the_saved_ext4_sets_pool_to_the_documented_verdict() {
    let sets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("sets");
    let o = site_bench(&[
        "pool",
        sets.join("2026-12-05-ext4-30.txt").to_str().unwrap(),
        sets.join("2026-12-06-ext4-30.txt").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.starts_with("60 rounds from 2 sets\n"), "{text}");
    for line in [
        "build CPU ÷ 1-thread floor CPU: median 2.822×, 97.3 % interval [2.773×, 2.886×] over 60 rounds; ≤ 3×: met",
        "build wall ÷ 2-thread floor wall: median 2.885×, 97.3 % interval [2.786×, 2.941×] over 60 rounds; ≤ 3×: met",
    ] {
        assert!(text.lines().any(|l| l == line), "{line}\nnot in\n{text}");
    }
}
