//! The parts every imported record shares, and the types parsers hand back.

use syscost_record::{
    Comparability, Environment, Incidental, Method, Overhead, RunRecord, RunSummary,
    ScenarioResult, Settings, Source, SourceKind, Status, StopReason, Virtualization,
    SCHEMA_VERSION,
};

/// Written into `summary.ci_method` of every imported record.
pub const CI_METHOD: &str = "none (imported single measurement)";

/// One run found in a log.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// First and last line of the run in the original file (1-based).
    pub first_line: usize,
    pub last_line: usize,
    pub record: RunRecord,
}

/// Where a log looked like a format but held no result, for the error message.
#[derive(Debug, Clone, PartialEq)]
pub struct Hint {
    pub line: usize,
    pub text: String,
    /// Why nothing came of it ("begins a run, but no result follows").
    pub why: String,
}

/// Why most empty runs are empty.
pub const NO_RESULT_FOLLOWS: &str = "begins a run, but no result follows";

impl Hint {
    /// A run that begins at `line` of the cleaned log but holds no result.
    pub fn no_result_at(cleaned: &crate::text::Cleaned, line: usize) -> Hint {
        Hint {
            line,
            text: cleaned
                .lines
                .iter()
                .find(|l| l.no == line)
                .map(|l| l.text.clone())
                .unwrap_or_default(),
            why: NO_RESULT_FOLLOWS.into(),
        }
    }
}

/// What one parser made of one log.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub runs: Vec<Parsed>,
    /// Parts that looked like a run but held no result (reported, not fatal, when other runs
    /// were found).
    pub empty: Vec<Hint>,
}

/// A record with everything an import cannot know set to its honest default.
pub fn skeleton(format: &str, syscall: &str) -> RunRecord {
    RunRecord {
        schema: SCHEMA_VERSION,
        id: String::new(),
        source: Source {
            kind: SourceKind::Import,
            tool: format!("syscost {} import", env!("CARGO_PKG_VERSION")),
            commit: None,
            method: Method::External,
            format: Some(format.to_string()),
            url: None,
            text_sha256: None,
            note: None,
            date: None,
        },
        settings: Settings {
            budget_s: None,
            target_ci_pct: None,
            syscall: syscall.to_string(),
            syscalls_per_op: 1,
            cpu: None,
            sample_ms: None,
            confidence: 0.95,
            only: Vec::new(),
            skip: Vec::new(),
        },
        environment: Environment {
            comparability: Comparability {
                arch: "unknown".to_string(),
                kernel_release: "unknown".to_string(),
                virtualization: Virtualization {
                    kind: "unknown".to_string(),
                    ..Default::default()
                },
                ..Default::default()
            },
            incidental: Incidental::default(),
        },
        summary: RunSummary {
            rounds: 1,
            duration_s: 0.0,
            stop_reason: StopReason::Complete,
            target_reached: false,
            worst_ci_pct: None,
            worst_ci_id: None,
            ci_method: CI_METHOD.to_string(),
        },
        results: Vec::new(),
        estimates: Vec::new(),
        expectations: Vec::new(),
        notes: Vec::new(),
    }
}

/// A measured result from one published number: one sample, no interval.
pub fn single(id: &str, family: &str, description: &str, ns: f64) -> ScenarioResult {
    let mut r = ScenarioResult::new(id, family, description, Status::Measured);
    r.median_ns = Some(ns);
    r.samples = Some(1);
    r
}

/// `ns − base_ns`, in ns and percent, from two single numbers (no interval). None when the
/// baseline cannot give a percentage.
pub fn overhead_vs(vs: &str, base_ns: f64, ns: f64) -> Option<Overhead> {
    (base_ns > 0.0 && base_ns.is_finite() && ns.is_finite()).then(|| Overhead {
        vs: vs.to_string(),
        median_ns: ns - base_ns,
        ci_low_ns: None,
        ci_high_ns: None,
        samples: 1,
        pct: (ns - base_ns) / base_ns * 100.0,
        pct_ci_low: None,
        pct_ci_high: None,
    })
}

/// Records which lines of the file a run came from, and what cleaning was needed.
pub fn provenance(record: &mut RunRecord, first: usize, last: usize, repairs: &[String]) {
    record
        .environment
        .incidental
        .other
        .insert("log lines".to_string(), format!("{first}-{last}"));
    if !repairs.is_empty() {
        record.notes.push(format!(
            "The log was cleaned before parsing: {}.",
            repairs.join("; ")
        ));
    }
}
