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
            b.extend(syscost_site_bench::to_file_bytes(&base_record(2)));
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
            v["schema"] = 2.into();
            std::fs::write(d.join("runs/v2.json"), v.to_string()).unwrap();
        },
        "runs/v2.json",
        "schema version 2 is not supported",
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
            let r = syscost_site_bench::generate(1, 5).next().unwrap();
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
    assert!(stderr(&o).contains("is not a directory"));
}
