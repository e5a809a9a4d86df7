//! The ids the record format fixes (docs/ids.md) that code on both sides matches on: the kernel
//! benchmark's five scenarios, its estimates and its seven expectations. One definition, so the
//! collector, the importer and the site cannot drift apart on a name.

use serde::{Deserialize, Serialize};

/// The five scenarios of the kernel's `seccomp_benchmark`, in the order it measures them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KernelScenario {
    /// No filter.
    Native,
    /// One constant-ALLOW filter (served by the action cache).
    Bitmap1,
    /// Two constant-ALLOW filters.
    Bitmap2,
    /// Two constant filters and one loading `args[0]` (no cache).
    Full3,
    /// As `Full3` plus one constant filter (no cache: the cache ANDs down the chain).
    Full4,
}

impl KernelScenario {
    pub const ALL: [KernelScenario; 5] = [
        KernelScenario::Native,
        KernelScenario::Bitmap1,
        KernelScenario::Bitmap2,
        KernelScenario::Full3,
        KernelScenario::Full4,
    ];

    /// The scenario id in a record.
    pub const fn id(self) -> &'static str {
        match self {
            KernelScenario::Native => "native",
            KernelScenario::Bitmap1 => "seccomp.bitmap.1",
            KernelScenario::Bitmap2 => "seccomp.bitmap.2",
            KernelScenario::Full3 => "seccomp.full.3",
            KernelScenario::Full4 => "seccomp.full.4",
        }
    }

    pub fn from_id(id: &str) -> Option<KernelScenario> {
        Self::ALL.into_iter().find(|k| k.id() == id)
    }
}

/// A derived quantity with a fixed id: the kernel benchmark's seven estimates and the two of
/// the depth-sweep fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EstimateId {
    TotalBitmap1,
    TotalBitmap2,
    TotalFull3,
    TotalFull4,
    Entry,
    PerFilterLast2,
    PerFilterDiv4,
    /// Slope of the depth sweep (per uncached filter).
    DepthPerFilter,
    /// Intercept of the depth sweep (entry cost).
    DepthEntry,
}

impl EstimateId {
    /// The kernel benchmark's estimates, in the order it prints them.
    pub const KERNEL: [EstimateId; 7] = [
        EstimateId::TotalBitmap1,
        EstimateId::TotalBitmap2,
        EstimateId::TotalFull3,
        EstimateId::TotalFull4,
        EstimateId::Entry,
        EstimateId::PerFilterLast2,
        EstimateId::PerFilterDiv4,
    ];

    pub const fn id(self) -> &'static str {
        match self {
            EstimateId::TotalBitmap1 => "total.bitmap.1",
            EstimateId::TotalBitmap2 => "total.bitmap.2",
            EstimateId::TotalFull3 => "total.full.3",
            EstimateId::TotalFull4 => "total.full.4",
            EstimateId::Entry => "entry",
            EstimateId::PerFilterLast2 => "per_filter.last2",
            EstimateId::PerFilterDiv4 => "per_filter.div4",
            EstimateId::DepthPerFilter => "depth.per_filter",
            EstimateId::DepthEntry => "depth.entry",
        }
    }

    /// The kernel benchmark's wording, or ours for the depth fit.
    pub const fn label(self) -> &'static str {
        match self {
            EstimateId::TotalBitmap1 => "total seccomp overhead for 1 bitmapped filter",
            EstimateId::TotalBitmap2 => "total seccomp overhead for 2 bitmapped filters",
            EstimateId::TotalFull3 => "total seccomp overhead for 3 full filters",
            EstimateId::TotalFull4 => "total seccomp overhead for 4 full filters",
            EstimateId::Entry => "seccomp entry overhead",
            EstimateId::PerFilterLast2 => "seccomp per-filter overhead (last 2 diff)",
            EstimateId::PerFilterDiv4 => "seccomp per-filter overhead (filters / 4)",
            EstimateId::DepthPerFilter => "per-filter cost (slope of the depth sweep)",
            EstimateId::DepthEntry => "entry cost (intercept of the depth sweep)",
        }
    }

    /// The kernel's formula in scenario ids (the depth fit's formula names its depths, so it is
    /// written by whoever computes it).
    pub const fn kernel_formula(self) -> Option<&'static str> {
        Some(match self {
            EstimateId::TotalBitmap1 => "bitmap.1 − native",
            EstimateId::TotalBitmap2 => "bitmap.2 − native",
            EstimateId::TotalFull3 => "full.3 − native",
            EstimateId::TotalFull4 => "full.4 − native",
            EstimateId::Entry => "bitmap.1 − native − (bitmap.2 − bitmap.1)",
            EstimateId::PerFilterLast2 => "full.4 − full.3",
            EstimateId::PerFilterDiv4 => "(full.4 − native − entry) / 4",
            EstimateId::DepthPerFilter | EstimateId::DepthEntry => return None,
        })
    }
}

/// How an expectation compares its two sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Relation {
    /// lhs ≤ rhs (within the tolerance).
    Le,
    /// lhs ≈ rhs: within the tolerance of each other.
    Approx,
}

/// The kernel benchmark's seven expectations, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KernelExpectation {
    NativeLeBitmap1,
    NativeLeFilter1,
    PerFilterApprox,
    Bitmap1ApproxBitmap2,
    EntryApproxBitmap1,
    EntryApproxBitmap2,
    TotalApproxFull4,
}

impl KernelExpectation {
    pub const ALL: [KernelExpectation; 7] = [
        KernelExpectation::NativeLeBitmap1,
        KernelExpectation::NativeLeFilter1,
        KernelExpectation::PerFilterApprox,
        KernelExpectation::Bitmap1ApproxBitmap2,
        KernelExpectation::EntryApproxBitmap1,
        KernelExpectation::EntryApproxBitmap2,
        KernelExpectation::TotalApproxFull4,
    ];

    pub const fn id(self) -> &'static str {
        match self {
            KernelExpectation::NativeLeBitmap1 => "native_le_bitmap1",
            KernelExpectation::NativeLeFilter1 => "native_le_filter1",
            KernelExpectation::PerFilterApprox => "per_filter_approx",
            KernelExpectation::Bitmap1ApproxBitmap2 => "bitmap1_approx_bitmap2",
            KernelExpectation::EntryApproxBitmap1 => "entry_approx_bitmap1",
            KernelExpectation::EntryApproxBitmap2 => "entry_approx_bitmap2",
            KernelExpectation::TotalApproxFull4 => "total_approx_full4",
        }
    }

    /// The kernel's wording.
    pub const fn label(self) -> &'static str {
        match self {
            KernelExpectation::NativeLeBitmap1 => "native ≤ 1 bitmap",
            KernelExpectation::NativeLeFilter1 => "native ≤ 1 filter",
            KernelExpectation::PerFilterApprox => {
                "per-filter (last 2 diff) ≈ per-filter (filters / 4)"
            }
            KernelExpectation::Bitmap1ApproxBitmap2 => "1 bitmapped ≈ 2 bitmapped",
            KernelExpectation::EntryApproxBitmap1 => "entry ≈ 1 bitmapped",
            KernelExpectation::EntryApproxBitmap2 => "entry ≈ 2 bitmapped",
            KernelExpectation::TotalApproxFull4 => {
                "native + entry + (per filter * 4) ≈ 4 filters total"
            }
        }
    }

    pub const fn relation(self) -> Relation {
        match self {
            KernelExpectation::NativeLeBitmap1 | KernelExpectation::NativeLeFilter1 => Relation::Le,
            _ => Relation::Approx,
        }
    }

    pub fn from_id(id: &str) -> Option<KernelExpectation> {
        Self::ALL.into_iter().find(|k| k.id() == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_distinct_and_round_trip() {
        for k in KernelScenario::ALL {
            assert_eq!(KernelScenario::from_id(k.id()), Some(k));
        }
        for e in KernelExpectation::ALL {
            assert_eq!(KernelExpectation::from_id(e.id()), Some(e));
        }
        let mut ids: Vec<&str> = EstimateId::KERNEL.iter().map(|e| e.id()).collect();
        ids.extend([EstimateId::DepthPerFilter.id(), EstimateId::DepthEntry.id()]);
        let n = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), n);
        assert!(EstimateId::KERNEL
            .iter()
            .all(|e| e.kernel_formula().is_some()));
    }
}
