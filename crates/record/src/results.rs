//! What a run measured: its summary, each scenario's result, the estimates and expectations.

use super::*;

/// How the run went as a whole.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct RunSummary {
    /// Rounds completed: of all comparison groups together for an interleaved run (each round
    /// samples the members of one group), 1 for one pass per scenario.
    pub rounds: u64,
    /// Wall time of the whole run, seconds (setup included). Absent when not known (most
    /// imported logs never say how long the benchmark ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_s: Option<f64>,
    pub stop_reason: StopReason,
    /// Whether every target in `targets` was met (false when there are none).
    pub target_reached: bool,
    /// Widest CI half-width among measured scenarios, percent of its median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_ci_pct: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_ci_id: Option<String>,
    /// How intervals were computed.
    pub ci_method: String,
    /// The precision asked of each reported difference (overheads, estimates) and of the medians
    /// that are no difference's part, and whether the run reached it. Absent when the run set
    /// no targets (sequential runs, imports).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "file::targets"
    )]
    #[cfg_attr(test, schemars(with = "Vec<file::TargetRow<'static>>"))]
    pub targets: Vec<Target>,
    /// The comparison groups the rounds sampled, and where the time went.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "file::groups"
    )]
    #[cfg_attr(test, schemars(with = "Vec<file::GroupRow<'static>>"))]
    pub groups: Vec<GroupSummary>,
    /// The instances of the workers the run measured in (schema 6); absent when it did not say
    /// (older records, imports, sequential runs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instances: Option<Instances>,
}

/// How many times each scenario's worker — its process, filters, programs and their JIT
/// images, buffers — was created afresh within the run, and what every reported interval is
/// made of. Each interval is over the instances (the mean of each instance's median, Student's
/// t over them), so it covers where things landed in memory as a rerun would draw them again,
/// not only the noise from sample to sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Instances {
    /// Instances of every worker (the first included).
    pub count: u64,
    /// Wall time spent replacing the workers by fresh instances, seconds.
    pub renewing_s: f64,
    /// The variance components of each quantity that has a target, in the targets' order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub components: Vec<Component>,
}

/// What one quantity's interval is made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Component {
    pub quantity: QuantityKind,
    /// As the target's id.
    pub id: String,
    /// Instances with a value of it: its interval is Student's t over them; 1: the
    /// order-statistic interval of the one instance, which cannot see the between part.
    pub instances: u64,
    /// Within: the standard error of one instance's estimate from its own samples (root mean
    /// square over the instances), ns. Absent when no instance had enough samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub within_ns: Option<f64>,
    /// Between: the standard deviation of the instances' own values, √(s² − within²) with s
    /// the standard deviation of their estimates (0 when they agree within their own noise),
    /// ns. Absent with one instance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_ns: Option<f64>,
}

/// One target: a reported quantity's 95% CI half-width against the width asked of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Target {
    pub quantity: QuantityKind,
    /// The scenario (overhead, median) or estimate id.
    pub id: String,
    /// The quantity's median, ns.
    pub median_ns: f64,
    /// Its CI half-width, ns; absent when there were too few samples for an interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub half_width_ns: Option<f64>,
    /// The half-width asked: max(target_ci_pct % of the larger of `native` and |median|,
    /// floor_ns).
    pub target_ns: f64,
    pub met: bool,
    /// The comparison group whose rounds measure it.
    pub group: String,
}

/// What a [`Target`] is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum QuantityKind {
    /// `results[id].overhead`: the paired difference over its baseline.
    Overhead,
    /// `estimates[id]`.
    Estimate,
    /// `results[id]`'s own median (a scenario no difference is made from, or an attach cost).
    Median,
}

/// A comparison group: scenarios sampled together, one round at a time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct GroupSummary {
    pub id: String,
    /// Its scenarios, the baseline first when it has one.
    pub members: Vec<String>,
    pub rounds: u64,
    /// Wall time its rounds took, seconds.
    pub duration_s: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// Every scenario's CI reached the target.
    Target,
    /// The time budget was spent first.
    Budget,
    /// One pass per scenario (sequential method, imports).
    Complete,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Measured,
    Skipped,
    Failed,
}

/// One scenario: its per-operation cost and everything needed to judge it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ScenarioResult {
    /// Stable id (`native`, `seccomp.bitmap.1`, `sud.block`, `bpf.tp`, ...).
    pub id: String,
    /// `baseline`, `seccomp`, `sud`, `bpf`, `intercept`, `attach`.
    pub family: String,
    pub description: String,
    pub status: Status,
    /// Why it was skipped or failed (and what the user can do).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Median ns per operation over the samples.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub median_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high_ns: Option<f64>,
    /// Number of samples (timed batches) behind the median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<u64>,
    /// Operations per sample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iters_per_sample: Option<u64>,
    /// Median absolute deviation of the samples (raw, not scaled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mad_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p90_ns: Option<f64>,
    /// Samples outside Tukey's fences (1.5 × IQR); kept in the data, the median resists them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outliers: Option<u64>,
    /// Samples during which the worker was involuntarily switched out (another task ran on its
    /// CPU) — counted over the whole sample request, untimed work around the timed loop
    /// included; kept in the data, counted so a busy machine shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempted: Option<u64>,
    /// Samples set aside and taken again because another task ran during them (up to three
    /// times per sample; `preempted` counts those kept all the same). Absent for scenarios
    /// whose own interceptor preempts the worker as part of each call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retaken: Option<u64>,
    /// Paired cost over this scenario's baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Overhead>,
    /// Million operations per second, with its CI: 1000 / the median (the CI's ends swapped)
    /// for a collected record — derived, so schema 3 writes it as `0` —, or as an imported
    /// tool printed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub throughput_mops: Option<Throughput>,
    /// Proof that the interception ran (handler calls, BPF hits...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<Verification>,
    /// Scenario parameters (filter count, instructions, cacheable, ...).
    #[serde(
        default,
        skip_serializing_if = "BTreeMap::is_empty",
        deserialize_with = "unique::map"
    )]
    pub params: BTreeMap<String, String>,
}

/// Scenario minus its baseline, computed per round (paired) and then summarised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Overhead {
    /// Baseline scenario id.
    pub vs: String,
    pub median_ns: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high_ns: Option<f64>,
    /// Number of paired rounds.
    pub samples: u64,
    /// Overhead as percent of the baseline.
    pub pct: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_ci_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_ci_high: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Throughput {
    pub median: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high: Option<f64>,
    /// Spread reported by an imported tool (the kernel bench's `± Y`), when that is all there is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stddev: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Verification {
    /// What was counted ("SIGSYS handler calls", "BPF program hits").
    pub what: String,
    pub expected: u64,
    pub observed: u64,
}

/// A derived quantity (entry cost, per-filter cost, ...), computed per round and summarised.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Estimate {
    /// Stable id (`entry`, `per_filter.last2`, `per_filter.div4`, `depth.slope`, ...).
    pub id: String,
    /// The kernel benchmark's wording where there is one.
    pub label: String,
    /// How it is computed, in scenario ids.
    pub formula: String,
    pub median_ns: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_low_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci_high_ns: Option<f64>,
    pub samples: u64,
    /// For imported records: whether the log printed this value, printed it wrapped around, or
    /// only printed the numbers it is computed from. Absent for collected records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<EstimateOrigin>,
}

/// Where an imported estimate's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum EstimateOrigin {
    /// The log prints this value.
    Printed,
    /// The log prints it as an unsigned wrap-around of a negative number (18446744073709551592
    /// for −24); the signed value is recorded.
    Decoded,
    /// The log does not print it (the benchmark stopped after an earlier estimate went
    /// negative); computed with the benchmark's own formula from the scenario values it prints.
    Recomputed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Pass,
    Fail,
    Inconclusive,
    /// Not evaluated (a prerequisite failed, or the inputs were not measured).
    Skip,
}

/// One of the kernel benchmark's expectations, judged from confidence intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    pub id: String,
    /// The kernel's wording: "native ≤ 1 bitmap".
    pub label: String,
    pub relation: Relation,
    pub lhs_ns: f64,
    pub rhs_ns: f64,
    /// Median of the per-round lhs − rhs, with its CI.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_median_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_ci_low_ns: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_ci_high_ns: Option<f64>,
    /// Practical-equivalence margin used by the verdict.
    pub tolerance_ns: f64,
    /// Systematic uncertainty added to both ends of the difference's CI before judging: the
    /// bias between two identical worker processes, from the A/A control
    /// (`native.replica.*`, `seccomp.bitmap.{1,2}.replica.*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub systematic_ns: Option<f64>,
    pub verdict: Verdict,
    /// What the kernel's own rule (integer ns, 10 %-or-2-ns) says on the same point values.
    pub kernel_verdict: Verdict,
}
