//! Statistics, kept apart from measurement and presentation: plain functions over `f64` slices.
//!
//! Interval method: the distribution-free confidence interval of the median from order
//! statistics (binomial), see `syscost_stats::median`. It assumes only independent samples — no normality,
//! no bootstrap randomness — so a record's numbers are reproducible from its samples.

pub mod fit;
pub mod instances;
pub use syscost_stats::median::{
    coverage, lower_rank, median, median_ci_in, median_in, quantile_sorted,
};

/// The confidence level of every interval syscost reports.
pub const CONFIDENCE: f64 = 0.95;

/// Description of the interval method, stored in every record.
pub const CI_METHOD: &str = "each scenario's worker created afresh several times (instances); \
per instance the median of the per-round values (overheads and estimates paired per round); the \
estimate is the mean of the instance medians, its 95% CI Student's t over the instances \
(one instance: the distribution-free CI of its median from order statistics)";

/// Summary of one set of samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub median: f64,
    /// None when there are too few samples for a 95% interval (n < 6).
    pub ci: Option<(f64, f64)>,
    /// Median absolute deviation (unscaled).
    pub mad: f64,
    pub min: f64,
    pub p90: f64,
    /// Samples outside Tukey's fences (Q1 − 1.5 IQR, Q3 + 1.5 IQR).
    pub outliers: usize,
}

impl Summary {
    /// Summarises finite samples; None when empty.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
        if v.is_empty() {
            return None;
        }
        let median = median_in(&mut v);
        let ci = median_ci_in(&mut v, CONFIDENCE);
        v.sort_by(f64::total_cmp);
        let mut dev: Vec<f64> = v.iter().map(|x| (x - median).abs()).collect();
        let q1 = quantile_sorted(&v, 0.25);
        let q3 = quantile_sorted(&v, 0.75);
        let iqr = q3 - q1;
        let (lo, hi) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
        Some(Summary {
            n: v.len(),
            median,
            ci,
            mad: median_in(&mut dev),
            min: v[0],
            p90: quantile_sorted(&v, 0.9),
            outliers: v.iter().filter(|&&x| x < lo || x > hi).count(),
        })
    }

    /// CI half-width as percent of |median| (the stopping rule's measure).
    pub fn ci_half_width_pct(&self) -> Option<f64> {
        let (lo, hi) = self.ci?;
        if self.median == 0.0 {
            return None;
        }
        Some((hi - lo) / 2.0 / self.median.abs() * 100.0)
    }
}

/// The median and its CI alone, as [`Summary::of`] gives them (of the finite samples; None
/// when there is none), without the rest of the summary.
pub fn median_and_ci(samples: &[f64]) -> Option<(f64, Option<(f64, f64)>)> {
    let mut v: Vec<f64> = samples.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    Some((median_in(&mut v), median_ci_in(&mut v, CONFIDENCE)))
}

/// Per-round values of a quantity derived from several scenarios: `f` is applied to each round
/// in which every input has a sample. This is how overheads and estimates stay paired.
pub fn per_round<F>(inputs: &[&[Option<f64>]], f: F) -> Vec<f64>
where
    F: Fn(&[f64]) -> f64,
{
    per_round_tagged(inputs, &[], f).0
}

/// [`per_round`], each value with the tag of its round (`tags[round]`, 0 beyond `tags`): the
/// instance its workers were in.
pub fn per_round_tagged<F>(inputs: &[&[Option<f64>]], tags: &[u32], f: F) -> (Vec<f64>, Vec<u32>)
where
    F: Fn(&[f64]) -> f64,
{
    let rounds = inputs.iter().map(|s| s.len()).min().unwrap_or(0);
    let mut row = Vec::with_capacity(inputs.len());
    let mut out = Vec::with_capacity(rounds);
    let mut tagged = Vec::with_capacity(rounds);
    for r in 0..rounds {
        row.clear();
        for s in inputs {
            match s[r] {
                Some(x) => row.push(x),
                None => break,
            }
        }
        if row.len() == inputs.len() {
            out.push(f(&row));
            tagged.push(tags.get(r).copied().unwrap_or(0));
        }
    }
    (out, tagged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_ci_agree_with_the_summary() {
        // Ties, both parities, a non-finite value and sizes on both sides of the CI's minimum.
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in [1usize, 2, 5, 6, 7, 50, 51, 1000, 1001] {
            let v: Vec<f64> = (0..n)
                .map(|i| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    if i == 3 {
                        f64::NAN
                    } else {
                        (x % 40) as f64 * 0.5 - 3.0
                    }
                })
                .collect();
            let s = Summary::of(&v).unwrap();
            assert_eq!(median_and_ci(&v), Some((s.median, s.ci)), "n = {n}");
            // Against the sorted order statistics.
            let mut sorted: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
            sorted.sort_by(f64::total_cmp);
            let ci = lower_rank(sorted.len(), CONFIDENCE)
                .map(|l| (sorted[l - 1], sorted[sorted.len() - l]));
            assert_eq!(s.median, quantile_sorted(&sorted, 0.5), "n = {n}");
            assert_eq!(s.ci, ci, "n = {n}");
        }
        assert_eq!(median_and_ci(&[]), None);
    }

    #[test]
    fn quantiles_of_small_sets() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(quantile_sorted(&v, 0.5), 2.5);
        assert_eq!(quantile_sorted(&v, 0.0), 1.0);
        assert_eq!(quantile_sorted(&v, 1.0), 4.0);
        assert_eq!(median(&[5.0, 1.0, 3.0]), 3.0);
    }

    #[test]
    fn summary_counts_outliers_and_mad() {
        let mut v: Vec<f64> = (0..100).map(|i| 100.0 + (i % 10) as f64).collect();
        v.push(1000.0);
        v.push(-500.0);
        let s = Summary::of(&v).unwrap();
        assert_eq!(s.outliers, 2);
        assert_eq!(s.n, 102);
        assert_eq!(s.min, -500.0);
        assert!((s.median - 104.5).abs() < 1e-9, "{}", s.median);
        assert!((s.mad - 2.5).abs() < 1e-9, "{}", s.mad);
        let (lo, hi) = s.ci.unwrap();
        assert!(lo <= s.median && s.median <= hi);
    }

    #[test]
    fn summary_ignores_non_finite_and_empty() {
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[f64::NAN]).is_none());
        assert_eq!(Summary::of(&[1.0, f64::INFINITY]).unwrap().n, 1);
    }

    #[test]
    fn per_round_pairs_only_complete_rounds() {
        let a = [Some(10.0), Some(11.0), None, Some(13.0)];
        let b = [Some(1.0), None, Some(2.0), Some(3.0)];
        let d = per_round(&[&a, &b], |x| x[0] - x[1]);
        assert_eq!(d, vec![9.0, 10.0]);
    }
}
