//! The kernel `seccomp_benchmark`'s own arithmetic and verdicts, reproduced exactly: integer ns,
//! unsigned 64-bit estimates (a negative one wraps to ~1.8e19 and makes the kernel skip every
//! expectation), values compared as `int`, and `≈` meaning "the larger is within the smaller +
//! max(10 % of the smaller, 2)". Used to record what the kernel would have said.

use super::kernel_quantities::tolerance;
use syscost_record::{Estimate, EstimateId, Expectation, KernelExpectation, Verdict};

/// Per-call times in integer ns, as the kernel computes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelInputs {
    pub native: u64,
    pub bitmap1: u64,
    pub bitmap2: u64,
    pub filter1: u64,
    pub filter2: u64,
}

/// The kernel's estimates (wrapping like its `unsigned long long`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KernelEstimates {
    pub total_bitmap1: u64,
    pub total_bitmap2: u64,
    pub total_full3: u64,
    pub total_full4: u64,
    pub entry: u64,
    pub per_filter_last2: u64,
    pub per_filter_div4: u64,
}

pub fn estimates(k: KernelInputs) -> KernelEstimates {
    let entry = k
        .bitmap1
        .wrapping_sub(k.native)
        .wrapping_sub(k.bitmap2.wrapping_sub(k.bitmap1));
    KernelEstimates {
        total_bitmap1: k.bitmap1.wrapping_sub(k.native),
        total_bitmap2: k.bitmap2.wrapping_sub(k.native),
        total_full3: k.filter1.wrapping_sub(k.native),
        total_full4: k.filter2.wrapping_sub(k.native),
        entry,
        per_filter_last2: k.filter2.wrapping_sub(k.filter1),
        per_filter_div4: k.filter2.wrapping_sub(k.native).wrapping_sub(entry) / 4,
    }
}

/// The kernel's `approx(int, int)`.
pub fn approx(i_one: i32, i_two: i32) -> bool {
    let (one, two) = (i_one as f64, i_two as f64);
    let one_bump = one + (one * 0.1).max(2.0);
    let two_bump = two + (two * 0.1).max(2.0);
    one == two || (one > two && one <= two_bump) || (two > one && two <= one_bump)
}

/// The kernel's `le(int, int)`.
pub fn le(i_one: i32, i_two: i32) -> bool {
    i_one <= i_two
}

/// The seven verdicts in the kernel's order, with its skip logic: an estimate above INT_MAX
/// (a wrapped negative) skips everything; a failed "native ≤ 1 filter" skips the rest; a failed
/// "1 bitmapped ≈ 2 bitmapped" skips the remaining bitmap expectations.
pub fn verdicts(k: KernelInputs) -> [Verdict; 7] {
    let e = estimates(k);
    let as_int = |v: u64| v as i32; // the kernel passes unsigned long long to int parameters
    let mut skip = [
        e.total_bitmap1,
        e.total_bitmap2,
        e.total_full3,
        e.total_full4,
        e.entry,
        e.per_filter_last2,
        e.per_filter_div4,
    ]
    .iter()
    .any(|&v| v > i32::MAX as u64);
    let mut out = [Verdict::Skip; 7];
    let judge = |good: bool| if good { Verdict::Pass } else { Verdict::Fail };
    if !skip {
        out[0] = judge(le(as_int(k.native), as_int(k.bitmap1)));
        out[1] = judge(le(as_int(k.native), as_int(k.filter1)));
        if out[1] == Verdict::Fail {
            skip = true;
        }
    }
    if !skip {
        out[2] = judge(approx(
            as_int(e.per_filter_last2),
            as_int(e.per_filter_div4),
        ));
        out[3] = judge(approx(
            as_int(k.bitmap1.wrapping_sub(k.native)),
            as_int(k.bitmap2.wrapping_sub(k.native)),
        ));
        if out[3] == Verdict::Fail {
            skip = true;
        }
    }
    if !skip {
        out[4] = judge(approx(
            as_int(e.entry),
            as_int(k.bitmap1.wrapping_sub(k.native)),
        ));
        out[5] = judge(approx(
            as_int(e.entry),
            as_int(k.bitmap2.wrapping_sub(k.native)),
        ));
        let total = e
            .entry
            .wrapping_add(e.per_filter_last2.wrapping_mul(4))
            .wrapping_add(k.native);
        out[6] = judge(approx(as_int(total), as_int(k.filter2)));
    }
    out
}

/// Estimates and expectations exactly as the kernel computes them from single integer values,
/// as record entries (no CI: one measurement each), plus notes on wrapped-around values.
pub fn record_parts(k: KernelInputs) -> (Vec<Estimate>, Vec<Expectation>, Vec<String>) {
    let e = estimates(k);
    let printed = |id: EstimateId| match id {
        EstimateId::TotalBitmap1 => e.total_bitmap1,
        EstimateId::TotalBitmap2 => e.total_bitmap2,
        EstimateId::TotalFull3 => e.total_full3,
        EstimateId::TotalFull4 => e.total_full4,
        EstimateId::Entry => e.entry,
        EstimateId::PerFilterLast2 => e.per_filter_last2,
        EstimateId::PerFilterDiv4 | EstimateId::DepthPerFilter | EstimateId::DepthEntry => {
            e.per_filter_div4
        }
    };
    let mut notes = Vec::new();
    // What the estimates mean: the same formulas in signed arithmetic. (Reinterpreting the
    // kernel's wrapped value is not enough: it divides the wrapped number by 4.)
    let (n, b1, b2, f3, f4) = (
        k.native as i64,
        k.bitmap1 as i64,
        k.bitmap2 as i64,
        k.filter1 as i64,
        k.filter2 as i64,
    );
    let entry = b1 - n - (b2 - b1);
    let last2 = f4 - f3;
    let meant = |id: EstimateId| match id {
        EstimateId::TotalBitmap1 => b1 - n,
        EstimateId::TotalBitmap2 => b2 - n,
        EstimateId::TotalFull3 => f3 - n,
        EstimateId::TotalFull4 => f4 - n,
        EstimateId::Entry => entry,
        EstimateId::PerFilterLast2 => last2,
        EstimateId::PerFilterDiv4 | EstimateId::DepthPerFilter | EstimateId::DepthEntry => {
            (f4 - n - entry) / 4
        }
    };
    let ests = EstimateId::KERNEL
        .iter()
        .map(|&id| {
            let (label, printed, signed) = (id.label(), printed(id), meant(id));
            if printed > i32::MAX as u64 {
                notes.push(format!(
                    "{label}: the kernel prints {printed} ns, an unsigned wrap-around; the \
                     difference is {signed} ns"
                ));
            }
            Estimate {
                id: id.id().into(),
                label: label.into(),
                formula: id.kernel_formula().unwrap_or_default().into(),
                median_ns: signed as f64,
                ci_low_ns: None,
                ci_high_ns: None,
                samples: 1,
                origin: None,
            }
        })
        .collect();
    // The values compared, as differences in ns (the verdicts below are the kernel's own).
    let sides = |x: KernelExpectation| match x {
        KernelExpectation::NativeLeBitmap1 => (n, b1),
        KernelExpectation::NativeLeFilter1 => (n, f3),
        KernelExpectation::PerFilterApprox => (last2, (f4 - n - entry) / 4),
        KernelExpectation::Bitmap1ApproxBitmap2 => (b1 - n, b2 - n),
        KernelExpectation::EntryApproxBitmap1 => (entry, b1 - n),
        KernelExpectation::EntryApproxBitmap2 => (entry, b2 - n),
        KernelExpectation::TotalApproxFull4 => (n + entry + 4 * last2, f4),
    };
    let verdicts = verdicts(k);
    let exps = KernelExpectation::ALL
        .iter()
        .zip(verdicts)
        .map(|(&x, v)| {
            let (l, r) = sides(x);
            let (l, r) = (l as f64, r as f64);
            Expectation {
                id: x.id().into(),
                label: x.label().into(),
                relation: x.relation(),
                lhs_ns: l,
                rhs_ns: r,
                diff_median_ns: Some(l - r),
                diff_ci_low_ns: None,
                diff_ci_high_ns: None,
                tolerance_ns: tolerance(l, r),
                systematic_ns: None,
                // The sequential method's verdict is the kernel's rule: there is no interval.
                verdict: v,
                kernel_verdict: v,
            }
        })
        .collect();
    (ests, exps, notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduces_the_published_2020_example() {
        // seccomp_benchmark output in the "Compare bitmap vs filter overhead" commit.
        let k = KernelInputs {
            native: 646,
            bitmap1: 675,
            bitmap2: 675,
            filter1: 732,
            filter2: 752,
        };
        let e = estimates(k);
        assert_eq!(
            (
                e.total_bitmap1,
                e.total_bitmap2,
                e.total_full3,
                e.total_full4
            ),
            (29, 29, 86, 106)
        );
        assert_eq!(
            (e.entry, e.per_filter_last2, e.per_filter_div4),
            (29, 20, 19)
        );
        assert_eq!(verdicts(k), [Verdict::Pass; 7]);
    }

    #[test]
    fn approx_is_ten_percent_or_two_ns() {
        assert!(approx(20, 19));
        assert!(approx(100, 110));
        assert!(!approx(100, 111));
        assert!(approx(5, 7));
        assert!(!approx(5, 8));
    }

    #[test]
    fn a_negative_estimate_wraps_and_skips_everything() {
        // bitmap2 much slower than bitmap1: entry goes negative and wraps.
        let k = KernelInputs {
            native: 170,
            bitmap1: 172,
            bitmap2: 180,
            filter1: 200,
            filter2: 210,
        };
        assert!(estimates(k).entry > i32::MAX as u64);
        assert_eq!(verdicts(k), [Verdict::Skip; 7]);
    }

    #[test]
    fn recorded_estimates_are_the_signed_differences_not_the_wrapped_ones() {
        // entry = 2 − 8 = −6 wraps; (210 − 170 − entry) / 4 is then computed from a wrapped
        // number by the kernel (≈ 4.6e18) — the record must hold 11, not that.
        let k = KernelInputs {
            native: 170,
            bitmap1: 172,
            bitmap2: 180,
            filter1: 200,
            filter2: 210,
        };
        let (ests, exps, notes) = record_parts(k);
        let get = |id: &str| ests.iter().find(|e| e.id == id).unwrap().median_ns;
        assert_eq!(get("entry"), -6.0);
        assert_eq!(get("per_filter.div4"), 11.0);
        assert!(ests.iter().all(|e| e.median_ns.abs() < 1000.0), "{ests:?}");
        assert!(notes
            .iter()
            .any(|n| n.contains("wrap-around") && n.contains("-6 ns")));
        assert!(exps.iter().all(|e| e.verdict == Verdict::Skip));
        assert!(exps
            .iter()
            .all(|e| e.lhs_ns.abs() < 1000.0 && e.rhs_ns.abs() < 1000.0));
        // A negative per-filter estimate itself.
        let k = KernelInputs {
            native: 100,
            bitmap1: 101,
            bitmap2: 101,
            filter1: 100,
            filter2: 90,
        };
        let (ests, _, _) = record_parts(k);
        assert_eq!(ests[6].median_ns, -2.0);
    }

    #[test]
    fn failed_bitmap_comparison_skips_the_bitmap_rest() {
        let k = KernelInputs {
            native: 100,
            bitmap1: 110,
            bitmap2: 130,
            filter1: 160,
            filter2: 170,
        };
        // entry = 10 - 20 = -10 → wraps → everything skipped: the kernel's behaviour.
        assert_eq!(verdicts(k), [Verdict::Skip; 7]);
        let k = KernelInputs {
            native: 100,
            bitmap1: 130,
            bitmap2: 140,
            filter1: 200,
            filter2: 210,
        };
        let v = verdicts(k);
        assert_eq!(v[3], Verdict::Fail); // 30 ≈ 40? no
        assert_eq!(&v[4..], &[Verdict::Skip; 3]);
    }
}
