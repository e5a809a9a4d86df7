//! Numbers at the precision their intervals justify, so a record carries no digits its own
//! uncertainty makes meaningless (a median of 0.4110831349499471 ns with a CI of
//! [0.344, 0.465] is 0.411 [0.344, 0.465]).
//!
//! The rule: a number with a confidence interval, and its bounds, are rounded to the same
//! decimal place — the one that keeps two significant digits of the interval's half-width (the
//! metrology convention for an uncertainty). Rounding the three to one grid is monotonic, so
//! `low ≤ median ≤ high` still holds and every verdict drawn from intervals is unchanged up to
//! a twentieth of the half-width. The descriptive numbers of a scenario (MAD, min, p90) take its
//! median's place. Numbers without an interval (imported single values, counts, settings,
//! the expectations' point values and tolerances, load averages) are kept as they are: there is
//! nothing to justify dropping their digits. Durations are kept to the millisecond.
//!
//! Schema 3 adds: a target's median and half-width take the place of two significant digits of
//! its half-width, and so does the asked half-width unless it is smaller (then two significant
//! digits of its own), as long as the target's `met` stays what it was; a collected record's throughput is 1000 / its rounded median (the interval's
//! ends swapped), rounded by its own interval — derived, as it always was, from the number the
//! record states.
//!
//! Rounding is idempotent (applied until nothing changes), so a record read and written again
//! keeps its bytes and its content id.

use crate::{RunRecord, SourceKind, Throughput};

/// Decimal exponent of the rounding step for an interval `[lo, hi]`: two significant digits of
/// its half-width. `None` when the interval is empty or not finite.
fn step_exponent(lo: f64, hi: f64) -> Option<i32> {
    let hw = (hi - lo) / 2.0;
    (hw.is_finite() && hw > 0.0).then(|| hw.log10().floor() as i32 - 1)
}

/// `x` rounded to a multiple of 10^e, as the shortest decimal that says so (no binary noise
/// such as 0.41000000000000003), and never -0.
fn round_to(x: f64, e: i32) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let v = if e >= 0 {
        let q = 10f64.powi(e);
        (x / q).round() * q
    } else {
        // Formatting rounds half to even on the exact binary value; reading it back gives the
        // nearest double to the decimal. The same, faster, when x · 10^k is not within a
        // rounding error of a tie: the integer n it rounds to is exact, and n / 10^k is the
        // nearest double to the decimal (both exact below 2^53 and 10^22).
        let k = -e;
        let q = 10f64.powi(k);
        let y = x * q;
        let frac = (y - y.trunc()).abs();
        if k <= 22 && y.abs() < 9.0e15 && (frac - 0.5).abs() > 1e-6 {
            y.round() / q
        } else {
            format!("{x:.*}", k as usize).parse().unwrap_or(x)
        }
    };
    if v == 0.0 {
        0.0
    } else {
        v
    }
}

/// Rounds a median and its interval (and companions) to the interval's step; true if any
/// value changed.
fn triple(m: &mut f64, lo: &mut f64, hi: &mut f64, companions: &mut [&mut Option<f64>]) -> bool {
    let Some(e) = step_exponent(*lo, *hi) else {
        return false;
    };
    let before = (*m, *lo, *hi);
    *m = round_to(*m, e);
    *lo = round_to(*lo, e);
    *hi = round_to(*hi, e);
    let mut changed = before != (*m, *lo, *hi);
    for v in companions.iter_mut().filter_map(|c| c.as_mut()) {
        let r = round_to(*v, e);
        changed |= r != *v;
        *v = r;
    }
    changed
}

/// An optional median with optional bounds: rounded only when all three are there.
fn opt_triple(
    m: &mut Option<f64>,
    lo: &mut Option<f64>,
    hi: &mut Option<f64>,
    companions: &mut [&mut Option<f64>],
) -> bool {
    match (m, lo, hi) {
        (Some(m), Some(lo), Some(hi)) => triple(m, lo, hi, companions),
        _ => false,
    }
}

/// One pass of the rule; true if anything changed.
fn pass(r: &mut RunRecord) -> bool {
    let mut changed = false;
    for res in &mut r.results {
        changed |= opt_triple(
            &mut res.median_ns,
            &mut res.ci_low_ns,
            &mut res.ci_high_ns,
            &mut [&mut res.mad_ns, &mut res.min_ns, &mut res.p90_ns],
        );
        if let Some(o) = &mut res.overhead {
            let mut m = Some(o.median_ns);
            changed |= opt_triple(&mut m, &mut o.ci_low_ns, &mut o.ci_high_ns, &mut []);
            o.median_ns = m.unwrap_or(o.median_ns);
            let mut p = Some(o.pct);
            changed |= opt_triple(&mut p, &mut o.pct_ci_low, &mut o.pct_ci_high, &mut []);
            o.pct = p.unwrap_or(o.pct);
        }
        if let Some(t) = &mut res.throughput_mops {
            let mut m = Some(t.median);
            changed |= opt_triple(&mut m, &mut t.ci_low, &mut t.ci_high, &mut []);
            t.median = m.unwrap_or(t.median);
        }
    }
    for e in &mut r.estimates {
        let mut m = Some(e.median_ns);
        changed |= opt_triple(&mut m, &mut e.ci_low_ns, &mut e.ci_high_ns, &mut []);
        e.median_ns = m.unwrap_or(e.median_ns);
    }
    for e in &mut r.expectations {
        changed |= opt_triple(
            &mut e.diff_median_ns,
            &mut e.diff_ci_low_ns,
            &mut e.diff_ci_high_ns,
            &mut [],
        );
    }
    if let Some(d) = &mut r.summary.duration_s {
        let v = round_to(*d, -3);
        changed |= v != *d;
        *d = v;
    }
    if r.schema >= 3 {
        for t in &mut r.summary.targets {
            let Some(hw) = t.half_width_ns else { continue };
            let Some(e) = step_exponent(-hw, hw) else {
                continue;
            };
            let m = round_to(t.median_ns, e);
            changed |= m != t.median_ns;
            t.median_ns = m;
            // The asked width keeps two significant digits of its own when it is the smaller.
            let own = step_exponent(-t.target_ns, t.target_ns).unwrap_or(e);
            let (h, g) = (round_to(hw, e), round_to(t.target_ns, e.min(own)));
            // Rounding both to one grid keeps `hw ≤ target` but can make a miss a tie.
            if (h <= g) == t.met && (h, g) != (hw, t.target_ns) {
                t.half_width_ns = Some(h);
                t.target_ns = g;
                changed = true;
            }
        }
        for g in &mut r.summary.groups {
            let v = round_to(g.duration_s, -3);
            changed |= v != g.duration_s;
            g.duration_s = v;
        }
        if let Some(i) = &mut r.summary.instances {
            let v = round_to(i.renewing_s, -3);
            changed |= v != i.renewing_s;
            i.renewing_s = v;
            // A variance component to two significant digits: it says which part dominates.
            for c in &mut i.components {
                for x in [&mut c.within_ns, &mut c.between_ns].into_iter().flatten() {
                    let v = match step_exponent(-*x, *x) {
                        Some(e) => round_to(*x, e),
                        None => *x,
                    };
                    changed |= v != *x;
                    *x = v;
                }
            }
        }
    }
    changed
}

/// The throughput a median stands for: 1000 / ns in million operations per second, the
/// interval's ends swapped (1000/x decreases), rounded by its own interval. `None` without a
/// positive median.
pub(crate) fn derived_throughput(
    median: Option<f64>,
    lo: Option<f64>,
    hi: Option<f64>,
) -> Option<Throughput> {
    let m = median.filter(|m| *m > 0.0)?;
    let (mut t, mut tl, mut th) = (1000.0 / m, hi.map(|h| 1000.0 / h), lo.map(|l| 1000.0 / l));
    let mut tm = Some(t);
    for _ in 0..8 {
        if !opt_triple(&mut tm, &mut tl, &mut th, &mut []) {
            break;
        }
    }
    t = tm.unwrap_or(t);
    Some(Throughput {
        median: t,
        ci_low: tl,
        ci_high: th,
        stddev: None,
    })
}

/// A collected record's throughputs, derived again from the rounded medians.
fn derive_throughputs(r: &mut RunRecord) {
    if r.schema < 3 || r.source.kind == SourceKind::Import {
        return;
    }
    for res in &mut r.results {
        if res
            .throughput_mops
            .as_ref()
            .is_some_and(|t| t.stddev.is_none())
        {
            if let Some(t) = derived_throughput(res.median_ns, res.ci_low_ns, res.ci_high_ns) {
                res.throughput_mops = Some(t);
            }
        }
    }
}

/// Applies the rule until nothing changes (a rounded interval can have a wider half-width,
/// hence a coarser step; the step only grows, so this ends within a few passes).
pub fn round_to_intervals(r: &mut RunRecord) {
    for _ in 0..8 {
        if !pass(r) {
            break;
        }
    }
    derive_throughputs(r);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_significant_digits_of_the_half_width() {
        let (mut m, mut lo, mut hi) =
            (0.4110831349499471, 0.34420458954447564, 0.46512448184747285);
        triple(&mut m, &mut lo, &mut hi, &mut []);
        assert_eq!((m, lo, hi), (0.411, 0.344, 0.465));
        let (mut m, mut lo, mut hi) = (16835.85784313725, 15960.735294117647, 17709.70588235294);
        let mut mad = Some(1984.4754901960787);
        triple(&mut m, &mut lo, &mut hi, &mut [&mut mad]);
        assert_eq!((m, lo, hi, mad), (16840.0, 15960.0, 17710.0, Some(1980.0)));
        // Negative values and zero crossings keep their order and never become -0.
        let (mut m, mut lo, mut hi) = (-0.0004, -2.75, 2.45);
        triple(&mut m, &mut lo, &mut hi, &mut []);
        assert_eq!((m, lo, hi), (0.0, -2.8, 2.5));
        assert!(m.is_sign_positive());
    }

    #[test]
    fn the_fast_rounding_is_the_decimal_one() {
        let mut x = 0.7163f64;
        for i in 0..200_000 {
            x = (x * 3.987654321 + 0.1).fract();
            let v = (x - 0.5) * 10f64.powi((i % 17) - 6);
            for e in -9..0 {
                let slow: f64 = format!("{v:.*}", (-e) as usize).parse().unwrap();
                let fast = round_to(v, e);
                assert!(
                    fast == slow || (fast == 0.0 && slow == 0.0),
                    "{v} at 1e{e}: {fast} vs {slow}"
                );
            }
        }
    }

    #[test]
    fn order_is_kept_and_rounding_is_idempotent() {
        let mut x = 0.123456789f64;
        for i in 0..20_000 {
            x = (x * 3.987654321 + 0.1).fract();
            let scale = 10f64.powi((i % 13) - 4);
            let m = x * scale * 100.0;
            let w = (0.001 + x * 0.2) * m.abs().max(1e-3);
            let (mut a, mut lo, mut hi) = (m, m - w * (0.2 + x), m + w * (1.3 - x));
            let (mut r, mut rl, mut rh) = (a, lo, hi);
            for _ in 0..8 {
                if !triple(&mut r, &mut rl, &mut rh, &mut []) {
                    break;
                }
            }
            assert!(rl <= r && r <= rh, "{lo} {a} {hi} → {rl} {r} {rh}");
            (a, lo, hi) = (r, rl, rh);
            assert!(
                !triple(&mut a, &mut lo, &mut hi, &mut []),
                "not a fixed point"
            );
            // Never further from the original than a twentieth of the half-width.
            assert!(
                (r - m).abs() <= w * 0.76 / 10.0 + 1e-12 * m.abs(),
                "{m} → {r}"
            );
        }
    }
}
