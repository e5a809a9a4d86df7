//! The statistics every crate shares: the median and its interval ([`median`]), the normal
//! quantile, and the arithmetic of "did it change?", shared by `syscost compare` and the site's change
//! detection so that both judge a difference of two measurements by the same rule: the
//! difference of two independent estimates with its interval (their standard errors added in
//! quadrature), the relative difference where a ratio means something, and a verdict against an
//! equivalence margin. Pure functions of numbers; what a number is (a time, an instruction
//! count, a cost or not) is the caller's. Several runs pooled into one side, and the Welch
//! difference of such sides: [`mod@pool`].
//!
//! A measurement is known here only by its median and interval. Its standard error is read
//! back as half-width / z, z the normal quantile of its confidence (1.96 for 95 %); an interval
//! that is not symmetric is taken at its mean half-width.

pub mod median;
pub mod pool;

pub use pool::{pool, t975, welch, Pooled, Side};

use serde::Serialize;

/// The equivalence margin by default, percent of the base value: the smallest practical
/// change of a time.
pub const DEFAULT_MARGIN_PCT: f64 = 2.0;
/// A time's margin is never narrower than this, ns: below it, a time is not worth telling
/// apart.
pub const MARGIN_FLOOR_NS: f64 = 1.0;
/// An instruction count's margin: a change of one instruction per operation is a change.
pub const COUNT_STEP: f64 = 1.0;
/// What floating point may take off a difference of whole instructions (419.01 − 418.01 is
/// 0.99999999999997): a margin this much narrower than [`COUNT_STEP`] still sees one as a change.
const COUNT_ROUNDING: f64 = 1e-6;
/// A relative difference is shown only when the base is known to within ±1/this of itself...
pub const RELATIVE_MIN_PRECISION: f64 = 10.0;
/// ...and when it is within ±this percent: beyond, the base is too small for a ratio to say
/// anything a difference does not.
pub const RELATIVE_MAX_PCT: f64 = 1000.0;

/// A value with its interval, in the record's unit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct Value {
    pub median: f64,
    pub low: f64,
    pub high: f64,
}

impl Value {
    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }

    /// A value known exactly (an interval of no width).
    pub fn exact(v: f64) -> Value {
        Value {
            median: v,
            low: v,
            high: v,
        }
    }
}

/// The normal quantile z of a two-sided interval of confidence `c` (0.95 → 1.96): the one
/// place an interval is read back as a standard error. Acklam's rational approximation,
/// accurate to ~1e-9 — far below any interval's own error.
pub fn z_of(confidence: f64) -> f64 {
    normal_quantile(0.5 + confidence.clamp(0.0, 0.999_999) / 2.0)
}

/// The inverse of the standard normal CDF: Acklam's rational approximation (relative error
/// below 1.15e-9), one copy for every crate.
pub fn normal_quantile(p: f64) -> f64 {
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const P_LOW: f64 = 0.02425;
    if p < P_LOW {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else if p <= 1.0 - P_LOW {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    } else {
        -normal_quantile(1.0 - p)
    }
}

/// The difference `new − base` of two independent estimates, with its interval at confidence
/// `c`; `zb`, `zn` are the z of the confidences the two intervals were given at.
pub fn difference(base: Value, new: Value, zb: f64, zn: f64, c: f64) -> Value {
    let d = new.median - base.median;
    let (sb, sn) = (base.half_width() / zb, new.half_width() / zn);
    let half = z_of(c) * (sb * sb + sn * sn).sqrt();
    Value {
        median: d,
        low: d - half,
        high: d + half,
    }
}

/// The difference in percent of |base|, when that means something: the base is no smaller
/// than `floor` (a ratio to almost nothing is any number), known to within ±10 % of itself
/// (else the ratio's own error is as large as what it shows), and the ratio is within ±1000 %
/// (beyond, the difference says it better). The base's own uncertainty is left out of the
/// ratio's interval, which the 10 % rule keeps small.
pub fn relative(base: Value, diff: Value, floor: f64) -> Option<Value> {
    let b = base.median.abs();
    if b == 0.0 || b < floor || b < RELATIVE_MIN_PRECISION * base.half_width() {
        return None;
    }
    let pct = |v: f64| 100.0 * v / b;
    let rel = Value {
        median: pct(diff.median),
        low: pct(diff.low),
        high: pct(diff.high),
    };
    (rel.median.abs() <= RELATIVE_MAX_PCT).then_some(rel)
}

/// The equivalence margin of a time whose base value is `base` ns: `margin_pct` % of it, at
/// least [`MARGIN_FLOOR_NS`].
pub fn time_margin(base: f64, margin_pct: f64) -> f64 {
    (margin_pct / 100.0 * base.abs()).max(MARGIN_FLOOR_NS)
}

/// The equivalence margin of an instruction count: [`COUNT_STEP`] (less what rounding may take
/// off a whole instruction).
pub fn count_margin() -> f64 {
    COUNT_STEP - COUNT_ROUNDING
}

/// What a difference and its interval say, whatever the quantity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The interval lies above zero (and not within the margin).
    Higher,
    /// The interval lies below zero.
    Lower,
    /// The interval holds zero and reaches past the margin.
    Inconclusive,
    /// The whole interval lies strictly within ±margin.
    NoChange,
}

/// The verdict on a difference and its interval: no change when the whole interval lies
/// strictly within ±margin (the difference, whatever its sign, is smaller than what is worth
/// telling apart); else a change when the interval excludes zero; else inconclusive.
pub fn outcome(diff: Value, margin: f64) -> Outcome {
    if diff.low > -margin && diff.high < margin {
        Outcome::NoChange
    } else if diff.low > 0.0 {
        Outcome::Higher
    } else if diff.high < 0.0 {
        Outcome::Lower
    } else {
        Outcome::Inconclusive
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A value `m` ± `h`.
    pub(crate) fn v(m: f64, h: f64) -> Value {
        Value {
            median: m,
            low: m - h,
            high: m + h,
        }
    }

    #[test]
    fn z_is_the_normal_quantile() {
        assert!((z_of(0.95) - 1.959_964).abs() < 1e-6);
        assert!((z_of(0.99) - 2.575_829).abs() < 1e-6);
        assert!((z_of(0.6827) - 1.0).abs() < 1e-3);
        assert!((z_of(0.999) - 3.290_527).abs() < 1e-5);
    }

    #[test]
    fn independent_intervals_add_in_quadrature() {
        let z = z_of(0.95);
        let d = difference(v(10.0, 3.0), v(14.0, 4.0), z, z, 0.95);
        assert!((d.median - 4.0).abs() < 1e-12);
        assert!((d.half_width() - 5.0).abs() < 1e-9, "{d:?}");
        // Two intervals that overlap can still give a difference that excludes zero: what the
        // disjoint-interval rule missed.
        let d = difference(v(10.0, 1.0), v(11.8, 1.0), z, z, 0.95);
        assert_eq!(outcome(d, 0.1), Outcome::Higher);
    }

    #[test]
    fn outcomes_follow_the_interval_and_the_margin() {
        assert_eq!(outcome(v(5.0, 1.0), 1.0), Outcome::Higher);
        assert_eq!(outcome(v(-5.0, 1.0), 1.0), Outcome::Lower);
        assert_eq!(outcome(v(0.2, 0.5), 1.0), Outcome::NoChange);
        assert_eq!(outcome(v(0.2, 3.0), 1.0), Outcome::Inconclusive);
        // Exact counts: one instruction is a change, none is none, even after rounding.
        let m = count_margin();
        assert_eq!(outcome(Value::exact(419.01 - 418.01), m), Outcome::Higher);
        assert_eq!(outcome(Value::exact(-1.0), m), Outcome::Lower);
        assert_eq!(outcome(Value::exact(0.0), m), Outcome::NoChange);
        assert_eq!(outcome(Value::exact(0.5), m), Outcome::NoChange);
    }

    #[test]
    fn margins() {
        assert_eq!(time_margin(200.0, DEFAULT_MARGIN_PCT), 4.0);
        assert_eq!(time_margin(-200.0, DEFAULT_MARGIN_PCT), 4.0);
        assert_eq!(time_margin(10.0, DEFAULT_MARGIN_PCT), MARGIN_FLOOR_NS);
        assert!(count_margin() < COUNT_STEP && count_margin() > 0.99);
    }

    #[test]
    fn a_ratio_is_shown_only_where_it_means_something() {
        let d = v(2.0, 0.5);
        assert!(relative(v(100.0, 1.0), d, 1.0).is_some());
        // The base hardly known, or tiny, or the ratio absurd.
        assert_eq!(relative(v(3.0, 2.0), d, 1.0), None);
        assert_eq!(relative(v(0.3, 0.0), d, 1.0), None);
        assert_eq!(relative(v(1.0, 0.0), v(998.0, 0.0), 1.0), None);
        let r = relative(v(200.0, 0.0), v(-20.0, 4.0), 1.0).unwrap();
        assert!((r.median + 10.0).abs() < 1e-12 && (r.low + 12.0).abs() < 1e-12);
    }
}
