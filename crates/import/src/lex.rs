//! Small helpers for reading numbers out of log lines. Logs are parsed with plain string
//! matching: every format here is a handful of fixed `printf` templates.

/// A leading unsigned integer and the rest of the string.
pub fn leading_u64(s: &str) -> Option<(u64, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let v = s[..end].parse().ok()?;
    Some((v, &s[end..]))
}

/// A leading signed integer (`-3`, `+5`, `12`) and the rest of the string.
pub fn leading_i64(s: &str) -> Option<(i64, &str)> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (v, rest) = leading_u64(body)?;
    let v = i64::try_from(v).ok()?;
    Some((if neg { -v } else { v }, rest))
}

/// A leading decimal number (`9.200`, `-0.5`, `13`) and the rest of the string.
pub fn leading_f64(s: &str) -> Option<(f64, &str)> {
    let b = s.as_bytes();
    let mut end = 0;
    if matches!(b.first(), Some(b'-' | b'+')) {
        end = 1;
    }
    let digits_start = end;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    if end < b.len() && b[end] == b'.' {
        end += 1;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
    }
    if !s[digits_start..end].bytes().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let v: f64 = s[..end].parse().ok()?;
    v.is_finite().then_some((v, &s[end..]))
}

/// An integer printed with locale grouping (`19,144,887`, `19.144.887`, `19'144'887`,
/// `10000000`), followed by whitespace or the end.
pub fn grouped_u64(s: &str) -> Option<(u64, &str)> {
    let end = s
        .find(|c: char| {
            !(c.is_ascii_digit() || matches!(c, ',' | '.' | '\'' | '\u{a0}' | '\u{202f}'))
        })
        .unwrap_or(s.len());
    let token = s[..end].trim_end_matches([',', '.', '\'']);
    let digits: String = token.chars().filter(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    // Every group after the first has exactly three digits, or the number has no separators.
    let groups: Vec<&str> = token.split(|c: char| !c.is_ascii_digit()).collect();
    if groups.len() > 1 && groups[1..].iter().any(|g| g.len() != 3) {
        return None;
    }
    Some((digits.parse().ok()?, &s[token.len()..]))
}

/// A leading whole number as a benchmark's `%llu` prints it, or why the text there is not
/// one: the number as written (up to 40 characters) and the reason. A log that was edited,
/// damaged or made up shows it here, and the value is refused rather than dropped silently.
pub fn whole_number(s: &str) -> Result<(u64, &str), (String, &'static str)> {
    let numeric = |c: char| c.is_numeric() || matches!(c, '+' | '-' | '.' | 'e' | 'E');
    let end = s.find(|c: char| !numeric(c)).unwrap_or(s.len());
    let (token, rest) = s.split_at(end);
    let shown = |t: &str| t.chars().take(40).collect::<String>();
    if !token.chars().any(char::is_numeric) {
        let word = s.split_whitespace().next().unwrap_or("");
        return Err((shown(word), "is not a number"));
    }
    if token.starts_with('-') {
        return Err((shown(token), "is negative"));
    }
    if token.contains(['.', 'e', 'E']) || token.chars().skip(1).any(|c| matches!(c, '+' | '-')) {
        return Err((shown(token), "is not a whole number"));
    }
    let digits = token.strip_prefix('+').unwrap_or(token);
    if !digits.bytes().all(|c| c.is_ascii_digit()) {
        return Err((shown(token), "is written in digits other than 0-9"));
    }
    match digits.parse() {
        Ok(v) => Ok((v, rest)),
        Err(_) => Err((shown(token), "is larger than any count (2^64 - 1)")),
    }
}

/// A line shortened for an error message.
pub fn excerpt(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars().take(80) {
        // A log line is quoted in messages: its control characters (terminal escapes, bells)
        // are shown, not sent to the terminal.
        if c.is_control() {
            out.push_str(&c.escape_default().to_string());
        } else {
            out.push(c);
        }
    }
    if s.chars().count() > 80 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers() {
        assert_eq!(leading_u64("646 ns"), Some((646, " ns")));
        assert_eq!(
            leading_u64("18446744073709551613 ns"),
            Some((u64::MAX - 2, " ns"))
        );
        assert_eq!(leading_u64("x"), None);
        assert_eq!(leading_i64("-3)"), Some((-3, ")")));
        assert_eq!(leading_i64("+-3ns"), None);
    }

    #[test]
    fn whole_numbers_say_why_not() {
        assert_eq!(whole_number("302 ns"), Ok((302, " ns")));
        assert_eq!(whole_number("171ns."), Ok((171, "ns.")));
        let why = |s| whole_number(s).unwrap_err();
        assert_eq!(why("-302 ns"), ("-302".into(), "is negative"));
        assert_eq!(why("1e999 ns"), ("1e999".into(), "is not a whole number"));
        assert_eq!(why("0.5 ns").1, "is not a whole number");
        assert_eq!(
            why("\u{ff13}\u{ff10}\u{ff12} ns").1,
            "is written in digits other than 0-9"
        );
        assert_eq!(
            why("18446744073709551616 ns"),
            (
                "18446744073709551616".into(),
                "is larger than any count (2^64 - 1)"
            )
        );
        assert_eq!(why("nan ns"), ("nan".into(), "is not a number"));
    }

    #[test]
    fn decimals() {
        assert_eq!(leading_f64("9.200 ± 0.319M/s"), Some((9.2, " ± 0.319M/s")));
        assert_eq!(
            leading_f64("0.052233 usecs/op"),
            Some((0.052233, " usecs/op"))
        );
        assert_eq!(leading_f64(".5"), Some((0.5, "")));
        assert_eq!(leading_f64("."), None);
        assert_eq!(leading_f64("abc"), None);
    }

    #[test]
    fn grouped() {
        assert_eq!(
            grouped_u64("19,144,887 ops/sec"),
            Some((19144887, " ops/sec"))
        );
        assert_eq!(grouped_u64("19.144.887 ops"), Some((19144887, " ops")));
        assert_eq!(
            grouped_u64("10000000 getppid()"),
            Some((10000000, " getppid()"))
        );
        assert_eq!(grouped_u64("1,23 x"), None);
    }

    #[test]
    fn excerpts_are_short() {
        assert_eq!(excerpt("abc"), "abc");
        assert_eq!(excerpt(&"x".repeat(200)).chars().count(), 81);
        assert_eq!(excerpt("a\u{1b}[31mb\u{7}"), "a\\u{1b}[31mb\\u{7}");
    }
}
