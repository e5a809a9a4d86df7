//! Number and path formatting shared by pages, charts and exports. Numbers are shown as they
//! are, never rounded into something they are not: precision depends only on magnitude.

use crate::model::metrics::{IntervalKind, Point, Val};
pub use crate::model::slug::slug;

/// Nanoseconds: 2 decimals below 10, 1 below 100, whole numbers with thousands separators above.
pub fn ns(x: f64) -> String {
    let mut s = String::with_capacity(12);
    ns_into(&mut s, x);
    s
}

/// [`ns`] appended to `out`: pages print hundreds of numbers, so they share one buffer.
pub fn ns_into(out: &mut String, x: f64) {
    if !x.is_finite() {
        out.push('—');
        return;
    }
    let a = x.abs();
    if a < 10.0 {
        fixed_into(out, x, 2)
    } else if a < 100.0 {
        fixed_into(out, x, 1)
    } else {
        group_thousands(out, x.round())
    }
}

/// `format!("{x:.d$}")`.
pub fn fixed(x: f64, d: usize) -> String {
    format!("{x:.d$}")
}

/// [`fixed`] into `out`.
pub fn fixed_into(out: &mut String, x: f64, d: usize) {
    use std::fmt::Write;
    let _ = write!(out, "{x:.d$}");
}

fn group_thousands(out: &mut String, x: f64) {
    let a = x.abs();
    let mut buf = itoa::Buffer::new();
    // `x` is whole: below 2^53 the integer conversion is exact and much cheaper than `{:.0}`.
    let long;
    let digits = if a < 9.0e15 {
        buf.format(a as u64)
    } else {
        long = format!("{a:.0}");
        &long
    };
    if x < 0.0 {
        out.push('-');
    }
    let n = digits.len();
    for (i, c) in digits.char_indices() {
        if i > 0 && (n - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
}

/// `x / 10^k` as `{}` writes it, for a whole `x` below 2^52: `x`'s own digits with the point
/// moved `k` places left and the trailing zeros dropped. The quotient is the `f64` nearest that
/// decimal, and below 2^52 / 10^k its spacing is finer than 10^-k, so no other decimal as
/// short or shorter reads back as it: these are its shortest round-trip digits. False (nothing
/// written) otherwise.
fn shifted_into(out: &mut String, x: f64, k: usize) -> bool {
    let a = x.abs();
    if !(a < 4.5e15 && (a as u64) as f64 == a) {
        return false;
    }
    let mut buf = itoa::Buffer::new();
    let d = buf.format(a as u64).as_bytes();
    if x.is_sign_negative() {
        out.push('-');
    }
    let (int, frac) = if d.len() > k {
        d.split_at(d.len() - k)
    } else {
        (&b"0"[..], d)
    };
    let zeros = k.saturating_sub(d.len());
    // Only ASCII digits.
    out.push_str(std::str::from_utf8(int).unwrap_or_default());
    let frac_end = frac.iter().rposition(|&c| c != b'0').map_or(0, |i| i + 1);
    if frac_end > 0 {
        out.push('.');
        out.extend(std::iter::repeat_n('0', zeros));
        out.push_str(std::str::from_utf8(&frac[..frac_end]).unwrap_or_default());
    }
    true
}

fn interval_into(out: &mut String, lo: f64, hi: f64) {
    out.push('[');
    ns_into(out, lo);
    out.push_str(", ");
    ns_into(out, hi);
    out.push(']');
}

pub fn interval(lo: f64, hi: f64) -> String {
    let mut s = String::with_capacity(24);
    interval_into(&mut s, lo, hi);
    s
}

/// A median (or a difference) in ns and its interval, in one cell: from 10,000 ns up in µs, ms
/// or s, so the long tail of attach and interception costs does not print six to nine digits
/// three times. The interval is in the median's unit; digits are the value's own (a record keeps
/// whole ns above 100, so `1,653,000` is `1.653 ms`, never a rounded `1.65`).
pub fn scaled(m: Option<f64>, ci: Option<(f64, f64)>) -> String {
    let mut s = String::with_capacity(24);
    scaled_into(&mut s, m, ci);
    s
}

/// [`scaled`] appended to `out`.
pub fn scaled_into(s: &mut String, m: Option<f64>, ci: Option<(f64, f64)>) {
    let size = m.or(ci.map(|(l, h)| l.abs().max(h.abs()))).map(f64::abs);
    let (div, k, unit) = match size {
        Some(a) if a >= 1e9 => (1e9, 9, " s"),
        Some(a) if a >= 1e6 => (1e6, 6, " ms"),
        Some(a) if a >= 1e4 => (1e3, 3, " µs"),
        _ => (1.0, 0, ""),
    };
    let num = |s: &mut String, x: f64| {
        if div == 1.0 {
            ns_into(s, x)
        } else if !shifted_into(s, x, k) {
            use std::fmt::Write;
            // Shortest round-trip digits of the quotient.
            let _ = write!(s, "{}", x / div);
        }
    };
    if let Some(m) = m {
        num(s, m);
        s.push_str(unit);
    }
    if let Some((l, h)) = ci {
        if m.is_some() {
            s.push(' ');
        }
        s.push('[');
        num(s, l);
        s.push_str(", ");
        num(s, h);
        s.push(']');
        if m.is_none() {
            s.push_str(unit);
        }
    }
}

/// `x` as `{}` writes it (its shortest round-trip digits, never in exponent form), appended to
/// `out`: the digits are serde_json's, laid out as `{}` lays them out, when there are at most
/// 15 of them (as in the records). `fmt`'s own shortest digits cost several times as much, and
/// the CSV exports write three numbers a run for each headline metric.
pub fn plain_into(out: &mut String, x: f64) {
    use serde_json::ser::Formatter;
    if !x.is_finite() {
        use std::fmt::Write;
        let _ = write!(out, "{x}");
        return;
    }
    // `1.5e-7`, `1e16`, `123.0`, `-0.0`: at most 24 bytes.
    let mut buf = [0u8; 32];
    let mut rest = &mut buf[..];
    let _ = serde_json::ser::CompactFormatter.write_f64(&mut rest, x);
    let n = 32 - rest.len();
    let text = std::str::from_utf8(&buf[..n]).unwrap_or_default();
    let (mantissa, exp) = match text.split_once('e') {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let frac = frac.trim_end_matches('0');
    // The significant digits are `a` then `b`; the point goes `point` digits into them.
    let (a, b, lead) = match int {
        "0" => {
            let b = frac.trim_start_matches('0');
            ("", b, 1 + frac.len() - b.len())
        }
        _ => (int, frac, 0),
    };
    let point = int.len() as i64 + i64::from(exp) - lead as i64;
    let n = (a.len() + b.len()) as i64;
    // Up to 15 significant digits, the shortest digits that read back as a normal `x` are the
    // only ones of their length (no two such decimals are within one double's rounding of each
    // other); at 16 or 17, or below the normal range, there can be two, and serde_json's and
    // `fmt`'s choices differ: `fmt` decides.
    if n > 15 || (x != 0.0 && x.abs() < f64::MIN_POSITIVE) {
        use std::fmt::Write;
        let _ = write!(out, "{x}");
        return;
    }
    out.push_str(sign);
    let zeros = |out: &mut String, k: i64| (0..k).for_each(|_| out.push('0'));
    if n == 0 {
        out.push('0');
    } else if point <= 0 {
        out.push_str("0.");
        zeros(out, -point);
        out.push_str(a);
        out.push_str(b);
    } else if point >= n {
        out.push_str(a);
        out.push_str(b);
        zeros(out, point - n);
    } else if point as usize <= a.len() {
        let (x, y) = a.split_at(point as usize);
        out.push_str(x);
        out.push('.');
        out.push_str(y);
        out.push_str(b);
    } else {
        let (x, y) = b.split_at(point as usize - a.len());
        out.push_str(a);
        out.push_str(x);
        out.push('.');
        out.push_str(y);
    }
}

pub fn pct(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.1} %")
    } else {
        "—".to_string()
    }
}

/// A run's value with its CI, or marked as having none.
pub fn val(v: &Val) -> String {
    let mut s = String::with_capacity(32);
    ns_into(&mut s, v.median);
    match v.ci() {
        Some((l, h)) => {
            s.push(' ');
            interval_into(&mut s, l, h);
        }
        None => s.push_str(" (no CI)"),
    }
    s
}

/// An aggregate, with what its interval means.
pub fn point(p: &Point) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(40);
    ns_into(&mut s, p.median);
    match (p.interval, p.kind) {
        (Some((l, h)), IntervalKind::Ci) => {
            s.push(' ');
            interval_into(&mut s, l, h);
        }
        (Some((l, h)), IntervalKind::Span) => {
            s.push_str(" (span ");
            interval_into(&mut s, l, h);
            let _ = write!(s, ", {} runs)", p.n);
        }
        _ => s.push_str(" (no CI)"),
    }
    if p.low {
        s.push_str(", low quality only");
    }
    s
}

/// A point as a verdict takes it: where its runs are pooled ([`Point::pooled`]), their mean and
/// its interval (a chart's span of the runs' intervals is no interval of anything); else as
/// [`point`] writes it.
pub fn side(p: &Point) -> String {
    use std::fmt::Write;
    let Some(pool) = p.pooled else {
        return point(p);
    };
    let mut s = String::with_capacity(40);
    ns_into(&mut s, pool.mean);
    s.push(' ');
    interval_into(&mut s, pool.interval.low, pool.interval.high);
    let _ = write!(s, " ({} runs pooled)", p.n);
    if p.low {
        s.push_str(", low quality only");
    }
    s
}

fn signed_into(out: &mut String, x: f64) {
    if x > 0.0 {
        out.push('+');
    }
    ns_into(out, x);
}

/// A number with an explicit sign: `+12.3`, `-4.56`.
pub fn signed_ns(x: f64) -> String {
    let mut s = String::with_capacity(12);
    signed_into(&mut s, x);
    s
}

/// A difference in ns with its interval, then in percent with its own.
pub fn difference(d: &crate::model::changes::Difference) -> String {
    difference_in(d, "ns")
}

/// [`difference`] in `unit` (`ns`, or `instructions` for an instruction-count series).
pub fn difference_in(d: &crate::model::changes::Difference, unit: &str) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(64);
    signed_into(&mut s, d.delta);
    s.push(' ');
    s.push_str(unit);
    if let Some((l, h)) = d.delta_interval {
        s.push_str(" [");
        signed_into(&mut s, l);
        s.push_str(", ");
        signed_into(&mut s, h);
        s.push(']');
    }
    if let Some(p) = d.pct {
        s.push_str(" (");
        s.push_str(&pct(p));
        if let Some((l, h)) = d.pct_interval {
            let _ = write!(s, " [{l:+.1}, {h:+.1}]");
        }
        s.push(')');
    }
    s
}

/// The prefix that leads from a page at `rel` (a `/`-separated path) back to the site root.
pub fn root_of(rel: &str) -> String {
    "../".repeat(rel.matches('/').count())
}

/// Escapes text for XML/HTML (SVG is generated by hand, so it escapes for itself).
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    // Writing into a String cannot fail.
    let _ = esc_into(&mut out, s);
    out
}

/// The bytes [`esc_into`] looks at: those it replaces, 0xEF, which starts U+FFFE and U+FFFF,
/// and 0xE2, which starts the directional formatting characters.
const MAY_ESCAPE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 0x20 {
        t[c] = !matches!(c as u8, b'\n' | b'\t' | b'\r');
        c += 1;
    }
    t[b'&' as usize] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t[0xEF] = true;
    t[0xE2] = true;
    t
};

/// The explicit directional formatting characters, as [`esc_into`] shows them: embeddings and
/// overrides (U+202A–U+202E) and isolates (U+2066–U+2069). Raw, one in a record's text would
/// reorder what follows it on the page, up to the end of its paragraph (U+202E shows
/// `txt.json` as `nosj.txt`); shown escaped, as `syscost-site check` prints them.
const BIDI_202X: [&str; 5] = [
    "\\u{202a}",
    "\\u{202b}",
    "\\u{202c}",
    "\\u{202d}",
    "\\u{202e}",
];
const BIDI_206X: [&str; 4] = ["\\u{2066}", "\\u{2067}", "\\u{2068}", "\\u{2069}"];

/// [`esc`] into any writer: runs of plain text are copied as one slice, so the common case
/// (nothing to escape) allocates nothing. Scanned by byte, not by char: every character it
/// replaces is ASCII but U+FFFE and U+FFFF (UTF-8 starting with 0xEF) and the directional
/// formatting characters (0xE2), so only those bytes are looked at more closely.
pub fn esc_into<W: std::fmt::Write + ?Sized>(out: &mut W, s: &str) -> std::fmt::Result {
    let b = s.as_bytes();
    let mut plain = 0;
    let mut i = 0;
    while i < b.len() {
        // Skip to the next byte that may need a replacement: one table lookup a byte.
        match b[i..].iter().position(|&c| MAY_ESCAPE[c as usize]) {
            Some(at) => i += at,
            None => break,
        }
        let (rep, len) = match b[i] {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' => ("&quot;", 1),
            b'\'' => ("&#39;", 1),
            // Control characters are not allowed in XML 1.0, nor are these two noncharacters.
            c if c < 0x20 && !matches!(c, b'\n' | b'\t' | b'\r') => ("\u{FFFD}", 1),
            0xEF if matches!(b.get(i + 1..i + 3), Some([0xBF, 0xBE | 0xBF])) => ("\u{FFFD}", 3),
            0xE2 => match b.get(i + 1..i + 3) {
                Some(&[0x80, c @ 0xAA..=0xAE]) => (BIDI_202X[usize::from(c - 0xAA)], 3),
                Some(&[0x81, c @ 0xA6..=0xA9]) => (BIDI_206X[usize::from(c - 0xA6)], 3),
                _ => {
                    i += 1;
                    continue;
                }
            },
            _ => {
                i += 1;
                continue;
            }
        };
        // `i` and `i + len` are on char boundaries: the bytes matched start a char and are
        // the whole of it.
        out.write_str(&s[plain..i])?;
        out.write_str(rep)?;
        i += len;
        plain = i;
    }
    out.write_str(&s[plain..])
}

#[cfg(test)]
mod tests {
    #[test]
    fn plain_numbers_are_written_as_display_writes_them() {
        let check = |x: f64| {
            let mut s = String::new();
            super::plain_into(&mut s, x);
            assert_eq!(s, format!("{x}"), "{x:e} ({:#x})", x.to_bits());
        };
        for x in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            123.0,
            123.4,
            0.001,
            1e-7,
            1.5e-7,
            1e15,
            1e16,
            1.5e16,
            1e21,
            1e22,
            123_456_789.125,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::MIN,
            0.1,
            0.3,
            2.5e-5,
            9.999_999e-5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            check(x);
        }
        // Every exponent, and numbers as records give them (a few significant digits).
        let mut z: u64 = 0x9E37_79B9_7F4A_7C15;
        for i in 0..300_000u64 {
            z ^= z << 13;
            z ^= z >> 7;
            z ^= z << 17;
            check(f64::from_bits(z));
            check((z % 1_000_000) as f64 / 10f64.powi((i % 12) as i32));
        }
    }
    use super::*;

    #[test]
    fn ns_precision_by_magnitude() {
        assert_eq!(ns(1.234), "1.23");
        assert_eq!(ns(12.34), "12.3");
        assert_eq!(ns(-12.34), "-12.3");
        assert_eq!(ns(1234.4), "1,234");
        assert_eq!(ns(-1234567.0), "-1,234,567");
        assert_eq!(ns(999.6), "1,000");
        assert_eq!(ns(1e12), "1,000,000,000,000");
        assert_eq!(
            ns(1e300).len(),
            401,
            "beyond 2^53 still exact: {}",
            ns(1e300)
        );
        assert_eq!(ns(f64::NAN), "—");
    }

    #[test]
    fn large_values_are_scaled_with_their_own_digits() {
        let c = |m: f64, l: f64, h: f64| scaled(Some(m), Some((l, h)));
        assert_eq!(c(236.0, 232.0, 244.0), "236 [232, 244]");
        assert_eq!(c(9_999.0, 9_800.0, 10_100.0), "9,999 [9,800, 10,100]");
        assert_eq!(c(38_900.0, 37_800.0, 40_400.0), "38.9 µs [37.8, 40.4]");
        assert_eq!(c(348_000.0, 251_000.0, 430_000.0), "348 µs [251, 430]");
        assert_eq!(
            c(1_700_000.0, 1_653_000.0, 1_771_000.0),
            "1.7 ms [1.653, 1.771]"
        );
        assert_eq!(c(4_600_000.0, 100_000.0, 8_300_000.0), "4.6 ms [0.1, 8.3]");
        assert_eq!(c(-250_000.0, -300_000.0, -1_000.0), "-250 µs [-300, -1]");
        assert_eq!(c(2.5e9, 2.0e9, 3.0e9), "2.5 s [2, 3]");
        assert_eq!(scaled(Some(1_850_000.0), None), "1.85 ms");
        assert_eq!(scaled(None, Some((200_000.0, 300_000.0))), "[200, 300] µs");
        assert_eq!(scaled(None, None), "");
    }

    #[test]
    fn digits_are_written_as_format_writes_them() {
        let mut rng = syscost_synth::Rng::new(9);
        let mut xs: Vec<f64> = vec![
            0.0,
            1.0,
            10.0,
            999.0,
            1000.0,
            1e4,
            123_456_000.0,
            8_999_999_999_999_999.0,
            9_007_199_254_740_991.0,
            9e15,
            1e16,
            2.5,
            38_900.0,
        ];
        for _ in 0..200_000 {
            let digits = rng.below(17) as i32;
            xs.push((rng.f() * 10f64.powi(digits)).round());
            xs.push(rng.below(100_000) as f64 * 10f64.powi(rng.below(12) as i32));
        }
        for x in xs.iter().flat_map(|x| [*x, -*x]) {
            for (k, div) in [(3, 1e3), (6, 1e6), (9, 1e9)] {
                let mut s = String::new();
                if shifted_into(&mut s, x, k) {
                    assert_eq!(s, format!("{}", x / div), "{x} / {div}");
                } else {
                    assert!(x.abs() >= 4.5e15 || x.fract() != 0.0, "{x}");
                }
            }
            let mut s = String::new();
            group_thousands(&mut s, x.round());
            let plain = format!("{:.0}", x.round().abs());
            assert_eq!(
                s.replace(',', ""),
                format!("{}{plain}", if x.round() < 0.0 { "-" } else { "" })
            );
            assert!(s.split(',').skip(1).all(|g| g.len() == 3), "{s}");
        }
    }

    #[test]
    fn differences_carry_their_intervals() {
        let d = crate::model::changes::difference(
            100.0,
            Some((99.0, 101.0)),
            111.0,
            Some((110.0, 112.0)),
        );
        assert_eq!(d.delta, 11.0);
        assert_eq!(
            difference(&d),
            // ±1 and ±1 in quadrature: ±√2.
            "+11.0 ns [+9.59, +12.4] (+11.0 % [+9.6, +12.4])"
        );
        let d = crate::model::changes::difference(100.0, None, 90.0, None);
        assert_eq!(difference(&d), "-10.0 ns (-10.0 %)");
    }

    #[test]
    fn roots() {
        assert_eq!(root_of("index.html"), "");
        assert_eq!(root_of("runs/x86_64/6.8/abc.html"), "../../../");
    }

    #[test]
    fn esc_covers_markup() {
        assert_eq!(
            esc("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(esc("a\u{1}b"), "a\u{FFFD}b");
        assert_eq!(esc("a\u{FFFE}b\u{FFFF}"), "a\u{FFFD}b\u{FFFD}");
        // Issue 42: bidirectional controls reached pages raw; other U+20xx stay as they are.
        assert_eq!(
            esc("x\u{202e}nosj.txt \u{2066}a\u{2069} \u{202a}\u{202c} — ≤ ≈ … \u{2065}\u{206a}"),
            "x\\u{202e}nosj.txt \\u{2066}a\\u{2069} \\u{202a}\\u{202c} — ≤ ≈ … \u{2065}\u{206a}"
        );
        // Characters whose UTF-8 shares bytes with those two stay as they are.
        for kept in [
            "\u{FFFD}",
            "\u{FFBE}",
            "\u{EFBF}",
            "\u{FEFF}",
            "é ü — µs ▲",
            "\n\t\r",
        ] {
            assert_eq!(esc(kept), kept);
        }
        assert_eq!(
            esc("µ<\u{FFFF}é&\u{FFFE}\u{7}—"),
            "µ&lt;\u{FFFD}é&amp;\u{FFFD}\u{FFFD}—"
        );
    }
}
