//! The syscost run record: one JSON document per run, shared by the collector (which writes it)
//! and the site generator (which reads thousands of them). Serde types only — no system
//! dependencies — so reading records never pulls in BPF or seccomp code.
//!
//! Every time is in nanoseconds per *operation* — or, in a record whose clock counted
//! instructions ([`Comparability::clock`]), every `*_ns` number is instructions per operation;
//! an operation is one iteration of the probe
//! (one syscall, or five for the `mix` probe — see [`Settings::syscall`]). Every measured number
//! carries its confidence interval and the number of samples behind it; imported single-sample
//! results carry no interval (`ci_*` absent), never a made-up one.

mod builder;
pub mod check;
mod content_id;
mod environment;
mod file;
pub mod format;
pub mod kernel_ids;
pub mod key;
mod precision;
mod results;
mod unique;
mod validate;

pub use builder::RecordBuilder;
pub use content_id::{
    canonical_json, canonical_path_for, content_id, content_id_of_json, is_file_form, machine_hash,
    migrate, sanitize_path_component, to_file_json, with_id,
};
pub use environment::*;
pub use file::{dictionary4_sha256, dictionary5_sha256, dictionary_sha256, objects_json};
pub use kernel_ids::{EstimateId, KernelExpectation, KernelScenario, Relation};
pub use precision::round_to_intervals;
pub use results::*;
pub use validate::{
    validate, validate_at, validate_canonical, validate_file, validate_settings, Problem,
    ENTRIES_MAX,
};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of this format. Bump on any incompatible change; readers reject versions they do
/// not know rather than guessing.
///
/// 2: numbers rounded to the precision their intervals justify (`round_to_intervals`), the file
/// one line of compact JSON ([`to_file_json`]).
///
/// 3: the same fields, written smaller: the lists as rows, the tool's texts by their index in a
/// frozen dictionary, a throughput that is 1000 / the median marked as derived (the `file`
/// module); targets and group durations rounded too. Records of 1 and 2 still read, validate
/// and publish as they are; [`migrate`] turns them into version 3.
///
/// 4: schema 3's form with a larger dictionary (schema 3's, then the texts written since it
/// froze, so an index of 3 means the same in 4), a target's group or a group's member that is
/// the row's own id written `0`, whole numbers without `.0`. The content id is still computed
/// on schema 3's form, so [`migrate`] turns a version 3 record into 4 with the same id (1 and
/// 2 get a new one, as their numbers are rounded).
///
/// 5: what the run's clock counted and the emulator it ran in are part of the comparability
/// key ([`Comparability::clock`], [`Comparability::emulator`]: an instruction count is never
/// pooled or compared with a time, nor one emulator's with another's); a lab run says how its
/// guest was made deterministic and which distribution package its kernel came from
/// ([`Lab::icount`], [`Lab::seed`], [`Lab::kernel_package`]); the dictionary grows by
/// appending again (`dictionary5.json`). Every new field is optional and absent from older
/// records, so [`migrate`] turns a version 3 or 4 record into 5 with the same id.
///
/// 6: a run measured in several instances of its workers says so, and what each interval is
/// made of: [`RunSummary::instances`], the variance components within and between instances
/// per quantity. Optional and absent from older records: [`migrate`] turns a version 3 to 5
/// record into 6 with the same id; schema 6 writes with schema 5's dictionary.
pub const SCHEMA_VERSION: u32 = 6;

/// The oldest version this build reads.
pub const OLDEST_SCHEMA: u32 = 1;

/// Whether records of version `v` can be read.
pub fn is_readable_schema(v: u64) -> bool {
    (u64::from(OLDEST_SCHEMA)..=u64::from(SCHEMA_VERSION)).contains(&v)
}

/// One run: what was measured, where, how, and what it came to.
// Serialised by hand (`file`): as objects up to schema 2, as rows from schema 3.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RunRecord {
    /// Format version, [`SCHEMA_VERSION`].
    pub schema: u32,
    /// Content id: first 16 hex digits of the SHA-256 of the canonical record with `id` empty.
    pub id: String,
    pub source: Source,
    pub settings: Settings,
    pub environment: Environment,
    pub summary: RunSummary,
    /// Rows from schema 3 (objects before).
    #[serde(deserialize_with = "file::results")]
    #[cfg_attr(test, schemars(with = "Vec<file::ResultRow<'static>>"))]
    pub results: Vec<ScenarioResult>,
    #[serde(default, deserialize_with = "file::estimates")]
    #[cfg_attr(test, schemars(with = "Vec<file::EstimateRow<'static>>"))]
    pub estimates: Vec<Estimate>,
    #[serde(default, deserialize_with = "file::expectations")]
    #[cfg_attr(test, schemars(with = "Vec<file::ExpectationRow<'static>>"))]
    pub expectations: Vec<Expectation>,
    /// Free-form remarks (warnings raised during the run, import caveats).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// Where the numbers come from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub kind: SourceKind,
    /// Tool and version that produced the record ("syscost 0.1.0").
    pub tool: String,
    /// Git commit the tool was built from, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// How the samples were taken.
    pub method: Method,
    /// Importer format name (`kselftest-seccomp`, ...), for imported records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// URL or message id of the published log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// SHA-256 of the imported text, so the same log is recognisable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// RFC 3339 UTC time the run started (collected) or the log's date when known (imported:
    /// an RFC 3339 date or time, as the source states it — see [`Stated::date`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// Facts about an imported run that its source states outside the log (the message around
    /// it, the report it is attached to), given to `syscost import` by `--kernel`, `--arch`,
    /// `--machine`, `--date` and `--stated-in`. A fact here was not printed by the benchmark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stated: Option<Stated>,
}

/// What the source of an imported log states about the run, outside the log itself. Each field
/// present is stated by the source; where the record has a field for the same fact
/// (`comparability.kernel_release`, `comparability.arch`, `source.date`) it holds the same value
/// — except an approximate kernel, which is only here.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Stated {
    /// Where and how the source states these facts (a quote, or the part of the message).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stated_in: Option<String>,
    /// The kernel the run was on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kernel: Option<StatedKernel>,
    /// The architecture (as `uname -m` names it, when the source allows; also in
    /// `comparability.arch`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
    /// The machine as the source describes it (CPU, cores, memory, VM or not), in its words.
    /// Not a `/proc/cpuinfo` model name, so `comparability.cpu` stays as the log left it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// When the run happened (or the message was sent, when the source says nothing closer):
    /// an RFC 3339 date or UTC time; also in `source.date`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
}

/// A kernel as a source states it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StatedKernel {
    /// The release (`5.11.0-rc5-00462-gdc8df6e85d2c`, `5.10-rc4`), or for an approximate kernel
    /// the upstream version it is near (`5.7-rc`).
    pub release: String,
    /// The source gives only an approximation ("bpf-next around 5.7-rc", "a -next tree of
    /// January 2025"). Then `comparability.kernel_release` stays "unknown": an approximate
    /// version is never placed as if it had been measured on that release.
    pub approximate: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    /// Measured by `syscost run`.
    Collected,
    /// Parsed from a published log by `syscost import`.
    Import,
    /// Generated for tests and benchmarks; never belongs in `data/`.
    Synthetic,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// syscost's rounds of comparison groups, interleaved, with paired differences.
    Interleaved,
    /// The kernel `seccomp_benchmark` method: one long timing per scenario, in order.
    Sequential,
    /// Whatever the imported tool did (described by `Source::format`).
    External,
}

/// The knobs the run was started with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// Time budget in seconds (absent for imports).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_s: Option<f64>,
    /// Target CI half-width, percent of the median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ci_pct: Option<f64>,
    /// Probe: the syscall timed in the loop (`getpid`, ..., or `mix`).
    pub syscall: String,
    /// Syscalls issued per operation (5 for `mix`, else 1). Absent when an operation is not a
    /// fixed number of syscalls (an imported `perf bench syscall fork`: fork, the child's exit,
    /// the parent's wait); then [`Settings::operation`] says what it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub syscalls_per_op: Option<u32>,
    /// What one operation is, when it is more than `syscalls_per_op` calls of the probe.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<String>,
    /// CPU the workers were pinned to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu: Option<u32>,
    /// Intended duration of one sample, milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample_ms: Option<f64>,
    /// Confidence level of every interval in the record (0.95).
    pub confidence: f64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub only: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skip: Vec<String>,
}

impl RunRecord {
    /// Whether the numbers are instruction counts (see [`Clock::Instructions`]).
    pub fn counts_instructions(&self) -> bool {
        self.environment.comparability.clock() == Clock::Instructions
    }
    /// Whether the numbers come from an emulator (QEMU TCG), not from any CPU.
    pub fn is_emulated(&self) -> bool {
        self.environment.comparability.virtualization.kind == VIRT_QEMU_TCG
            || self
                .environment
                .lab
                .as_ref()
                .is_some_and(|l| l.accelerator == Accelerator::Tcg)
    }
    pub fn result(&self, id: &str) -> Option<&ScenarioResult> {
        self.results.iter().find(|r| r.id == id)
    }
    pub fn estimate(&self, id: &str) -> Option<&Estimate> {
        self.estimates.iter().find(|e| e.id == id)
    }
}

impl ScenarioResult {
    /// A result with only the identifying fields set.
    pub fn new(id: &str, family: &str, description: &str, status: Status) -> Self {
        ScenarioResult {
            id: id.to_string(),
            family: family.to_string(),
            description: description.to_string(),
            status,
            reason: None,
            median_ns: None,
            ci_low_ns: None,
            ci_high_ns: None,
            samples: None,
            iters_per_sample: None,
            mad_ns: None,
            min_ns: None,
            p90_ns: None,
            outliers: None,
            preempted: None,
            retaken: None,
            overhead: None,
            throughput_mops: None,
            verification: None,
            params: BTreeMap::new(),
        }
    }
}

#[cfg(test)]
mod schema_tests {
    use super::*;

    /// docs/record.schema.json is generated from these types; this test fails when they drift.
    /// Regenerate with `UPDATE_SCHEMA=1 cargo test -p syscost-record`.
    #[test]
    fn committed_json_schema_matches_the_types() {
        let schema = schemars::schema_for!(RunRecord);
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/record.schema.json");
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == text,
            "docs/record.schema.json is out of date: run UPDATE_SCHEMA=1 cargo test -p syscost-record"
        );
    }

    /// Every `$ref` name under `v`.
    fn refs(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    match (k.as_str(), x.as_str()) {
                        ("$ref", Some(r)) => out.push(r.trim_start_matches("#/$defs/").to_string()),
                        _ => refs(x, out),
                    }
                }
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }

    /// docs/run.schema.json: the record as plain objects with named fields ([`objects_json`],
    /// what `syscost run --json` and `syscost record --objects` print), from the same types;
    /// the file form's rows are replaced by the types they stand for.
    #[test]
    fn committed_objects_schema_matches_the_types() {
        let mut g = schemars::generate::SchemaSettings::draft2020_12().into_generator();
        g.subschema_for::<ScenarioResult>();
        g.subschema_for::<Estimate>();
        g.subschema_for::<Expectation>();
        g.subschema_for::<Target>();
        g.subschema_for::<GroupSummary>();
        let mut v = serde_json::to_value(g.into_root_schema_for::<RunRecord>()).unwrap();
        let list = |def: &str, what: &str| {
            serde_json::json!({
                "description": what,
                "type": "array",
                "items": { "$ref": format!("#/$defs/{def}") }
            })
        };
        v["title"] = "RunRecord (objects)".into();
        v["description"] = "One run record as plain objects with named fields: what `syscost run \
            --json` and `syscost record --objects` print (the file form `data/` stores writes the \
            same fields as rows: record.schema.json)."
            .into();
        v["properties"]["results"] = list("ScenarioResult", "One object per scenario.");
        v["properties"]["estimates"] = list("Estimate", "The derived quantities.");
        v["properties"]["expectations"] =
            list("Expectation", "The kernel benchmark's expectations.");
        let summary = &mut v["$defs"]["RunSummary"]["properties"];
        summary["targets"] = list("Target", "Every target, met or not.");
        summary["groups"] = list(
            "GroupSummary",
            "The comparison groups and where the time went.",
        );
        // Only the definitions still reachable.
        let mut keep = Vec::new();
        let mut todo = Vec::new();
        refs(&v["properties"], &mut todo);
        while let Some(d) = todo.pop() {
            if !keep.contains(&d) {
                refs(&v["$defs"][&d], &mut todo);
                keep.push(d);
            }
        }
        if let Some(defs) = v["$defs"].as_object_mut() {
            defs.retain(|k, _| keep.contains(k));
        }
        let text = serde_json::to_string_pretty(&v).unwrap() + "\n";
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/run.schema.json");
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == text,
            "docs/run.schema.json is out of date: run UPDATE_SCHEMA=1 cargo test -p syscost-record"
        );
    }
}
