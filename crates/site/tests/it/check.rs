//! `syscost-site check`: each kind of bad submission is caught, named and explained.

use crate::common::*;
use std::path::Path;

/// A data directory with one good record plus whatever `add` puts in; returns (exit, stderr).
fn check_with(add: impl FnOnce(&Path)) -> (Option<i32>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    save(&data, &base_record(1));
    std::fs::write(data.join("README.md"), "records").unwrap();
    add(&data);
    let o = run(&["check", data.to_str().unwrap()]);
    (o.status.code(), stderr(&o) + &stdout(&o))
}

fn expect_problem(add: impl FnOnce(&Path), file: &str, needle: &str) {
    let (code, out) = check_with(add);
    assert_eq!(code, Some(1), "{out}");
    let line = out
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no message containing {needle:?} in:\n{out}"));
    assert!(line.contains(file), "message does not name {file}: {line}");
}

#[test]
fn a_good_directory_passes() {
    let (code, out) = check_with(|_| {});
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("1 record(s), no problems found"), "{out}");
}

#[test]
fn malformed_json_names_line_and_column() {
    expect_problem(
        |d| std::fs::write(d.join("runs/x.json"), b"{\n  \"schema\": 1,\n  oops\n}").unwrap(),
        "runs/x.json",
        "not valid JSON",
    );
    let (_, out) = check_with(|d| {
        std::fs::write(d.join("runs/x.json"), b"{\n  \"schema\": 1,\n  oops\n}").unwrap()
    });
    assert!(out.contains("line 3"), "{out}");
}

#[test]
fn empty_files_and_boms_are_explained() {
    expect_problem(
        |d| std::fs::write(d.join("runs/e.json"), b"").unwrap(),
        "runs/e.json",
        "empty",
    );
    expect_problem(
        |d| {
            let mut b = vec![0xEF, 0xBB, 0xBF];
            b.extend(syscost_synth::to_file_bytes(&base_record(2)));
            std::fs::write(d.join("runs/bom.json"), b).unwrap();
        },
        "runs/bom.json",
        "byte-order mark",
    );
}

#[test]
fn unknown_schema_versions_are_refused() {
    expect_problem(
        |d| {
            let mut v = serde_json::to_value(base_record(3)).unwrap();
            v["schema"] = (syscost_record::SCHEMA_VERSION + 1).into();
            std::fs::write(d.join("runs/v2.json"), v.to_string()).unwrap();
        },
        "runs/v2.json",
        &format!(
            "schema version {} is not supported",
            syscost_record::SCHEMA_VERSION + 1
        ),
    );
}

#[test]
fn missing_fields_and_wrong_types_are_named() {
    expect_problem(
        |d| {
            let mut v = serde_json::to_value(base_record(4)).unwrap();
            v.as_object_mut().unwrap().remove("settings");
            std::fs::write(d.join("runs/m.json"), v.to_string()).unwrap();
        },
        "runs/m.json",
        "missing field `settings`",
    );
    expect_problem(
        |d| {
            let mut v = serde_json::to_value(base_record(5)).unwrap();
            v["summary"]["rounds"] = "many".into();
            std::fs::write(d.join("runs/t.json"), v.to_string()).unwrap();
        },
        "runs/t.json",
        "does not match the run-record format",
    );
}

#[test]
fn implausible_numbers_are_refused() {
    let bad = edited(base_record(6), |r| {
        let x = r.results.iter_mut().find(|x| x.id == "native").unwrap();
        x.median_ns = Some(1000.0);
    });
    let path = bad.canonical_path();
    expect_problem(move |d| drop(save(d, &bad)), &path, "lies outside its CI");
    let neg = edited(base_record(7), |r| r.results[1].ci_low_ns = Some(-5.0));
    let path = neg.canonical_path();
    expect_problem(move |d| drop(save(d, &neg)), &path, "negative time");
}

#[test]
fn hand_edited_records_fail_the_content_hash() {
    let mut r = base_record(8);
    r.environment.comparability.cmdline = Some("edited".into());
    let path = r.canonical_path();
    expect_problem(
        move |d| drop(save(d, &r)),
        &path,
        "does not match the content hash",
    );
}

#[test]
fn records_must_live_at_their_canonical_path() {
    expect_problem(
        |d| save_at(&d.join("runs/x86_64/6.8/renamed.json"), &base_record(9)),
        "runs/x86_64/6.8/renamed.json",
        "must be saved as runs/",
    );
}

#[test]
fn duplicates_under_another_name_are_errors() {
    expect_problem(
        |d| save_at(&d.join("runs/copy.json"), &base_record(1)),
        "runs/copy.json",
        "duplicate",
    );
    // Same machine and kernel twice (different runs) is fine.
    let (code, out) = check_with(|d| {
        let again = edited(base_record(1), |r| {
            r.summary.duration_s = r.summary.duration_s.map(|d| d + 1.0)
        });
        save(d, &again);
    });
    assert_eq!(code, Some(0), "{out}");
}

#[test]
fn oversized_files_are_refused_without_reading_them() {
    expect_problem(
        |d| {
            let f = std::fs::File::create(d.join("runs/huge.json")).unwrap();
            f.set_len(100 * 1024 * 1024).unwrap(); // sparse: no disk used
        },
        "runs/huge.json",
        "at most 1 MiB",
    );
}

#[test]
fn deeply_nested_json_is_an_error_not_a_crash() {
    expect_problem(
        |d| {
            let s = format!("{{\"schema\":1,\"notes\":{}", "[".repeat(200_000));
            std::fs::write(d.join("runs/deep.json"), s).unwrap();
        },
        "runs/deep.json",
        "not valid JSON",
    );
}

#[test]
fn unexpected_files_are_reported() {
    expect_problem(
        |d| std::fs::write(d.join("notes.txt"), b"hi").unwrap(),
        "notes.txt",
        "unexpected file",
    );
    expect_problem(
        |d| std::fs::write(d.join("runs/record.yaml"), b"a: 1").unwrap(),
        "runs/record.yaml",
        "unexpected file",
    );
}

#[test]
fn synthetic_records_do_not_belong_in_data() {
    let mut path = String::new();
    expect_problem(
        |d| {
            let r = syscost_synth::generate(1, 5).next().unwrap();
            path = r.canonical_path();
            save(d, &r);
        },
        "runs/",
        "synthetic record",
    );
    assert!(!path.is_empty());
}

#[test]
fn emulated_records_are_refused_unless_allowed() {
    expect_problem(
        |d| {
            save(d, &emulated(base_record(6)));
        },
        "runs/",
        "is emulated",
    );
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    save(&data, &emulated(base_record(6)));
    let o = run(&["check", "--allow-emulated", data.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A lab record that claims TCG without saying so in its key breaks the record's rules.
    let sneaky = edited(emulated(base_record(7)), |r| {
        r.environment.comparability.virtualization.kind = "vm".into();
    });
    let (code, out) = check_with(|d| {
        save(d, &sneaky);
    });
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("virtualization.kind"), "{out}");
}

/// An instruction count is emulated by design and says so in its key: data/ takes it without
/// --allow-emulated. Built, two kernel versions of one instruction-count series make a trend
/// whose moves are judged in instructions (a material move: at least 10 instructions and 5 %
/// of the earlier count), and the home page leads to it.
#[test]
fn instruction_counts_belong_in_data_and_step_by_the_instruction() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let on = |seed: u64, release: &str, native: f64| {
        counted(edited(base_record(seed), |r| {
            r.environment.comparability.kernel_release = release.into();
            // Each kernel mitigates the emulated CPU its own way: the same series.
            r.environment
                .comparability
                .mitigations
                .insert(format!("made_up_{release}"), "Mitigation: its own".into());
            for x in r.results.iter_mut() {
                if x.id == "native" {
                    (x.median_ns, x.ci_low_ns, x.ci_high_ns) =
                        (Some(native), Some(native), Some(native));
                }
            }
        }))
    };
    // One machine (the generator's seed), two kernels.
    save(&data, &on(41, "5.10.0-32-amd64", 231.0));
    let newer = on(41, "6.1.0-50-amd64", 314.0);
    save(&data, &newer);
    let o = run(&["check", data.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stderr(&o), stdout(&o));
    let site = tmp.path().join("site");
    let o = run(&[
        "build",
        "--data",
        data.to_str().unwrap(),
        "--out",
        site.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let changes: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("changes.json")).unwrap()).unwrap();
    let native = changes
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "native")
        .unwrap_or_else(|| panic!("no step of native: {changes}"));
    assert_eq!(native["unit"], "instructions");
    assert_eq!(
        (native["from"].as_str(), native["to"].as_str()),
        (Some("5.10"), Some("6.1"))
    );
    assert_eq!(native["delta_ns"], 83.0);
    // 5 % of 231 instructions.
    assert_eq!(native["noise_floor_ns"], 0.05 * 231.0);
    let home = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(
        home.contains("Path length across kernel versions"),
        "{home}"
    );
    assert!(home.contains("2 kernel versions, 5.10 to 6.1"), "{home}");
    // The changes page names the move in instructions, as compare does (run pages read "ns").
    let page = std::fs::read_to_string(site.join("changes/index.html")).unwrap();
    let row = page
        .split("<tr>")
        .find(|l| l.contains("native") && l.contains("+83"))
        .unwrap_or_else(|| panic!("no move of native on the changes page: {page}"));
    assert!(row.contains("instructions"), "{row}");
    assert!(!row.contains(" ns"), "{row}");
    // Its series says what it counts (it read "ns per operation = one getpid call").
    let series: Vec<String> = html_pages(&site)
        .filter(|(rel, _)| rel.starts_with("series/") && rel.matches('/').count() == 1)
        .map(|(_, html)| html)
        .collect();
    assert!(!series.is_empty());
    assert!(series.iter().all(
        |h| h.contains("instructions per operation = ") && !h.contains("; ns per operation = ")
    ));
}

#[cfg(unix)]
#[test]
fn symlinks_are_refused_and_never_followed() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    save(outside.path(), &base_record(30));
    let target = outside.path().to_path_buf();
    expect_problem(
        move |d| symlink(&target, d.join("runs/elsewhere")).unwrap(),
        "runs/elsewhere",
        "symbolic link",
    );
    // A loop terminates and is reported.
    expect_problem(
        |d| symlink("..", d.join("runs/loop")).unwrap(),
        "runs/loop",
        "symbolic link",
    );
}

#[cfg(unix)]
#[test]
fn non_utf8_names_are_reported() {
    use std::os::unix::ffi::OsStrExt;
    expect_problem(
        |d| {
            let name = std::ffi::OsStr::from_bytes(b"bad-\xff-name.json");
            std::fs::write(d.join("runs").join(name), b"{}").unwrap();
        },
        "bad-",
        "not valid UTF-8",
    );
}

#[test]
fn missing_directory_is_a_usage_error() {
    let o = run(&["check", "/nonexistent/syscost-data"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("/nonexistent/syscost-data: does not exist"));
}

/// `text` with `from` replaced once (it must be there).
fn replaced(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} not in the record");
    text.replacen(from, to, 1)
}

#[test]
fn unknown_fields_are_refused_with_the_id_intact() {
    // Issue 17: an extra field passed with the id intact and was published verbatim.
    let r = base_record(40);
    let path = r.canonical_path();
    let text = syscost_record::to_file_json(&r);
    let forged = replaced(
        &text,
        "\"id\":",
        "\"zz\":\"<script>alert(1)</script>\",\"id\":",
    );
    expect_problem(
        move |d| {
            std::fs::create_dir_all(d.join(&path).parent().unwrap()).unwrap();
            std::fs::write(d.join(&path), forged).unwrap();
        },
        &r.canonical_path(),
        "unknown field `zz`",
    );
}

#[test]
fn duplicate_map_keys_are_refused_and_named() {
    // Issue 17: `"meltdown": "Vulnerable", "meltdown": "Not affected"` was read as the second.
    let r = edited(base_record(41), |r| {
        r.environment.comparability.mitigations.clear();
        r.environment
            .comparability
            .mitigations
            .insert("meltdown".into(), "Not affected".into());
    });
    let path = r.canonical_path();
    let text = syscost_record::to_file_json(&r);
    let forged = replaced(
        &text,
        "\"meltdown\":\"Not affected\"",
        "\"meltdown\":\"Vulnerable\",\"meltdown\":\"Not affected\"",
    );
    expect_problem(
        move |d| {
            std::fs::create_dir_all(d.join(&path).parent().unwrap()).unwrap();
            std::fs::write(d.join(&path), forged).unwrap();
        },
        &r.canonical_path(),
        "duplicate key \"meltdown\"",
    );
}

#[test]
fn records_must_be_in_the_form_syscost_writes() {
    // Same content and id, other bytes: pretty JSON. What is published is the canonical form,
    // so the file must be it.
    let r = base_record(42);
    let path = r.canonical_path();
    let pretty = serde_json::to_string_pretty(&r).unwrap() + "\n";
    expect_problem(
        move |d| {
            std::fs::create_dir_all(d.join(&path).parent().unwrap()).unwrap();
            std::fs::write(d.join(&path), pretty).unwrap();
        },
        &r.canonical_path(),
        "not in the form syscost writes",
    );
}

#[test]
fn of_two_copies_the_one_at_its_canonical_path_is_the_record() {
    // Issue 17: a copy under a name that sorts first (`runs/0.json`) displaced the genuine
    // file, which was then reported as the duplicate.
    let r = base_record(1); // the one check_with saves at its canonical path
    let (code, out) = check_with(|d| save_at(&d.join("runs/0.json"), &r));
    assert_eq!(code, Some(1), "{out}");
    let dup: Vec<&str> = out.lines().filter(|l| l.contains("duplicate")).collect();
    assert_eq!(dup.len(), 1, "{out}");
    let (file, msg) = dup[0].split_once(": ").unwrap();
    assert!(file.ends_with("/runs/0.json"), "{}", dup[0]);
    assert!(
        msg.contains(&format!("already at {}", r.canonical_path())),
        "{msg}"
    );
}

#[test]
fn bidirectional_overrides_in_names_are_printed_escaped() {
    // Issue 17: U+202E in a file name was printed raw (`x<RLO>nosj.txt` reads as `xtxt.json`).
    let (code, out) = check_with(|d| {
        std::fs::write(d.join("runs/x\u{202e}nosj.txt"), b"{}").unwrap();
        std::fs::write(d.join("runs/y\u{200b}.json"), b"{}").unwrap();
    });
    assert_eq!(code, Some(1), "{out}");
    assert!(
        !out.contains('\u{202e}') && !out.contains('\u{200b}'),
        "{out}"
    );
    assert!(out.contains("runs/x\\u{202e}nosj.txt"), "{out}");
    assert!(out.contains("runs/y\\u{200b}.json"), "{out}");
}

/// `r` with its seccomp entry estimate (a headline metric) multiplied by `f`.
fn entry_scaled(r: &syscost_record::RunRecord, f: f64) -> syscost_record::RunRecord {
    edited(r.clone(), |r| {
        let e = r
            .estimates
            .iter_mut()
            .find(|e| e.id == "entry")
            .expect("an entry estimate");
        e.median_ns *= f;
        e.ci_low_ns = e.ci_low_ns.map(|v| v * f);
        e.ci_high_ns = e.ci_high_ns.map(|v| v * f);
    })
}

/// Four ordinary runs of one series and one ten times slower; returns the outlier.
fn series_with_outlier(d: &Path) -> syscost_record::RunRecord {
    let base = base_record(60);
    for f in [1.0, 1.03, 0.98, 1.01] {
        save(d, &entry_scaled(&base, f));
    }
    let odd = entry_scaled(&base, 10.0);
    save(d, &odd);
    odd
}

#[test]
fn a_run_far_from_its_series_is_a_warning_with_the_numbers() {
    let mut odd = None;
    let (code, out) = check_with(|d| odd = Some(series_with_outlier(d)));
    let odd = odd.unwrap();
    // Plausibility is not validity: the check passes, and says so.
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("1 plausibility warning(s)"), "{out}");
    let warnings: Vec<&str> = out.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 1, "{out}");
    let w = warnings[0];
    assert!(w.contains(&odd.canonical_path()), "{w}");
    assert!(w.contains("seccomp entry cost (kernel formula)"), "{w}");
    assert!(w.contains("above the 4 other runs of its series"), "{w}");
    assert!(
        w.contains("robust z-scores") && w.contains("their median"),
        "{w}"
    );
}

#[test]
fn a_maintainer_accepting_a_run_silences_its_warning() {
    let (code, out) = check_with(|d| {
        let odd = series_with_outlier(d);
        std::fs::write(
            d.join("triage.tsv"),
            format!(
                "# maintainers' triage\n{}\taccepted\tchecked on the machine\n",
                odd.id
            ),
        )
        .unwrap();
    });
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("warning:"), "{out}");
}

#[test]
fn the_triage_file_is_checked() {
    expect_problem(
        |d| std::fs::write(d.join("triage.tsv"), "0123456789abcdef\taccepted\tx\n").unwrap(),
        "triage.tsv",
        "no valid record in this directory has that id",
    );
    expect_problem(
        |d| std::fs::write(d.join("triage.tsv"), "# ok\nnot a line\n").unwrap(),
        "triage.tsv line 2",
        "is not `<16-hex-digit id> TAB accepted TAB",
    );
}

/// A pipe whose reading end is already closed: every write to the other end fails with EPIPE.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

#[test]
fn an_unwritable_stdout_is_an_error_not_a_panic() {
    // Issue 17: `syscost-site check data > /dev/full` panicked (exit 101, a backtrace).
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    save(&data, &base_record(1));
    // Issue 42: `--help` and `--version` to a full standard output exited 0 silently.
    for args in [
        vec!["check", data.to_str().unwrap()],
        vec!["--help"],
        vec!["--version"],
        vec!["build", "--help"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let o = std::process::Command::new(bin())
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("cannot write to standard output"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        // A reader that went away: quiet, as a program ended by SIGPIPE.
        let o = std::process::Command::new(bin())
            .args(&args)
            .stdout(closed_pipe())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(141), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
    // Written, they are what they were.
    let o = run(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        stdout(&o),
        format!("syscost-site {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn only_maintainers_change_the_triage_file() {
    // What check-data.yml runs on a pull request (scripts/check-pr-data).
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/check-pr-data");
    let tmp = tempfile::tempdir().unwrap();
    let (base, pr) = (tmp.path().join("base"), tmp.path().join("pr"));
    let r = base_record(70);
    for d in [&base, &pr] {
        save(d, &r);
        std::fs::write(d.join("triage.tsv"), "# accepted runs\n").unwrap();
    }
    let run = |author: &str| {
        std::process::Command::new("sh")
            .arg(&script)
            .args([base.as_os_str(), pr.as_os_str()])
            .arg(author)
            .env("SYSCOST_SITE", bin())
            .output()
            .unwrap()
    };
    assert_eq!(run("CONTRIBUTOR").status.code(), Some(0));
    std::fs::write(
        pr.join("triage.tsv"),
        format!(
            "# accepted runs\n{}\taccepted\tmy own run, trust me\n",
            r.id
        ),
    )
    .unwrap();
    let o = run("CONTRIBUTOR");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("only maintainers change data/triage.tsv"));
    for maintainer in ["OWNER", "MEMBER", "COLLABORATOR"] {
        assert_eq!(run(maintainer).status.code(), Some(0), "{maintainer}");
    }
    // The records themselves are checked, whoever opened the pull request.
    std::fs::write(pr.join("runs/bad.json"), b"[]").unwrap();
    assert_eq!(run("OWNER").status.code(), Some(1));
}

/// `migrate`: a schema-3 record becomes the current schema in place with its id (only the
/// form changes);
/// a schema-2 record's numbers are rounded, so it gets a new id and file and `triage.tsv`
/// follows; the result checks clean, and a second run changes nothing.
#[test]
fn migrate_keeps_schema_3_ids_and_renames_older_records() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let three = edited(base_record(1), |r| r.schema = 3);
    let two = edited(base_record(2), |r| {
        r.schema = 2;
        // A digit more than its interval justifies (the CI stays around it).
        let m = r.results[0].median_ns.unwrap();
        r.results[0].median_ns = Some(m + 1e-9);
    });
    let three_at = save(&data, &three);
    let two_at = save(&data, &two);
    assert!(std::fs::read_to_string(&three_at)
        .unwrap()
        .starts_with("{\"schema\":3,"));
    let triage = format!("{}\taccepted\tone\n{}\taccepted\ttwo\n", three.id, two.id);
    std::fs::write(data.join("triage.tsv"), &triage).unwrap();

    let o = run(&["migrate", data.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("2 record(s) migrated"), "{out}");
    let text = std::fs::read_to_string(&three_at).unwrap();
    let four: syscost_record::RunRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (four.schema, &four.id),
        (syscost_record::SCHEMA_VERSION, &three.id),
        "{out}"
    );
    assert!(!two_at.exists(), "{out}");
    let line = out.lines().find(|l| l.starts_with(&two.id)).unwrap();
    let new_id = line.split(' ').nth(3).unwrap();
    assert_ne!(new_id, two.id);
    assert_eq!(
        std::fs::read_to_string(data.join("triage.tsv")).unwrap(),
        format!("{}\taccepted\tone\n{new_id}\taccepted\ttwo\n", three.id)
    );
    let o = run(&["check", data.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stderr(&o), stdout(&o));
    let o = run(&["migrate", data.to_str().unwrap()]);
    assert!(
        stdout(&o).contains("0 record(s) migrated, 2 already current"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn migrate_says_what_it_leaves_and_never_follows_a_link() {
    // Issue 42: a symbolic link named like a record was skipped without a word.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let old = edited(base_record(3), |r| r.schema = 3);
    let at = save(&data, &old);
    // The record itself outside the data directory, a link to it inside.
    let outside = tmp.path().join("outside.json");
    std::fs::rename(&at, &outside).unwrap();
    std::os::unix::fs::symlink(&outside, &at).unwrap();
    let before = std::fs::read(&outside).unwrap();
    let o = run(&["migrate", data.to_str().unwrap()]);
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let rel = at.strip_prefix(&data).unwrap().display().to_string();
    assert!(
        err.contains(&format!(
            "{}/{rel}: left as it is: is a symbolic link",
            data.display()
        )),
        "{err}"
    );
    assert!(
        out.contains("0 record(s) migrated, 0 already current, 1 left as they are"),
        "{out}"
    );
    assert!(err.contains("1 record(s) could not be migrated"), "{err}");
    // Neither the link nor what it points to was touched.
    assert!(std::fs::symlink_metadata(&at).unwrap().is_symlink());
    assert_eq!(std::fs::read(&outside).unwrap(), before);
}
