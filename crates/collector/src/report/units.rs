//! Numbers as people read them: a time in the unit that fits it (ns, µs, ms, s), an instruction
//! count as `instr` (`M instr` from a million), a value and its interval in one unit, and as many digits as the interval
//! justifies (two significant digits of the half-width, the value to the same decimal).

use syscost_record::Clock;

/// Most decimals ever printed.
const MAX_DECIMALS: i32 = 3;

/// The unit of a record's numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Nanoseconds, printed in the unit that fits.
    Time,
    /// Instructions, printed as counts.
    Instructions,
}

impl Unit {
    pub fn of(clock: Clock) -> Unit {
        match clock {
            Clock::Time => Unit::Time,
            Clock::Instructions => Unit::Instructions,
        }
    }

    /// The divisor and name of the unit that fits a magnitude (`ns` values).
    fn scale(self, magnitude: f64) -> (f64, &'static str) {
        match self {
            Unit::Instructions if magnitude.abs() >= 1e6 => (1e6, "M instr"),
            Unit::Instructions => (1.0, "instr"),
            Unit::Time => {
                let m = magnitude.abs();
                if m >= 1e9 {
                    (1e9, "s")
                } else if m >= 1e6 {
                    (1e6, "ms")
                } else if m >= 1e3 {
                    (1e3, "µs")
                } else {
                    (1.0, "ns")
                }
            }
        }
    }
}

/// Decimals for a value shown alone: three significant digits, at most [`MAX_DECIMALS`].
fn own_decimals(v: f64) -> usize {
    let a = v.abs();
    if a >= 10_000.0 {
        0
    } else if a >= 100.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        3
    }
}

/// Decimals that give two significant digits of `half` (already scaled).
fn half_decimals(half: f64) -> usize {
    if half <= 0.0 || !half.is_finite() {
        return 0;
    }
    (1 - half.log10().floor() as i32).clamp(0, MAX_DECIMALS) as usize
}

/// A value alone, in the unit that fits it: `1.23 µs`, `231.0 instr`.
pub fn value(v: f64, unit: Unit) -> String {
    let (div, name) = unit.scale(v);
    let s = v / div;
    format!("{:.*} {name}", own_decimals(s), s)
}

/// A signed value alone: `+34.0 instr`, `-1.20 µs`.
pub fn signed(v: f64, unit: Unit) -> String {
    let (div, name) = unit.scale(v);
    let s = v / div;
    format!("{:+.*} {name}", own_decimals(s), s)
}

/// A value and its interval's half-width in one unit, as two cells: (`90.0 ms`, `±4.5 ms`).
/// Without a half-width the value is printed alone and the second cell says so. An exact
/// value (half-width 0, an instruction count) keeps its own digits and shows `±0`.
pub fn with_half(v: f64, half: Option<f64>, unit: Unit, sign: bool) -> (String, String) {
    let Some(h) = half.filter(|h| h.is_finite() && *h >= 0.0) else {
        let s = if sign {
            signed(v, unit)
        } else {
            value(v, unit)
        };
        return (s, "(no CI)".to_string());
    };
    let (div, name) = unit.scale(v.abs().max(h));
    let (s, hs) = (v / div, h / div);
    let d = if h == 0.0 {
        own_decimals(s)
    } else {
        half_decimals(hs)
    };
    let shown = if sign {
        format!("{s:+.d$} {name}")
    } else {
        format!("{s:.d$} {name}")
    };
    let ci = if h == 0.0 {
        format!("±0 {name}")
    } else {
        format!("±{hs:.d$} {name}")
    };
    (shown, ci)
}

/// A percentage: `+29.4%`.
pub fn pct(p: f64) -> String {
    format!("{p:+.1}%")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_take_the_unit_that_fits() {
        assert_eq!(
            with_half(90_000_000.0, Some(4_450_000.0), Unit::Time, false),
            ("90.0 ms".to_string(), "±4.5 ms".to_string())
        );
        assert_eq!(
            with_half(173.4, Some(2.76), Unit::Time, false),
            ("173.4 ns".to_string(), "±2.8 ns".to_string())
        );
        assert_eq!(
            with_half(8.5, Some(0.59), Unit::Time, false),
            ("8.50 ns".to_string(), "±0.59 ns".to_string())
        );
        assert_eq!(
            with_half(13_600.0, Some(220.0), Unit::Time, false),
            ("13.60 µs".to_string(), "±0.22 µs".to_string())
        );
        assert_eq!(
            with_half(2.5e9, Some(1e8), Unit::Time, false),
            ("2.50 s".to_string(), "±0.10 s".to_string())
        );
        assert_eq!(value(1_880.0, Unit::Time), "1.88 µs");
        assert_eq!(signed(-43.98, Unit::Time), "-43.98 ns");
    }

    #[test]
    fn counts_are_instructions_and_exact_ones_say_so() {
        assert_eq!(
            with_half(231.012, Some(0.0), Unit::Instructions, false),
            ("231.0 instr".to_string(), "±0 instr".to_string())
        );
        assert_eq!(
            with_half(34.0, Some(0.0), Unit::Instructions, true),
            ("+34.00 instr".to_string(), "±0 instr".to_string())
        );
        assert_eq!(value(11_095_100.0, Unit::Instructions), "11.10 M instr");
        assert_eq!(value(42_063.0, Unit::Instructions), "42063 instr");
    }

    #[test]
    fn no_interval_is_said() {
        assert_eq!(
            with_half(5.0, None, Unit::Time, false),
            ("5.00 ns".to_string(), "(no CI)".to_string())
        );
    }
}
