//! From samples to the record's numbers: per-scenario summaries, paired overheads, the kernel
//! benchmark's estimates and its expectations judged on intervals. No I/O here.

pub mod estimates;
pub mod expectations;
pub mod groups;
pub mod kernel_arithmetic;
pub mod kernel_quantities;
pub mod record;

use crate::engine::driver::{Outcome, Slot};
use crate::scenarios::Scenario;
use crate::stats::instances::{pool, pool_positive, Pooled};
use crate::stats::{per_round_tagged, Summary};
use syscost_record::{KernelScenario, Overhead, ScenarioResult, Status, Throughput, Verification};

/// Per-round series of the measured scenarios, looked up by id: of a finished run, or of the
/// rounds so far (the engine's judge reads them between rounds).
pub struct Series<'a> {
    ids: &'a [String],
    slots: &'a [Slot],
}

impl<'a> Series<'a> {
    /// `ids[i]` names `slots[i]`.
    pub fn new(ids: &'a [String], slots: &'a [Slot]) -> Series<'a> {
        Series { ids, slots }
    }

    /// The samples of a measured scenario, or None.
    pub fn get(&self, id: &str) -> Option<&'a [Option<f64>]> {
        let i = self.ids.iter().position(|x| x == id)?;
        self.by_index(i)
    }

    /// The samples of scenario `i`, if it is measured.
    pub fn by_index(&self, i: usize) -> Option<&'a [Option<f64>]> {
        let slot = self.slots.get(i)?;
        (slot.status == Status::Measured).then_some(slot.samples.as_slice())
    }

    /// Every sample of scenario `i` in the order taken, if it is measured.
    pub fn raw(&self, i: usize) -> Option<&'a [f64]> {
        let slot = self.slots.get(i)?;
        (slot.status == Status::Measured).then_some(slot.raw.as_slice())
    }

    /// The untimed work of scenario `i` per round, if it is measured.
    pub fn untimed(&self, i: usize) -> Option<&'a [Option<f64>]> {
        let slot = self.slots.get(i)?;
        (slot.status == Status::Measured).then_some(slot.untimed.as_slice())
    }

    /// The instance of every round (the same for every scenario: the run renews all its
    /// workers at once).
    pub fn tags(&self) -> &'a [u32] {
        self.slots.first().map_or(&[], |s| s.instance.as_slice())
    }

    /// A quantity computed per round from `inputs` (see [`per_round_tagged`]), pooled over
    /// instances: its estimate and interval as the record reports them.
    pub fn pooled<F>(&self, inputs: &[&[Option<f64>]], f: F) -> Option<Pooled>
    where
        F: Fn(&[f64]) -> f64,
    {
        let (v, t) = per_round_tagged(inputs, self.tags(), f);
        pool(&v, &t)
    }

    /// The kernel benchmark's five series, in [`KernelScenario::ALL`] order, if all were
    /// measured.
    pub fn kernel(&self) -> Option<Vec<&'a [Option<f64>]>> {
        KernelScenario::ALL
            .iter()
            .map(|k| self.get(k.id()))
            .collect()
    }
}

/// Fills the distribution fields of `r` from its per-round samples: its estimate and interval
/// pooled over instances, the rest (spread, minimum, outliers) from every sample. None if there
/// are none.
fn fill_stats(r: &mut ScenarioResult, samples: &[Option<f64>], series: &Series) -> Option<Pooled> {
    let values: Vec<f64> = samples.iter().flatten().copied().collect();
    let sum = Summary::of(&values)?;
    // A time of its own: pooled on the log scale (its interval stays positive).
    let (v, t) = per_round_tagged(&[samples], series.tags(), |x| x[0]);
    let p = pool_positive(&v, &t)?;
    r.median_ns = Some(p.estimate);
    r.ci_low_ns = p.ci.map(|c| c.0);
    r.ci_high_ns = p.ci.map(|c| c.1);
    r.samples = Some(sum.n as u64);
    r.mad_ns = Some(sum.mad);
    r.min_ns = Some(sum.min);
    r.p90_ns = Some(sum.p90);
    r.outliers = Some(sum.outliers as u64);
    Some(p)
}

/// One `ScenarioResult` per scenario, in the scenarios' order, each followed by the result of
/// its untimed work when it reports some (`attach.bpf.*`).
pub fn results(scenarios: &[Box<dyn Scenario>], outcome: &Outcome) -> Vec<ScenarioResult> {
    let ids: Vec<String> = scenarios.iter().map(|s| s.id()).collect();
    let series = Series::new(&ids, &outcome.slots);
    let mut out = Vec::new();
    for (s, slot) in scenarios.iter().zip(&outcome.slots) {
        let mut r = ScenarioResult::new(&s.id(), s.family(), &s.description(), slot.status);
        r.reason = slot.reason.clone();
        r.params = s.params();
        if let (Some(what), Some((expected, observed))) = (s.verification(), slot.verified) {
            r.verification = Some(Verification {
                what: what.into(),
                expected,
                observed,
            });
        }
        if slot.status == Status::Measured {
            if let Some(sum) = fill_stats(&mut r, &slot.samples, &series) {
                r.iters_per_sample = Some(slot.iters_per_sample);
                r.preempted = Some(slot.preempted);
                r.retaken = s.preemption_is_noise().then_some(slot.retaken);
                if sum.estimate > 0.0 {
                    r.throughput_mops = Some(Throughput {
                        median: 1000.0 / sum.estimate,
                        // 1000/x is decreasing: the interval's ends swap.
                        ci_low: sum.ci.map(|c| 1000.0 / c.1),
                        ci_high: sum.ci.map(|c| 1000.0 / c.0),
                        stddev: None,
                    });
                }
                if let Some(base_id) = s.baseline() {
                    if let (Some(me), Some(base)) = (series.get(&s.id()), series.get(&base_id)) {
                        r.overhead = overhead(&base_id, me, base, series.tags());
                    }
                }
            }
        }
        let untimed = s.untimed_result().map(|(id, description)| {
            let mut u = ScenarioResult::new(&id, "attach", &description, slot.status);
            u.reason = slot.reason.clone();
            u.params = r.params.clone();
            if slot.status == Status::Measured
                && fill_stats(&mut u, &slot.untimed, &series).is_some()
            {
                u.iters_per_sample = Some(1);
            } else if slot.status == Status::Measured
                && crate::harness::clock::counts_instructions()
            {
                // The session leaves out every cycle during which the CPU went idle.
                u.status = Status::Skipped;
                u.reason = Some(
                    "not an instruction count: every attach cycle waited with the CPU idle \
                     (RCU grace periods, kworkers), and the instruction-counting clock counts \
                     idle time, one per nanosecond of the guest (or idleness could not be read \
                     from /proc/timer_list)"
                        .into(),
                );
            } else if slot.status == Status::Measured {
                u.status = Status::Failed;
                u.reason = Some(format!("{} reported no untimed work", s.id()));
            }
            u
        });
        out.push(r);
        out.extend(untimed);
    }
    out
}

/// Paired overhead of `me` over `base`: per-round differences and ratios, pooled over the
/// instances of `tags` (the instance of each round).
pub fn overhead(
    vs: &str,
    me: &[Option<f64>],
    base: &[Option<f64>],
    tags: &[u32],
) -> Option<Overhead> {
    let (diffs, t) = per_round_tagged(&[me, base], tags, |x| x[0] - x[1]);
    let (pcts, _) = per_round_tagged(&[me, base], tags, |x| (x[0] / x[1] - 1.0) * 100.0);
    let d = pool(&diffs, &t)?;
    let p = pool(&pcts, &t)?;
    Some(Overhead {
        vs: vs.into(),
        median_ns: d.estimate,
        ci_low_ns: d.ci.map(|c| c.0),
        ci_high_ns: d.ci.map(|c| c.1),
        samples: d.n as u64,
        pct: p.estimate,
        pct_ci_low: p.ci.map(|c| c.0),
        pct_ci_high: p.ci.map(|c| c.1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paired_overhead_cancels_shared_drift() {
        // Both series drift by the same large amount per round; the paired difference stays 10.
        let base: Vec<Option<f64>> = (0..50).map(|r| Some(100.0 + 7.0 * r as f64)).collect();
        let me: Vec<Option<f64>> = base.iter().map(|b| b.map(|x| x + 10.0)).collect();
        let o = overhead("native", &me, &base, &[]).unwrap();
        assert_eq!(o.median_ns, 10.0);
        assert_eq!((o.ci_low_ns, o.ci_high_ns), (Some(10.0), Some(10.0)));
        assert_eq!(o.samples, 50);
        assert!(o.pct > 0.0);
    }
}
