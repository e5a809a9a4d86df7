//! Inline SVG trend charts, drawn at build time. Colours are the Okabe–Ito palette and every
//! series also has its own marker shape, so lines stay distinguishable without colour; every
//! chart carries a `<title>`/`<desc>` and the page shows the same numbers as a table.

use crate::fmt::{esc, ns};
use crate::metrics::{IntervalKind, Point};
use std::fmt::Write;

/// The Okabe–Ito hues, darkened or lightened until each has at least 3:1 contrast (WCAG's
/// minimum for graphics) against the light and the dark background and their soft variants
/// (the original orange and sky blue have 2.3:1 on white, the yellow 1.3:1); the last follows
/// the text colour. Every series also has its own marker shape.
pub const PALETTE: [&str; 8] = [
    "#B36B00",
    "#2B83BA",
    "#00855F",
    "#C75400",
    "#9C6ADE",
    "#B8568F",
    "#8A7B00",
    "currentColor",
];

pub const SHAPES: [&str; 8] = [
    "circle", "square", "triangle", "diamond", "down", "cross", "plus", "star",
];

/// At most this many series are drawn in one chart (one colour and shape each).
pub const MAX_LINES: usize = PALETTE.len();

pub struct Line {
    pub label: String,
    /// One entry per x category.
    pub points: Vec<Option<Point>>,
}

pub struct Trend {
    pub title: String,
    pub desc: String,
    pub x: Vec<String>,
    pub lines: Vec<Line>,
    pub y_label: String,
}

const W: f64 = 760.0;
const H: f64 = 330.0;
const ML: f64 = 72.0;
const MR: f64 = 16.0;
const MT: f64 = 14.0;
const MB: f64 = 78.0;

/// A coordinate with one decimal, as `{:.1}` prints it (see [`crate::fmt::fixed`]); charts
/// print thousands of them.
struct D1(f64);

impl std::fmt::Display for D1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let x = self.0;
        let y = x.abs() * 10.0;
        if !y.is_finite() || y >= 1e15 || (y - y.floor() - 0.5).abs() < 1e-6 {
            return write!(f, "{x:.1}");
        }
        let n = y.round() as u64;
        let sign = if x.is_sign_negative() { "-" } else { "" };
        write!(f, "{sign}{}.{}", n / 10, n % 10)
    }
}

/// A marker of series `i` centred on (x, y).
fn marker(out: &mut String, i: usize, x: f64, y: f64, hollow: bool) {
    let c = PALETTE[i % PALETTE.len()];
    let fill = if hollow { "none" } else { c };
    let r = 4.5;
    let _ = match SHAPES[i % SHAPES.len()] {
        "circle" => write!(
            out,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#
        ),
        "square" => write!(
            out,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
            x - r * 0.85,
            y - r * 0.85,
            r * 1.7,
            r * 1.7
        ),
        "triangle" => write!(
            out,
            r#"<path d="M{x:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
            y - r * 1.1,
            x + r,
            y + r * 0.8,
            x - r,
            y + r * 0.8
        ),
        "diamond" => write!(
            out,
            r#"<path d="M{x:.1} {:.1}L{:.1} {y:.1}L{x:.1} {:.1}L{:.1} {y:.1}Z" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
            y - r * 1.2,
            x + r * 1.2,
            y + r * 1.2,
            x - r * 1.2
        ),
        "down" => write!(
            out,
            r#"<path d="M{x:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}Z" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
            y + r * 1.1,
            x + r,
            y - r * 0.8,
            x - r,
            y - r * 0.8
        ),
        "cross" => write!(
            out,
            r#"<path d="M{:.1} {:.1}L{:.1} {:.1}M{:.1} {:.1}L{:.1} {:.1}" stroke="{c}" stroke-width="2.2"/>"#,
            x - r,
            y - r,
            x + r,
            y + r,
            x - r,
            y + r,
            x + r,
            y - r
        ),
        "plus" => write!(
            out,
            r#"<path d="M{:.1} {y:.1}L{:.1} {y:.1}M{x:.1} {:.1}L{x:.1} {:.1}" stroke="{c}" stroke-width="2.2"/>"#,
            x - r * 1.2,
            x + r * 1.2,
            y - r * 1.2,
            y + r * 1.2
        ),
        _ => {
            // Five-pointed star.
            let mut d = String::new();
            for k in 0..10 {
                let rad = if k % 2 == 0 { r * 1.3 } else { r * 0.55 };
                let a = std::f64::consts::PI * (k as f64) / 5.0 - std::f64::consts::FRAC_PI_2;
                let _ = write!(
                    d,
                    "{}{:.1} {:.1}",
                    if k == 0 { 'M' } else { 'L' },
                    x + rad * a.cos(),
                    y + rad * a.sin()
                );
            }
            write!(
                out,
                r#"<path d="{d}Z" fill="{fill}" stroke="{c}" stroke-width="1.2"/>"#
            )
        }
    };
}

/// A small standalone SVG showing series `i`'s marker, for legends and tables.
pub fn legend_marker(i: usize) -> String {
    let mut s = String::from(
        r#"<svg class="mk" width="16" height="16" viewBox="0 0 16 16" aria-hidden="true">"#,
    );
    let _ = write!(
        s,
        r#"<line x1="0" y1="8" x2="16" y2="8" stroke="{}" stroke-width="2"/>"#,
        PALETTE[i % PALETTE.len()]
    );
    marker(&mut s, i, 8.0, 8.0, false);
    s.push_str("</svg>");
    s
}

/// "Nice" tick step (1, 2 or 5 × 10^k) giving about `n` ticks over `span`.
fn nice_step(span: f64, n: f64) -> f64 {
    let raw = (span / n).max(f64::MIN_POSITIVE);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// Renders a trend chart; `None` when there is nothing to draw.
pub fn trend_svg(t: &Trend) -> Option<String> {
    let scale = Scale::new(t)?;
    let cid = chart_id(&t.title);
    let mut s = String::with_capacity(4096);
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-labelledby="{cid}-t {cid}-d" xmlns="http://www.w3.org/2000/svg">"#
    );
    let _ = write!(
        s,
        r#"<title id="{cid}-t">{}</title><desc id="{cid}-d">{}</desc>"#,
        esc(&t.title),
        esc(&t.desc)
    );
    marker_defs(&mut s, &cid, t.lines.len());
    y_axis(&mut s, &scale, &t.y_label);
    x_axis(&mut s, &scale, &t.x);
    let approx: Vec<bool> = t.x.iter().map(|l| is_approx(l)).collect();
    for (li, line) in t.lines.iter().enumerate() {
        series(&mut s, &scale, &cid, li, line, &approx);
    }
    s.push_str("</svg>");
    Some(s)
}

/// Where values and categories land in the plot area.
struct Scale {
    /// Bottom and top of the y axis, on whole tick steps.
    y0: f64,
    y1: f64,
    step: f64,
    /// Width of one x category.
    slot: f64,
    categories: usize,
    lines: usize,
}

/// The y range (zero kept in view as the reference) on whole tick steps, over the values and
/// interval bounds given; `None` when there are none.
fn y_range(vals: impl Iterator<Item = f64>) -> Option<(f64, f64, f64)> {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals.filter(|v| v.is_finite()) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return None;
    }
    // Overheads start at zero unless they go below it; keep zero in view as the reference.
    lo = lo.min(0.0);
    hi = hi.max(0.0);
    if hi - lo < 1e-9 {
        hi = lo + 1.0;
    }
    let step = nice_step(hi - lo, 5.0);
    Some(((lo / step).floor() * step, (hi / step).ceil() * step, step))
}

/// A point's median and interval bounds.
fn bounds(p: &Point) -> [f64; 3] {
    let (a, b) = p.interval.unwrap_or((p.median, p.median));
    [p.median, a, b]
}

impl Scale {
    /// `None` when no line has a point (or there are no categories).
    fn new(t: &Trend) -> Option<Scale> {
        if t.x.is_empty() {
            return None;
        }
        let (y0, y1, step) = y_range(
            t.lines
                .iter()
                .flat_map(|l| l.points.iter().flatten())
                .flat_map(bounds),
        )?;
        Some(Scale {
            y0,
            y1,
            step,
            slot: Self::plot_width() / t.x.len() as f64,
            categories: t.x.len(),
            lines: t.lines.len(),
        })
    }

    fn plot_width() -> f64 {
        W - ML - MR
    }

    fn plot_height() -> f64 {
        H - MT - MB
    }

    fn y(&self, v: f64) -> f64 {
        MT + Self::plot_height() - (v - self.y0) / (self.y1 - self.y0) * Self::plot_height()
    }

    /// Centre of category `i`.
    fn x(&self, i: usize) -> f64 {
        ML + self.slot * (i as f64 + 0.5)
    }

    /// Sideways offset of series `li`, so overlapping intervals stay readable.
    fn dodge(&self, li: usize) -> f64 {
        let w = (self.slot * 0.5).min(6.0 * self.lines as f64);
        if self.lines <= 1 {
            0.0
        } else {
            -w / 2.0 + w * li as f64 / (self.lines - 1) as f64
        }
    }
}

/// Each series' marker is defined once (filled, and hollow for points without an interval) and
/// placed with <use>, which keeps big charts small.
fn marker_defs(s: &mut String, cid: &str, lines: usize) {
    s.push_str("<defs>");
    for li in 0..lines {
        let _ = write!(s, r#"<g id="{cid}-m{li}">"#);
        marker(s, li, 0.0, 0.0, false);
        let _ = write!(s, r#"</g><g id="{cid}-h{li}">"#);
        marker(s, li, 0.0, 0.0, true);
        s.push_str("</g>");
    }
    s.push_str("</defs>");
}

/// Grid lines with their ticks, and the axis label.
fn y_axis(s: &mut String, sc: &Scale, label: &str) {
    y_grid(s, (sc.y0, sc.y1, sc.step), &|v| sc.y(v), label);
}

fn y_grid(s: &mut String, (y0, y1, step): (f64, f64, f64), yf: &dyn Fn(f64) -> f64, label: &str) {
    // Grid lines as one path and the ticks as one group: charts are on every run page.
    let (mut grid, mut zero_line, mut ticks) = (String::new(), String::new(), String::new());
    let mut v = y0;
    let mut guard = 0;
    while v <= y1 + step * 0.5 && guard < 50 {
        let y = D1(yf(v));
        let zero = v.abs() < step * 1e-6;
        let _ = write!(
            if zero { &mut zero_line } else { &mut grid },
            "M{ML} {y}H{}",
            W - MR
        );
        let _ = write!(
            ticks,
            r#"<text x="{}" y="{}">{}</text>"#,
            ML - 6.0,
            D1(yf(v) + 4.0),
            esc(&ns(if zero { 0.0 } else { v }))
        );
        v += step;
        guard += 1;
    }
    for (class, d) in [("grid", grid), ("zero", zero_line)] {
        if !d.is_empty() {
            let _ = write!(s, r#"<path class="{class}" d="{d}"/>"#);
        }
    }
    let _ = write!(s, r#"<g class="tick" text-anchor="end">{ticks}</g>"#);
    let _ = write!(
        s,
        r#"<text class="axis-label" transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        MT + Scale::plot_height() / 2.0,
        esc(label)
    );
}

/// Category labels (thinned out when crowded), the axis line and its label.
/// A kernel stated only approximately by its source (`≈5.9-rc`, see [`crate::kver`]).
fn is_approx(label: &str) -> bool {
    label.starts_with(crate::kver::APPROX)
}

fn x_axis(s: &mut String, sc: &Scale, labels: &[String]) {
    let nx = sc.categories;
    let every = nx.div_ceil(24).max(1);
    // An approximate version's column is shaded and its label italic: what is drawn there was
    // not measured on a known release.
    for (i, label) in labels.iter().enumerate().filter(|(_, l)| is_approx(l)) {
        let _ = write!(
            s,
            r#"<rect class="approx" x="{}" y="{MT}" width="{}" height="{}"><title>{}: the source states this kernel only approximately</title></rect>"#,
            D1(sc.x(i) - sc.slot / 2.0),
            D1(sc.slot),
            D1(Scale::plot_height()),
            esc(label)
        );
    }
    for (i, label) in labels.iter().enumerate() {
        if i % every != 0 && i != nx - 1 && !is_approx(label) {
            continue;
        }
        let _ = write!(
            s,
            r#"<text class="tick{}" transform="translate({:.1} {:.1}) rotate(-45)" text-anchor="end">{}</text>"#,
            if is_approx(label) { " approx" } else { "" },
            sc.x(i),
            MT + Scale::plot_height() + 14.0,
            esc(label)
        );
    }
    let _ = write!(
        s,
        r#"<line class="axis" x1="{ML}" y1="{MT}" x2="{ML}" y2="{:.1}"/><text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">kernel version</text>"#,
        MT + Scale::plot_height(),
        ML + Scale::plot_width() / 2.0,
        H - 4.0
    );
}

/// One series: the line through its points, their error bars and markers.
fn series(s: &mut String, sc: &Scale, cid: &str, li: usize, line: &Line, approx: &[bool]) {
    let c = PALETTE[li % PALETTE.len()];
    let dx = sc.dodge(li);
    let _ = write!(
        s,
        r#"<g class="series" stroke="{c}" stroke-width="1.4"><title>{}</title>"#,
        esc(&line.label)
    );
    // Lines connect consecutive kernels only; a gap means no data there, or only low-quality
    // runs, or a kernel known only approximately (drawn, but not part of the trend).
    let mut d = String::new();
    let mut prev = false;
    for (i, p) in line.points.iter().enumerate() {
        match p {
            Some(p) if !p.low && !approx.get(i).copied().unwrap_or(false) => {
                let _ = write!(
                    d,
                    "{}{} {}",
                    if prev { 'L' } else { 'M' },
                    D1(sc.x(i) + dx),
                    D1(sc.y(p.median))
                );
                prev = true;
            }
            _ => prev = false,
        }
    }
    if d.contains('L') {
        let _ = write!(
            s,
            r#"<path d="{d}" fill="none" stroke-width="1.6" opacity="0.8"/>"#
        );
    }
    for (i, p) in line.points.iter().enumerate() {
        let Some(p) = p else { continue };
        point(s, sc, cid, li, sc.x(i) + dx, p);
    }
    s.push_str("</g>");
}

/// A point's error bar (with caps; dashed when it spans several runs, dotted when its runs are
/// of low quality) and its marker, hollow for a number without a confidence interval or made
/// only of low-quality runs.
fn point(s: &mut String, sc: &Scale, cid: &str, li: usize, x: f64, p: &Point) {
    point_at(s, &|v| sc.y(v), cid, li, x, p);
}

fn point_at(s: &mut String, yf: &dyn Fn(f64) -> f64, cid: &str, li: usize, x: f64, p: &Point) {
    if let (Some((a, b)), false) = (p.interval, p.kind == IntervalKind::None) {
        let class = match (p.kind == IntervalKind::Span, p.low) {
            (_, true) => "eb low",
            (true, false) => "eb span",
            (false, false) => "eb",
        };
        let (ya, yb, xc) = (D1(yf(a)), D1(yf(b)), D1(x - 3.0));
        let _ = write!(
            s,
            r#"<path class="{class}" d="M{} {ya}V{yb}M{xc} {ya}h6M{xc} {yb}h6"/>"#,
            D1(x)
        );
    }
    let kind = if p.kind == IntervalKind::None || p.low {
        'h'
    } else {
        'm'
    };
    let _ = write!(
        s,
        r##"<use href="#{cid}-{kind}{li}" x="{}" y="{}"/>"##,
        D1(x),
        D1(yf(p.median))
    );
}

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
/// line there). `None` when no line has two points.
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
    let (y0, y1, step) = y_range(
        t.lines
            .iter()
            .flat_map(|l| l.points.iter().flat_map(|p| bounds(&p.1)))
            .chain(fit_ends),
    )?;
    let pw = W - ML - MR;
    let ph = H - MT - MB;
    let xf = |n: f64| ML + 12.0 + (n / nmax) * (pw - 24.0);
    let yf = |v: f64| MT + ph - (v - y0) / (y1 - y0) * ph;
    let cid = chart_id(&t.title);
    let mut s = String::with_capacity(4096);
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-labelledby="{cid}-t {cid}-d" xmlns="http://www.w3.org/2000/svg">"#
    );
    let _ = write!(
        s,
        r#"<title id="{cid}-t">{}</title><desc id="{cid}-d">{}</desc>"#,
        esc(&t.title),
        esc(&t.desc)
    );
    marker_defs(&mut s, &cid, t.lines.len());
    y_grid(&mut s, (y0, y1, step), &yf, &t.y_label);
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
            MT + ph + 16.0,
            n
        );
    }
    let _ = write!(
        s,
        r#"<line class="axis" x1="{ML}" y1="{MT}" x2="{ML}" y2="{:.1}"/><text class="axis-label" x="{:.1}" y="{:.1}" text-anchor="middle">filters in the chain (N)</text>"#,
        MT + ph,
        ML + pw / 2.0,
        MT + ph + 40.0
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
                yf(a),
                xf(nmax),
                yf(a + b * nmax)
            );
        }
        for (n, p) in &line.points {
            point_at(&mut s, &yf, &cid, li, xf(*n), p);
        }
        s.push_str("</g>");
    }
    s.push_str("</svg>");
    Some(s)
}

/// A short id, unique per title, for the `aria-labelledby` references.
fn chart_id(title: &str) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(title.as_bytes());
    format!("c{:02x}{:02x}{:02x}{:02x}", d[0], d[1], d[2], d[3])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(m: f64, ci: Option<(f64, f64)>) -> Point {
        Point {
            n: 1,
            median: m,
            interval: ci,
            kind: if ci.is_some() {
                IntervalKind::Ci
            } else {
                IntervalKind::None
            },
            low: false,
        }
    }

    #[test]
    fn low_quality_points_are_hollow_with_a_dotted_bar_and_off_the_line() {
        let low = Point {
            low: true,
            ..pt(20.0, Some((15.0, 25.0)))
        };
        let t = Trend {
            title: "t".into(),
            desc: "d".into(),
            x: vec!["6.7".into(), "6.8".into(), "6.9".into()],
            lines: vec![Line {
                label: "a".into(),
                points: vec![
                    Some(pt(10.0, Some((9.0, 11.0)))),
                    Some(low),
                    Some(pt(12.0, Some((11.0, 13.0)))),
                ],
            }],
            y_label: "ns".into(),
        };
        let svg = trend_svg(&t).unwrap();
        assert_eq!(svg.matches("class=\"eb low\"").count(), 1);
        assert_eq!(svg.matches("-h0\" x=").count(), 1);
        assert_eq!(svg.matches("-m0\" x=").count(), 2);
        // No segment through the low point: two separate starts, no line at all.
        assert!(!svg.contains("<path d=\"M"), "{svg}");
    }

    #[test]
    fn approximate_kernels_are_shaded_italic_and_off_the_line() {
        let t = Trend {
            title: "t".into(),
            desc: "d".into(),
            x: vec!["≈5.9-rc".into(), "5.11-rc5".into(), "5.12-rc4".into()],
            lines: vec![Line {
                label: "a".into(),
                points: vec![
                    Some(pt(10.0, Some((9.0, 11.0)))),
                    Some(pt(11.0, Some((10.0, 12.0)))),
                    Some(pt(12.0, Some((11.0, 13.0)))),
                ],
            }],
            y_label: "ns".into(),
        };
        let svg = trend_svg(&t).unwrap();
        assert_eq!(svg.matches("<rect class=\"approx\"").count(), 1, "{svg}");
        assert_eq!(svg.matches("class=\"tick approx\"").count(), 1);
        assert!(svg.contains(">≈5.9-rc</text>"));
        // Every point is drawn; the line joins only the two measured versions.
        assert_eq!(svg.matches("-m0\" x=").count(), 3);
        let path = svg.split("<path d=\"").nth(1).unwrap();
        let path = &path[..path.find('"').unwrap()];
        assert_eq!(path.matches('M').count(), 1, "{path}");
        assert_eq!(path.matches('L').count(), 1, "{path}");
    }

    #[test]
    fn sweep_draws_points_bars_and_the_fit() {
        let t = Sweep {
            title: "depth".into(),
            desc: "d".into(),
            lines: vec![SweepLine {
                label: "run".into(),
                points: [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
                    .iter()
                    .map(|&n| {
                        (
                            n,
                            pt(30.0 + 9.0 * n, Some((29.0 + 9.0 * n, 31.0 + 9.0 * n))),
                        )
                    })
                    .collect(),
                fit: Some((30.0, 9.0)),
            }],
            y_label: "ns".into(),
        };
        let svg = sweep_svg(&t).unwrap();
        assert_eq!(svg.matches("class=\"eb\"").count(), 6);
        assert_eq!(svg.matches("class=\"fit\"").count(), 1);
        assert!(svg.contains(">32</text>") && svg.contains(">16</text>"));
        let one = Sweep {
            lines: vec![SweepLine {
                label: "x".into(),
                points: vec![(1.0, pt(3.0, None))],
                fit: None,
            }],
            ..t
        };
        assert!(sweep_svg(&one).is_none());
    }

    #[test]
    fn chart_escapes_labels_and_draws_bars_only_with_ci() {
        let t = Trend {
            title: "t <script>".into(),
            desc: "d & \"q\"".into(),
            x: vec!["6.8".into(), "<b>6.9</b>".into()],
            lines: vec![
                Line {
                    label: "cpu <img src=x>".into(),
                    points: vec![Some(pt(10.0, Some((9.0, 11.0)))), Some(pt(12.0, None))],
                },
                Line {
                    label: "other".into(),
                    points: vec![None, Some(pt(3.0, None))],
                },
            ],
            y_label: "ns".into(),
        };
        let svg = trend_svg(&t).unwrap();
        assert!(!svg.contains("<script>") && !svg.contains("<img") && !svg.contains("<b>"));
        assert!(svg.contains("&lt;b&gt;6.9&lt;/b&gt;"));
        assert!(svg.contains("<title id="));
        // One error bar (the first point) and no more: the others have no CI.
        assert_eq!(svg.matches("class=\"eb").count(), 1);
        // Hollow markers for CI-less points.
        assert_eq!(svg.matches("-h0\" x=").count(), 1);
        assert_eq!(svg.matches("-h1\" x=").count(), 1);
        assert_eq!(svg.matches("-m0\" x=").count(), 1);
    }

    #[test]
    fn empty_chart_is_none() {
        let t = Trend {
            title: "x".into(),
            desc: "x".into(),
            x: vec!["6.8".into()],
            lines: vec![Line {
                label: "a".into(),
                points: vec![None],
            }],
            y_label: "ns".into(),
        };
        assert!(trend_svg(&t).is_none());
    }

    #[test]
    fn coordinates_print_as_format_does() {
        for x in [0.0, -0.0, 12.25, 12.35, -0.04, 99.95, 1234.56, 0.05, 3.0] {
            assert_eq!(D1(x).to_string(), format!("{x:.1}"), "{x}");
        }
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(100.0, 5.0), 20.0);
        assert_eq!(nice_step(7.0, 5.0), 2.0);
        assert_eq!(nice_step(0.3, 5.0), 0.1);
    }
}
