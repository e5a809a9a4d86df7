//! The one way records are put together: defaults for what a source cannot know, then the
//! parts, then the content id. The collector, the importer and the synthetic generator all go
//! through it, so a new field is added in one place.

use crate::{
    with_id, Environment, Estimate, Expectation, Method, RunRecord, RunSummary, ScenarioResult,
    Settings, Source, SourceKind, StopReason, SCHEMA_VERSION,
};

impl Source {
    /// A source with only what every record names: its kind, tool and method.
    pub fn new(kind: SourceKind, tool: impl Into<String>, method: Method) -> Source {
        Source {
            kind,
            tool: tool.into(),
            commit: None,
            method,
            format: None,
            url: None,
            text_sha256: None,
            note: None,
            date: None,
            stated: None,
        }
    }
}

impl Settings {
    /// Settings with only the probe and the confidence level; the rest absent.
    pub fn new(syscall: impl Into<String>, syscalls_per_op: u32, confidence: f64) -> Settings {
        Settings {
            budget_s: None,
            target_ci_pct: None,
            syscall: syscall.into(),
            syscalls_per_op: Some(syscalls_per_op),
            operation: None,
            cpu: None,
            sample_ms: None,
            confidence,
            only: Vec::new(),
            skip: Vec::new(),
        }
    }
}

impl RunSummary {
    /// One pass per scenario (a sequential run) that took `duration_s`: no rounds, no interval
    /// target.
    pub fn complete(duration_s: f64, ci_method: impl Into<String>) -> RunSummary {
        RunSummary::one_pass(Some(duration_s), ci_method)
    }

    /// One pass per scenario whose duration may be unknown (an import).
    pub fn one_pass(duration_s: Option<f64>, ci_method: impl Into<String>) -> RunSummary {
        RunSummary {
            rounds: 1,
            duration_s,
            stop_reason: StopReason::Complete,
            target_reached: false,
            worst_ci_pct: None,
            worst_ci_id: None,
            ci_method: ci_method.into(),
            targets: Vec::new(),
            groups: Vec::new(),
            instances: None,
        }
    }
}

/// A record under construction; [`RecordBuilder::build`] fills in the content id.
#[derive(Debug, Clone)]
pub struct RecordBuilder {
    record: RunRecord,
}

impl RunRecord {
    pub fn builder(
        source: Source,
        settings: Settings,
        environment: Environment,
        summary: RunSummary,
    ) -> RecordBuilder {
        RecordBuilder {
            record: RunRecord {
                schema: SCHEMA_VERSION,
                id: String::new(),
                source,
                settings,
                environment,
                summary,
                results: Vec::new(),
                estimates: Vec::new(),
                expectations: Vec::new(),
                notes: Vec::new(),
            },
        }
    }
}

impl RecordBuilder {
    pub fn result(mut self, r: ScenarioResult) -> Self {
        self.record.results.push(r);
        self
    }
    pub fn results(mut self, rs: impl IntoIterator<Item = ScenarioResult>) -> Self {
        self.record.results.extend(rs);
        self
    }
    pub fn estimates(mut self, es: impl IntoIterator<Item = Estimate>) -> Self {
        self.record.estimates.extend(es);
        self
    }
    pub fn expectations(mut self, es: impl IntoIterator<Item = Expectation>) -> Self {
        self.record.expectations.extend(es);
        self
    }
    pub fn note(mut self, n: impl Into<String>) -> Self {
        self.record.notes.push(n.into());
        self
    }
    pub fn notes(mut self, ns: impl IntoIterator<Item = String>) -> Self {
        self.record.notes.extend(ns);
        self
    }
    /// Access to the parts while building (importers fill the environment as they read it).
    pub fn record_mut(&mut self) -> &mut RunRecord {
        &mut self.record
    }
    /// The record with its numbers at the precision their intervals justify, and its content id.
    pub fn build(mut self) -> RunRecord {
        crate::round_to_intervals(&mut self.record);
        with_id(self.record)
    }
}
