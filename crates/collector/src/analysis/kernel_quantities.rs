//! The kernel `seccomp_benchmark`'s quantities, defined once over its five scenarios by name:
//! estimates and both sides of each expectation. The per-round analysis ([`super::estimates`],
//! [`super::expectations`]) evaluates them on every round's samples.

use syscost_record::{EstimateId, KernelExpectation, KernelScenario};

/// One value per kernel scenario: a round's samples, or medians.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Five {
    pub native: f64,
    pub bitmap1: f64,
    pub bitmap2: f64,
    pub full3: f64,
    pub full4: f64,
}

impl Five {
    /// From values listed in [`KernelScenario::ALL`] order (how rounds are handed over).
    pub fn from_row(row: &[f64]) -> Five {
        let at = |k: KernelScenario| {
            KernelScenario::ALL
                .iter()
                .position(|&x| x == k)
                .and_then(|i| row.get(i).copied())
                .unwrap_or(f64::NAN)
        };
        Five {
            native: at(KernelScenario::Native),
            bitmap1: at(KernelScenario::Bitmap1),
            bitmap2: at(KernelScenario::Bitmap2),
            full3: at(KernelScenario::Full3),
            full4: at(KernelScenario::Full4),
        }
    }

    /// entry = bitmap.1 − native − (bitmap.2 − bitmap.1).
    pub fn entry(&self) -> f64 {
        self.bitmap1 - self.native - (self.bitmap2 - self.bitmap1)
    }

    /// The kernel's estimate, or None for the depth fit's (not a function of the five).
    pub fn estimate(&self, e: EstimateId) -> Option<f64> {
        Some(match e {
            EstimateId::TotalBitmap1 => self.bitmap1 - self.native,
            EstimateId::TotalBitmap2 => self.bitmap2 - self.native,
            EstimateId::TotalFull3 => self.full3 - self.native,
            EstimateId::TotalFull4 => self.full4 - self.native,
            EstimateId::Entry => self.entry(),
            EstimateId::PerFilterLast2 => self.full4 - self.full3,
            EstimateId::PerFilterDiv4 => (self.full4 - self.native - self.entry()) / 4.0,
            EstimateId::DepthPerFilter | EstimateId::DepthEntry => return None,
        })
    }

    /// The two sides the kernel compares for an expectation.
    pub fn sides(&self, x: KernelExpectation) -> (f64, f64) {
        let last2 = self.full4 - self.full3;
        match x {
            KernelExpectation::NativeLeBitmap1 => (self.native, self.bitmap1),
            KernelExpectation::NativeLeFilter1 => (self.native, self.full3),
            KernelExpectation::PerFilterApprox => {
                (last2, (self.full4 - self.native - self.entry()) / 4.0)
            }
            KernelExpectation::Bitmap1ApproxBitmap2 => {
                (self.bitmap1 - self.native, self.bitmap2 - self.native)
            }
            KernelExpectation::EntryApproxBitmap1 => (self.entry(), self.bitmap1 - self.native),
            KernelExpectation::EntryApproxBitmap2 => (self.entry(), self.bitmap2 - self.native),
            KernelExpectation::TotalApproxFull4 => {
                (self.native + self.entry() + 4.0 * last2, self.full4)
            }
        }
    }
}

/// The tolerance for comparing two values: the kernel's margin, max(10 % of the smaller, 2 ns).
pub fn tolerance(lhs: f64, rhs: f64) -> f64 {
    (0.1 * lhs.abs().min(rhs.abs())).max(2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproduces_the_published_2020_example() {
        // seccomp_benchmark output in the "Compare bitmap vs filter overhead" commit.
        let f = Five::from_row(&[646.0, 675.0, 675.0, 732.0, 752.0]);
        let e = |id| f.estimate(id).unwrap();
        assert_eq!(e(EstimateId::TotalFull3), 86.0);
        assert_eq!(e(EstimateId::Entry), 29.0);
        assert_eq!(e(EstimateId::PerFilterLast2), 20.0);
        assert_eq!(e(EstimateId::PerFilterDiv4), 19.25);
        assert_eq!(f.sides(KernelExpectation::NativeLeFilter1), (646.0, 732.0));
        assert_eq!(
            f.sides(KernelExpectation::TotalApproxFull4),
            (646.0 + 29.0 + 80.0, 752.0)
        );
    }

    #[test]
    fn tolerance_is_the_kernels_margin() {
        assert!((tolerance(29.0, 29.0) - 2.9).abs() < 1e-12);
        assert_eq!(tolerance(5.0, 100.0), 2.0);
        assert!((tolerance(-40.0, 200.0) - 4.0).abs() < 1e-12);
    }
}
