//! Comparison groups: every quantity the record reports as a difference names the scenarios it
//! is computed from, and those are sampled together (see [`crate::engine::driver`]). This is
//! also where each quantity's target is set, and where the engine learns, between rounds, how
//! far each group still is from its targets ([`Judge`]).
//!
//! The groups of a run, from the scenarios it measures:
//! - `kernel`: the kernel benchmark's five scenarios and the A/A control's copies — its
//!   estimates (the totals are also its four overheads), the copies' offsets from their
//!   originals, and its seven expectations, which those offsets qualify (their bias allowance);
//! - `aa.<original>`: without all five, the A/A control on its own — an original with its copies;
//! - `depth`: `native` and the depth sweep — the fit's slope and intercept, each depth's
//!   overhead;
//! - one pair per other scenario with a baseline, named after it — its overhead over its
//!   baseline, and the attach cost a BPF scenario reports;
//! - one group of its own for a scenario no difference is made from (`null`, attach costs with
//!   no twin) — its own median.
//!
//! Target: a quantity's CI half-width must be at most max(p % of the larger of the `native` call
//! and the quantity itself, [`FLOOR_NS`]), p being `--target-ci`. So a nanosecond-scale
//! difference (entry, per-filter costs, `sud.allow`) is judged on p % of the native call; a
//! microsecond-scale path or attach cost on p % of itself; and nothing near zero (`null`, a
//! difference that cancels) is asked for less than the floor — a relative CI of a number close
//! to zero says nothing.

use super::{estimates, Series};
use crate::engine::driver::{Group, Judge, Need, Slot};
use crate::scenarios::{baseline::REPLICAS, Scenario};
use crate::stats::instances::{pool, pool_positive, Pooled};
use crate::stats::per_round_tagged;
use syscost_record::{
    Component, EstimateId, GroupSummary, KernelExpectation, KernelScenario, QuantityKind, Target,
};

/// The narrowest CI half-width a target asks for, ns: about the spread of the harness loop
/// itself (`null` is ~1 ns per iteration), below which a narrower interval means nothing.
pub const FLOOR_NS: f64 = 0.5;

/// A number the record reports with an interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quantity {
    /// The paired overhead of scenario `me` over scenario `base`.
    Overhead {
        me: usize,
        base: usize,
    },
    Estimate(EstimateId),
    /// A scenario's own median.
    Median(usize),
    /// The median of the untimed work a scenario reports (`attach.bpf.*`).
    Untimed(usize),
}

/// The groups of a run and the quantities each measures.
pub struct Comparisons {
    ids: Vec<String>,
    /// The result id of each scenario's untimed work, if it reports some.
    untimed_ids: Vec<Option<String>>,
    pub groups: Vec<Group>,
    /// Every quantity with the group whose rounds measure it, in the record's order.
    pub quantities: Vec<(Quantity, usize)>,
    target_ci_pct: f64,
    native: Option<usize>,
}

impl Comparisons {
    /// The groups for `scenarios` (see the module comment) and their targets at `target_ci_pct`.
    pub fn plan(scenarios: &[Box<dyn Scenario>], target_ci_pct: f64) -> Comparisons {
        let ids: Vec<String> = scenarios.iter().map(|s| s.id()).collect();
        let at = |id: &str| ids.iter().position(|x| x == id);
        let base: Vec<Option<usize>> = scenarios
            .iter()
            .map(|s| s.baseline().and_then(|b| at(&b)))
            .collect();
        let native = at(KernelScenario::Native.id());
        let mut p = Planner {
            covered: vec![false; ids.len()],
            base,
            c: Comparisons {
                untimed_ids: scenarios
                    .iter()
                    .map(|s| s.untimed_result().map(|(id, _)| id))
                    .collect(),
                groups: Vec::new(),
                quantities: Vec::new(),
                target_ci_pct,
                native,
                ids,
            },
        };
        let kernel = p.kernel();
        p.aa();
        p.depth();
        p.pairs();
        p.own_medians();
        p.untimed();
        p.weigh(kernel);
        p.c
    }

    /// The quantity's estimate and interval from the rounds so far, pooled over instances as
    /// the record pools it; None when one of its inputs was not measured.
    fn summary(&self, q: Quantity, series: &Series) -> Option<Pooled> {
        let tags = series.tags();
        let (values, t) = match q {
            Quantity::Overhead { me, base } => {
                per_round_tagged(&[series.by_index(me)?, series.by_index(base)?], tags, |x| {
                    x[0] - x[1]
                })
            }
            Quantity::Estimate(e) => estimates::per_round_values(series, e)?.0,
            Quantity::Median(i) | Quantity::Untimed(i) => {
                let own = match q {
                    Quantity::Median(_) => series.by_index(i)?,
                    _ => series.untimed(i)?,
                };
                let (v, t) = per_round_tagged(&[own], tags, |x| x[0]);
                // A time of its own, pooled as the record pools it.
                return pool_positive(&v, &t);
            }
        };
        pool(&values, &t)
    }

    /// The half-width asked of a quantity whose median is `median` (and, for an overhead, whose
    /// baseline's median is `base`).
    fn target_ns(&self, median: f64, base: Option<f64>, native: Option<f64>) -> f64 {
        let reference = native
            .unwrap_or(0.0)
            .max(median.abs())
            .max(base.unwrap_or(0.0).abs());
        (self.target_ci_pct / 100.0 * reference).max(FLOOR_NS)
    }

    /// The estimate of an overhead's baseline: a difference of two slow operations is judged on
    /// the scale of the operations, not on the native call's.
    fn base_median(&self, q: Quantity, series: &Series) -> Option<f64> {
        match q {
            Quantity::Overhead { base, .. } => self.own_estimate(base, series),
            _ => None,
        }
    }

    fn native_median(&self, series: &Series) -> Option<f64> {
        self.own_estimate(self.native?, series)
    }

    /// Scenario `i`'s own time as the record reports it (pooled over instances), so that a
    /// target read off the record is the one the run judged.
    fn own_estimate(&self, i: usize, series: &Series) -> Option<f64> {
        self.summary(Quantity::Median(i), series)
            .map(|p| p.estimate)
    }

    /// The baseline of `group` when it is measured but nothing is compared with it any more
    /// in any group: its own median is then what the record has of it.
    fn orphan(&self, group: usize, series: &Series) -> Option<usize> {
        let b = self.groups[group].baseline?;
        series.by_index(b)?;
        let compared = self.quantities.iter().any(|&(q, _)| match q {
            Quantity::Overhead { me, base } => {
                (me == b || base == b)
                    && series.by_index(me).is_some()
                    && series.by_index(base).is_some()
            }
            Quantity::Estimate(_) => self
                .groups
                .iter()
                .any(|g| g.members.contains(&b) && self.summary(q, series).is_some()),
            Quantity::Median(i) | Quantity::Untimed(i) => i == b,
        });
        // The first of its groups speaks for it.
        let first = self.groups.iter().position(|g| g.baseline == Some(b));
        (!compared && first == Some(group)).then_some(b)
    }

    /// Every quantity that could be computed, with its target and whether it was met.
    pub fn targets(&self, slots: &[Slot]) -> Vec<Target> {
        self.quantified(slots).into_iter().map(|(t, _)| t).collect()
    }

    /// The variance components of every quantity [`Self::targets`] lists, in its order.
    pub fn components(&self, slots: &[Slot]) -> Vec<Component> {
        self.quantified(slots)
            .into_iter()
            .map(|(t, p)| Component {
                quantity: t.quantity,
                id: t.id,
                instances: p.instances as u64,
                within_ns: p.within,
                between_ns: p.between,
            })
            .collect()
    }

    /// Every quantity that could be computed: its target, and its pooled summary.
    fn quantified(&self, slots: &[Slot]) -> Vec<(Target, Pooled)> {
        let series = Series::new(&self.ids, slots);
        let native = self.native_median(&series);
        let orphans = (0..self.groups.len())
            .filter_map(|g| Some((Quantity::Median(self.orphan(g, &series)?), g)));
        self.quantities
            .iter()
            .copied()
            .chain(orphans)
            .filter_map(|(q, g)| {
                let s = self.summary(q, &series)?;
                let half = s.ci.map(|(lo, hi)| (hi - lo) / 2.0);
                let target_ns = self.target_ns(s.estimate, self.base_median(q, &series), native);
                let (quantity, id) = match q {
                    Quantity::Overhead { me, .. } => (QuantityKind::Overhead, self.ids[me].clone()),
                    Quantity::Estimate(e) => (QuantityKind::Estimate, e.id().to_string()),
                    Quantity::Median(i) => (QuantityKind::Median, self.ids[i].clone()),
                    Quantity::Untimed(i) => (
                        QuantityKind::Median,
                        self.untimed_ids[i].clone().unwrap_or_default(),
                    ),
                };
                let t = Target {
                    quantity,
                    id,
                    median_ns: s.estimate,
                    half_width_ns: half,
                    target_ns,
                    met: half.is_some_and(|h| h <= target_ns),
                    group: self.groups[g].id.clone(),
                };
                Some((t, s))
            })
            .collect()
    }

    /// The groups as the record keeps them: members by id, rounds and time from the engine.
    pub fn summaries(&self, outcome: &crate::engine::driver::Outcome) -> Vec<GroupSummary> {
        self.groups
            .iter()
            .zip(&outcome.groups)
            .map(|(g, o)| GroupSummary {
                id: g.id.clone(),
                members: g.members.iter().map(|&i| self.ids[i].clone()).collect(),
                rounds: o.rounds as u64,
                duration_s: o.elapsed.as_secs_f64(),
            })
            .collect()
    }
}

impl Judge for Comparisons {
    fn need(&self, group: usize, _groups: &[Group], slots: &[Slot]) -> Need {
        let series = Series::new(&self.ids, slots);
        let native = self.native_median(&series);
        let mut worst: Option<f64> = None;
        for &(q, _) in self.quantities.iter().filter(|(_, g)| *g == group) {
            let Some(s) = self.summary(q, &series) else {
                continue;
            };
            let Some((lo, hi)) = s.ci else {
                return Need::Unknown;
            };
            let target = self.target_ns(s.estimate, self.base_median(q, &series), native);
            let ratio = (hi - lo) / 2.0 / target;
            worst = Some(worst.map_or(ratio, |w: f64| w.max(ratio)));
        }
        // Every comparison of its baseline is gone (the scenarios it was the baseline of were
        // skipped or failed): the engine samples it for its own median.
        if worst.is_none() {
            let own = self
                .orphan(group, &series)
                .and_then(|b| self.summary(Quantity::Median(b), &series));
            if let Some(s) = own {
                let Some((lo, hi)) = s.ci else {
                    return Need::Unknown;
                };
                worst = Some((hi - lo) / 2.0 / self.target_ns(s.estimate, None, native));
            }
        }
        worst.map_or(Need::Nothing, Need::Ratio)
    }

    /// The components of the group's widest quantity (relative to its target), as variances.
    fn components(&self, group: usize, _groups: &[Group], slots: &[Slot]) -> Option<(f64, f64)> {
        let series = Series::new(&self.ids, slots);
        let native = self.native_median(&series);
        let mut widest: Option<(f64, f64, f64)> = None;
        for &(q, _) in self.quantities.iter().filter(|(_, g)| *g == group) {
            let Some(s) = self.summary(q, &series) else {
                continue;
            };
            let (Some(h), Some(w), Some(b)) = (s.half_width(), s.within, s.between) else {
                continue;
            };
            let ratio = h / self.target_ns(s.estimate, self.base_median(q, &series), native);
            if widest.is_none_or(|x| ratio > x.0) {
                widest = Some((ratio, w * w, b * b));
            }
        }
        widest.map(|(_, w, b)| (w, b))
    }
}

fn dedup<'a>(it: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for x in it {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

/// [`Comparisons::plan`] in steps, group kind by group kind.
struct Planner {
    c: Comparisons,
    /// Each scenario's baseline, by index.
    base: Vec<Option<usize>>,
    /// Scenarios whose difference some group already measures.
    covered: Vec<bool>,
}

impl Planner {
    fn at(&self, id: &str) -> Option<usize> {
        self.c.ids.iter().position(|x| x == id)
    }

    /// A group of `members`, its baseline `base` first.
    fn add(&mut self, id: &str, base: Option<usize>, members: Vec<usize>) -> usize {
        let mut members = members;
        if let Some(b) = base {
            members.retain(|&m| m != b);
            members.insert(0, b);
        }
        self.c.groups.push(Group {
            id: id.into(),
            members,
            baseline: base,
            weight: 0,
        });
        self.c.groups.len() - 1
    }

    /// The overheads group `g` measures: each member's over its baseline, when that is a
    /// member too.
    fn overheads(&mut self, g: usize, members: &[usize]) {
        for &m in members {
            if let Some(b) = self.base[m].filter(|b| members.contains(b)) {
                self.c
                    .quantities
                    .push((Quantity::Overhead { me: m, base: b }, g));
                self.covered[m] = true;
            }
        }
    }

    /// The A/A copies of an original, when measured.
    fn copies(&self, original: &str) -> Vec<usize> {
        let Some(o) = self.at(original) else {
            return Vec::new();
        };
        REPLICAS
            .iter()
            .filter(|r| r.1 == original)
            .filter_map(|r| self.at(r.0))
            .filter(|&r| self.base[r] == Some(o))
            .collect()
    }

    /// The kernel benchmark's five with the A/A copies, when all five are measured: the group.
    fn kernel(&mut self) -> Option<usize> {
        let five: Vec<usize> = KernelScenario::ALL
            .iter()
            .map(|k| self.at(k.id()))
            .collect::<Option<_>>()?;
        // The A/A control qualifies the expectations: it is sampled in their rounds.
        let aa: Vec<usize> = dedup(REPLICAS.iter().map(|r| r.1))
            .into_iter()
            .flat_map(|o| self.copies(o))
            .collect();
        let members: Vec<usize> = five.iter().copied().chain(aa).collect();
        let g = self.add("kernel", self.c.native, members.clone());
        // Its four overheads are the estimates total.*: judged as those.
        for &m in &five {
            self.covered[m] = true;
        }
        for e in EstimateId::KERNEL {
            self.c.quantities.push((Quantity::Estimate(e), g));
        }
        for &r in &members[five.len()..] {
            if let Some(b) = self.base[r] {
                self.c
                    .quantities
                    .push((Quantity::Overhead { me: r, base: b }, g));
                self.covered[r] = true;
            }
        }
        Some(g)
    }

    /// A group of its own for an original's A/A copies the kernel group does not hold.
    fn aa(&mut self) {
        for original in dedup(REPLICAS.iter().map(|r| r.1)) {
            let (Some(o), copies) = (self.at(original), self.copies(original)) else {
                continue;
            };
            if copies.is_empty() || copies.iter().all(|&r| self.covered[r]) {
                continue;
            }
            let members: Vec<usize> = std::iter::once(o).chain(copies).collect();
            let g = self.add(&format!("aa.{original}"), Some(o), members.clone());
            self.overheads(g, &members);
        }
    }

    /// `native` and the filter depths: their overheads, and the fit when two depths or more.
    fn depth(&mut self) {
        let Some(n) = self.c.native else {
            return;
        };
        let depths: Vec<usize> = (0..self.c.ids.len())
            .filter(|&i| self.c.ids[i].starts_with("seccomp.depth.") && self.base[i] == Some(n))
            .collect();
        if depths.is_empty() {
            return;
        }
        let members: Vec<usize> = std::iter::once(n).chain(depths.clone()).collect();
        let g = self.add("depth", Some(n), members.clone());
        self.overheads(g, &members);
        if depths.len() >= 2 {
            self.c
                .quantities
                .push((Quantity::Estimate(EstimateId::DepthPerFilter), g));
            self.c
                .quantities
                .push((Quantity::Estimate(EstimateId::DepthEntry), g));
        }
    }

    /// A pair for every other scenario with a baseline.
    fn pairs(&mut self) {
        for i in 0..self.c.ids.len() {
            if let (Some(b), false) = (self.base[i], self.covered[i]) {
                let id = self.c.ids[i].clone();
                let g = self.add(&id, Some(b), vec![b, i]);
                self.overheads(g, &[b, i]);
            }
        }
    }

    /// A scenario that is nobody's difference: its own median is what the record reports.
    fn own_medians(&mut self) {
        for i in 0..self.c.ids.len() {
            if !self.c.groups.iter().any(|g| g.members.contains(&i)) {
                let id = self.c.ids[i].clone();
                let g = self.add(&id, None, vec![i]);
                self.c.quantities.push((Quantity::Median(i), g));
            }
        }
    }

    /// Attach costs reported beside a scenario's own result go with its first group.
    fn untimed(&mut self) {
        for i in 0..self.c.ids.len() {
            if self.c.untimed_ids[i].is_some() {
                if let Some(g) = self.c.groups.iter().position(|g| g.members.contains(&i)) {
                    self.c.quantities.push((Quantity::Untimed(i), g));
                }
            }
        }
    }

    /// A group's share of a budget that cannot meet every target: the intervals its rounds
    /// report — its quantities, and for the kernel group its seven expectations too.
    fn weigh(&mut self, kernel: Option<usize>) {
        let c = &mut self.c;
        for (g, group) in c.groups.iter_mut().enumerate() {
            group.weight = c.quantities.iter().filter(|q| q.1 == g).count();
            if Some(g) == kernel {
                group.weight += KernelExpectation::ALL.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::Syscall;

    fn plan(only: &[&str]) -> (Comparisons, Vec<String>) {
        let only: Vec<String> = only.iter().map(|s| s.to_string()).collect();
        let all =
            crate::scenarios::select(crate::scenarios::all(Syscall::Getpid), &only, &[]).unwrap();
        let ids = all.iter().map(|s| s.id()).collect();
        (Comparisons::plan(&all, 1.0), ids)
    }

    fn members(c: &Comparisons, ids: &[String], group: &str) -> Vec<String> {
        let g = c.groups.iter().find(|g| g.id == group).unwrap();
        g.members.iter().map(|&i| ids[i].clone()).collect()
    }

    #[test]
    fn every_scenario_is_in_a_group_and_every_quantity_in_one_that_holds_its_inputs() {
        let (c, ids) = plan(&[]);
        for (i, id) in ids.iter().enumerate() {
            assert!(
                c.groups.iter().any(|g| g.members.contains(&i)),
                "{id} is in no group"
            );
        }
        for &(q, g) in &c.quantities {
            let m = &c.groups[g].members;
            match q {
                Quantity::Overhead { me, base } => {
                    assert!(m.contains(&me) && m.contains(&base), "{q:?}")
                }
                Quantity::Median(i) | Quantity::Untimed(i) => assert!(m.contains(&i), "{q:?}"),
                Quantity::Estimate(_) => {}
            }
        }
        // The kernel's five; a default run has no A/A copies (its instances cover what they
        // measured), and asked for, they join the kernel group.
        assert_eq!(
            members(&c, &ids, "kernel"),
            [
                "native",
                "seccomp.bitmap.1",
                "seccomp.bitmap.2",
                "seccomp.full.3",
                "seccomp.full.4"
            ]
        );
        assert!(!ids.iter().any(|i| i.contains(".replica.")), "{ids:?}");
        let (c2, ids2) = plan(&["seccomp.bitmap.*", "seccomp.full.*", "native*"]);
        assert_eq!(
            members(&c2, &ids2, "kernel"),
            [
                "native",
                "seccomp.bitmap.1",
                "seccomp.bitmap.2",
                "seccomp.full.3",
                "seccomp.full.4",
                "native.replica.1",
                "native.replica.2",
                "seccomp.bitmap.1.replica.1",
                "seccomp.bitmap.1.replica.2",
                "seccomp.bitmap.2.replica.1"
            ]
        );
        let kernel = c.groups.iter().find(|g| g.id == "kernel").unwrap();
        // Its seven estimates and seven expectations.
        assert_eq!(kernel.weight, 7 + 7);
        assert!(!c.groups.iter().any(|g| g.id.starts_with("aa.")));
        assert_eq!(members(&c, &ids, "depth")[0], "native");
        assert_eq!(members(&c, &ids, "depth").len(), 7);
        assert_eq!(members(&c, &ids, "sud.allow"), ["native", "sud.allow"]);
        assert_eq!(
            members(&c, &ids, "seccomp.profile.argcheck"),
            ["native.personality", "seccomp.profile.argcheck"]
        );
        assert_eq!(members(&c, &ids, "bpf.uprobe"), ["bpf.ufunc", "bpf.uprobe"]);
        assert_eq!(members(&c, &ids, "null"), ["null"]);
        // Every estimate the record can hold is some group's quantity.
        let estimates: Vec<EstimateId> = c
            .quantities
            .iter()
            .filter_map(|(q, _)| match q {
                Quantity::Estimate(e) => Some(*e),
                _ => None,
            })
            .collect();
        assert_eq!(estimates.len(), EstimateId::KERNEL.len() + 2);
        // Every overhead the record reports is a quantity (the kernel's four are its totals).
        let all =
            crate::scenarios::select(crate::scenarios::all(Syscall::Getpid), &[], &[]).unwrap();
        let kernel = &c.groups.iter().find(|g| g.id == "kernel").unwrap().members;
        for (i, s) in all.iter().enumerate() {
            if s.baseline().is_some() && !kernel.contains(&i) {
                assert!(
                    c.quantities
                        .iter()
                        .any(|(q, _)| matches!(q, Quantity::Overhead { me, .. } if *me == i)),
                    "{} has no overhead target",
                    ids[i]
                );
            }
        }
    }

    #[test]
    fn without_the_kernels_five_the_a_a_copies_have_a_group_of_their_own() {
        let (c, ids) = plan(&["native.replica.*", "seccomp.bitmap.1.replica.1"]);
        assert_eq!(
            members(&c, &ids, "aa.native"),
            ["native", "native.replica.1", "native.replica.2"]
        );
        assert_eq!(
            members(&c, &ids, "aa.seccomp.bitmap.1"),
            ["seccomp.bitmap.1", "seccomp.bitmap.1.replica.1"]
        );
    }

    #[test]
    fn a_subset_gets_pairs_and_no_estimates() {
        let (c, ids) = plan(&["seccomp.bitmap.1"]);
        assert_eq!(c.groups.len(), 1);
        assert_eq!(members(&c, &ids, "seccomp.bitmap.1"), ids);
        assert!(c
            .quantities
            .iter()
            .all(|(q, _)| matches!(q, Quantity::Overhead { .. })));
        let (c, _) = plan(&["native"]);
        assert_eq!(c.quantities, [(Quantity::Median(0), 0)]);
    }

    #[test]
    fn targets_are_relative_to_the_native_call_or_the_quantity_and_never_below_the_floor() {
        let (c, _) = plan(&["native"]);
        // 1 % of a 200 ns native call for a small difference, 1 % of itself for a large one.
        assert!((c.target_ns(17.0, None, Some(200.0)) - 2.0).abs() < 1e-12);
        assert!((c.target_ns(-17.0, Some(200.0), Some(200.0)) - 2.0).abs() < 1e-12);
        assert!((c.target_ns(30_000.0, None, Some(200.0)) - 300.0).abs() < 1e-9);
        // A small difference between two slow operations: 1 % of its baseline.
        assert!((c.target_ns(-100.0, Some(27_000.0), Some(200.0)) - 270.0).abs() < 1e-9);
        // A quantity near zero on a fast machine: the floor, not 1 % of almost nothing.
        assert_eq!(c.target_ns(0.8, None, Some(20.0)), FLOOR_NS);
        assert_eq!(c.target_ns(0.8, None, None), FLOOR_NS);
    }
}
