//! Intervals over instances: a quantity measured in several instances of its workers (each a
//! fresh process with its own filters, programs, JIT images and pages) varies within an
//! instance (sample to sample) and between instances (where things landed). A rerun draws new
//! instances, so an interval that is to hold on a rerun must cover both.
//!
//! Method: each instance's estimate is the median of its per-round values (robust to the odd
//! preempted round); the quantity's estimate is the mean of the instance estimates, and its 95 %
//! interval Student's t over them, mean ± t(I − 1) · s / √I with s their standard deviation.
//! That is the two-level design of Kalibera and Jones ("Rigorous Benchmarking in Reasonable
//! Time", 2013): s² estimates σ²_between + σ²_within / n, whatever the share of each, so nothing
//! has to be assumed about which dominates; and with I as small as 4–8, t (not the normal, not a
//! bootstrap, which underestimates the spread of so few values) keeps the level. With a single
//! instance there is nothing to estimate the between part from: the interval is the
//! order-statistic one of the median, within the instance only, and says so (`instances` = 1).
//!
//! The components are reported apart: `within`, the standard error of one instance's estimate
//! from its own samples (the order-statistic CI's half-width / 1.96, root mean square over
//! instances), and `between`, the standard deviation of the instances' true values, estimated as
//! √(s² − within²) (ANOVA's method of moments; 0 when instances agree within their own noise).

use super::{median_and_ci, CONFIDENCE};

/// A quantity pooled over instances.
#[derive(Debug, Clone, PartialEq)]
pub struct Pooled {
    /// The estimate: the mean of the instances' medians (the median with one instance).
    pub estimate: f64,
    /// 95 % interval; None when there are too few values for one.
    pub ci: Option<(f64, f64)>,
    /// Values (rounds) behind it.
    pub n: usize,
    /// Instances with at least one value.
    pub instances: usize,
    /// Standard error of one instance's estimate from its own samples (RMS over instances);
    /// None when no instance has enough values for an interval.
    pub within: Option<f64>,
    /// Standard deviation between instances (see the module's text); None with one instance.
    pub between: Option<f64>,
}

impl Pooled {
    pub fn half_width(&self) -> Option<f64> {
        self.ci.map(|(lo, hi)| (hi - lo) / 2.0)
    }
}

/// Two-sided 97.5 % quantile of Student's t (one copy for every crate).
pub use syscost_stats::t975;

/// The z of the intervals [`median_and_ci`] gives: a half-width over it is a standard error.
const Z: f64 = 1.959_964;

/// Pools `values`, each tagged with the instance it was measured in (`instance[k]` for
/// `values[k]`; the tags need not be contiguous or sorted). None when there are no finite values.
pub fn pool(values: &[f64], instance: &[u32]) -> Option<Pooled> {
    debug_assert_eq!(values.len(), instance.len());
    let mut tags: Vec<u32> = instance.to_vec();
    tags.sort_unstable();
    tags.dedup();
    let mut medians = Vec::with_capacity(tags.len());
    let mut within_sq = Vec::with_capacity(tags.len());
    let mut n = 0;
    let mut one = None;
    for &t in &tags {
        let v: Vec<f64> = values
            .iter()
            .zip(instance)
            .filter(|(x, &i)| i == t && x.is_finite())
            .map(|(&x, _)| x)
            .collect();
        let Some((m, ci)) = median_and_ci(&v) else {
            continue;
        };
        n += v.len();
        medians.push(m);
        if let Some((lo, hi)) = ci {
            within_sq.push(((hi - lo) / 2.0 / Z).powi(2));
        }
        one = Some((m, ci));
    }
    let within = (!within_sq.is_empty())
        .then(|| (within_sq.iter().sum::<f64>() / within_sq.len() as f64).sqrt());
    let k = medians.len();
    if k == 0 {
        return None;
    }
    if k == 1 {
        let (m, ci) = one?;
        return Some(Pooled {
            estimate: m,
            ci,
            n,
            instances: 1,
            within,
            between: None,
        });
    }
    let mean = medians.iter().sum::<f64>() / k as f64;
    let var = medians.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (k - 1) as f64;
    let half = t975(k - 1) * (var / k as f64).sqrt();
    debug_assert!(
        (CONFIDENCE - 0.95).abs() < 1e-12,
        "t975 is the 95 % multiplier"
    );
    Some(Pooled {
        estimate: mean,
        ci: Some((mean - half, mean + half)),
        n,
        instances: k,
        within,
        between: Some((var - within.unwrap_or(0.0).powi(2)).max(0.0).sqrt()),
    })
}

/// [`pool`] for a quantity that is a time of its own (a scenario's median: positive, its
/// variation a factor): pooled on the log scale, so the interval is a factor either side of the
/// geometric mean of the instance medians and never reaches zero or below; the components are
/// given back in ns at the estimate (a log-scale deviation d is about d · estimate). Values that
/// are not positive cannot be pooled so and are pooled as they are.
pub fn pool_positive(values: &[f64], instance: &[u32]) -> Option<Pooled> {
    if values.iter().any(|&x| x.is_finite() && x <= 0.0) {
        return pool(values, instance);
    }
    let logs: Vec<f64> = values.iter().map(|x| x.ln()).collect();
    let p = pool(&logs, instance)?;
    let e = p.estimate.exp();
    Some(Pooled {
        estimate: e,
        ci: p.ci.map(|(lo, hi)| (lo.exp(), hi.exp())),
        within: p.within.map(|w| w * e),
        between: p.between.map(|b| b * e),
        ..p
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixed pseudo-random sequence in [−1, 1).
    fn noise(seed: u64) -> impl FnMut() -> f64 {
        let mut x = seed | 1;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    #[test]
    fn one_instance_is_the_medians_own_interval() {
        let mut u = noise(7);
        let v: Vec<f64> = (0..101).map(|_| 10.0 + u()).collect();
        let p = pool(&v, &[3; 101]).unwrap();
        let (m, ci) = median_and_ci(&v).unwrap();
        assert_eq!((p.estimate, p.ci), (m, ci));
        assert_eq!((p.instances, p.n, p.between), (1, 101, None));
        assert!(p.within.unwrap() > 0.0);
    }

    #[test]
    fn the_interval_covers_an_offset_between_instances_that_one_instance_cannot_see() {
        // Six instances, each shifted by a known offset (sd 2), each with small noise inside:
        // every instance's own interval is far narrower than the offsets.
        let offsets = [-2.5, 1.0, 3.0, -1.5, 0.5, -0.5];
        let mut u = noise(11);
        let (mut v, mut tag) = (Vec::new(), Vec::new());
        for (i, o) in offsets.iter().enumerate() {
            for _ in 0..200 {
                v.push(100.0 + o + 0.1 * u());
                tag.push(i as u32);
            }
        }
        let p = pool(&v, &tag).unwrap();
        let mean_offset = offsets.iter().sum::<f64>() / 6.0;
        let (lo, hi) = p.ci.unwrap();
        assert!(
            lo < 100.0 + mean_offset && 100.0 + mean_offset < hi,
            "{p:?}"
        );
        assert_eq!(p.instances, 6);
        // The between component dominates and is about the offsets' sd; within is tiny.
        let sd = {
            let m = mean_offset;
            (offsets.iter().map(|o| (o - m).powi(2)).sum::<f64>() / 5.0).sqrt()
        };
        assert!((p.between.unwrap() - sd).abs() < 0.05 * sd, "{p:?} sd {sd}");
        assert!(p.within.unwrap() < 0.05 * p.between.unwrap(), "{p:?}");
        // An interval from any one instance alone misses the true value (100 + mean offset)
        // for most of them.
        let missed = (0..6u32)
            .filter(|&i| {
                let one: Vec<f64> = v
                    .iter()
                    .zip(&tag)
                    .filter(|(_, &t)| t == i)
                    .map(|(&x, _)| x)
                    .collect();
                let (lo, hi) = pool(&one, &vec![i; one.len()]).unwrap().ci.unwrap();
                !(lo..=hi).contains(&(100.0 + mean_offset))
            })
            .count();
        assert!(missed >= 5, "{missed}");
    }

    #[test]
    fn instances_that_agree_have_no_between_component_and_the_t_interval() {
        let mut u = noise(5);
        let (mut v, mut tag) = (Vec::new(), Vec::new());
        for i in 0..4u32 {
            for _ in 0..50 {
                v.push(20.0 + u());
                tag.push(i);
            }
        }
        let p = pool(&v, &tag).unwrap();
        assert_eq!((p.instances, p.n), (4, 200));
        let half = p.half_width().unwrap();
        // t(3) over four instance medians: mean ± 3.182 · s / 2.
        let meds: Vec<f64> = (0..4)
            .map(|i| super::super::median(&v[i * 50..(i + 1) * 50]))
            .collect();
        let m = meds.iter().sum::<f64>() / 4.0;
        let s = (meds.iter().map(|x| (x - m).powi(2)).sum::<f64>() / 3.0).sqrt();
        assert!((half - 3.182 * s / 2.0).abs() < 1e-12);
        assert!((p.estimate - m).abs() < 1e-12);
        assert!(p.between.unwrap() <= p.within.unwrap());
    }

    #[test]
    fn coverage_over_repeated_draws_is_near_its_level() {
        // 400 simulated runs of 5 instances with between sd 1 and within noise: the t interval
        // covers the true value in about 95 % of them (binomial sd ~1.1 %).
        let mut u = noise(99);
        let mut gauss = move || (0..12).map(|_| u() * 0.5).sum::<f64>();
        let mut covered = 0;
        for _ in 0..400 {
            let (mut v, mut tag) = (Vec::new(), Vec::new());
            for i in 0..5u32 {
                let off = gauss();
                for _ in 0..30 {
                    v.push(off + 0.3 * gauss());
                    tag.push(i);
                }
            }
            let (lo, hi) = pool(&v, &tag).unwrap().ci.unwrap();
            covered += (lo..=hi).contains(&0.0) as usize;
        }
        assert!((360..=396).contains(&covered), "{covered} of 400");
    }

    #[test]
    fn a_time_of_its_own_pools_to_a_positive_interval() {
        // Three instances far apart on a small time: on the linear scale the t interval would
        // reach below zero; on the log scale it is a factor either side.
        let (v, tag): (Vec<f64>, Vec<u32>) = [(0.2, 0u32), (1.0, 1), (3.0, 2)]
            .iter()
            .flat_map(|&(x, t)| std::iter::repeat_n((x, t), 9))
            .unzip();
        assert!(pool(&v, &tag).unwrap().ci.unwrap().0 < 0.0);
        let p = pool_positive(&v, &tag).unwrap();
        let (lo, hi) = p.ci.unwrap();
        assert!(lo > 0.0 && lo < p.estimate && p.estimate < hi);
        assert!((p.estimate - (0.2f64 * 1.0 * 3.0).cbrt()).abs() < 1e-12);
        assert!(((p.estimate / lo) - (hi / p.estimate)).abs() < 1e-9);
    }

    #[test]
    fn empty_and_non_finite_values_pool_to_nothing() {
        assert_eq!(pool(&[], &[]), None);
        assert_eq!(pool(&[f64::NAN], &[0]), None);
    }
}
