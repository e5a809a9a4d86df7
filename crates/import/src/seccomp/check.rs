//! The figures of a seccomp_benchmark run checked against each other. The benchmark prints
//! each scenario as integer ns per call and computes every estimate and comparison from those
//! same integers (unsigned, wrapping; a comparison casts to signed): a printed estimate or
//! comparison operand is exactly its formula over the printed scenario lines, with no
//! rounding in between. One that is not was not printed by this run.

use super::assemble::{formula, kernel_u64};
use super::read::{Est, Run};
use crate::parsed::Contradiction;
use crate::text::Cleaned;
use syscost_record::{EstimateId, KernelExpectation, KernelScenario};

/// The scenarios an estimate's formula reads (and, for per-filter ÷ 4, the entry estimate).
fn inputs(e: Est) -> (&'static [KernelScenario], Option<Est>) {
    use EstimateId::*;
    use KernelScenario::{Bitmap1, Bitmap2, Full3, Full4, Native};
    match e {
        Est::Kernel(TotalBitmap1) => (&[Native, Bitmap1], None),
        Est::Kernel(TotalBitmap2) => (&[Native, Bitmap2], None),
        Est::Kernel(TotalFull3) => (&[Native, Full3], None),
        Est::Kernel(TotalFull4) => (&[Native, Full4], None),
        Est::BitmapDiff => (&[Bitmap1, Bitmap2], None),
        Est::Kernel(Entry) => (&[Native, Bitmap1, Bitmap2], None),
        Est::Kernel(PerFilterLast2) => (&[Full3, Full4], None),
        Est::Kernel(PerFilterDiv4) => (&[Native, Full4], Some(Est::Kernel(Entry))),
        Est::Kernel(DepthPerFilter | DepthEntry) => (&[], None),
    }
}

/// The lines an estimate is computed from: its scenarios', and the entry estimate's (else the
/// entry's own scenarios') for per-filter ÷ 4.
fn input_lines(e: Est, run: &Run) -> Vec<usize> {
    let (scns, est) = inputs(e);
    let mut lines: Vec<usize> = scns.iter().filter_map(|&s| run.scenario_line(s)).collect();
    if let Some(est) = est {
        match run.estimate_line(est) {
            Some(l) => lines.push(l),
            None => lines.extend(input_lines(est, run)),
        }
    }
    lines.sort_unstable();
    lines
}

/// An estimate's value as the kernel holds it: printed, else computed by its formula.
fn value(e: Est, run: &Run) -> Option<u64> {
    run.estimate(e).or_else(|| kernel_u64(e, run))
}

/// The operands of a comparison as the kernel passes them (`long long`), from the printed
/// scenario values and estimates, and the lines they come from.
fn operands(e: KernelExpectation, run: &Run) -> Option<((i64, i64), Vec<usize>)> {
    use EstimateId::{Entry, PerFilterDiv4, PerFilterLast2};
    use KernelExpectation::*;
    use KernelScenario::{Bitmap1, Bitmap2, Full3, Full4, Native};
    let s = |x| run.scenario(x);
    let est = |x| value(Est::Kernel(x), run);
    let (n, b1, b2) = (s(Native), s(Bitmap1), s(Bitmap2));
    let signed = |v: u64| v as i64;
    let (ops, scns, ests): (_, &[KernelScenario], &[EstimateId]) = match e {
        NativeLeBitmap1 => ((n?, b1?), &[Native, Bitmap1], &[]),
        NativeLeFilter1 => ((n?, s(Full3)?), &[Native, Full3], &[]),
        PerFilterApprox => (
            (est(PerFilterLast2)?, est(PerFilterDiv4)?),
            &[],
            &[PerFilterLast2, PerFilterDiv4],
        ),
        Bitmap1ApproxBitmap2 => (
            (b1?.wrapping_sub(n?), b2?.wrapping_sub(n?)),
            &[Native, Bitmap1, Bitmap2],
            &[],
        ),
        EntryApproxBitmap1 => (
            (est(Entry)?, b1?.wrapping_sub(n?)),
            &[Native, Bitmap1],
            &[Entry],
        ),
        EntryApproxBitmap2 => (
            (est(Entry)?, b2?.wrapping_sub(n?)),
            &[Native, Bitmap2],
            &[Entry],
        ),
        TotalApproxFull4 => (
            (
                est(Entry)?
                    .wrapping_add(est(PerFilterLast2)?.wrapping_mul(4))
                    .wrapping_add(n?),
                s(Full4)?,
            ),
            &[Native, Full4],
            &[Entry, PerFilterLast2],
        ),
    };
    let mut lines: Vec<usize> = scns.iter().filter_map(|&x| run.scenario_line(x)).collect();
    for &x in ests {
        let x = Est::Kernel(x);
        match run.estimate_line(x) {
            Some(l) => lines.push(l),
            None => lines.extend(input_lines(x, run)),
        }
    }
    lines.sort_unstable();
    Some(((signed(ops.0), signed(ops.1)), lines))
}

/// The first printed estimate or comparison that its own run's lines contradict.
pub fn contradiction(run: &Run, cleaned: &Cleaned) -> Option<Contradiction> {
    let mut seen: Vec<Est> = Vec::new();
    for &(e, _, printed, line) in &run.estimates {
        // The first value of each is the one recorded.
        if seen.contains(&e) {
            continue;
        }
        seen.push(e);
        let Some(want) = kernel_u64(e, run) else {
            continue;
        };
        if printed != want {
            return Some(Contradiction::new(
                cleaned,
                line,
                &input_lines(e, run),
                format!(
                    "seccomp_benchmark prints {} there, {} ns by those lines, not {}",
                    formula(e),
                    want as i64,
                    printed as i64
                ),
            ));
        }
    }
    for e in KernelExpectation::ALL {
        let (Some(c), Some(&line)) = (run.compares.get(e), run.compare_lines.get(e)) else {
            continue;
        };
        let Some(((lhs, rhs), from)) = operands(e, run) else {
            continue;
        };
        if (c.lhs, c.rhs) != (lhs, rhs) {
            return Some(Contradiction::new(
                cleaned,
                line,
                &from,
                format!(
                    "seccomp_benchmark compares \"{}\" on ({lhs}, {rhs}) by those lines, not \
                     ({}, {})",
                    e.label(),
                    c.lhs,
                    c.rhs
                ),
            ));
        }
    }
    None
}
