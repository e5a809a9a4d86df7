//! The kernel benchmark's estimates and the depth-sweep fit, each computed per round from paired
//! samples and then summarised with a CI.

use super::kernel_rules::ESTIMATE_LABELS;
use super::Series;
use crate::scenarios::seccomp::DEPTHS;
use crate::stats::{fit::ols, per_round, Summary};
use syscost_record::Estimate;

/// The kernel's series: native, bitmap.1, bitmap.2, full.3, full.4.
pub const KERNEL_IDS: [&str; 5] = [
    "native",
    "seccomp.bitmap.1",
    "seccomp.bitmap.2",
    "seccomp.full.3",
    "seccomp.full.4",
];

/// entry = b1 − n − (b2 − b1), per round.
pub fn entry(x: &[f64]) -> f64 {
    let (n, b1, b2) = (x[0], x[1], x[2]);
    b1 - n - (b2 - b1)
}

/// Per-round functions over [n, b1, b2, f3, f4], in the order of
/// [`kernel_rules::ESTIMATE_LABELS`](super::kernel_rules::ESTIMATE_LABELS).
pub const KERNEL_ESTIMATES: [fn(&[f64]) -> f64; 7] = [
    |x| x[1] - x[0],
    |x| x[2] - x[0],
    |x| x[3] - x[0],
    |x| x[4] - x[0],
    entry,
    |x| x[4] - x[3],
    |x| (x[4] - x[0] - entry(x)) / 4.0,
];

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
    })
}

/// Every estimate whose inputs were measured.
pub fn all(series: &Series) -> Vec<Estimate> {
    let mut out = Vec::new();
    let kernel: Option<Vec<&[Option<f64>]>> = KERNEL_IDS.iter().map(|id| series.get(id)).collect();
    if let Some(inputs) = kernel {
        for ((id, label, formula), f) in ESTIMATE_LABELS.iter().zip(KERNEL_ESTIMATES) {
            out.extend(estimate(id, label, formula, &per_round(&inputs, f)));
        }
    }
    // Depth sweep: per round, a least-squares line through (N, depth.N − native).
    if let Some(native) = series.get("native") {
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
            out.extend(estimate(
                "depth.per_filter",
                "per-filter cost (slope of the depth sweep)",
                &formula,
                &fits,
            ));
            out.extend(estimate(
                "depth.entry",
                "entry cost (intercept of the depth sweep)",
                &formula.replace("slope", "intercept"),
                &intercepts,
            ));
        }
    }
    out
}
