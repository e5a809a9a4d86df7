//! The kernel benchmark's estimates and the depth-sweep fit, each computed per round from paired
//! samples and then summarised with a CI.

use super::kernel::Five;
use super::Series;
use crate::scenarios::seccomp::DEPTHS;
use crate::stats::{fit::ols, per_round, Summary};
use syscost_record::{Estimate, EstimateId, KernelScenario};

fn estimate(id: &str, label: &str, formula: &str, values: &[f64]) -> Option<Estimate> {
    let s = Summary::of(values)?;
    Some(Estimate {
        id: id.into(),
        label: label.into(),
        formula: formula.into(),
        median_ns: s.median,
        ci_low_ns: s.ci.map(|c| c.0),
        ci_high_ns: s.ci.map(|c| c.1),
        samples: s.n as u64,
        origin: None,
    })
}

/// Every estimate whose inputs were measured.
pub fn all(series: &Series) -> Vec<Estimate> {
    let mut out = Vec::new();
    if let Some(inputs) = series.kernel() {
        for e in EstimateId::KERNEL {
            let values = per_round(&inputs, |x| {
                Five::from_row(x).estimate(e).unwrap_or(f64::NAN)
            });
            let formula = e.kernel_formula().unwrap_or_default();
            out.extend(estimate(e.id(), e.label(), formula, &values));
        }
    }
    // Depth sweep: per round, a least-squares line through (N, depth.N − native).
    if let Some(native) = series.get(KernelScenario::Native.id()) {
        let mut xs = Vec::new();
        let mut inputs = vec![native];
        for n in DEPTHS {
            if let Some(s) = series.get(&format!("seccomp.depth.{n}")) {
                xs.push(n as f64);
                inputs.push(s);
            }
        }
        if xs.len() >= 2 {
            let fits = per_round(&inputs, |row| {
                let ys: Vec<f64> = row[1..].iter().map(|y| y - row[0]).collect();
                ols(&xs, &ys).map_or((f64::NAN, f64::NAN), |f| f).0
            });
            let intercepts = per_round(&inputs, |row| {
                let ys: Vec<f64> = row[1..].iter().map(|y| y - row[0]).collect();
                ols(&xs, &ys).map_or(f64::NAN, |f| f.1)
            });
            let depths: Vec<String> = xs.iter().map(|x| x.to_string()).collect();
            let formula = format!(
                "least-squares slope of (depth.N − native) over N = {}",
                depths.join(", ")
            );
            let (slope, intercept) = (EstimateId::DepthPerFilter, EstimateId::DepthEntry);
            out.extend(estimate(slope.id(), slope.label(), &formula, &fits));
            out.extend(estimate(
                intercept.id(),
                intercept.label(),
                &formula.replace("slope", "intercept"),
                &intercepts,
            ));
        }
    }
    out
}
