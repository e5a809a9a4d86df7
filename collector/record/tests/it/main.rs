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
            commit: Some("abc".into()),
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
    has(
        problems_after(|r| r.results[1].id = "native".into()),
        "appears twice",
    );
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
    let text = serde_json::to_string(&with_id(r)).unwrap();
    assert!(!text.contains("duration_s"), "{text}");
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
