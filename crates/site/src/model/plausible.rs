//! Plausibility, beyond validity: a record can pass every rule and still be wrong (a debug
//! build, a busy machine, an edited number given a fresh id). `check` compares each run not yet
//! accepted in the triage file with the other runs of its series (same architecture, CPU
//! model, mitigation profile and virtualisation) on every headline metric, and warns with the
//! numbers when it is far from them.
//!
//! The comparison is a robust z-score on a log scale: overheads are ratios of machines' speeds,
//! so a run twice as slow is as far above as one twice as fast is below. For a metric with
//! value `x` and the peers' values `p`: `z = (ln x − median(ln p)) / s`, with
//! `s = max(1.4826 · MAD(ln p), ln 1.1)` (the MAD scaled to a standard deviation for normal
//! data, floored at a 10 % spread so that a few nearly identical peers do not make every
//! difference an outlier). Only positive values have a logarithm; others are not compared.
//!
//! A run measured in several instances of its workers (`summary.instances`, schema 6) has an
//! interval that covers what a rerun would move: its own standard error on the log scale,
//! `u = (ln hi − ln lo) / (2 · 1.96)`, joins the spread, `√(s² + u²)` — the same interval the
//! change detection and `syscost compare` judge it by. An older run's interval covers the
//! noise within one run only, and is left out.

use crate::model::metrics::{Registry, Values, METRICS};
use crate::model::series::SeriesKey;
use syscost_record::RunRecord;

/// Fewest peers a comparison needs (with fewer, their median says little).
pub const MIN_PEERS: usize = 3;
/// |z| beyond which a value is reported (Iglewicz and Hoaglin's cut-off for the modified
/// z-score).
pub const Z_LIMIT: f64 = 3.5;
/// The floor of the spread, on the log scale.
pub fn min_spread() -> f64 {
    1.1f64.ln()
}

/// What the comparison needs of one run.
#[derive(Debug, Clone)]
pub struct Run {
    /// The file, for the message.
    pub path: String,
    pub series: SeriesKey,
    /// (metric index, value, its own standard error on the log scale) for every positive
    /// headline metric; the error is 0 where the record's interval does not span instances.
    pub values: Vec<(u8, f64, f64)>,
    /// Accepted by a maintainer: a peer, never itself reported.
    pub accepted: bool,
}

impl Run {
    /// `r`'s positive headline values, its metric keys interned in `reg`.
    pub fn of(path: String, r: &RunRecord, reg: &mut Registry, accepted: bool) -> Run {
        let vals = Values::read(r, reg);
        let spans = r.summary.instances.as_ref().is_some_and(|i| i.count > 1);
        let values = METRICS
            .iter()
            .enumerate()
            .filter_map(|(i, h)| {
                let v = vals.find(reg.find_key(&h.key())?)?;
                let u = match v.ci() {
                    Some((lo, hi)) if spans && lo > 0.0 && hi >= lo => {
                        (hi.ln() - lo.ln()) / (2.0 * 1.96)
                    }
                    _ => 0.0,
                };
                (v.median > 0.0 && v.median.is_finite()).then_some((i as u8, v.median, u))
            })
            .collect();
        Run {
            path,
            series: crate::model::summary::record_series(r),
            values,
            accepted,
        }
    }
}

/// One value far from its series.
#[derive(Debug, Clone, PartialEq)]
pub struct Outlier {
    pub path: String,
    pub metric: &'static str,
    pub value: f64,
    pub z: f64,
    pub peers: usize,
    pub peer_median: f64,
    /// The spread `s` as a factor (`e^s`).
    pub spread: f64,
}

impl std::fmt::Display for Outlier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "implausible? {} is {} ns, {:.1} robust z-scores {} the {} other runs of its series \
             (their median {} ns, typical spread ×{:.2}); check that the machine was idle and \
             syscost a release build — a maintainer who accepts it lists it in data/triage.tsv",
            self.metric,
            g(self.value),
            self.z.abs(),
            if self.z > 0.0 { "above" } else { "below" },
            self.peers,
            g(self.peer_median),
            self.spread
        )
    }
}

fn g(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// The robust z-score of `x` among `peers` (all positive), with the peers' median and spread.
pub fn robust_z(x: f64, peers: &[f64]) -> (f64, f64, f64) {
    let mut logs: Vec<f64> = peers.iter().map(|p| p.ln()).collect();
    let m = syscost_stats::median::median_in(&mut logs);
    let mut dev: Vec<f64> = logs.iter().map(|l| (l - m).abs()).collect();
    let s = (1.4826 * syscost_stats::median::median_in(&mut dev)).max(min_spread());
    ((x.ln() - m) / s, m.exp(), s.exp())
}

/// Largest series whose runs are each compared with all the others (leave-one-out, quadratic
/// in the series' size). A larger series is compared with its own median and spread, computed
/// once: one run then moves them by a fraction of a percent.
pub const LEAVE_ONE_OUT_MAX: usize = 200;

/// Every value of a run not accepted yet that lies beyond [`Z_LIMIT`] from the other runs of
/// its series.
pub fn outliers(runs: &[Run]) -> Vec<Outlier> {
    let mut by_series: std::collections::BTreeMap<&SeriesKey, Vec<&Run>> = Default::default();
    for r in runs {
        by_series.entry(&r.series).or_default().push(r);
    }
    let mut out = Vec::new();
    for members in by_series.values() {
        if members.iter().all(|r| r.accepted) {
            continue;
        }
        for metric in 0..METRICS.len() as u8 {
            // (member index, value) of every run of the series that has this metric.
            let vals: Vec<(usize, f64, f64)> = members
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    let v = r.values.iter().find(|v| v.0 == metric)?;
                    Some((i, v.1, v.2))
                })
                .collect();
            if vals.len() <= MIN_PEERS {
                continue;
            }
            let whole = (vals.len() > LEAVE_ONE_OUT_MAX).then(|| {
                let all: Vec<f64> = vals.iter().map(|v| v.1).collect();
                robust_z(1.0, &all)
            });
            for &(i, x, u) in &vals {
                let r = members[i];
                if r.accepted {
                    continue;
                }
                let (z, peer_median, spread) = match whole {
                    Some((_, m, s)) => ((x.ln() - m.ln()) / s.ln(), m, s),
                    None => {
                        let peers: Vec<f64> =
                            vals.iter().filter(|v| v.0 != i).map(|v| v.1).collect();
                        robust_z(x, &peers)
                    }
                };
                // The run's own interval, where it spans instances, widens the spread.
                let s = spread.ln();
                let wide = (s * s + u * u).sqrt();
                let (z, spread) = (z * s / wide, wide.exp());
                if z.abs() > Z_LIMIT {
                    out.push(Outlier {
                        path: r.path.clone(),
                        metric: METRICS[metric as usize].label,
                        value: x,
                        z,
                        peers: vals.len() - 1,
                        peer_median,
                        spread,
                    });
                }
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path).then(a.metric.cmp(b.metric)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SeriesKey {
        crate::model::series::test_key("c")
    }

    fn run(path: &str, entry: f64, accepted: bool) -> Run {
        Run {
            path: path.into(),
            series: key(),
            values: vec![(0, entry, 0.0)],
            accepted,
        }
    }

    #[test]
    fn a_run_whose_interval_spans_instances_is_judged_with_it() {
        let mut runs = vec![
            run("a", 30.0, true),
            run("b", 32.0, true),
            run("c", 29.0, true),
            run("d", 31.0, true),
            run("new", 45.0, false),
        ];
        assert_eq!(outliers(&runs).len(), 1);
        // Its interval (over instances) is 45 ± 30 %: within it, the peers are not far.
        runs[4].values[0].2 = ((45.0f64 * 1.3).ln() - (45.0f64 * 0.7).ln()) / (2.0 * 1.96);
        assert!(outliers(&runs).is_empty());
    }

    #[test]
    fn a_run_ten_times_its_peers_is_reported_with_the_numbers() {
        let runs = vec![
            run("a", 30.0, true),
            run("b", 32.0, true),
            run("c", 29.0, true),
            run("d", 31.0, false),
            run("new", 310.0, false),
        ];
        let o = outliers(&runs);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].path, "new");
        assert_eq!(o[0].peers, 4);
        assert!(o[0].z > 3.5, "{o:?}");
        let s = o[0].to_string();
        assert!(
            s.contains("310 ns") && s.contains("above the 4 other runs"),
            "{s}"
        );
        assert!(s.contains("median 30.496 ns"), "{s}");
    }

    #[test]
    fn accepted_runs_and_small_series_are_not_reported() {
        let runs = vec![
            run("a", 30.0, true),
            run("b", 32.0, true),
            run("x", 300.0, true),
        ];
        assert!(outliers(&runs).is_empty());
        // Two peers are too few to judge by.
        let runs = vec![
            run("a", 30.0, true),
            run("b", 32.0, true),
            run("x", 300.0, false),
        ];
        assert!(outliers(&runs).is_empty());
    }

    #[test]
    fn a_large_series_is_judged_by_its_own_median_and_spread() {
        let mut runs: Vec<Run> = (0..LEAVE_ONE_OUT_MAX + 50)
            .map(|i| run(&format!("r{i}"), 30.0 + (i % 7) as f64, true))
            .collect();
        runs.push(run("new", 300.0, false));
        runs.push(run("fine", 31.0, false));
        let o = outliers(&runs);
        assert_eq!(o.len(), 1, "{o:?}");
        assert_eq!(o[0].path, "new");
        assert_eq!(o[0].peers, LEAVE_ONE_OUT_MAX + 51);
    }

    #[test]
    fn identical_peers_do_not_make_every_difference_an_outlier() {
        let runs = vec![
            run("a", 30.0, true),
            run("b", 30.0, true),
            run("c", 30.0, true),
            run("new", 33.0, false),
        ];
        assert!(outliers(&runs).is_empty());
    }
}
