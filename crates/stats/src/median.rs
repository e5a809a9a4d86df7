//! The median and its distribution-free confidence interval: one median and one interval for
//! every crate (the collector's samples, the site's series, the bench's rounds).
//!
//! For n independent samples, the number B of samples below the true median is Binomial(n, ½).
//! The interval [x₍ₗ₎, x₍ₙ₋ₗ₊₁₎] (1-based order statistics) covers the median with probability
//! 1 − 2·P(B ≤ l − 1); we take the largest l whose coverage is still ≥ the requested level.
//! Exact binomial sums for n ≤ 200 000 (log-space, no overflow); normal approximation beyond.

use crate::normal_quantile;

/// The median of `v` — the project's one median: Hyndman–Fan type 7 at ½, as
/// [`quantile_sorted`] — NaN when `v` is empty. In linear time: the order statistics are
/// selected, not sorted for (`v` is reordered). The engine judges every group's intervals
/// between rounds, on tens of thousands of samples; sorting them each time took seconds of a
/// 30 s run in release builds (the parent samples nothing meanwhile) and more than the budget
/// in debug ones.
pub fn median_in(v: &mut [f64]) -> f64 {
    let n = v.len();
    if n == 0 {
        return f64::NAN;
    }
    let mut nth = |k: usize| *v.select_nth_unstable_by(k, f64::total_cmp).1;
    // h = (n − 1) / 2: an order statistic, or halfway between two.
    let i = (n - 1) / 2;
    let lo = nth(i);
    if (n - 1) % 2 == 1 {
        lo + 0.5 * (nth(i + 1) - lo)
    } else {
        lo
    }
}

/// Linear-interpolation quantile (Hyndman–Fan type 7) of sorted data. `p` in [0, 1].
pub fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => f64::NAN,
        1 => sorted[0],
        n => {
            let h = (n - 1) as f64 * p.clamp(0.0, 1.0);
            let i = h.floor() as usize;
            let frac = h - i as f64;
            if i + 1 < n {
                sorted[i] + frac * (sorted[i + 1] - sorted[i])
            } else {
                sorted[n - 1]
            }
        }
    }
}

/// Median of unsorted data ([`median_in`] of a copy).
pub fn median(samples: &[f64]) -> f64 {
    median_in(&mut samples.to_vec())
}

/// (low, high) of the samples `v`, or None if n is too small for the level (n < 6 at 95%): the
/// project's one interval of the median. The order statistics are selected in linear time
/// (`v` is reordered).
pub fn median_ci_in(v: &mut [f64], confidence: f64) -> Option<(f64, f64)> {
    let n = v.len();
    let l = lower_rank(n, confidence)?;
    let mut nth = |k: usize| *v.select_nth_unstable_by(k, f64::total_cmp).1;
    Some((nth(l - 1), nth(n - l)))
}

/// Largest 1-based rank l with 2·P(B ≤ l−1) ≤ 1 − confidence, B ~ Bin(n, ½).
///
/// The walk costs O(n); the engine asks for the same n for every quantity of a group between
/// two rounds, so the last few answers are kept (per thread).
pub fn lower_rank(n: usize, confidence: f64) -> Option<usize> {
    use std::cell::RefCell;
    const KEPT: usize = 8;
    type Kept = [(usize, u64, Option<usize>); KEPT];
    thread_local! {
        static LAST: RefCell<(Kept, usize)> = const { RefCell::new(([(0, 0, None); KEPT], 0)) };
    }
    let key = (n, confidence.to_bits());
    if let Some(hit) = LAST.with_borrow(|(kept, _)| {
        kept.iter()
            .find(|e| (e.0, e.1) == key && e.0 != 0)
            .map(|e| e.2)
    }) {
        return hit;
    }
    let l = lower_rank_walk(n, confidence);
    LAST.with_borrow_mut(|(kept, next)| {
        kept[*next] = (key.0, key.1, l);
        *next = (*next + 1) % KEPT;
    });
    l
}

fn lower_rank_walk(n: usize, confidence: f64) -> Option<usize> {
    let alpha_half = (1.0 - confidence) / 2.0;
    if n == 0 {
        return None;
    }
    if n > 200_000 {
        let z = normal_quantile(1.0 - alpha_half);
        let l = (n as f64 / 2.0 - z * (n as f64).sqrt() / 2.0).floor() as usize;
        return (l >= 1).then_some(l);
    }
    // Walk the CDF from k = 0 in log space: ln pmf(k) = ln pmf(k−1) + ln((n−k+1)/k).
    let nf = n as f64;
    let mut ln_pmf = -nf * std::f64::consts::LN_2;
    let mut cdf = 0.0;
    let mut l = 0usize;
    for k in 0..=n / 2 {
        if k > 0 {
            ln_pmf += ((nf - k as f64 + 1.0) / k as f64).ln();
        }
        cdf += ln_pmf.exp();
        // cdf = P(B ≤ k); rank l = k + 1 is allowed if P(B ≤ l − 1) ≤ α/2.
        if cdf <= alpha_half {
            l = k + 1;
        } else {
            break;
        }
    }
    (l >= 1).then_some(l)
}

/// Exact coverage of the order-statistic interval with lower rank l.
pub fn coverage(n: usize, l: usize) -> f64 {
    let nf = n as f64;
    let mut ln_pmf = -nf * std::f64::consts::LN_2;
    let mut cdf = 0.0;
    for k in 0..l {
        if k > 0 {
            ln_pmf += ((nf - k as f64 + 1.0) / k as f64).ln();
        }
        cdf += ln_pmf.exp();
    }
    1.0 - 2.0 * cdf
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: deterministic samples for the coverage tests.
    struct Rng(u64);
    impl Rng {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn known_ranks_match_tables() {
        // Classic table values for the 95% median CI (e.g. Conover): n=6 → l=1, n=10 → l=2,
        // n=20 → l=6, n=100 → l=40.
        assert_eq!(lower_rank(5, 0.95), None);
        assert_eq!(lower_rank(6, 0.95), Some(1));
        assert_eq!(lower_rank(10, 0.95), Some(2));
        assert_eq!(lower_rank(20, 0.95), Some(6));
        assert_eq!(lower_rank(100, 0.95), Some(40));
        for n in [6, 10, 20, 57, 100, 1000, 5000] {
            let l = lower_rank(n, 0.95).unwrap();
            assert!(coverage(n, l) >= 0.95, "n={n} l={l}");
            assert!(
                coverage(n, l + 1) < 0.95,
                "n={n}: l={l} is not the tightest"
            );
        }
    }

    #[test]
    fn normal_approximation_agrees_with_exact_near_the_switch() {
        let n = 200_000;
        let exact = lower_rank(n, 0.95).unwrap() as f64;
        let z = normal_quantile(0.975);
        let approx = (n as f64 / 2.0 - z * (n as f64).sqrt() / 2.0).floor();
        assert!((exact - approx).abs() <= 2.0, "{exact} vs {approx}");
        assert!(lower_rank(300_000, 0.95).is_some());
    }

    #[test]
    fn normal_quantile_known_values() {
        assert!((normal_quantile(0.975) - 1.959964).abs() < 1e-5);
        assert!(normal_quantile(0.5).abs() < 1e-12);
        assert!((normal_quantile(0.001) + 3.090232).abs() < 1e-4);
    }

    /// Empirical coverage against distributions with a known median: uniform (½), exponential
    /// (ln 2), and a heavy-tailed Cauchy-like (0). 2000 replications of n = 51 each.
    #[test]
    fn coverage_is_nominal_on_known_distributions() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        type Draw = fn(&mut Rng) -> f64;
        let cases: [(Draw, f64); 3] = [
            (|r| r.uniform(), 0.5),
            (|r| -(1.0 - r.uniform()).ln(), std::f64::consts::LN_2),
            (|r| (std::f64::consts::PI * (r.uniform() - 0.5)).tan(), 0.0),
        ];
        for (draw, true_median) in cases {
            let reps = 2000;
            let mut hits = 0;
            for _ in 0..reps {
                let mut v: Vec<f64> = (0..51).map(|_| draw(&mut rng)).collect();
                let (lo, hi) = median_ci_in(&mut v, 0.95).unwrap();
                if lo <= true_median && true_median <= hi {
                    hits += 1;
                }
            }
            let cov = hits as f64 / reps as f64;
            // Exact coverage for n=51 is ≥ 0.95 (discrete); allow binomial noise of 2000 reps.
            assert!(
                (0.935..=0.99).contains(&cov),
                "coverage {cov} for median {true_median}"
            );
        }
    }
}
