//! Plausibility rules every record must meet, whoever wrote it. The collector checks its own
//! output with them before writing; the site generator checks submissions with them.

use crate::{content_id, RunRecord, SourceKind, Status, SCHEMA_VERSION};
use std::collections::BTreeSet;
use std::fmt;

/// One thing wrong with a record: the field (a JSON path) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

struct Checker {
    problems: Vec<Problem>,
}

impl Checker {
    fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            field: field.into(),
            message: message.into(),
        });
    }

    /// A time: finite and not negative.
    fn time(&mut self, field: &str, v: Option<f64>) {
        if let Some(v) = v {
            if !v.is_finite() {
                self.push(field, format!("{v} is not a finite number"));
            } else if v < 0.0 {
                self.push(field, format!("{v} is a negative time"));
            } else if v > 1e12 {
                self.push(field, format!("{v} ns is more than 1000 s per operation"));
            }
        }
    }

    /// A difference: finite, may be negative.
    fn diff(&mut self, field: &str, v: Option<f64>) {
        if let Some(v) = v {
            if !v.is_finite() {
                self.push(field, format!("{v} is not a finite number"));
            } else if v.abs() > 1e12 {
                self.push(field, format!("{v} ns is implausibly large"));
            }
        }
    }

    /// median inside [low, high], low ≤ high.
    fn interval(&mut self, field: &str, median: Option<f64>, low: Option<f64>, high: Option<f64>) {
        match (median, low, high) {
            (Some(m), Some(l), Some(h)) if m.is_finite() && l.is_finite() && h.is_finite() => {
                if l > h {
                    self.push(field, format!("CI low {l} is above CI high {h}"));
                } else if m < l || m > h {
                    self.push(field, format!("median {m} lies outside its CI [{l}, {h}]"));
                }
            }
            (_, Some(_), None) | (_, None, Some(_)) => {
                self.push(field, "a CI needs both ci_low and ci_high")
            }
            _ => {}
        }
    }
}

/// Every problem found, empty when the record is acceptable.
pub fn validate(r: &RunRecord) -> Vec<Problem> {
    let mut c = Checker {
        problems: Vec::new(),
    };
    if r.schema != SCHEMA_VERSION {
        c.push(
            "schema",
            format!(
                "schema version {} is not supported (this build reads {SCHEMA_VERSION})",
                r.schema
            ),
        );
        return c.problems;
    }
    let expected = content_id(r);
    if r.id != expected {
        c.push(
            "id",
            format!(
                "id {:?} does not match the content hash {expected:?} (was the file edited?)",
                r.id
            ),
        );
    }
    let env = &r.environment.comparability;
    if env.arch.trim().is_empty() {
        c.push("environment.comparability.arch", "is empty");
    }
    if env.kernel_release.trim().is_empty() {
        c.push("environment.comparability.kernel_release", "is empty");
    }
    if let Some(lab) = &r.environment.lab {
        let tcg = lab.accelerator == crate::Accelerator::Tcg;
        if tcg != (env.virtualization.kind == crate::VIRT_QEMU_TCG) {
            c.push(
                "environment.comparability.virtualization.kind",
                format!(
                    "is {:?} for a lab run under {}: a TCG run is \"{}\" and only a TCG run is",
                    env.virtualization.kind,
                    lab.accelerator.name(),
                    crate::VIRT_QEMU_TCG
                ),
            );
        }
    }
    if !(r.settings.confidence > 0.0 && r.settings.confidence < 1.0) {
        c.push("settings.confidence", "must be between 0 and 1");
    }
    if r.settings.syscalls_per_op == Some(0) {
        c.push("settings.syscalls_per_op", "must be at least 1");
    }
    if r.settings.syscalls_per_op.is_none() && r.settings.operation.is_none() {
        c.push(
            "settings.operation",
            "without syscalls_per_op the record must say what an operation is",
        );
    }
    if let Some(d) = r.summary.duration_s {
        if !d.is_finite() || d < 0.0 {
            c.push(
                "summary.duration_s",
                "must be a finite, non-negative number",
            );
        }
    }
    // An imported fragment may quote only a run's estimates (no scenario lines): still a
    // record. Anything else without results is not.
    let fragment = r.source.kind == SourceKind::Import && !r.estimates.is_empty();
    if r.results.is_empty() && !fragment {
        c.push("results", "the record has no results");
    }
    if let Some(k) = r.source.stated.as_ref().and_then(|s| s.kernel.as_ref()) {
        if k.release.trim().is_empty() {
            c.push("source.stated.kernel.release", "is empty");
        }
        if k.approximate && k.release == env.kernel_release {
            c.push(
                "environment.comparability.kernel_release",
                "an approximate stated kernel must not be recorded as the kernel release",
            );
        }
    }
    let mut seen = BTreeSet::new();
    for (i, res) in r.results.iter().enumerate() {
        let p = format!("results[{i}] ({})", res.id);
        if res.id.trim().is_empty() {
            c.push(format!("results[{i}].id"), "is empty");
        }
        if !seen.insert(res.id.as_str()) {
            c.push(format!("{p}.id"), "appears twice");
        }
        match res.status {
            Status::Measured => {
                if res.median_ns.is_none() {
                    c.push(format!("{p}.median_ns"), "a measured result needs a median");
                }
                if res.samples.unwrap_or(0) == 0 {
                    c.push(
                        format!("{p}.samples"),
                        "a measured result needs samples ≥ 1",
                    );
                }
            }
            Status::Skipped | Status::Failed => {
                if res.reason.as_deref().unwrap_or("").trim().is_empty() {
                    c.push(
                        format!("{p}.reason"),
                        "a skipped or failed result must say why",
                    );
                }
            }
        }
        c.time(&format!("{p}.median_ns"), res.median_ns);
        c.time(&format!("{p}.ci_low_ns"), res.ci_low_ns);
        c.time(&format!("{p}.ci_high_ns"), res.ci_high_ns);
        c.time(&format!("{p}.mad_ns"), res.mad_ns);
        c.time(&format!("{p}.min_ns"), res.min_ns);
        c.time(&format!("{p}.p90_ns"), res.p90_ns);
        c.interval(&p, res.median_ns, res.ci_low_ns, res.ci_high_ns);
        if let Some(o) = &res.overhead {
            let q = format!("{p}.overhead");
            c.diff(&format!("{q}.median_ns"), Some(o.median_ns));
            c.diff(&format!("{q}.ci_low_ns"), o.ci_low_ns);
            c.diff(&format!("{q}.ci_high_ns"), o.ci_high_ns);
            c.diff(&format!("{q}.pct"), Some(o.pct));
            c.interval(&q, Some(o.median_ns), o.ci_low_ns, o.ci_high_ns);
            c.interval(
                &format!("{q}.pct"),
                Some(o.pct),
                o.pct_ci_low,
                o.pct_ci_high,
            );
        }
        if let Some(t) = &res.throughput_mops {
            let q = format!("{p}.throughput_mops");
            c.time(&format!("{q}.median"), Some(t.median));
            c.interval(&q, Some(t.median), t.ci_low, t.ci_high);
        }
    }
    for (i, e) in r.estimates.iter().enumerate() {
        let p = format!("estimates[{i}] ({})", e.id);
        c.diff(&format!("{p}.median_ns"), Some(e.median_ns));
        c.interval(&p, Some(e.median_ns), e.ci_low_ns, e.ci_high_ns);
    }
    for (i, e) in r.expectations.iter().enumerate() {
        let p = format!("expectations[{i}] ({})", e.id);
        c.diff(&format!("{p}.lhs_ns"), Some(e.lhs_ns));
        c.diff(&format!("{p}.rhs_ns"), Some(e.rhs_ns));
        c.interval(&p, e.diff_median_ns, e.diff_ci_low_ns, e.diff_ci_high_ns);
    }
    c.problems
}
