//! Inline SVG trend charts, drawn at build time. Colours are the Okabe–Ito palette and every
//! series also has its own marker shape, so lines stay distinguishable without colour; every
//! chart carries a `<title>`/`<desc>` and the page shows the same numbers as a table.

mod sweep;
pub use sweep::{sweep_svg, Sweep, SweepLine};

mod scale;
use scale::*;

use crate::model::metrics::{IntervalKind, Point};
use crate::view::format::{esc, ns};
use std::fmt::Write;

/// The Okabe–Ito hues, darkened or lightened until each has at least 3:1 contrast (WCAG's
/// minimum for graphics) against the light and the dark background and their soft variants
/// (the original orange and sky blue have 2.3:1 on white, the yellow 1.3:1), then a brown and a
/// slate of the same lightness for charts of ten series; the last follows the text colour.
/// Every series also has its own marker shape. The contrasts are checked by a test against
/// the colours of `static/style.css`.
pub const PALETTE: [&str; 10] = [
    "#B36B00",
    "#2B83BA",
    "#00855F",
    "#C75400",
    "#9C6ADE",
    "#B8568F",
    "#8A7B00",
    "#8D6E63",
    "#6D7F99",
    "currentColor",
];

pub const SHAPES: [&str; 10] = [
    "circle", "square", "triangle", "diamond", "down", "cross", "plus", "star", "pentagon",
    "bowtie",
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

/// A coordinate with one decimal, as `{:.1}` prints it.
#[derive(Clone, Copy)]
struct D1(f64);

impl D1 {
    fn push(self, out: &mut String) {
        let _ = write!(out, "{self}");
    }
}

impl std::fmt::Display for D1 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:.1}", self.0)
    }
}

/// `{x} {y}` with one decimal each.
fn push_xy(out: &mut String, x: f64, y: f64) {
    D1(x).push(out);
    out.push(' ');
    D1(y).push(out);
}

/// A marker of series `i` centred on (x, y).
fn marker(out: &mut String, i: usize, x: f64, y: f64, hollow: bool) {
    let c = PALETTE[i % PALETTE.len()];
    let fill = if hollow { "none" } else { c };
    let r = 4.5;
    let (xd, yd) = (D1(x), D1(y));
    let _ = match SHAPES[i % SHAPES.len()] {
        "circle" => write!(
            out,
            r#"<circle cx="{xd}" cy="{yd}" r="{r}" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#
        ),
        "square" => write!(
            out,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
            D1(x - r * 0.85),
            D1(y - r * 0.85),
            D1(r * 1.7),
            D1(r * 1.7),
        ),
        "triangle" => write!(
            out,
            r#"<path d="M{xd} {}L{} {}L{} {}Z" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
            D1(y - r * 1.1),
            D1(x + r),
            D1(y + r * 0.8),
            D1(x - r),
            D1(y + r * 0.8),
        ),
        "diamond" => write!(
            out,
            r#"<path d="M{xd} {}L{} {yd}L{xd} {}L{} {yd}Z" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
            D1(y - r * 1.2),
            D1(x + r * 1.2),
            D1(y + r * 1.2),
            D1(x - r * 1.2),
        ),
        "down" => write!(
            out,
            r#"<path d="M{xd} {}L{} {}L{} {}Z" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
            D1(y + r * 1.1),
            D1(x + r),
            D1(y - r * 0.8),
            D1(x - r),
            D1(y - r * 0.8),
        ),
        "cross" => write!(
            out,
            r#"<path d="M{} {}L{} {}M{} {}L{} {}" stroke="{c}" stroke-width="2.2"/>"#,
            D1(x - r),
            D1(y - r),
            D1(x + r),
            D1(y + r),
            D1(x - r),
            D1(y + r),
            D1(x + r),
            D1(y - r),
        ),
        "plus" => write!(
            out,
            r#"<path d="M{} {yd}L{} {yd}M{xd} {}L{xd} {}" stroke="{c}" stroke-width="2.2"/>"#,
            D1(x - r * 1.2),
            D1(x + r * 1.2),
            D1(y - r * 1.2),
            D1(y + r * 1.2),
        ),
        "pentagon" => {
            let mut d = String::new();
            for k in 0..5 {
                let a = std::f64::consts::TAU * (k as f64) / 5.0 - std::f64::consts::FRAC_PI_2;
                let _ = write!(
                    d,
                    "{}{} {}",
                    if k == 0 { 'M' } else { 'L' },
                    D1(x + r * 1.15 * a.cos()),
                    D1(y + r * 1.15 * a.sin()),
                );
            }
            write!(
                out,
                r#"<path d="{d}Z" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#
            )
        }
        "bowtie" => write!(
            out,
            r#"<path d="M{} {}L{} {}L{} {}L{} {}Z" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
            D1(x - r),
            D1(y - r),
            D1(x + r),
            D1(y + r),
            D1(x + r),
            D1(y - r),
            D1(x - r),
            D1(y + r),
        ),
        _ => {
            // Five-pointed star.
            let mut d = String::new();
            for k in 0..10 {
                let rad = if k % 2 == 0 { r * 1.3 } else { r * 0.55 };
                let a = std::f64::consts::PI * (k as f64) / 5.0 - std::f64::consts::FRAC_PI_2;
                let _ = write!(
                    d,
                    "{}{} {}",
                    if k == 0 { 'M' } else { 'L' },
                    D1(x + rad * a.cos()),
                    D1(y + rad * a.sin()),
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
    let (desc, y_label) = if scale.y.log {
        (
            format!(
                "{} The y axis is logarithmic: the values span more than {LOG_RATIO} times.",
                t.desc
            ),
            format!("{}, log scale", t.y_label),
        )
    } else {
        (t.desc.clone(), t.y_label.clone())
    };
    svg_open(&mut s, &cid, &t.title, &desc);
    marker_defs(&mut s, &cid, t.lines.len());
    let axis = y_grid(&mut s, &scale.y, &y_label);
    x_axis(&mut s, &scale, &t.x);
    let approx: Vec<bool> = t.x.iter().map(|l| is_approx(l)).collect();
    for (li, line) in t.lines.iter().enumerate() {
        series(&mut s, &scale, &cid, li, line, &approx);
    }
    s.push_str("</svg>");
    Some(with_axis(&axis, s))
}

/// The chart after a copy of its y axis (values and unit) that a phone keeps in view while the
/// chart scrolls under it (style.css: `.yaxis` is sticky at the figure's left edge, and shown
/// only where the chart is wider than the screen). A copy, not a second half: on a wide screen
/// the chart is one picture that scales as a whole. Hidden from assistive technology: the
/// chart's own text says the same.
fn with_axis(axis: &str, chart: String) -> String {
    format!(
        r#"<div class="plot"><div class="yaxis" aria-hidden="true"><svg viewBox="0 0 {ML} {H}" width="{ML}" height="{H}" focusable="false"><rect class="bg" width="{ML}" height="{}"/>{axis}</svg></div>{chart}</div>"#,
        // Down to the y axis's lowest value: the x axis's labels below stay readable.
        MT + PH + 8.0
    )
}

fn svg_open(s: &mut String, cid: &str, title: &str, desc: &str) {
    let _ = write!(
        s,
        r#"<svg class="chart" viewBox="0 0 {W} {H}" role="img" aria-labelledby="{cid}-t {cid}-d" xmlns="http://www.w3.org/2000/svg">"#
    );
    let _ = write!(
        s,
        r#"<title id="{cid}-t">{}</title><desc id="{cid}-d">{}</desc>"#,
        esc(title),
        esc(desc)
    );
}

/// Each series' marker is defined once (filled, and hollow for points without an interval) as an
/// SVG `<marker>`, drawn at the vertices of one path per series and kind ([`Marks`]): a point
/// is `M x y h0`, 13 bytes, where a `<use>` of the definition was 45 (a third of a chart of
/// 1,600 points, half a megabyte of an architecture's page). The marker keeps its size whatever
/// the path's stroke (`userSpaceOnUse`), is not clipped to a marker box (`overflow`), and its
/// colours are its own.
fn marker_defs(s: &mut String, cid: &str, lines: usize) {
    s.push_str("<defs>");
    for li in 0..lines {
        for (kind, hollow) in [('m', false), ('h', true)] {
            let _ = write!(
                s,
                r#"<marker id="{cid}-{kind}{li}" markerUnits="userSpaceOnUse" markerWidth="14" markerHeight="14" overflow="visible">"#
            );
            marker(s, li, 0.0, 0.0, hollow);
            s.push_str("</marker>");
        }
    }
    s.push_str("</defs>");
}

/// Grid lines with their ticks, and the axis label; returns the ticks and the label, which
/// [`with_axis`] draws again in the copy a phone keeps in view.
fn y_grid(s: &mut String, ys: &YScale, label: &str) -> String {
    // Grid lines as one path and the ticks as one group: charts are on every run page.
    let (mut grid, mut zero_line, mut ticks) = (String::new(), String::new(), String::new());
    let tiny = (ys.hi - ys.lo).abs() * 1e-6;
    let step = match ys.ticks.as_slice() {
        [a, b, ..] => b - a,
        _ => 1.0,
    };
    for &v in &ys.ticks {
        let y = ys.y(v);
        let zero = !ys.log && v.abs() < tiny;
        let _ = write!(
            if zero { &mut zero_line } else { &mut grid },
            "M{ML} {}H{}",
            D1(y),
            W - MR
        );
        let text = tick_label(if zero { 0.0 } else { v }, if ys.log { v } else { step });
        let _ = write!(
            ticks,
            r#"<text x="{}" y="{}">{text}</text>"#,
            ML - 6.0,
            D1(y + 4.0)
        );
    }
    for (class, d) in [("grid", grid), ("zero", zero_line)] {
        if !d.is_empty() {
            let _ = write!(s, r#"<path class="{class}" d="{d}"/>"#);
        }
    }
    let axis = format!(
        r#"<g class="tick" text-anchor="end">{ticks}</g><text class="axis-label y-unit" transform="translate(14 {:.1}) rotate(-90)" text-anchor="middle">{}</text>"#,
        MT + PH / 2.0,
        esc(label)
    );
    s.push_str(&axis);
    axis
}

/// A tick value with as many decimals as its step needs (`0.5`, `2`, `60`, `1,000`), where
/// [`ns`] would print `2.00` and `60.0`.
fn tick_label(v: f64, step: f64) -> String {
    if v.abs() >= 1000.0 {
        return ns(v);
    }
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()).clamp(0.0, 4.0) as usize
    };
    format!("{v:.decimals$}")
}

/// A kernel stated only approximately by its source (`≈5.9-rc`, see [`crate::model::kver`]).
fn is_approx(label: &str) -> bool {
    label.starts_with(crate::model::kver::APPROX)
}

/// A tick for every version with data, as many labels as fit (see [`spaced`]), the axis lines
/// and the axis label.
fn x_axis(s: &mut String, sc: &Scale, labels: &[String]) {
    let xs = &sc.xs;
    // An approximate version's column is shaded and its label italic: what is drawn there was
    // not measured on a known release.
    for (i, label) in labels.iter().enumerate().filter(|(_, l)| is_approx(l)) {
        let near = [i.checked_sub(1), Some(i + 1)]
            .into_iter()
            .flatten()
            .filter_map(|j| xs.get(j))
            .map(|x| (x - xs[i]).abs())
            .fold(24.0, f64::min)
            .max(6.0);
        let _ = write!(
            s,
            r#"<rect class="approx" x="{}" y="{MT}" width="{}" height="{}"><title>{}: the source states this kernel only approximately</title></rect>"#,
            D1(xs[i] - near / 2.0),
            D1(near),
            D1(PH),
            esc(label)
        );
    }
    let mut d = format!("M{ML} {MT}V{}H{}", D1(MT + PH), W - MR);
    for x in xs {
        let _ = write!(d, "M{} {}v5", D1(*x), D1(MT + PH));
    }
    let _ = write!(s, r#"<path class="axis" d="{d}"/>"#);
    for i in spaced(xs, LABEL_GAP) {
        let label = &labels[i];
        let _ = write!(
            s,
            r#"<text class="tick{}" transform="translate({} {}) rotate(-45)" text-anchor="end">{}</text>"#,
            if is_approx(label) { " approx" } else { "" },
            D1(xs[i]),
            D1(MT + PH + 16.0),
            esc(label)
        );
    }
    let _ = write!(
        s,
        r#"<text class="axis-label" x="{}" y="{}" text-anchor="middle">kernel version (one step per release)</text>"#,
        D1(ML + PW / 2.0),
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
    // The line joins the series' consecutive versions: solid between neighbouring versions of
    // the chart, dashed across versions the series has no run on (on an axis of many kernels
    // most series skip some). A low-quality point or a kernel known only approximately (drawn,
    // but not part of the trend) breaks it.
    let (mut solid, mut dashed) = (String::new(), String::new());
    let mut last: Option<(D1, D1)> = None;
    let mut skipped = false;
    let mut open = false;
    for (i, p) in line.points.iter().enumerate() {
        match p {
            Some(p) if !p.low && !approx.get(i).copied().unwrap_or(false) => {
                let here = (D1(sc.xs[i] + dx), D1(sc.y.y(p.median)));
                match (&last, skipped) {
                    (Some(from), true) => {
                        let _ = write!(dashed, "M{} {}L{} {}", from.0, from.1, here.0, here.1);
                        open = false;
                    }
                    (Some(from), false) => {
                        if !open {
                            let _ = write!(solid, "M{} {}", from.0, from.1);
                        }
                        let _ = write!(solid, "L{} {}", here.0, here.1);
                        open = true;
                    }
                    (None, _) => open = false,
                }
                last = Some(here);
                skipped = false;
            }
            Some(_) => {
                last = None;
                open = false;
            }
            None => skipped = true,
        }
    }
    if !solid.is_empty() {
        let _ = write!(
            s,
            r#"<path d="{solid}" fill="none" stroke-width="1.6" opacity="0.8"/>"#
        );
    }
    if !dashed.is_empty() {
        let _ = write!(
            s,
            r#"<path class="join" d="{dashed}" fill="none" stroke-width="1.2" opacity="0.7"/>"#
        );
    }
    let mut marks = Marks::default();
    for (i, p) in line.points.iter().enumerate() {
        let Some(p) = p else { continue };
        marks.add(&sc.y, cid, li, sc.xs[i] + dx, p);
    }
    marks.finish(s);
    s.push_str("</g>");
}

/// The error bars and markers of one series: each kind of bar (one run's interval, the span of
/// several, low quality) is one path, clipped ends and markers follow, so a series of 160
/// points is a few elements and markers, not 320 elements (bars were half of a metric page).
#[derive(Default)]
struct Marks {
    /// `d` of the plain, span and low-quality bars.
    bars: [String; 3],
    /// Arrowheads of interval ends beyond the axis, with their titles.
    clips: String,
    /// `d` of the points with a filled and with a hollow marker; the series' markers.
    points: [String; 2],
    ids: [String; 2],
}

impl Marks {
    /// A point's error bar (with caps; dashed when it spans several runs, dotted when its runs
    /// are of low quality) and its marker, hollow for a number without a confidence interval
    /// or made only of low-quality runs. An end of the bar beyond the axis stops at the edge
    /// with an arrowhead instead of a cap, its title giving the bound.
    fn add(&mut self, ys: &YScale, cid: &str, li: usize, x: f64, p: &Point) {
        if let (Some((a, b)), false) = (p.interval, p.kind == IntervalKind::None) {
            let d = &mut self.bars[match (p.kind == IntervalKind::Span, p.low) {
                (_, true) => 2,
                (true, false) => 1,
                (false, false) => 0,
            }];
            let ((ya, ca), (yb, cb)) = (ys.at(a), ys.at(b));
            // From the lower end (its cap drawn first, then back to the bar's x) to the upper.
            d.push('M');
            if ca == Clip::In {
                push_xy(d, x - 3.0, ya);
                d.push_str("h6m-3 0");
            } else {
                push_xy(d, x, ya);
            }
            d.push('V');
            D1(yb).push(d);
            if cb == Clip::In {
                d.push_str("m-3 0h6");
            }
            for (v, y, clip) in [(a, ya, ca), (b, yb, cb)] {
                let dir = match clip {
                    Clip::In => continue,
                    Clip::Below => -1.0,
                    Clip::Above => 1.0,
                };
                let _ = write!(
                    self.clips,
                    r#"<path class="clip" fill="{}" d="M{} {}l-4 {}h8z"><title>interval {} to {} ns, beyond the axis</title></path>"#,
                    PALETTE[li % PALETTE.len()],
                    D1(x),
                    D1(y),
                    D1(7.0 * dir),
                    if dir > 0.0 { "up" } else { "down" },
                    esc(&ns(v))
                );
            }
        }
        let hollow = p.kind == IntervalKind::None || p.low;
        let at = usize::from(hollow);
        if self.ids[at].is_empty() {
            self.ids[at] = format!("{cid}-{}{li}", if hollow { 'h' } else { 'm' });
        }
        // A zero-length segment: its two vertices take the marker (every renderer draws markers
        // at a segment's ends; not all do at a lone move).
        let pts = &mut self.points[at];
        pts.push('M');
        push_xy(pts, x, ys.y(p.median));
        pts.push_str("h0");
    }

    /// The bars under the markers.
    fn finish(self, s: &mut String) {
        for (class, d) in ["eb", "eb span", "eb low"].iter().zip(&self.bars) {
            if !d.is_empty() {
                let _ = write!(s, r#"<path class="{class}" d="{d}"/>"#);
            }
        }
        s.push_str(&self.clips);
        for (d, id) in self.points.iter().zip(&self.ids) {
            if !d.is_empty() {
                let _ = write!(
                    s,
                    r#"<path class="pts" d="{d}" stroke="none" fill="none" marker-start="url(#{id})" marker-mid="url(#{id})" marker-end="url(#{id})"/>"#
                );
            }
        }
    }
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
            pooled: None,
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
        assert_eq!(points_marked(&svg, "h0"), 1);
        assert_eq!(points_marked(&svg, "m0"), 2);
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
        assert_eq!(points_marked(&svg, "m0"), 3);
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
        // The six bars are one path, each with its two caps.
        assert_eq!(svg.matches("class=\"eb\"").count(), 1);
        assert_eq!(svg.matches("h6").count(), 12);
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
        assert_eq!(points_marked(&svg, "h0"), 1);
        assert_eq!(points_marked(&svg, "h1"), 1);
        assert_eq!(points_marked(&svg, "m0"), 1);
    }

    #[test]
    fn the_y_axis_is_copied_before_the_chart_for_a_phone_to_keep_in_view() {
        let t = Trend {
            title: "t".into(),
            desc: "d".into(),
            x: vec!["6.8".into(), "6.9".into()],
            lines: vec![Line {
                label: "a".into(),
                points: vec![Some(pt(10.0, Some((9.0, 11.0)))), Some(pt(40.0, None))],
            }],
            y_label: "ns".into(),
        };
        let out = trend_svg(&t).unwrap();
        let chart_at = out.find(r#"<svg class="chart""#).expect("the chart");
        let (axis, chart) = out.split_at(chart_at);
        assert!(axis.starts_with(r#"<div class="plot"><div class="yaxis" aria-hidden="true">"#));
        let labels = |svg: &str| -> Vec<String> {
            let open = r#"<g class="tick" text-anchor="end">"#;
            let start = svg.find(open).expect("tick group") + open.len();
            let body = &svg[start..start + svg[start..].find("</g>").expect("end of group")];
            body.split("<text x=\"")
                .skip(1)
                .map(|t| {
                    let (x, rest) = t.split_once('"').expect("x");
                    assert_eq!(x.parse::<f64>(), Ok(ML - 6.0));
                    let label = rest.split_once('>').expect(">").1;
                    label.split_once('<').expect("<").0.to_string()
                })
                .collect()
        };
        assert!(labels(chart).len() >= 3, "{chart}");
        // The same values and unit, in a box as wide as the chart's left margin.
        assert_eq!(labels(axis), labels(chart));
        for part in [axis, chart] {
            assert!(part.contains(r#"text-anchor="middle">ns</text>"#), "{part}");
        }
        assert!(axis.contains(&format!(r#"viewBox="0 0 {ML} {H}""#)));
        // Once only: the values are not written again on the right.
        assert_eq!(chart.matches(r#"<g class="tick" text-anchor="#).count(), 1);
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
        let sweep = (-3000..3000).map(|i| f64::from(i) * 0.0137 + f64::from(i % 7) * 1e3);
        for x in [
            0.0, -0.0, 12.25, 12.35, -0.04, 99.95, 1234.56, 0.05, 3.0, 9.96, -9.96,
        ]
        .into_iter()
        .chain(sweep)
        {
            assert_eq!(D1(x).to_string(), format!("{x:.1}"), "{x}");
            let mut pushed = String::new();
            D1(x).push(&mut pushed);
            assert_eq!(pushed, format!("{x:.1}"), "{x}");
        }
    }

    /// `(series, x, y)` of every marker placed in `svg`: each point of a path of points once
    /// (its `h0` doubles the vertex, not the point).
    fn placed(svg: &str) -> Vec<(usize, f64, f64)> {
        svg.split("<path class=\"pts\" d=\"")
            .skip(1)
            .flat_map(|p| {
                let d = &p[..p.find('"').unwrap()];
                let id = p.split("marker-mid=\"url(#").nth(1).unwrap();
                let id = &id[..id.find(')').unwrap()];
                let li: usize = id[id.rfind(['m', 'h']).unwrap() + 1..].parse().unwrap();
                d.split('M')
                    .skip(1)
                    .map(|pt| {
                        let pt = pt.strip_suffix("h0").expect("a point is M x y h0");
                        let (x, y) = pt.split_once(' ').unwrap();
                        (li, x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// How many points carry the marker `kind` (`m0`: series 0 filled, `h1`: series 1 hollow).
    fn points_marked(svg: &str, kind: &str) -> usize {
        svg.split("<path class=\"pts\" d=\"")
            .skip(1)
            .filter(|p| p.contains(&format!("-{kind})\"")))
            .map(|p| p[..p.find('"').unwrap()].matches('M').count())
            .sum()
    }

    fn trend(x: &[&str], lines: Vec<Vec<Option<Point>>>) -> Trend {
        Trend {
            title: "t".into(),
            desc: "d".into(),
            x: x.iter().map(|s| s.to_string()).collect(),
            lines: lines
                .into_iter()
                .enumerate()
                .map(|(i, points)| Line {
                    label: format!("s{i}"),
                    points,
                })
                .collect(),
            y_label: "ns".into(),
        }
    }

    fn inside_plot(svg: &str) {
        for (li, x, y) in placed(svg) {
            assert!(
                (ML..=W - MR).contains(&x) && (MT..=MT + PH).contains(&y),
                "series {li}: marker at ({x}, {y}) outside the plot"
            );
        }
    }

    #[test]
    fn ten_series_have_ten_colours_and_ten_shapes() {
        assert_eq!(MAX_LINES, 10);
        let shapes: Vec<String> = (0..MAX_LINES)
            .map(|i| {
                let mut m = String::new();
                marker(&mut m, i, 0.0, 0.0, false);
                m.replace(PALETTE[i], "C")
            })
            .collect();
        for i in 0..shapes.len() {
            for j in 0..i {
                assert_ne!(shapes[i], shapes[j], "series {i} and {j} share a shape");
            }
        }
        let mut colours = PALETTE.to_vec();
        colours.sort();
        colours.dedup();
        assert_eq!(colours.len(), MAX_LINES);
    }

    /// WCAG 2 relative luminance of `#rrggbb`.
    fn luminance(hex: &str) -> f64 {
        let h = hex.trim_start_matches('#');
        let c = |i: usize| {
            let v = f64::from(u8::from_str_radix(&h[i..i + 2], 16).unwrap()) / 255.0;
            if v <= 0.04045 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * c(0) + 0.7152 * c(2) + 0.0722 * c(4)
    }

    fn contrast(a: &str, b: &str) -> f64 {
        let (x, y) = (luminance(a), luminance(b));
        (x.max(y) + 0.05) / (x.min(y) + 0.05)
    }

    #[test]
    fn series_colours_have_three_to_one_on_every_background() {
        // The backgrounds and text colours of both themes, as the stylesheet defines them.
        let css = include_str!("../../../static/style.css");
        let var = |block: &str, name: &str| -> String {
            let at = block.find(&format!("--{name}: ")).unwrap() + name.len() + 4;
            block[at..at + 7].to_string()
        };
        let dark_at = css.find("prefers-color-scheme: dark").unwrap();
        let (light, dark) = (&css[..dark_at], &css[dark_at..]);
        for theme in [light, dark] {
            let fg = var(theme, "fg");
            // Axis text is drawn in --muted and --fg, which axe-core cannot check inside SVG.
            for text in [var(theme, "muted"), fg.clone()] {
                for bg in [var(theme, "bg"), var(theme, "soft")] {
                    let r = contrast(&text, &bg);
                    assert!(r >= 4.5, "text {text} on {bg}: {r:.2}:1");
                }
            }
            for bg in [var(theme, "bg"), var(theme, "soft")] {
                for c in PALETTE {
                    let c = if c == "currentColor" { fg.as_str() } else { c };
                    let r = contrast(c, &bg);
                    assert!(r >= 3.0, "{c} on {bg}: {r:.2}:1");
                }
            }
        }
    }

    #[test]
    fn versions_are_placed_by_release_so_gaps_show() {
        let xs = x_positions(&["6.1".into(), "6.2".into(), "6.10".into(), "6.11".into()]);
        let step = xs[1] - xs[0];
        assert!((xs[2] - xs[1] - 8.0 * step).abs() < 1e-6, "{xs:?}");
        assert!((xs[3] - xs[2] - step).abs() < 1e-6, "{xs:?}");
        // 4.20 → 5.0 is one release, not a gap.
        let xs = x_positions(&["4.19".into(), "4.20".into(), "5.0".into()]);
        assert!((xs[1] - xs[0] - (xs[2] - xs[1])).abs() < 1e-6, "{xs:?}");
    }

    #[test]
    fn crowded_labels_are_thinned_never_overlapping_first_and_last_kept() {
        let labels: Vec<String> = (0..60).map(|i| format!("5.{i}")).collect();
        let xs = x_positions(&labels);
        let shown = spaced(&xs, LABEL_GAP);
        assert_eq!(shown.first(), Some(&0));
        assert_eq!(shown.last(), Some(&59));
        assert!(shown.len() > 20 && shown.len() < 60, "{}", shown.len());
        for w in shown.windows(2) {
            assert!(xs[w[1]] - xs[w[0]] >= LABEL_GAP, "{w:?}");
        }
    }

    #[test]
    fn spans_beyond_ten_times_get_a_log_axis() {
        let x = ["6.1", "6.2", "6.3"];
        let line = |m: f64| -> Vec<Option<Point>> {
            (0..3)
                .map(|i| Some(pt(m + i as f64, Some((m * 0.98, m * 1.02 + i as f64)))))
                .collect()
        };
        let svg = trend_svg(&trend(&x, vec![line(5.0), line(400.0)])).unwrap();
        assert!(
            svg.contains("(ns), log scale") || svg.contains("ns, log scale"),
            "{svg}"
        );
        assert!(svg.contains("The y axis is logarithmic"));
        inside_plot(&svg);
        // Both series use a good part of the height: neither is pressed against the bottom.
        let ys: Vec<f64> = placed(&svg).iter().map(|p| p.2).collect();
        let (top, bottom) = (
            ys.iter().cloned().fold(f64::MAX, f64::min),
            ys.iter().cloned().fold(0.0, f64::max),
        );
        assert!(bottom - top > PH * 0.5, "{top} {bottom}");
        let linear = trend_svg(&trend(&x, vec![line(50.0), line(400.0)])).unwrap();
        assert!(!linear.contains("log scale"));
    }

    #[test]
    fn a_huge_interval_is_clipped_with_a_marker_and_does_not_stretch_the_axis() {
        let x = ["6.1", "6.2", "6.3", "6.4"];
        let mut a: Vec<Option<Point>> = (0..4)
            .map(|i| {
                Some(pt(
                    100.0 + i as f64,
                    Some((99.0 + i as f64, 101.0 + i as f64)),
                ))
            })
            .collect();
        a[2] = Some(pt(102.0, Some((20.0, 900.0))));
        let b = (0..4)
            .map(|i| {
                Some(pt(
                    110.0 - i as f64,
                    Some((109.0 - i as f64, 111.0 - i as f64)),
                ))
            })
            .collect();
        let svg = trend_svg(&trend(&x, vec![a, b])).unwrap();
        assert_eq!(svg.matches("class=\"clip\"").count(), 2, "{svg}");
        assert!(svg.contains("interval up to 900 ns, beyond the axis"));
        assert!(svg.contains("interval down to 20.0 ns, beyond the axis"));
        inside_plot(&svg);
        // The other points spread over the height instead of sitting on one line.
        let ys: Vec<f64> = placed(&svg).iter().map(|p| p.2).collect();
        let (top, bottom) = (
            ys.iter().cloned().fold(f64::MAX, f64::min),
            ys.iter().cloned().fold(0.0, f64::max),
        );
        assert!(bottom - top > PH * 0.4, "{top} {bottom}");
        // Without the wide interval nothing is clipped.
        let c = (0..4)
            .map(|i| {
                Some(pt(
                    100.0 + i as f64,
                    Some((99.0 + i as f64, 101.0 + i as f64)),
                ))
            })
            .collect();
        assert!(!trend_svg(&trend(&x, vec![c]))
            .unwrap()
            .contains("class=\"clip\""));
    }

    #[test]
    fn a_far_away_zero_is_left_out_a_near_one_kept() {
        let x = ["6.1", "6.2"];
        let far = trend_svg(&trend(
            &x,
            vec![vec![Some(pt(150.0, None)), Some(pt(160.0, None))]],
        ))
        .unwrap();
        assert!(!far.contains("class=\"zero\""), "{far}");
        let near = trend_svg(&trend(
            &x,
            vec![vec![Some(pt(3.0, None)), Some(pt(30.0, None))]],
        ))
        .unwrap();
        assert!(near.contains("class=\"zero\""), "{near}");
    }

    #[test]
    fn a_line_is_dashed_across_versions_its_series_has_no_run_on() {
        let p = |m: f64| Some(pt(m, Some((m - 1.0, m + 1.0))));
        let x = ["6.1", "6.2", "6.3", "6.4", "6.5"];
        let svg = trend_svg(&trend(
            &x,
            vec![vec![p(10.0), None, p(11.0), p(12.0), None]],
        ))
        .unwrap();
        let dashed = svg
            .split("<path class=\"join\" d=\"")
            .nth(1)
            .expect("a dashed join");
        let dashed = &dashed[..dashed.find('"').unwrap()];
        assert_eq!(
            (dashed.matches('M').count(), dashed.matches('L').count()),
            (1, 1)
        );
        let solid = svg.split("<path d=\"").nth(1).expect("a solid line");
        let solid = &solid[..solid.find('"').unwrap()];
        assert_eq!(
            (solid.matches('M').count(), solid.matches('L').count()),
            (1, 1)
        );
        // Next to each other, no dashes.
        let svg = trend_svg(&trend(&x, vec![vec![p(10.0), p(11.0), None, None, None]])).unwrap();
        assert!(!svg.contains("class=\"join\""));
    }

    #[test]
    fn tick_labels_have_the_decimals_of_their_step() {
        assert_eq!(tick_label(60.0, 2.0), "60");
        assert_eq!(tick_label(2.0, 2.0), "2");
        assert_eq!(tick_label(0.5, 0.5), "0.5");
        assert_eq!(tick_label(0.25, 0.05), "0.25");
        assert_eq!(tick_label(-1.5, 0.5), "-1.5");
        assert_eq!(tick_label(12_000.0, 2000.0), "12,000");
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(100.0, 5.0), 20.0);
        assert_eq!(nice_step(7.0, 5.0), 2.0);
        assert_eq!(nice_step(0.3, 5.0), 0.1);
    }
}
