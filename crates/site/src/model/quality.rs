//! How far a run's numbers can be trusted, computed once per record from what the record says
//! about its own samples: how often another task took the CPU, how close its intervals came to
//! the precision it aimed at, and how busy the machine was when it started.
//!
//! The rule (also on the methodology page):
//! - **low**: more than [`PREEMPTED_LIMIT`] of the baseline scenarios' samples were taken while
//!   another task shared the measurement CPU. Baselines (`null`, `native`, their replicas) do
//!   nothing that wakes another task, so their preemptions measure contention from outside the
//!   run; scenarios such as `seccomp.log` or a TSYNC attach wake kernel threads themselves.
//!   Without baseline counts, all scenarios' counts are used. Low runs are drawn hollow and left
//!   out of headline medians and change detection.
//! - **fair**: not low, but the median scenario's CI half-width is more than [`CI_FACTOR`] times
//!   the run's target, or the 1-minute load average at the start exceeded the logical CPUs. Its
//!   intervals are honest, only wide; it counts like a good run.
//! - **good**: neither.
//! - **not assessed**: the record has no per-sample counts and no intervals (imported logs,
//!   the sequential method).

use serde::{Deserialize, Serialize};
use syscost_record::{RunRecord, Status};

/// Share of preempted baseline samples above which a run is low quality. The collector warns
/// about each scenario above the same share.
pub const PREEMPTED_LIMIT: f64 = 0.20;

/// Median CI half-width, in multiples of the target, above which a run is only fair.
pub const CI_FACTOR: f64 = 2.0;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    Good,
    Fair,
    Low,
    NotAssessed,
}

impl Grade {
    pub fn label(self) -> &'static str {
        match self {
            Grade::Good => "good",
            Grade::Fair => "fair",
            Grade::Low => "low quality",
            Grade::NotAssessed => "not assessed",
        }
    }

    /// CSS class of the badge.
    pub fn class(self) -> &'static str {
        match self {
            Grade::Good => "q-good",
            Grade::Fair => "q-fair",
            Grade::Low => "q-low",
            Grade::NotAssessed => "q-na",
        }
    }
}

/// Preempted samples out of all samples, of the scenarios counted.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Share {
    pub preempted: u64,
    pub samples: u64,
    /// True when counted over the baseline scenarios only.
    pub baseline: bool,
}

impl Share {
    pub fn fraction(&self) -> f64 {
        self.preempted as f64 / self.samples as f64
    }
}

/// CI half-widths reached, in percent of the median.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct CiReach {
    /// The run's target half-width (percent), when it had one.
    pub target_pct: Option<f64>,
    /// Scenarios within the target, out of `of` with an interval.
    pub within: u32,
    pub of: u32,
    pub median_pct: f64,
    pub widest_pct: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Load {
    /// 1-minute load average at the start.
    pub start: f64,
    pub cpus: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    pub grade: Grade,
    pub preempted: Option<Share>,
    pub ci: Option<CiReach>,
    pub load: Option<Load>,
}

impl Quality {
    pub fn is_low(&self) -> bool {
        self.grade == Grade::Low
    }

    /// What the grade rests on, one short sentence per measure.
    pub fn reasons(&self) -> Vec<String> {
        let f = |x: f64, d: usize| format!("{x:.d$}");
        let mut out = Vec::new();
        if let Some(p) = &self.preempted {
            out.push(format!(
                "preempted in {} % of the {} samples ({} of {}; limit {} %)",
                f(p.fraction() * 100.0, 1),
                if p.baseline { "baseline" } else { "scenarios'" },
                p.preempted,
                p.samples,
                f(PREEMPTED_LIMIT * 100.0, 0)
            ));
        }
        if let Some(c) = &self.ci {
            match c.target_pct {
                Some(t) => out.push(format!(
                    "CI target ±{t} % met by {} of {}; CI median ±{} %, widest ±{} %",
                    c.within,
                    c.of,
                    f(c.median_pct, 2),
                    f(c.widest_pct, 2)
                )),
                None => out.push(format!(
                    "no CI target; median half-width ±{} %, widest ±{} %",
                    f(c.median_pct, 2),
                    f(c.widest_pct, 2)
                )),
            }
        }
        if let Some(l) = &self.load {
            out.push(match l.cpus {
                Some(n) => format!("load average {} at the start, {n} CPUs", f(l.start, 2)),
                None => format!("load average {} at the start", f(l.start, 2)),
            });
        }
        if out.is_empty() {
            out.push("the record has no per-sample counts and no intervals".to_string());
        }
        out
    }

    /// One line for a badge's tooltip.
    pub fn summary(&self) -> String {
        format!("{}: {}", self.grade.label(), self.reasons().join("; "))
    }
}

/// Scenario ids whose preemptions measure outside contention only.
fn is_baseline(family: &str) -> bool {
    family == "baseline"
}

pub fn assess(r: &RunRecord) -> Quality {
    let measured = || {
        r.results
            .iter()
            .filter(|x| x.status == Status::Measured && x.samples.is_some_and(|s| s > 1))
    };
    let count = |baseline: bool| {
        let (mut p, mut s) = (0u64, 0u64);
        for x in measured().filter(|x| !baseline || is_baseline(&x.family)) {
            if let (Some(pre), Some(n)) = (x.preempted, x.samples) {
                p = p.saturating_add(pre.min(n));
                s = s.saturating_add(n);
            }
        }
        (s > 0).then_some(Share {
            preempted: p,
            samples: s,
            baseline,
        })
    };
    let preempted = count(true).or_else(|| count(false));

    let target = r
        .settings
        .target_ci_pct
        .filter(|t| t.is_finite() && *t > 0.0);
    let mut widths: Vec<f64> = measured()
        .filter_map(|x| {
            let (m, lo, hi) = (x.median_ns?, x.ci_low_ns?, x.ci_high_ns?);
            (m.abs() > 0.0).then(|| (hi - lo) / 2.0 / m.abs() * 100.0)
        })
        .filter(|w| w.is_finite())
        .collect();
    widths.sort_by(f64::total_cmp);
    let ci = (!widths.is_empty()).then(|| CiReach {
        target_pct: target,
        within: target.map_or(0, |t| widths.iter().filter(|w| **w <= t).count() as u32),
        of: widths.len() as u32,
        median_pct: syscost_stats::median::quantile_sorted(&widths, 0.5),
        widest_pct: widths[widths.len() - 1],
    });

    let load = r
        .environment
        .incidental
        .loadavg_start
        .filter(|l| l[0].is_finite())
        .map(|l| Load {
            start: l[0],
            cpus: r.environment.comparability.cpu.logical_cpus,
        });

    let grade = if preempted.is_none() && ci.is_none() {
        Grade::NotAssessed
    } else if preempted.is_some_and(|p| p.fraction() > PREEMPTED_LIMIT) {
        Grade::Low
    } else {
        let wide = ci.is_some_and(|c| c.target_pct.is_some_and(|t| c.median_pct > CI_FACTOR * t));
        let busy = load.is_some_and(|l| l.cpus.is_some_and(|n| l.start > f64::from(n)));
        if wide || busy {
            Grade::Fair
        } else {
            Grade::Good
        }
    };
    Quality {
        grade,
        preempted,
        ci,
        load,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syscost_record::ScenarioResult;

    fn run(results: Vec<ScenarioResult>, load: Option<[f64; 3]>) -> RunRecord {
        let mut r = syscost_synth::generate(1, 5).next().unwrap();
        r.results = results;
        r.settings.target_ci_pct = Some(1.0);
        r.environment.incidental.loadavg_start = load;
        r.environment.comparability.cpu.logical_cpus = Some(2);
        r
    }

    fn res(id: &str, family: &str, ci_pct: f64, samples: u64, pre: u64) -> ScenarioResult {
        let mut x = ScenarioResult::new(id, family, "", Status::Measured);
        x.median_ns = Some(100.0);
        x.ci_low_ns = Some(100.0 - ci_pct);
        x.ci_high_ns = Some(100.0 + ci_pct);
        x.samples = Some(samples);
        x.preempted = Some(pre);
        x
    }

    #[test]
    fn contention_of_the_baselines_makes_a_run_low() {
        // 30 % of the baseline samples preempted: low, whatever the others say.
        let q = assess(&run(
            vec![
                res("native", "baseline", 0.5, 100, 30),
                res("seccomp.log", "intercept", 0.5, 100, 0),
            ],
            None,
        ));
        assert_eq!(q.grade, Grade::Low);
        assert!(q.preempted.unwrap().baseline);
        // A scenario that wakes kernel threads itself does not condemn the run.
        let q = assess(&run(
            vec![
                res("native", "baseline", 0.5, 100, 5),
                res("seccomp.log", "intercept", 0.5, 100, 90),
            ],
            Some([0.1, 0.1, 0.1]),
        ));
        assert_eq!(q.grade, Grade::Good, "{:?}", q.reasons());
        // At the limit exactly: not low.
        let q = assess(&run(vec![res("native", "baseline", 0.5, 100, 20)], None));
        assert_eq!(q.grade, Grade::Good);
        // No baseline: every scenario's counts.
        let q = assess(&run(vec![res("sud.allow", "sud", 0.5, 100, 21)], None));
        assert_eq!(q.grade, Grade::Low);
        assert!(!q.preempted.unwrap().baseline);
    }

    #[test]
    fn wide_intervals_or_a_busy_start_are_fair() {
        let q = assess(&run(
            vec![
                res("native", "baseline", 0.5, 100, 0),
                res("a", "seccomp", 3.0, 100, 0),
                res("b", "seccomp", 3.0, 100, 0),
            ],
            None,
        ));
        assert_eq!(q.grade, Grade::Fair);
        let c = q.ci.unwrap();
        assert_eq!((c.within, c.of), (1, 3));
        assert_eq!(c.median_pct, 3.0);
        let q = assess(&run(
            vec![res("native", "baseline", 0.5, 100, 0)],
            Some([4.3, 2.0, 1.0]),
        ));
        assert_eq!(q.grade, Grade::Fair);
        assert!(q.summary().contains("load average 4.30"), "{}", q.summary());
    }

    #[test]
    fn single_samples_without_counts_are_not_assessed() {
        let mut x = ScenarioResult::new("native", "baseline", "", Status::Measured);
        x.median_ns = Some(646.0);
        x.samples = Some(1);
        let q = assess(&run(vec![x], None));
        assert_eq!(q.grade, Grade::NotAssessed);
        assert_eq!(
            q.reasons(),
            ["the record has no per-sample counts and no intervals"]
        );
    }
}
