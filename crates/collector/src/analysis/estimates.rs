//! The kernel benchmark's estimates and the depth-sweep fit, each computed per round from paired
//! samples and then summarised with a CI.

use super::kernel_quantities::Five;
use super::Series;
use crate::scenarios::seccomp::DEPTHS;
use crate::stats::instances::pool;
use crate::stats::{fit::ols, per_round_tagged};
use syscost_record::{Estimate, EstimateId, KernelScenario};

fn estimate(id: &str, label: &str, formula: &str, values: &PerRound) -> Option<Estimate> {
    let s = pool(&values.0, &values.1)?;
    Some(Estimate {
        id: id.into(),
        label: label.into(),
        formula: formula.into(),
        median_ns: s.estimate,
        ci_low_ns: s.ci.map(|c| c.0),
        ci_high_ns: s.ci.map(|c| c.1),
        samples: s.n as u64,
        origin: None,
    })
}

/// Every estimate whose inputs were measured.
pub fn all(series: &Series) -> Vec<Estimate> {
    EstimateId::KERNEL
        .iter()
        .chain(&[EstimateId::DepthPerFilter, EstimateId::DepthEntry])
        .filter_map(|&e| {
            let (values, formula) = per_round_values(series, e)?;
            estimate(e.id(), e.label(), &formula, &values)
        })
        .collect()
}

/// Values per round, each with the instance of its round.
pub type PerRound = (Vec<f64>, Vec<u32>);

/// An estimate's value in every round that has all its inputs, and its formula; None when an
/// input was not measured. The record and the engine's judge both read estimates from here.
pub fn per_round_values(series: &Series, e: EstimateId) -> Option<(PerRound, String)> {
    if matches!(e, EstimateId::DepthPerFilter | EstimateId::DepthEntry) {
        return depth(series, e);
    }
    let inputs = series.kernel()?;
    let values = per_round_tagged(&inputs, series.tags(), |x| {
        Five::from_row(x).estimate(e).unwrap_or(f64::NAN)
    });
    Some((values, e.kernel_formula().unwrap_or_default().to_string()))
}

/// The depth sweep: per round, a least-squares line through (N, depth.N − native); its slope
/// or its intercept.
fn depth(series: &Series, e: EstimateId) -> Option<(PerRound, String)> {
    let native = series.get(KernelScenario::Native.id())?;
    let mut xs = Vec::new();
    let mut inputs = vec![native];
    for n in DEPTHS {
        if let Some(s) = series.get(&format!("seccomp.depth.{n}")) {
            xs.push(n as f64);
            inputs.push(s);
        }
    }
    if xs.len() < 2 {
        return None;
    }
    let slope = e == EstimateId::DepthPerFilter;
    let values = per_round_tagged(&inputs, series.tags(), |row| {
        let ys: Vec<f64> = row[1..].iter().map(|y| y - row[0]).collect();
        ols(&xs, &ys).map_or(f64::NAN, |(s, i)| if slope { s } else { i })
    });
    let depths: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
    let formula = format!(
        "least-squares {} of (depth.N − native) over N = {}",
        if slope { "slope" } else { "intercept" },
        depths.join(", ")
    );
    Some((values, formula))
}
