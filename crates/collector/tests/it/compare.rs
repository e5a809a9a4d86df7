//! `syscost compare` and `syscost record` on real records of `data/` (and copies of them with a
//! known change made): the change is found with its sign and verdict, identical records show
//! none, incomparable records are refused naming the key, `--force` warns on every line,
//! `--fail-above` exits 3; and what `--json` prints holds to its JSON Schema.

use crate::common::{bin, measuring, syscost};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use syscost_record::{to_file_json, with_id, Clock, RunRecord};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(p: &Path) -> RunRecord {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// The first record of `data/runs/x86_64/<kernel>/` whose clock is `clock`.
fn data_record(kernel: &str, clock: Clock) -> PathBuf {
    let dir = repo().join("data/runs/x86_64").join(kernel);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .find(|p| read(p).environment.comparability.clock() == clock)
        .unwrap_or_else(|| panic!("no {clock:?} record in {}", dir.display()))
}

/// The lab's instruction counts of Debian's 5.10 and 6.1 (x86_64).
fn lab(kernel: &str) -> PathBuf {
    data_record(kernel, Clock::Instructions)
}

/// A collected record of times.
fn timed() -> PathBuf {
    data_record("6.18.44-fc-v1045", Clock::Time)
}

fn write(dir: &Path, name: &str, r: &RunRecord) -> PathBuf {
    let p = dir.join(name);
    // Its own content id: a record changed is another measurement.
    std::fs::write(&p, to_file_json(&with_id(r.clone()))).unwrap();
    p
}

fn compare(args: &[&Path], extra: &[&str]) -> Output {
    let mut c = Command::new(bin());
    c.arg("compare").args(args).args(extra);
    c.output().unwrap()
}

fn json_rows(out: &Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["comparisons"][0]["rows"].as_array().unwrap().clone()
}

fn row<'a>(rows: &'a [Value], kind: &str, id: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["kind"] == kind && r["id"] == id)
        .unwrap_or_else(|| panic!("no {kind} {id}"))
}

fn diff(r: &Value) -> f64 {
    r["diff"]["median"].as_f64().unwrap()
}

#[test]
fn the_lab_kernels_show_the_seccomp_cache_step() {
    let out = compare(
        &[&lab("5.10.0-32-amd64"), &lab("6.1.0-50-amd64")],
        &["--json"],
    );
    let rows = json_rows(&out);
    // The second cacheable filter costs 34 instructions on 5.10 and nothing on 6.1 (its
    // action cache): bitmap.1 − bitmap.2 goes from −34 to 0.
    let step = row(&rows, "expectation", "bitmap1_approx_bitmap2");
    assert!((diff(step) - 34.0).abs() < 0.5, "{step}");
    assert_eq!(step["verdict"], "higher", "{step}");
    assert_eq!(step["new"]["median"].as_f64(), Some(0.0), "{step}");
    // So the two filters' total falls, while everything a filter runs in full grows.
    let two = row(&rows, "estimate", "total.bitmap.2");
    assert!(diff(two) < 0.0 && two["verdict"] == "faster", "{two}");
    let full = row(&rows, "estimate", "total.full.4");
    assert!(diff(full) > 0.0 && full["verdict"] == "slower", "{full}");
    // Exact counts on both sides: the same count is no change.
    assert_eq!(row(&rows, "median", "null")["verdict"], "no_change");
    // The table says the same in its units.
    let table = compare(&[&lab("5.10.0-32-amd64"), &lab("6.1.0-50-amd64")], &[]);
    let text = String::from_utf8_lossy(&table.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("1 bitmapped ≈ 2 bitmapped"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("higher") && line.contains("+34.00 instr"),
        "{line}"
    );
}

#[test]
fn one_instruction_is_a_change_and_none_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let base_path = lab("6.1.0-50-amd64");
    let base = read(&base_path);
    let mut new = base.clone();
    let e = new
        .estimates
        .iter_mut()
        .find(|e| e.id == "per_filter.last2")
        .unwrap();
    assert_eq!(e.ci_low_ns, e.ci_high_ns, "an exact count");
    e.median_ns += 1.0;
    e.ci_low_ns = e.ci_low_ns.map(|v| v + 1.0);
    e.ci_high_ns = e.ci_high_ns.map(|v| v + 1.0);
    let new_path = write(dir.path(), "new.json", &new);
    let rows = json_rows(&compare(&[&base_path, &new_path], &["--json"]));
    for r in &rows {
        if r["id"] == "per_filter.last2" {
            assert_eq!(r["verdict"], "slower", "{r}");
            assert_eq!(diff(r), 1.0);
        } else {
            assert_eq!(diff(r), 0.0, "{r}");
            // Exact counts: no change. A count that varied between samples (a few of the
            // lab's do, by a few instructions) has an interval, and two of them together
            // can be wider than one instruction.
            let exact = r["base"]["low"] == r["base"]["high"];
            let expected = if exact { "no_change" } else { "inconclusive" };
            if exact || r["verdict"] != "no_change" {
                assert_eq!(r["verdict"], expected, "{r}");
            }
        }
    }
    // The same record twice is one measurement, not two: no change anywhere.
    let rows = json_rows(&compare(&[&base_path, &base_path], &["--json"]));
    assert!(rows.len() > 50);
    for r in &rows {
        assert_eq!(r["verdict"], "no_change", "{r}");
        assert_eq!(diff(r), 0.0);
    }
}

#[test]
fn a_known_difference_is_found_with_its_sign() {
    let dir = tempfile::tempdir().unwrap();
    let base_path = timed();
    let base = read(&base_path);
    let mut new = base.clone();
    let shift = |new: &mut RunRecord, id: &str, by: f64| {
        let r = new.results.iter_mut().find(|r| r.id == id).unwrap();
        r.median_ns = r.median_ns.map(|v| v + by);
        r.ci_low_ns = r.ci_low_ns.map(|v| v + by);
        r.ci_high_ns = r.ci_high_ns.map(|v| v + by);
    };
    let native = base.result("native").unwrap().median_ns.unwrap();
    shift(&mut new, "native", native * 0.3);
    shift(&mut new, "seccomp.bitmap.1", -native * 0.3);
    let new_path = write(dir.path(), "new.json", &new);
    let rows = json_rows(&compare(&[&base_path, &new_path], &["--json"]));
    let n = row(&rows, "median", "native");
    assert_eq!(n["verdict"], "slower", "{n}");
    assert!((diff(n) - native * 0.3).abs() < 1e-6 * native, "{n}");
    let rel = n["relative_pct"]["median"].as_f64().unwrap();
    assert!((rel - 30.0).abs() < 0.01, "{n}");
    assert_eq!(
        row(&rows, "median", "seccomp.bitmap.1")["verdict"],
        "faster"
    );
    // Nothing else moved: no other change, each difference 0.
    for r in &rows {
        if !(r["kind"] == "median" && (r["id"] == "native" || r["id"] == "seccomp.bitmap.1")) {
            assert_eq!(diff(r), 0.0, "{r}");
            assert!(
                r["verdict"] == "no_change" || r["verdict"] == "inconclusive",
                "{r}"
            );
        }
    }
    // Changes come first, the largest first.
    assert_eq!(rows[0]["verdict"], "slower");
    // --fail-above: native is 30 % slower.
    let out = compare(&[&base_path, &new_path], &["--fail-above", "10"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("native") && err.contains("10%"), "{err}");
    let out = compare(&[&base_path, &new_path], &["--fail-above", "40"]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    // Two records that differ in nothing but their content (another measurement with the
    // same numbers): what is not "no change" is so only because the two intervals together
    // are wider than the margin.
    let mut same = base.clone();
    same.source.note = Some("another run with the same numbers".into());
    let same_path = write(dir.path(), "same.json", &same);
    let rows = json_rows(&compare(&[&base_path, &same_path], &["--json"]));
    for r in &rows {
        assert_eq!(diff(r), 0.0);
        let wide = r["diff"]["high"].as_f64().unwrap() >= r["margin"].as_f64().unwrap();
        let expected = if wide { "inconclusive" } else { "no_change" };
        assert_eq!(r["verdict"], expected, "{r}");
    }
    // The same record twice is one measurement: no change anywhere.
    for r in json_rows(&compare(&[&base_path, &base_path], &["--json"])) {
        assert_eq!(r["verdict"], "no_change", "{r}");
    }
}

#[test]
fn incomparable_records_are_refused_naming_the_key_or_compared_with_a_warning() {
    let (a, b) = (timed(), lab("6.1.0-50-amd64"));
    let out = compare(&[&a, &b], &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("clock differs"), "{err}");
    assert!(err.contains("cpu differs"), "{err}");
    assert!(err.contains("--force"), "{err}");
    assert!(out.stdout.is_empty());
    // With --force: every line of the table warns, and every row of the JSON.
    let out = compare(&[&a, &b], &["--force"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| {
            [
                "slower",
                "faster",
                "no change",
                "inconclusive",
                "higher",
                "lower",
            ]
            .iter()
            .any(|v| l.trim_start().starts_with(v))
        })
        .collect();
    assert!(lines.len() > 10, "{text}");
    for l in lines {
        assert!(l.contains("warning: not comparable"), "{l}");
    }
    for r in json_rows(&compare(&[&a, &b], &["--force", "--json"])) {
        assert!(r["warning"].as_str().unwrap().contains("clock"), "{r}");
    }
}

#[test]
fn bad_input_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, b"{\"schema\": 5}").unwrap();
    let out = compare(&[&timed(), &bad], &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.json") && err.contains("run-record format"),
        "{err}"
    );
    // A directory of records is read as its records.
    let out = compare(
        &[
            &lab("5.10.0-32-amd64"),
            &repo().join("data/runs/x86_64/6.1.0-50-amd64"),
        ],
        &[],
    );
    assert!(out.status.success(), "{out:?}");
}

/// A JSON Schema of docs/, compiled.
fn schema(name: &str) -> jsonschema::Validator {
    let text = std::fs::read(repo().join("docs").join(name)).unwrap();
    jsonschema::validator_for(&serde_json::from_slice(&text).unwrap()).unwrap()
}

fn assert_valid(v: &jsonschema::Validator, json: &[u8]) {
    let value: Value = serde_json::from_slice(json).unwrap();
    let errors: Vec<String> = v.iter_errors(&value).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

#[test]
fn what_json_prints_holds_to_its_schema() {
    let compare_schema = schema("compare.schema.json");
    let out = compare(
        &[&lab("5.10.0-32-amd64"), &lab("6.1.0-50-amd64")],
        &["--json"],
    );
    assert!(out.status.success());
    assert_valid(&compare_schema, &out.stdout);
    let out = compare(&[&timed(), &lab("6.1.0-50-amd64")], &["--json", "--force"]);
    assert_valid(&compare_schema, &out.stdout);
    // The objects form: of stored records, and of a run.
    let run_schema = schema("run.schema.json");
    for p in [timed(), lab("5.10.0-32-amd64")] {
        let out = syscost(&["record", "--objects", p.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
        assert_valid(&run_schema, &out.stdout);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["results"][0]["id"].is_string(), "named fields");
    }
    let _m = measuring();
    let out = syscost(&["run", "--json", "--budget", "1", "--only", "native"]);
    assert!(out.status.success(), "{out:?}");
    assert_valid(&run_schema, &out.stdout);
}

#[test]
fn record_converts_between_the_forms_and_back() {
    let dir = tempfile::tempdir().unwrap();
    for p in [timed(), lab("6.1.0-50-amd64")] {
        let objects = dir.path().join("objects.json");
        let out = syscost(&[
            "record",
            "--objects",
            p.to_str().unwrap(),
            "-o",
            objects.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{out:?}");
        let out = syscost(&["record", "--compact", objects.to_str().unwrap()]);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(out.stdout, std::fs::read(&p).unwrap(), "{}", p.display());
    }
    // Without either: the table `run` prints, in the units that fit.
    let out = syscost(&["record", lab("6.1.0-50-amd64").to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("instructions per operation"), "{text}");
    assert!(
        text.contains(" instr ") && text.contains("±0 instr"),
        "{text}"
    );
    let out = syscost(&["record", timed().to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(" ns ") && text.contains(" µs "), "{text}");
    assert!(!text.contains("ns/op"), "{text}");
}

/// `count` copies of `r` in `dir/name/`, the `k`th with `native` moved by `offset(k)` ns (and
/// its date changed, so each is a run of its own).
fn reruns(dir: &Path, name: &str, r: &RunRecord, offsets: &[f64]) -> PathBuf {
    let side = dir.join(name);
    std::fs::create_dir_all(&side).unwrap();
    for (k, by) in offsets.iter().enumerate() {
        let mut run = r.clone();
        let n = run.results.iter_mut().find(|x| x.id == "native").unwrap();
        n.median_ns = n.median_ns.map(|v| v + by);
        n.ci_low_ns = n.ci_low_ns.map(|v| v + by);
        n.ci_high_ns = n.ci_high_ns.map(|v| v + by);
        run.source.date = Some(format!("2026-01-0{}T00:00:00Z", k + 1));
        write(&side, &format!("r{k}.json"), &run);
    }
    side
}

#[test]
fn pooled_reruns_cover_a_spread_between_runs_that_one_run_cannot_see() {
    let dir = tempfile::tempdir().unwrap();
    let base = read(&timed());
    let n = base.result("native").unwrap();
    let half = (n.ci_high_ns.unwrap() - n.ci_low_ns.unwrap()) / 2.0;
    // Six reruns whose `native` moves between runs by several of one run's half-widths: the
    // host's speed, which no run sees from inside.
    let spread = [-3.0, 2.0, 0.5, 3.0, -2.0, -0.5].map(|k| k * 4.0 * half);
    let a = reruns(dir.path(), "a", &base, &spread[..3]);
    let b = reruns(dir.path(), "b", &base, &spread[3..]);
    // Two single runs of them differ "significantly": their intervals cannot hold it.
    let single = json_rows(&compare(
        &[&a.join("r0.json"), &b.join("r0.json")],
        &["--json"],
    ));
    assert_eq!(row(&single, "median", "native")["verdict"], "slower");
    // Pooled, the spread between runs is in the interval: no change is claimed.
    let pooled = json_rows(&compare(&[&a, &b], &["--json", "--pool"]));
    let native = row(&pooled, "median", "native");
    assert_eq!(native["verdict"], "inconclusive", "{native}");
    let d = diff(native);
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    assert!(
        (d - (mean(&spread[3..]) - mean(&spread[..3]))).abs() < 1e-6,
        "{native}"
    );
    // A real step well beyond the spread is still found, with its sign.
    let step = 30.0 * 4.0 * half;
    let moved: Vec<f64> = spread[3..].iter().map(|o| o + step).collect();
    let c = reruns(dir.path(), "c", &base, &moved);
    let rows = json_rows(&compare(&[&a, &c], &["--json", "--pool"]));
    assert_eq!(row(&rows, "median", "native")["verdict"], "slower");
    // The table says what the sides are.
    let out = compare(&[&a, &c], &["--pool", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["comparisons"][0]["base"]["pooled"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    assert_valid(&schema("compare.schema.json"), &out.stdout);
    let out = compare(&[&a, &c], &["--pool"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("3 runs pooled") && text.contains("Welch"),
        "{text}"
    );
}

#[test]
fn pooled_instruction_counts_keep_one_instruction_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let base = read(&lab("6.1.0-50-amd64"));
    let a = reruns(dir.path(), "a", &base, &[0.0, 0.0]);
    let b = reruns(dir.path(), "b", &base, &[1.0, 1.0]);
    let rows = json_rows(&compare(&[&a, &b], &["--json", "--pool"]));
    let n = row(&rows, "median", "native");
    assert_eq!(n["verdict"], "slower", "{n}");
    assert_eq!(diff(n), 1.0);
    assert_eq!(row(&rows, "median", "null")["verdict"], "no_change");
}

#[test]
fn what_cannot_be_pooled_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let base = read(&timed());
    let a = reruns(dir.path(), "a", &base, &[0.0, 1.0]);
    let b = reruns(dir.path(), "b", &base, &[0.0, 1.0]);
    // One run is no spread.
    let one = reruns(dir.path(), "one", &base, &[0.0]);
    let out = compare(&[&one, &b], &["--pool"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at least 2") && err.contains("one"), "{err}");
    // Runs of another kernel are not reruns: the part that differs is named.
    let mut other = base.clone();
    other.environment.comparability.kernel_release = "6.1.0-50-amd64".into();
    write(&b, "other.json", &other);
    let out = compare(&[&a, &b], &["--pool"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not a rerun") && err.contains("kernel"),
        "{err}"
    );
    // NEW is one side.
    let out = compare(&[&a, &a, &a], &["--pool"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("NEW is one"));
}
