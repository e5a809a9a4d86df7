//! The depth sweep chart: N filters against the overhead, with the fitted line.

use super::*;

/// One series of a depth sweep: its points (number of filters, overhead) and, when the record
/// has it, the fitted line `entry + per_filter × N`.
pub struct SweepLine {
    pub label: String,
    pub points: Vec<(f64, Point)>,
    pub fit: Option<(f64, f64)>,
}

pub struct Sweep {
    pub title: String,
    pub desc: String,
    pub lines: Vec<SweepLine>,
    pub y_label: String,
}

/// N against ns with intervals and the fitted lines, on a linear N axis (the fit is a straight
/// line there) and a linear y axis from zero over every point, bound and fit. `None` when no
/// line has two points.
pub fn sweep_svg(t: &Sweep) -> Option<String> {
    let nmax = t
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .fold(f64::NEG_INFINITY, f64::max);
    if !t.lines.iter().any(|l| l.points.len() >= 2) || nmax.is_nan() || nmax <= 0.0 {
        return None;
    }
    let fit_ends = t
        .lines
        .iter()
        .filter_map(|l| l.fit)
        .flat_map(|(a, b)| [a, a + b * nmax]);
    let (lo, hi) = t
        .lines
        .iter()
        .flat_map(|l| l.points.iter().flat_map(|p| bounds(&p.1)))
        .chain(fit_ends)
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    if !lo.is_finite() {
        return None;
    }
    let ys = YScale::linear(lo, hi, true);
    let xf = |n: f64| ML + 12.0 + (n / nmax) * (PW - 24.0);
    let cid = chart_id(&t.title);
    let mut s = String::with_capacity(4096);
    svg_open(&mut s, &cid, &t.title, &t.desc);
    marker_defs(&mut s, &cid, t.lines.len());
    let axis = y_grid(&mut s, &ys, &t.y_label);
    // Ticks at the depths measured.
    let mut ns_seen: Vec<f64> = t
        .lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| p.0))
        .collect();
    ns_seen.sort_by(f64::total_cmp);
    ns_seen.dedup();
    for n in &ns_seen {
        let _ = write!(
            s,
            r#"<text class="tick" x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            xf(*n),
            MT + PH + 16.0,
            n
        );
    }
    let _ = write!(
        s,
        r#"<line class="axis" x1="{ML}" y1="{MT}" x2="{ML}" y2="{:.1}"/><text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">filters in the chain (N)</text>"#,
        MT + PH,
        ML + PW / 2.0,
        MT + PH + 40.0
    );
    for (li, line) in t.lines.iter().enumerate() {
        let c = PALETTE[li % PALETTE.len()];
        let _ = write!(
            s,
            r#"<g class="series" stroke="{c}" stroke-width="1.4"><title>{}</title>"#,
            esc(&line.label)
        );
        if let Some((a, b)) = line.fit {
            let _ = write!(
                s,
                r#"<path class="fit" d="M{:.1} {:.1}L{:.1} {:.1}" fill="none"/>"#,
                xf(0.0),
                ys.y(a),
                xf(nmax),
                ys.y(a + b * nmax)
            );
        }
        let mut marks = Marks::default();
        for (n, p) in &line.points {
            marks.add(&ys, &cid, li, xf(*n), p);
        }
        marks.finish(&mut s);
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    Some(with_axis(&axis, s))
}
