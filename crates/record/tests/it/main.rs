//! The record survives serialisation unchanged, its id is a content hash, and validation
//! catches each kind of implausible value.

use std::collections::BTreeMap;
use syscost_record::*;

fn sample() -> RunRecord {
    let mut native = ScenarioResult::new("native", "baseline", "getpid()", Status::Measured);
    native.median_ns = Some(139.91234567890123);
    native.ci_low_ns = Some(139.1);
    native.ci_high_ns = Some(140.7);
    native.samples = Some(300);
    native.iters_per_sample = Some(14_000);
    let mut b1 = ScenarioResult::new("seccomp.bitmap.1", "seccomp", "1 filter", Status::Measured);
    b1.median_ns = Some(179.4);
    b1.ci_low_ns = Some(177.0);
    b1.ci_high_ns = Some(182.0);
    b1.samples = Some(300);
    b1.overhead = Some(Overhead {
        vs: "native".into(),
        median_ns: 40.2,
        ci_low_ns: Some(38.4),
        ci_high_ns: Some(42.0),
        samples: 300,
        pct: 28.7,
        pct_ci_low: Some(27.0),
        pct_ci_high: Some(30.1),
    });
    let mut skipped = ScenarioResult::new("bpf.kprobe", "bpf", "kprobe", Status::Skipped);
    skipped.reason = Some("CONFIG_KPROBES is off".into());
    with_id(RunRecord {
        schema: SCHEMA_VERSION,
        id: String::new(),
        source: Source {
            kind: SourceKind::Collected,
            tool: "syscost 0.1.0".into(),
            commit: Some("abc1234".into()),
            method: Method::Interleaved,
            format: None,
            url: None,
            text_sha256: None,
            note: None,
            date: Some("2026-11-29T18:00:00Z".into()),
            stated: None,
        },
        settings: Settings {
            budget_s: Some(30.0),
            target_ci_pct: Some(1.0),
            syscall: "getpid".into(),
            syscalls_per_op: Some(1),
            operation: None,
            cpu: Some(1),
            sample_ms: Some(2.0),
            confidence: 0.95,
            only: vec![],
            skip: vec![],
        },
        environment: Environment {
            comparability: Comparability {
                arch: "x86_64".into(),
                kernel_release: "6.18.44-fc-v669".into(),
                mitigations: BTreeMap::from([("meltdown".into(), "Not affected".into())]),
                ..Default::default()
            },
            incidental: Incidental::default(),
            lab: None,
        },
        summary: RunSummary {
            rounds: 300,
            duration_s: Some(29.7),
            stop_reason: StopReason::Budget,
            target_reached: false,
            worst_ci_pct: Some(1.4),
            worst_ci_id: Some("seccomp.bitmap.1".into()),
            ci_method: "order statistics".into(),
            targets: vec![Target {
                quantity: QuantityKind::Overhead,
                id: "seccomp.bitmap.1".into(),
                median_ns: 40.2,
                half_width_ns: Some(1.8),
                target_ns: 1.4,
                met: false,
                group: "kernel".into(),
            }],
            groups: vec![GroupSummary {
                id: "kernel".into(),
                members: vec!["native".into(), "seccomp.bitmap.1".into()],
                rounds: 300,
                duration_s: 12.5,
            }],
            instances: Some(Instances {
                count: 6,
                renewing_s: 1.25,
                components: vec![Component {
                    quantity: QuantityKind::Overhead,
                    id: "seccomp.bitmap.1".into(),
                    instances: 6,
                    within_ns: Some(0.31),
                    between_ns: Some(0.72),
                }],
            }),
        },
        results: vec![native, b1, skipped],
        estimates: vec![],
        expectations: vec![],
        notes: vec![],
    })
}

#[test]
fn round_trip_is_exact_and_id_is_stable() {
    let r = sample();
    let text = serde_json::to_string_pretty(&r).unwrap();
    let back: RunRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(back, r);
    assert_eq!(content_id(&back), r.id);
    assert_eq!(r.id.len(), 16);
    assert!(validate(&r).is_empty(), "{:?}", validate(&r));
    assert_eq!(
        r.canonical_path(),
        format!("runs/x86_64/6.18.44-fc-v669/{}.json", r.id)
    );
}

#[test]
fn any_change_changes_the_id() {
    let r = sample();
    let mut changed = r.clone();
    changed.results[0].median_ns = Some(139.9);
    assert_ne!(content_id(&changed), r.id);
    let problems = validate(&changed);
    assert!(problems.iter().any(|p| p.field == "id"), "{problems:?}");
}

fn problems_after(edit: impl FnOnce(&mut RunRecord)) -> Vec<String> {
    let mut r = sample();
    edit(&mut r);
    let r = with_id(r);
    validate(&r).iter().map(|p| p.to_string()).collect()
}

#[test]
fn validation_catches_implausible_values() {
    let has = |v: Vec<String>, needle: &str| {
        assert!(v.iter().any(|p| p.contains(needle)), "{needle}: {v:?}")
    };
    has(
        problems_after(|r| r.schema = 99),
        "schema version 99 is not supported",
    );
    has(
        problems_after(|r| r.results[0].median_ns = Some(-1.0)),
        "negative time",
    );
    has(
        problems_after(|r| r.results[0].median_ns = Some(f64::INFINITY)),
        "not a finite",
    );
    has(
        problems_after(|r| r.results[0].median_ns = Some(150.0)),
        "outside its CI",
    );
    has(
        problems_after(|r| r.results[0].ci_low_ns = Some(141.0)),
        "above CI high",
    );
    has(
        problems_after(|r| r.results[0].ci_high_ns = None),
        "needs both",
    );
    has(
        problems_after(|r| r.results[0].median_ns = Some(1e15)),
        "more than 1000 s",
    );
    has(
        problems_after(|r| r.results[2].reason = None),
        "must say why",
    );
    has(
        problems_after(|r| r.results[0].samples = None),
        "needs samples",
    );
    // The later of the two is the one reported, and only it.
    let twice: Vec<String> = problems_after(|r| r.results[1].id = "native".into())
        .into_iter()
        .filter(|p| p.contains("appears twice"))
        .collect();
    assert_eq!(twice, ["results[1] (native).id: appears twice"]);
    has(
        problems_after(|r| r.environment.comparability.arch.clear()),
        "arch: is empty",
    );
    has(problems_after(|r| r.results.clear()), "no results");
    has(
        problems_after(|r| r.results[1].overhead.as_mut().unwrap().median_ns = 50.0),
        "overhead: median 50 lies outside",
    );
    // Overheads may be negative (a scenario can be faster than its baseline).
    assert!(problems_after(|r| {
        let o = r.results[1].overhead.as_mut().unwrap();
        (o.median_ns, o.ci_low_ns, o.ci_high_ns) = (-1.0, Some(-2.0), Some(0.5));
    })
    .is_empty());
}

#[test]
fn records_written_before_the_optional_fields_still_read() {
    // A record as written before duration_s, syscalls_per_op and source.stated became optional.
    let mut v = serde_json::to_value(sample()).unwrap();
    v["summary"]["duration_s"] = serde_json::json!(29.7);
    v["settings"]["syscalls_per_op"] = serde_json::json!(1);
    let old: RunRecord = serde_json::from_value(v).unwrap();
    assert_eq!(old.summary.duration_s, Some(29.7));
    assert_eq!(old.settings.syscalls_per_op, Some(1));
    assert_eq!(old.source.stated, None);
    // Absent facts stay absent: no duration is read as none, never as 0.
    let mut v = serde_json::to_value(sample()).unwrap();
    v["summary"].as_object_mut().unwrap().remove("duration_s");
    let r: RunRecord = serde_json::from_value(v).unwrap();
    assert_eq!(r.summary.duration_s, None);
    let written = serde_json::to_value(with_id(r)).unwrap();
    assert!(written["summary"].get("duration_s").is_none(), "{written}");
}

#[test]
fn targets_say_truthfully_whether_they_were_met() {
    assert!(problems_after(|_| {}).is_empty());
    has_problem(|r| r.summary.targets[0].met = true, "at most target_ns");
    has_problem(
        |r| r.summary.targets[0].half_width_ns = Some(f64::NAN),
        "finite, non-negative",
    );
    has_problem(|r| r.summary.targets[0].target_ns = 0.0, "finite, positive");
    has_problem(
        |r| r.summary.target_reached = true,
        "every target in summary.targets",
    );
    // No interval: not met.
    has_problem(
        |r| {
            r.summary.targets[0].half_width_ns = None;
            r.summary.targets[0].met = true;
        },
        "at most target_ns",
    );
}

#[test]
fn stated_facts_and_their_rules() {
    has_problem(
        |r| {
            r.settings.syscalls_per_op = None;
            r.settings.operation = None;
        },
        "must say what an operation is",
    );
    assert!(problems_after(|r| {
        r.settings.syscalls_per_op = None;
        r.settings.operation = Some("fork() + exit + waitpid()".into());
    })
    .is_empty());
    has_problem(
        |r| {
            r.source.stated = Some(Stated {
                kernel: Some(StatedKernel {
                    release: r.environment.comparability.kernel_release.clone(),
                    approximate: true,
                }),
                ..Default::default()
            })
        },
        "approximate stated kernel must not be recorded as the kernel release",
    );
    has_problem(|r| r.summary.duration_s = Some(-1.0), "non-negative");
    // An imported fragment with estimates but no scenario lines is a record; a collected
    // record without results is not.
    let estimate = Estimate {
        id: "entry".into(),
        label: "seccomp entry overhead".into(),
        formula: "f".into(),
        median_ns: 33.0,
        ci_low_ns: None,
        ci_high_ns: None,
        samples: 1,
        origin: Some(EstimateOrigin::Printed),
    };
    assert!(problems_after(|r| {
        r.source.kind = SourceKind::Import;
        r.results.clear();
        r.summary.worst_ci_id = None;
        r.estimates.push(estimate.clone());
    })
    .is_empty());
    has_problem(
        |r| {
            r.results.clear();
            r.estimates.push(estimate);
        },
        "no results",
    );
}

fn has_problem(edit: impl FnOnce(&mut RunRecord), needle: &str) {
    let v = problems_after(edit);
    assert!(v.iter().any(|p| p.contains(needle)), "{needle}: {v:?}");
}

#[test]
fn machine_hash_is_the_collectors() {
    // The collector hashes `syscost-machine:<nodename>` the same way.
    assert_eq!(machine_hash("olga").len(), 12);
    assert_ne!(machine_hash("olga"), machine_hash("olga2"));
    assert_eq!(machine_hash("olga"), machine_hash("olga"));
}

/// Issue 17: every number has a range, every identifier a grammar, every date a format and no
/// later than the check.
#[test]
fn every_field_has_a_range_and_a_format() {
    for (what, edit, needle) in [
        (
            "negative budget",
            Box::new(|r: &mut RunRecord| r.settings.budget_s = Some(-30.0))
                as Box<dyn FnOnce(&mut RunRecord)>,
            "settings.budget_s: -30 s is out of range",
        ),
        (
            "1e308 budget",
            Box::new(|r: &mut RunRecord| r.settings.budget_s = Some(1e308)),
            "settings.budget_s",
        ),
        (
            "negative sample_ms",
            Box::new(|r: &mut RunRecord| r.settings.sample_ms = Some(-2.0)),
            "settings.sample_ms",
        ),
        (
            "1e308 duration",
            Box::new(|r: &mut RunRecord| r.summary.duration_s = Some(1.7976931348623157e308)),
            "summary.duration_s",
        ),
        (
            "negative load average",
            Box::new(|r: &mut RunRecord| {
                r.environment.incidental.loadavg_start = Some([0.1, -4.0, 0.2])
            }),
            "loadavg_start[1]",
        ),
        (
            "1e308 load average",
            Box::new(|r: &mut RunRecord| r.environment.incidental.loadavg_end = Some([1e308; 3])),
            "loadavg_end[0]",
        ),
        (
            "negative tolerance",
            Box::new(|r: &mut RunRecord| r.expectations.push(expectation(-1.0))),
            "tolerance_ns: -1 ns is out of range",
        ),
        (
            "huge tolerance",
            Box::new(|r: &mut RunRecord| r.expectations.push(expectation(1e308))),
            "tolerance_ns",
        ),
        (
            "confidence near zero",
            Box::new(|r: &mut RunRecord| r.settings.confidence = 1e-300),
            "settings.confidence",
        ),
        (
            "cpu 2^32-1",
            Box::new(|r: &mut RunRecord| r.settings.cpu = Some(u32::MAX)),
            "settings.cpu",
        ),
        (
            "samples 2^64-1",
            Box::new(|r: &mut RunRecord| r.results[0].samples = Some(u64::MAX)),
            "samples: 18446744073709551615 is out of range",
        ),
        (
            "zero ns",
            Box::new(|r: &mut RunRecord| {
                let x = &mut r.results[0];
                (x.median_ns, x.ci_low_ns, x.ci_high_ns) = (Some(0.0), None, None);
            }),
            "shorter than a CPU cycle",
        ),
        (
            "date in 9999",
            Box::new(|r: &mut RunRecord| r.source.date = Some("9999-01-01".into())),
            "source.date: \"9999-01-01\" is in the future",
        ),
        (
            "date with markup",
            Box::new(|r: &mut RunRecord| r.source.date = Some("<script>".into())),
            "source.date: \"<script>\" is not an RFC 3339 date",
        ),
        (
            "stated date out of the calendar",
            Box::new(|r: &mut RunRecord| {
                r.source.stated = Some(Stated {
                    date: Some("2021-02-30".into()),
                    ..Default::default()
                })
            }),
            "source.stated.date",
        ),
        (
            "arch named like a page",
            Box::new(|r: &mut RunRecord| r.environment.comparability.arch = "index.html".into()),
            "arch: \"index.html\" is not an architecture name",
        ),
        (
            "kernel release with a path",
            Box::new(|r: &mut RunRecord| {
                r.environment.comparability.kernel_release = "../../etc".into()
            }),
            "kernel_release: \"../../etc\" is not a kernel release",
        ),
        (
            "kernel release of 65 characters",
            Box::new(|r: &mut RunRecord| {
                r.environment.comparability.kernel_release = format!("6.{}", "1".repeat(63))
            }),
            "is not a kernel release",
        ),
        (
            "result id with markup",
            Box::new(|r: &mut RunRecord| r.results[2].id = "<b>".into()),
            "results[2].id: \"<b>\" is not an identifier",
        ),
        (
            "overhead against a result that is not there",
            Box::new(|r: &mut RunRecord| r.results[1].overhead.as_mut().unwrap().vs = "x".into()),
            "overhead.vs: \"x\" names no result",
        ),
        (
            "machine hash with a path",
            Box::new(|r: &mut RunRecord| {
                r.environment.incidental.machine_hash = Some("../../etc".into())
            }),
            "machine_hash",
        ),
        (
            "a long note",
            Box::new(|r: &mut RunRecord| r.notes.push("n".repeat(5000))),
            "notes[0]: is 5000 bytes long",
        ),
    ] {
        let v = problems_after(edit);
        assert!(
            v.iter().any(|p| p.contains(needle)),
            "{what}: want {needle:?} in {v:?}"
        );
    }
    // The boundaries themselves are accepted.
    assert!(problems_after(|r| {
        r.settings.budget_s = Some(86_400.0);
        r.summary.duration_s = Some(0.0);
        r.environment.incidental.loadavg_start = Some([0.0, 0.0, 0.0]);
        r.expectations.push(expectation(0.0));
        r.source.date = Some("1991-09-17".into());
        r.environment.comparability.kernel_release = format!("6.{}", "1".repeat(62));
    })
    .is_empty());
}

#[test]
fn dates_are_judged_against_the_time_of_the_check() {
    let mut r = sample();
    r.source.date = Some("2030-01-01T00:00:00Z".into());
    let r = with_id(r);
    let jan_2030 = 1_893_456_000;
    assert!(!validate_at(&r, jan_2030 - 7200).is_empty());
    assert!(validate_at(&r, jan_2030).is_empty());
}

fn expectation(tolerance_ns: f64) -> Expectation {
    Expectation {
        id: "native_le_bitmap1".into(),
        label: "native ≤ 1 bitmap".into(),
        relation: Relation::Le,
        lhs_ns: 139.9,
        rhs_ns: 179.4,
        diff_median_ns: None,
        diff_ci_low_ns: None,
        diff_ci_high_ns: None,
        tolerance_ns,
        systematic_ns: None,
        verdict: Verdict::Pass,
        kernel_verdict: Verdict::Pass,
    }
}

/// Issue 17: what is read is what the id covers — no field the types do not know, no key of a
/// map twice; both are refused, naming the field or key.
#[test]
fn unknown_fields_and_duplicate_keys_are_refused() {
    let text = to_file_json(&sample());
    let head = format!("\"schema\":{SCHEMA_VERSION},");
    let extra = text.replacen(
        &head,
        &format!("{head}\"zz\":\"<script>alert(1)</script>\","),
        1,
    );
    assert_ne!(extra, text);
    let e = serde_json::from_str::<RunRecord>(&extra)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `zz`"), "{e}");
    let nested = text.replacen("\"tool\":", "\"toll\":\"x\",\"tool\":", 1);
    assert_ne!(nested, text);
    let e = serde_json::from_str::<RunRecord>(&nested)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `toll`"), "{e}");
    let twice = text.replacen(
        "\"meltdown\":\"Not affected\"",
        "\"meltdown\":\"Vulnerable\",\"meltdown\":\"Not affected\"",
        1,
    );
    assert_ne!(twice, text);
    let e = serde_json::from_str::<RunRecord>(&twice)
        .unwrap_err()
        .to_string();
    assert!(e.contains("duplicate key \"meltdown\""), "{e}");
    // The canonical file form reads back to the same record.
    assert_eq!(serde_json::from_str::<RunRecord>(&text).unwrap(), sample());
    assert!(text.ends_with("}\n") && text.lines().count() == 1);
}

/// The file form follows the schema: schema 4's (and 3's) rows on one line, schema 2's objects
/// on one line, schema 1's pretty JSON (read and published as they are until migrated); none
/// accepts another's.
#[test]
fn the_file_form_is_the_one_of_the_records_schema() {
    let r = sample();
    let rows = to_file_json(&r);
    assert!(syscost_record::is_file_form(&r, rows.as_bytes()));
    let pretty = serde_json::to_string_pretty(&r).unwrap() + "\n";
    assert!(!syscost_record::is_file_form(&r, pretty.as_bytes()));
    assert!(rows.contains("\"results\":[[\"native\","), "{rows}");
    let two = RunRecord {
        schema: 2,
        ..r.clone()
    };
    let objects = to_file_json(&two);
    assert!(
        objects.contains("\"results\":[{\"id\":\"native\","),
        "{objects}"
    );
    assert!(syscost_record::is_file_form(&two, objects.as_bytes()));
    assert!(!syscost_record::is_file_form(&r, objects.as_bytes()));
    // Either form reads into the same values.
    let back: RunRecord = serde_json::from_str(&objects).unwrap();
    assert_eq!(back, two);
    let old = RunRecord { schema: 1, ..r };
    let pretty = serde_json::to_string_pretty(&old).unwrap() + "\n";
    assert!(syscost_record::is_file_form(&old, pretty.as_bytes()));
    assert!(!syscost_record::is_file_form(
        &old,
        to_file_json(&old).as_bytes()
    ));
}

/// Schema 3 writes the tool's texts by their index in the dictionary and a throughput that is
/// 1000 / the median as derived; both read back to exactly what was written, and a text or
/// map not in the dictionary is written in full.
#[test]
fn dictionary_texts_and_derived_throughputs_read_back_exactly() {
    let mut r = sample();
    r.results[0].family = "baseline".into();
    r.results[0].description = "getpid(), no filter".into();
    r.results[0].params =
        BTreeMap::from([("k".to_string(), "a value of no dictionary".to_string())]);
    r.results[1].throughput_mops = Some(Throughput {
        median: 1.0,
        ci_low: Some(0.9),
        ci_high: Some(1.1),
        stddev: Some(0.1),
    });
    r.source.kind = SourceKind::Collected;
    r.results[0].throughput_mops = Some(Throughput {
        median: 0.0,
        ci_low: None,
        ci_high: None,
        stddev: None,
    });
    round_to_intervals(&mut r);
    let r = with_id(r);
    let t = r.results[0].throughput_mops.clone().unwrap();
    assert!(
        (t.median - 1000.0 / r.results[0].median_ns.unwrap()).abs() < 0.01,
        "{t:?}"
    );
    let text = to_file_json(&r);
    assert!(!text.contains("getpid(), no filter"), "{text}");
    assert!(text.contains("a value of no dictionary"), "{text}");
    assert!(text.contains(",0,null,"), "derived throughput: {text}");
    let back: RunRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(back, r);
    assert_eq!(to_file_json(&back), text);
    assert!(validate(&back).is_empty(), "{:?}", validate(&back));
    // An index the dictionary does not have is refused, naming where it is.
    let at = "\"results\":[[\"native\",";
    let start = text.find(at).unwrap() + at.len();
    let len = text[start..].find(',').unwrap();
    assert!(
        text[start..start + len].parse::<u32>().is_ok(),
        "family by index: {text}"
    );
    let bad = format!("{}4000000{}", &text[..start], &text[start + len..]);
    let e = serde_json::from_str::<RunRecord>(&bad)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("results[0]: text 4000000 is not in the dictionary"),
        "{e}"
    );
}

/// Schema 4 is schema 3's form with the texts written since 3's dictionary froze and a row's
/// own id written `0` (schema 5 adds optional fields and appends to the dictionary again): a
/// schema-3 record still reads and validates as it is, migrates to the current schema with the
/// same id (only the form changes), and a file of schema 3 may not use what only later ones
/// have.
#[test]
fn schema_3_records_read_and_migrate_to_the_current_schema_keeping_their_id() {
    let mut r = sample();
    // A text in schema 4's dictionary only, and a group named like the scenario it compares.
    let text = "getpid RET_ALLOW 1 filter (bitmap)";
    r.results[1].description = text.into();
    r.summary.targets[0].group = "seccomp.bitmap.1".into();
    r.summary.groups.push(GroupSummary {
        id: "seccomp.bitmap.1".into(),
        members: vec!["native".into(), "seccomp.bitmap.1".into()],
        rounds: 10,
        duration_s: 0.5,
    });
    let mut three = RunRecord { schema: 3, ..r };
    round_to_intervals(&mut three);
    let three = with_id(three);
    let text3 = to_file_json(&three);
    assert!(
        text3.starts_with("{\"schema\":3,") && text3.contains(text),
        "{text3}"
    );
    let back: RunRecord = serde_json::from_str(&text3).unwrap();
    assert_eq!(back, three);
    assert!(is_file_form(&back, text3.as_bytes()));
    assert!(validate(&back).is_empty(), "{:?}", validate(&back));

    let four = migrate(three.clone());
    assert_eq!(
        (four.schema, &four.id),
        (SCHEMA_VERSION, &three.id),
        "same content, same id"
    );
    assert_eq!(content_id(&four), four.id);
    let text4 = to_file_json(&four);
    assert!(
        text4.starts_with(&format!("{{\"schema\":{SCHEMA_VERSION},")) && !text4.contains(text),
        "{text4}"
    );
    assert!(
        text4.contains("\"seccomp.bitmap.1\",[\"native\",0],"),
        "{text4}"
    );
    assert!(text4.contains("false,0]"), "the target's group: {text4}");
    // A whole number is written without `.0` (the same number).
    assert!(text3.contains("\"budget_s\":30.0,"), "{text3}");
    assert!(text4.contains("\"budget_s\":30,"), "{text4}");
    assert!(text4.len() < text3.len());
    let back: RunRecord = serde_json::from_str(&text4).unwrap();
    assert_eq!(back, four);
    assert_eq!(to_file_json(&back), text4);
    assert!(is_file_form(&back, text4.as_bytes()));
    assert!(!is_file_form(&back, text3.as_bytes()));
    assert!(validate(&back).is_empty(), "{:?}", validate(&back));
    assert_eq!(
        validate_canonical(&back, &canonical_json(&back)),
        validate(&back)
    );
    // One serialisation checks the file form and the id of schema 3's form.
    assert_eq!(
        validate_file(&back, text4.as_bytes()),
        (validate(&back), true)
    );
    assert_eq!(
        validate_file(&back, text3.as_bytes()),
        (validate(&back), false)
    );
    let edited = RunRecord {
        id: "0123456789abcdef".into(),
        ..back.clone()
    };
    let (problems, in_form) = validate_file(&edited, to_file_json(&edited).as_bytes());
    assert!(in_form);
    assert_eq!(problems, validate(&edited));
    assert!(
        problems.iter().any(|p| p.to_string().contains(&three.id)),
        "{problems:?}"
    );
    assert_eq!(
        migrate(four.clone()),
        four,
        "migrating again changes nothing"
    );

    // Schema 3 read with schema 4's dictionary or `0`: the values read, the form is refused.
    let mixed = text4.replacen(
        &format!("{{\"schema\":{SCHEMA_VERSION},"),
        "{\"schema\":3,",
        1,
    );
    let m: RunRecord = serde_json::from_str(&mixed).unwrap();
    assert_eq!(m, three);
    assert!(!is_file_form(&m, mixed.as_bytes()));
    // Any other number where a name belongs is refused, naming it.
    let bad = text4.replacen("[\"native\",0]", "[\"native\",7]", 1);
    let e = serde_json::from_str::<RunRecord>(&bad)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("7: a name is an id, or 0 for the row's own"),
        "{e}"
    );
}

/// The site checks a record's file form and its id in one pass over its text
/// (`validate_file`): the same verdicts as `is_file_form` and `validate` on every record of
/// the repository's data/.
#[test]
fn validate_file_agrees_with_validate_and_is_file_form_on_data() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/runs");
    let mut files = vec![data];
    let mut seen = 0;
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if p.extension().is_none_or(|x| x != "json") {
            continue;
        }
        let bytes = std::fs::read(&p).unwrap();
        let Ok(r) = serde_json::from_slice::<RunRecord>(&bytes) else {
            continue;
        };
        let want = (validate(&r), is_file_form(&r, &bytes));
        assert_eq!(validate_file(&r, &bytes), want, "{}", p.display());
        // Any change of a number changes the id.
        let mut changed = r.clone();
        if let Some(m) = changed
            .results
            .iter_mut()
            .find_map(|x| x.median_ns.as_mut())
        {
            *m += 1.0;
            let text = to_file_json(&changed);
            let (problems, in_form) = validate_file(&changed, text.as_bytes());
            assert!(in_form && problems == validate(&changed), "{}", p.display());
            assert!(problems.iter().any(|p| p.field == "id"), "{problems:?}");
        }
        seen += 1;
    }
    assert!(seen > 10, "only {seen} records in data/");
}

/// A lab run whose guest counted instructions: schema 5's fields round-trip, are covered by
/// the id, and validation holds them together (instructions exactly with -icount, an emulator
/// only under TCG, icount only under TCG).
#[test]
fn instruction_counts_say_so_consistently() {
    let mut r = sample();
    let c = &mut r.environment.comparability;
    c.virtualization.kind = VIRT_QEMU_TCG.into();
    c.clock = Some(Clock::Instructions);
    c.emulator = Some(Emulator {
        name: "QEMU".into(),
        version: "7.2.22".into(),
        cpu_model: "max".into(),
    });
    r.environment.lab = Some(Lab {
        qemu: "QEMU emulator version 7.2.22".into(),
        accelerator: Accelerator::Tcg,
        machine: "pc".into(),
        cpu_model: "max".into(),
        vcpus: 1,
        memory_mib: 1024,
        kernel_sha256: "a".repeat(64),
        kernel_config_sha256: None,
        kvm_fallback: None,
        boot_s: Some(9.5),
        icount: Some("shift=0,sleep=off".into()),
        seed: Some(1),
        kernel_package: Some(KernelPackage {
            name: "linux-image-6.1.0-50-amd64".into(),
            version: "6.1.176-1".into(),
            suite: Some("bookworm".into()),
        }),
    });
    let r = with_id(r);
    assert!(r.counts_instructions() && r.is_emulated());
    assert!(validate(&r).is_empty(), "{:?}", validate(&r));
    let text = to_file_json(&r);
    assert!(text.contains("\"clock\":\"instructions\""), "{text}");
    let back: RunRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(back, r);
    assert!(is_file_form(&back, text.as_bytes()));
    let mut other = r.clone();
    other
        .environment
        .comparability
        .emulator
        .as_mut()
        .unwrap()
        .version = "8.2.0".into();
    assert_ne!(
        content_id(&other),
        r.id,
        "the emulator is part of the content"
    );

    let problem = |f: &dyn Fn(&mut RunRecord), field: &str, words: &str| {
        let mut bad = r.clone();
        f(&mut bad);
        let bad = with_id(bad);
        let p = validate(&bad);
        assert!(
            p.iter()
                .any(|p| p.field == field && p.to_string().contains(words)),
            "{field}: {p:?}"
        );
    };
    problem(
        &|b| b.environment.comparability.clock = None,
        "environment.comparability.clock",
        "-icount",
    );
    problem(
        &|b| b.environment.lab.as_mut().unwrap().icount = None,
        "environment.comparability.clock",
        "-icount",
    );
    problem(
        &|b| b.environment.comparability.virtualization.kind = "vm".into(),
        "environment.comparability.emulator",
        "only a run emulated under TCG",
    );
    problem(
        &|b| {
            b.environment.lab.as_mut().unwrap().accelerator = Accelerator::Kvm;
            b.environment.comparability.virtualization.kind = "vm".into();
            b.environment.comparability.emulator = None;
        },
        "environment.comparability.clock",
        "only under TCG",
    );
}
