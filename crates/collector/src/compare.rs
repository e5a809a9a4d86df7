//! Two records compared: for every quantity both report with an interval, the difference
//! NEW − BASE with its 95 % interval, the relative difference where it means something, and a
//! verdict. Pure functions of the records (no I/O); `commands::compare` reads the files and
//! `report::table` prints. The rules are in docs/compare.md.
//!
//! The two records are independent measurements, so the difference's standard error is
//! √(se_base² + se_new²), each se read back from its record's interval as half-width / z (z the
//! normal quantile of the record's confidence, 1.96 for 95 %). Nothing else is known of a
//! record's sampling distribution once it is written; an interval that is not symmetric is
//! taken at its mean half-width. When the engine's intervals carry the variation between runs
//! (instances), so does this difference: it uses the intervals the records report, as they are.

use serde::Serialize;
use syscost_record::key::{comparability_key, key_differences, KeyPart};
use syscost_record::{Clock, RunRecord, Status};

use syscost_stats::Outcome;

pub mod pool;
pub use syscost_stats::{
    difference, relative, z_of, Value, COUNT_STEP, DEFAULT_MARGIN_PCT, MARGIN_FLOOR_NS,
    RELATIVE_MAX_PCT, RELATIVE_MIN_PRECISION,
};

/// What a quantity is in its record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A scenario's median cost per operation (`results[id]`).
    Median,
    /// A scenario's paired overhead over its baseline (`results[id].overhead`, `vs` the
    /// baseline).
    Overhead,
    /// A derived estimate (`estimates[id]`).
    Estimate,
    /// An expectation's per-round difference, its left side minus its right side
    /// (`expectations[id].diff_*`): not a cost, so higher or lower, not slower or faster.
    Expectation,
}

/// One quantity of one record that carries an interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Quantity {
    pub kind: Kind,
    pub id: String,
    /// The baseline of an overhead.
    pub vs: Option<String>,
    pub label: String,
    pub value: Value,
}

/// How the table names a quantity.
fn name(kind: Kind, id: &str, vs: Option<&str>, label: &str) -> String {
    match kind {
        Kind::Median => id.to_string(),
        Kind::Overhead => format!("{id} − {}", vs.unwrap_or("?")),
        Kind::Estimate => format!("estimate {id}"),
        Kind::Expectation => format!("{label} (lhs − rhs)"),
    }
}

impl Quantity {
    pub fn name(&self) -> String {
        name(self.kind, &self.id, self.vs.as_deref(), &self.label)
    }

    fn same(&self, o: &Quantity) -> bool {
        self.kind == o.kind && self.id == o.id && self.vs == o.vs
    }
}

fn value(m: Option<f64>, lo: Option<f64>, hi: Option<f64>) -> Option<Value> {
    match (m, lo, hi) {
        (Some(median), Some(low), Some(high))
            if median.is_finite() && low.is_finite() && high.is_finite() && low <= high =>
        {
            Some(Value { median, low, high })
        }
        _ => None,
    }
}

/// The quantities of a record that carry an interval, in the record's order; and how many it
/// reports without one (an imported single timing), which no comparison can judge.
pub fn quantities(r: &RunRecord) -> (Vec<Quantity>, usize) {
    let mut out = Vec::new();
    let mut without = 0;
    let mut push = |kind, id: &str, vs: Option<&str>, label: &str, v: Option<Value>| match v {
        Some(value) => out.push(Quantity {
            kind,
            id: id.to_string(),
            vs: vs.map(str::to_string),
            label: label.to_string(),
            value,
        }),
        None => without += 1,
    };
    for res in r.results.iter().filter(|x| x.status == Status::Measured) {
        if res.median_ns.is_some() {
            let v = value(res.median_ns, res.ci_low_ns, res.ci_high_ns);
            push(Kind::Median, &res.id, None, &res.description, v);
        }
        if let Some(o) = &res.overhead {
            let v = value(Some(o.median_ns), o.ci_low_ns, o.ci_high_ns);
            push(Kind::Overhead, &res.id, Some(&o.vs), &res.description, v);
        }
    }
    for e in &r.estimates {
        let v = value(Some(e.median_ns), e.ci_low_ns, e.ci_high_ns);
        push(Kind::Estimate, &e.id, None, &e.label, v);
    }
    for x in &r.expectations {
        if x.diff_median_ns.is_some() {
            let v = value(x.diff_median_ns, x.diff_ci_low_ns, x.diff_ci_high_ns);
            push(Kind::Expectation, &x.id, None, &x.label, v);
        }
    }
    (out, without)
}

/// What a comparison says of one quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A cost that rose: the difference's interval excludes zero (and is not within the margin).
    Slower,
    /// A cost that fell.
    Faster,
    /// An expectation's difference that rose.
    Higher,
    /// An expectation's difference that fell.
    Lower,
    /// Neither a change nor no change: the interval holds zero and reaches past the margin.
    Inconclusive,
    /// The whole interval lies within ±margin.
    NoChange,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Slower => "slower",
            Verdict::Faster => "faster",
            Verdict::Higher => "higher",
            Verdict::Lower => "lower",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoChange => "no change",
        }
    }

    /// Whether the data show a change (either way).
    pub fn is_change(self) -> bool {
        matches!(
            self,
            Verdict::Slower | Verdict::Faster | Verdict::Higher | Verdict::Lower
        )
    }
}

/// One shared quantity, compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Row {
    pub kind: Kind,
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vs: Option<String>,
    pub label: String,
    pub base: Value,
    pub new: Value,
    /// NEW − BASE, with its interval.
    pub diff: Value,
    /// The difference in percent of |BASE|, with its interval; absent where a ratio means
    /// nothing (see [`relative`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relative_pct: Option<Value>,
    /// The equivalence margin the verdict used, in the records' unit.
    pub margin: f64,
    pub verdict: Verdict,
    /// Set when the records are not comparable and `--force` compared them anyway.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// Which record a side of a comparison is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct RecordRef {
    pub id: String,
    /// The file it was read from (set by the command).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub kernel_release: String,
    pub arch: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// With `--pool`: the ids of the runs pooled into this side (then `id` is them joined by
    /// `+`, and `date` the earliest run's).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pooled: Vec<String>,
}

impl RecordRef {
    pub fn of(r: &RunRecord) -> RecordRef {
        RecordRef {
            id: r.id.clone(),
            file: None,
            kernel_release: r.environment.comparability.kernel_release.clone(),
            arch: r.environment.comparability.arch.clone(),
            date: r.source.date.clone(),
            pooled: Vec::new(),
        }
    }
}

/// One side of a comparison: a record, or several runs pooled ([`pool::pool`]).
#[derive(Debug, Clone)]
pub struct Side {
    pub reference: RecordRef,
    key: Vec<KeyPart>,
    counts_instructions: bool,
    confidence: f64,
    /// The quantities with an interval, each with its spread when pooled.
    quantities: Vec<(Quantity, Option<Spread>)>,
    /// Quantities reported without an interval (pooled: or not by every run).
    without: usize,
}

/// A pooled quantity's standard error and its degrees of freedom (runs − 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub se: f64,
    pub df: usize,
}

impl Side {
    /// One record as it is.
    pub fn of(r: &RunRecord) -> Side {
        let (q, without) = quantities(r);
        Side {
            reference: RecordRef::of(r),
            key: comparability_key(r),
            counts_instructions: r.counts_instructions(),
            confidence: r.settings.confidence,
            quantities: q.into_iter().map(|q| (q, None)).collect(),
            without,
        }
    }
}

impl Row {
    pub fn name(&self) -> String {
        name(self.kind, &self.id, self.vs.as_deref(), &self.label)
    }
}

/// How one NEW record compares with BASE.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Comparison {
    pub base: RecordRef,
    pub new: RecordRef,
    /// The unit of every number (`ns` or `instructions`), per operation.
    pub unit: &'static str,
    /// Confidence of every interval.
    pub confidence: f64,
    /// `--margin`, percent (for time; an instruction count's margin is one instruction).
    pub margin_pct: f64,
    /// The parts of the comparability key in which the records differ (compared only with
    /// `--force`): name, BASE's value, NEW's.
    pub incomparable: Vec<KeyDifference>,
    /// Shared quantities, changes first (the largest first), then the inconclusive, then those
    /// that did not change.
    pub rows: Vec<Row>,
    /// Quantities only one record has (with an interval).
    pub only_base: Vec<String>,
    pub only_new: Vec<String>,
    /// Quantities that either record reports without an interval: not judged.
    pub without_interval: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct KeyDifference {
    pub part: &'static str,
    pub base: String,
    pub new: String,
}

/// What `syscost compare --json` prints (docs/compare.schema.json).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
pub struct Report {
    /// The tool that compared (`syscost 0.1.0`).
    pub tool: String,
    /// One comparison per NEW record, in the order given.
    pub comparisons: Vec<Comparison>,
}

/// Records whose comparability keys differ.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{} is not comparable with the base: {}", .new_id, describe(.differences))]
pub struct Incomparable {
    pub new_id: String,
    pub differences: Vec<KeyDifference>,
}

fn describe(d: &[KeyDifference]) -> String {
    d.iter()
        .map(|k| format!("{} differs (base: {}; new: {})", k.part, k.base, k.new))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The equivalence margin of a quantity whose base value is `base`: `margin_pct` % of it, at
/// least [`MARGIN_FLOOR_NS`]; for an instruction count, [`COUNT_STEP`].
pub fn margin(clock: Clock, base: f64, margin_pct: f64) -> f64 {
    match clock {
        Clock::Time => syscost_stats::time_margin(base, margin_pct),
        Clock::Instructions => syscost_stats::count_margin(),
    }
}

/// The verdict on a difference and its interval ([`syscost_stats::outcome`]), in the words of
/// a cost (slower, faster) or of an expectation's side difference (higher, lower).
pub fn verdict(kind: Kind, diff: Value, margin: f64) -> Verdict {
    let cost = kind != Kind::Expectation;
    match syscost_stats::outcome(diff, margin) {
        Outcome::NoChange => Verdict::NoChange,
        Outcome::Inconclusive => Verdict::Inconclusive,
        Outcome::Higher if cost => Verdict::Slower,
        Outcome::Higher => Verdict::Higher,
        Outcome::Lower if cost => Verdict::Faster,
        Outcome::Lower => Verdict::Lower,
    }
}

/// Options of a comparison.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub margin_pct: f64,
    /// Compare records whose comparability keys differ (every row then carries a warning).
    pub force: bool,
}

/// Compares `new` with `base`: Err when their comparability keys differ and `force` is off.
pub fn compare(
    base: &RunRecord,
    new: &RunRecord,
    opts: Options,
) -> Result<Comparison, Incomparable> {
    compare_sides(&Side::of(base), &Side::of(new), opts)
}

/// NEW − BASE and its interval. Two records: the difference of two normal estimates (their
/// intervals read back as standard errors). A pooled side: its standard error over runs has
/// few degrees of freedom, so the interval is Welch's, Student's t with the
/// Welch–Satterthwaite degrees of freedom (a record's side counting as infinitely many).
fn diff_of(b: (&Value, Option<Spread>, f64), n: (&Value, Option<Spread>, f64), c: f64) -> Value {
    let side = |v: &Value, s: Option<Spread>, z: f64| match s {
        Some(s) => syscost_stats::Side {
            mean: v.median,
            se: s.se,
            df: s.df as f64,
        },
        None => syscost_stats::Side::single(*v, z),
    };
    syscost_stats::welch(side(b.0, b.1, b.2), side(n.0, n.1, n.2), c)
}

/// Compares two sides (a record each, or pooled runs): Err when their comparability keys
/// differ and `force` is off.
pub fn compare_sides(base: &Side, new: &Side, opts: Options) -> Result<Comparison, Incomparable> {
    let incomparable: Vec<KeyDifference> = key_differences(&base.key, &new.key)
        .into_iter()
        .map(|(part, b, n)| KeyDifference {
            part,
            base: b,
            new: n,
        })
        .collect();
    if !incomparable.is_empty() && !opts.force {
        return Err(Incomparable {
            new_id: new.reference.id.clone(),
            differences: incomparable,
        });
    }
    let warning = (!incomparable.is_empty()).then(|| {
        format!(
            "not comparable ({} differ{})",
            incomparable
                .iter()
                .map(|k| k.part)
                .collect::<Vec<_>>()
                .join(", "),
            if incomparable.len() == 1 { "s" } else { "" }
        )
    });
    // A time compared with an instruction count (only with --force) is judged as a time.
    let clock = if base.counts_instructions && new.counts_instructions {
        Clock::Instructions
    } else {
        Clock::Time
    };
    let floor = match clock {
        Clock::Time => MARGIN_FLOOR_NS,
        Clock::Instructions => COUNT_STEP,
    };
    // The same record twice is one measurement, not two independent ones: its difference
    // with itself is exactly zero.
    let same = !base.reference.id.is_empty() && base.reference.id == new.reference.id;
    let (cb, cn) = (base.confidence, new.confidence);
    let (zb, zn) = (z_of(cb), z_of(cn));
    let confidence = cb.min(cn);
    let (bq, nq) = (&base.quantities, &new.quantities);
    let mut rows = Vec::new();
    let mut only_base = Vec::new();
    for (b, bs) in bq {
        let Some((n, ns)) = nq.iter().find(|(n, _)| n.same(b)) else {
            only_base.push(b.name());
            continue;
        };
        let diff = if same {
            Value {
                median: 0.0,
                low: 0.0,
                high: 0.0,
            }
        } else {
            diff_of((&b.value, *bs, zb), (&n.value, *ns, zn), confidence)
        };
        let m = margin(clock, b.value.median, opts.margin_pct);
        rows.push(Row {
            kind: b.kind,
            id: b.id.clone(),
            vs: b.vs.clone(),
            label: b.label.clone(),
            base: b.value,
            new: n.value,
            diff,
            // An expectation's side difference is no cost: its ratio says nothing.
            relative_pct: (b.kind != Kind::Expectation)
                .then(|| relative(b.value, diff, floor))
                .flatten(),
            margin: m,
            verdict: verdict(b.kind, diff, m),
            warning: warning.clone(),
        });
    }
    let only_new = nq
        .iter()
        .filter(|(n, _)| !bq.iter().any(|(b, _)| b.same(n)))
        .map(|(n, _)| n.name())
        .collect();
    // Changes first, then the undecided, then the rest; the largest difference first in each.
    let rank = |v: Verdict| match v {
        v if v.is_change() => 0,
        Verdict::Inconclusive => 1,
        _ => 2,
    };
    rows.sort_by(|a, b| {
        rank(a.verdict)
            .cmp(&rank(b.verdict))
            .then(b.diff.median.abs().total_cmp(&a.diff.median.abs()))
    });
    Ok(Comparison {
        base: base.reference.clone(),
        new: new.reference.clone(),
        unit: clock.unit(),
        confidence,
        margin_pct: opts.margin_pct,
        incomparable,
        rows,
        only_base,
        only_new,
        without_interval: base.without + new.without,
    })
}

/// The rows that are regressions beyond `pct` percent: a cost judged slower whose relative
/// difference is shown and exceeds `pct`.
pub fn regressions(c: &Comparison, pct: f64) -> Vec<&Row> {
    c.rows
        .iter()
        .filter(|r| r.verdict == Verdict::Slower)
        .filter(|r| r.relative_pct.is_some_and(|p| p.median > pct))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/compare.schema.json is generated from these types; this test fails when they
    /// drift. Regenerate with `UPDATE_SCHEMA=1 cargo test -p syscost --lib compare`.
    #[test]
    fn committed_json_schema_matches_the_types() {
        let schema = schemars::schema_for!(Report);
        let text = serde_json::to_string_pretty(&schema).unwrap() + "\n";
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/compare.schema.json"
        );
        if std::env::var_os("UPDATE_SCHEMA").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        let committed = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            committed == text,
            "docs/compare.schema.json is out of date: run UPDATE_SCHEMA=1 cargo test -p syscost --lib compare"
        );
    }

    fn v(m: f64, h: f64) -> Value {
        Value {
            median: m,
            low: m - h,
            high: m + h,
        }
    }

    #[test]
    fn verdicts_follow_the_interval_and_the_margin() {
        let m = 1.0;
        assert_eq!(verdict(Kind::Median, v(5.0, 1.0), m), Verdict::Slower);
        assert_eq!(verdict(Kind::Median, v(-5.0, 1.0), m), Verdict::Faster);
        assert_eq!(verdict(Kind::Median, v(0.2, 0.5), m), Verdict::NoChange);
        assert_eq!(verdict(Kind::Median, v(0.2, 3.0), m), Verdict::Inconclusive);
        assert_eq!(verdict(Kind::Expectation, v(5.0, 1.0), m), Verdict::Higher);
        // Exact counts: one instruction is a change, none is none.
        assert_eq!(
            verdict(Kind::Estimate, v(1.0, 0.0), COUNT_STEP),
            Verdict::Slower
        );
        assert_eq!(
            verdict(Kind::Estimate, v(0.0, 0.0), COUNT_STEP),
            Verdict::NoChange
        );
        assert_eq!(
            verdict(Kind::Estimate, v(-1.0, 0.0), COUNT_STEP),
            Verdict::Faster
        );
        let m = margin(Clock::Instructions, 418.01, DEFAULT_MARGIN_PCT);
        assert_eq!(
            verdict(Kind::Median, v(419.01 - 418.01, 0.0), m),
            Verdict::Slower
        );
        assert_eq!(verdict(Kind::Median, v(0.5, 0.0), m), Verdict::NoChange);
    }
}
