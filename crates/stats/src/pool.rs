//! Several runs pooled into one side of a comparison, and the difference of two sides whose
//! standard errors have few degrees of freedom (Welch): the arithmetic of `syscost compare
//! --pool` and of the site's verdicts where several runs make one side.
//!
//! A run's interval covers what varies within the run; it cannot see what changes between
//! runs more slowly than a run lasts (a shared host's speed), so two single runs of one machine
//! differ "significantly" more often than their intervals promise. Runs are the next level of
//! the same design (Kalibera and Jones): the mean of the runs' values with a standard error from
//! their spread, s / √n, which holds the variation between runs whatever its source. With two
//! or three runs s is itself uncertain, so intervals and differences use Student's t (Welch)
//! rather than the normal. The standard error is never taken below what the runs' own intervals
//! say of their mean (√(mean se²) / √n): runs that agree by chance, or exact instruction counts,
//! do not make an interval narrower than each run measured.
//!
//! The t quantiles are the 95 % ones: pooled intervals are read and written at 95 % only.

use crate::{z_of, Value};

/// The two-sided 95 % quantile of Student's t with `df` degrees of freedom (the 95 %
/// interval's multiplier): tabulated to 30, then the Cornish–Fisher expansion (error < 1e-4
/// there); infinite for none.
pub fn t975(df: usize) -> f64 {
    const T: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    // The normal's 97.5 % quantile, as the table's values were rounded against.
    const Z: f64 = 1.959_964;
    match df {
        0 => f64::INFINITY,
        1..=30 => T[df - 1],
        _ => {
            let z = Z;
            let d = df as f64;
            z + (z.powi(3) + z) / (4.0 * d)
                + (5.0 * z.powi(5) + 16.0 * z.powi(3) + 3.0 * z) / (96.0 * d * d)
        }
    }
}

/// One side of a difference: an estimate, its standard error, and the degrees of freedom of
/// that standard error (infinite for one run's interval, read back as a normal one).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Side {
    pub mean: f64,
    pub se: f64,
    pub df: f64,
}

impl Side {
    /// One measurement known by its value and interval, given at the confidence whose normal
    /// quantile is `z`: se = half-width / z.
    pub fn single(v: Value, z: f64) -> Side {
        Side {
            mean: v.median,
            se: v.half_width() / z,
            df: f64::INFINITY,
        }
    }
}

/// Runs pooled ([`pool`]): the mean of their values, its standard error with `df` = runs − 1
/// degrees of freedom, and its 95 % interval, mean ± t975(df) · se.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pooled {
    pub n: usize,
    pub mean: f64,
    pub se: f64,
    pub df: usize,
    pub interval: Value,
}

impl Pooled {
    pub fn side(&self) -> Side {
        Side {
            mean: self.mean,
            se: self.se,
            df: self.df as f64,
        }
    }
}

/// Pools runs' `values` (each its value and interval, given at the confidence whose normal
/// quantile is `z`): the mean, se = √(max(sample variance of the values, mean of the runs' own
/// se²)) / √n, n − 1 degrees of freedom. None for fewer than two runs (no spread to learn
/// from).
pub fn pool(values: &[Value], z: f64) -> Option<Pooled> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let nf = n as f64;
    let mean = values.iter().map(|v| v.median).sum::<f64>() / nf;
    let var = values
        .iter()
        .map(|v| (v.median - mean).powi(2))
        .sum::<f64>()
        / (nf - 1.0);
    let own = values
        .iter()
        .map(|v| (v.half_width() / z).powi(2))
        .sum::<f64>()
        / nf;
    let se = var.max(own).sqrt() / nf.sqrt();
    let half = t975(n - 1) * se;
    Some(Pooled {
        n,
        mean,
        se,
        df: n - 1,
        interval: Value {
            median: mean,
            low: mean - half,
            high: mean + half,
        },
    })
}

/// The difference `new − base` of two independent sides with its interval: Welch's, Student's
/// t at 95 % with the Welch–Satterthwaite degrees of freedom (a single run's side counting as
/// infinitely many), rounded down so that the quantile is never narrower than Welch's. Two
/// single runs have infinitely many: the normal difference at confidence `c`, as
/// [`crate::difference`] gives it.
pub fn welch(base: Side, new: Side, c: f64) -> Value {
    let d = new.mean - base.mean;
    let (vb, vn) = (base.se * base.se, new.se * new.se);
    let var = vb + vn;
    let df = var * var / (vb * vb / base.df + vn * vn / new.df);
    let t = if df.is_finite() {
        t975(df.floor().max(1.0) as usize)
    } else {
        z_of(c)
    };
    let half = if var > 0.0 { t * var.sqrt() } else { 0.0 };
    Value {
        median: d,
        low: d - half,
        high: d + half,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::difference;
    use crate::tests::v;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t_quantiles_decrease_towards_the_normal() {
        assert_eq!(t975(0), f64::INFINITY);
        assert_eq!(t975(1), 12.706);
        assert_eq!(t975(2), 4.303);
        assert!((t975(30) - 2.042).abs() < 1e-9);
        assert!((t975(31) - 2.040).abs() < 1e-3, "{}", t975(31));
        assert!((t975(120) - 1.980).abs() < 1e-3, "{}", t975(120));
        for df in 1..200 {
            assert!(t975(df + 1) < t975(df));
            assert!(t975(df) > z_of(0.95));
        }
    }

    #[test]
    fn pooling_takes_the_spread_of_the_values() {
        let z = z_of(0.95);
        // 10, 12, 14: mean 12, sample variance 4, se 2/√3; the runs' own ±0.1 is far smaller.
        let p = pool(&[v(10.0, 0.1), v(12.0, 0.1), v(14.0, 0.1)], z).unwrap();
        assert_eq!((p.n, p.df), (3, 2));
        assert!(close(p.mean, 12.0, 1e-12));
        let se = 2.0 / 3f64.sqrt();
        assert!(close(p.se, se, 1e-12), "{p:?}");
        assert!(close(p.interval.low, 12.0 - 4.303 * se, 1e-9));
        assert!(close(p.interval.high, 12.0 + 4.303 * se, 1e-9));
        assert_eq!(p.side().df, 2.0);
    }

    #[test]
    fn pooling_never_goes_below_the_runs_own_intervals() {
        // Runs that agree exactly: the runs' own se (half / z = 1.5 and 0.5, mean square 1.25)
        // over √2, not zero.
        let z = 2.0;
        let p = pool(&[v(5.0, 3.0), v(5.0, 1.0)], z).unwrap();
        assert!(close(p.se, (1.25f64 / 2.0).sqrt(), 1e-12), "{p:?}");
        assert!(close(p.interval.high - p.mean, 12.706 * p.se, 1e-9));
        // Exact counts that agree are exact.
        let p = pool(&[Value::exact(7.0), Value::exact(7.0)], z).unwrap();
        assert_eq!((p.se, p.interval), (0.0, Value::exact(7.0)));
        assert_eq!(pool(&[v(1.0, 1.0)], z), None);
        assert_eq!(pool(&[], z), None);
    }

    #[test]
    fn welch_of_two_pooled_sides() {
        // se² 1 and 4 with 2 and 4 df: df = 25 / (1/2 + 16/4) = 5.56, rounded down to 5.
        let b = Side {
            mean: 100.0,
            se: 1.0,
            df: 2.0,
        };
        let n = Side {
            mean: 110.0,
            se: 2.0,
            df: 4.0,
        };
        let d = welch(b, n, 0.95);
        let half = 2.571 * 5f64.sqrt();
        assert!(close(d.median, 10.0, 1e-12));
        assert!(
            close(d.low, 10.0 - half, 1e-9) && close(d.high, 10.0 + half, 1e-9),
            "{d:?}"
        );
        // Against a single run (infinitely many df): only the pooled side's df count,
        // 5² / (4² / 4) = 6.25 → 6.
        let one = Side::single(v(100.0, 1.96), 1.96);
        assert!(close(one.se, 1.0, 1e-12));
        let d = welch(one, n, 0.95);
        assert!(close(d.high - d.median, 2.447 * 5f64.sqrt(), 1e-9), "{d:?}");
    }

    #[test]
    fn welch_of_two_single_runs_is_the_normal_difference() {
        let z = z_of(0.95);
        let (a, b) = (v(10.0, 3.0), v(14.0, 4.0));
        let d = welch(Side::single(a, z), Side::single(b, z), 0.95);
        let e = difference(a, b, z, z, 0.95);
        assert!(close(d.median, e.median, 1e-12));
        assert!(close(d.low, e.low, 1e-9) && close(d.high, e.high, 1e-9));
        assert!(close(d.high - d.median, 5.0, 1e-9));
        // No spread at all: exact.
        let d = welch(
            Side::single(Value::exact(3.0), z),
            Side::single(Value::exact(4.0), z),
            0.95,
        );
        assert_eq!(d, Value::exact(1.0));
    }
}
