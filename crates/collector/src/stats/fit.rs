//! Least-squares line through (x, y) points: used per round for the seccomp depth sweep, where
//! the slope is the per-filter cost and the intercept the entry cost.

/// (slope, intercept) of the ordinary least-squares line, None if x has no spread.
pub fn ols(xs: &[f64], ys: &[f64]) -> Option<(f64, f64)> {
    let n = xs.len().min(ys.len());
    if n < 2 {
        return None;
    }
    let mx = xs[..n].iter().sum::<f64>() / n as f64;
    let my = ys[..n].iter().sum::<f64>() / n as f64;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for i in 0..n {
        sxy += (xs[i] - mx) * (ys[i] - my);
        sxx += (xs[i] - mx) * (xs[i] - mx);
    }
    if sxx == 0.0 {
        return None;
    }
    let slope = sxy / sxx;
    Some((slope, my - slope * mx))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_an_exact_line() {
        let xs = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0];
        let ys: Vec<f64> = xs.iter().map(|x| 7.5 * x + 31.0).collect();
        let (m, b) = ols(&xs, &ys).unwrap();
        assert!((m - 7.5).abs() < 1e-9 && (b - 31.0).abs() < 1e-9);
        assert!(ols(&[1.0, 1.0], &[2.0, 3.0]).is_none());
        assert!(ols(&[1.0], &[2.0]).is_none());
    }
}
