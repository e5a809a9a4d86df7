//! A run next to an earlier run of its series: every metric both have, the difference with the
//! interval the two CIs allow, and whether the CIs resolve it.

use super::rows::{quality_badge, Badge};
use crate::changes::{difference, Difference};
use crate::fmt;
use crate::info::RunInfo;
use crate::metrics::{Kind, Registry, Val};
use serde::Serialize;

#[derive(Serialize)]
pub struct Compare {
    /// What the other run is: "the previous kernel version's run", ...
    pub what: String,
    pub href: String,
    pub id: String,
    pub date: String,
    pub kernel: String,
    pub same_machine: bool,
    pub quality: Badge,
    pub rows: Vec<CompareRow>,
}

#[derive(Serialize)]
pub struct CompareRow {
    pub id: String,
    pub prev: String,
    pub this: String,
    pub delta: String,
    pub delta_v: String,
    pub judgement: &'static str,
    pub class: &'static str,
}

/// Judges a change between two numbers from their CIs; no CI means no judgement.
pub fn judge(prev: &Val, this: &Val) -> (&'static str, &'static str) {
    match Difference::resolved(prev.ci(), this.ci()) {
        None => ("not judged (no CI)", "skip"),
        Some(false) => ("no resolved change (CIs overlap)", "skip"),
        Some(true) if this.median > prev.median => ("higher (CIs disjoint)", "fail"),
        Some(true) => ("lower (CIs disjoint)", "pass"),
    }
}

/// `this` against `prev`, in the order of `this`'s record. Metric ids are `reg`'s. A scenario
/// with an overhead is compared by its overhead (paired against its baseline in every round, so
/// the baseline's own drift is not counted twice); its median is on the scenario table.
pub fn compare(
    prev: &RunInfo,
    this: &RunInfo,
    what: String,
    reg: &Registry,
    root: &str,
) -> Compare {
    let with_overhead: std::collections::HashSet<&str> = this
        .values
        .iter()
        .map(|(m, _)| reg.key(m))
        .filter(|k| k.kind == Kind::Overhead)
        .map(|k| k.id.as_str())
        .collect();
    let rows = this
        .values
        .iter()
        .filter(|(m, _)| {
            let k = reg.key(*m);
            k.kind != Kind::Median || !with_overhead.contains(k.id.as_str())
        })
        .filter_map(|(m, t)| {
            let p = prev.values.find(m)?;
            let d = difference(p.median, p.ci(), t.median, t.ci());
            let (judgement, class) = judge(&p, &t);
            Some(CompareRow {
                id: reg.key(m).label(),
                prev: fmt::val(&p),
                this: fmt::val(&t),
                delta: fmt::difference(&d),
                delta_v: format!("{}", d.delta),
                judgement,
                class,
            })
        })
        .collect();
    Compare {
        what,
        href: format!("{root}{}.html", prev.page),
        id: prev.id.clone(),
        date: prev.date.clone().unwrap_or_default(),
        kernel: prev.kernel.release.clone(),
        same_machine: prev.machine.is_some() && prev.machine == this.machine,
        quality: quality_badge(prev),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(m: f64, ci: Option<(f64, f64)>) -> Val {
        Val {
            median: m,
            lo: ci.map(|c| c.0),
            hi: ci.map(|c| c.1),
        }
    }

    #[test]
    fn judgement_needs_disjoint_cis() {
        let a = v(10.0, Some((9.0, 11.0)));
        assert_eq!(
            judge(&a, &v(12.0, Some((11.5, 12.5)))).0,
            "higher (CIs disjoint)"
        );
        assert_eq!(
            judge(&a, &v(10.5, Some((10.0, 11.2)))).0,
            "no resolved change (CIs overlap)"
        );
        assert_eq!(
            judge(&a, &v(5.0, Some((4.0, 6.0)))).0,
            "lower (CIs disjoint)"
        );
        assert_eq!(
            judge(&v(10.0, None), &v(50.0, Some((49.0, 51.0)))).0,
            "not judged (no CI)"
        );
    }
}
