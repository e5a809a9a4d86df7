//! The grammars of the record's identifier fields and its dates. Some of these strings become
//! path components (`runs/<arch>/<kernel_release>/<id>.json`) and site page names, so they are
//! held to what the kernel itself produces rather than sanitised after the fact: a name that
//! passes is used as it is.

/// Longest `uname -m` accepted (the kernel's own names are at most 11 characters).
pub const ARCH_MAX: usize = 32;
/// Longest `uname -r` accepted: `struct utsname`'s release field holds 64 characters.
pub const KERNEL_RELEASE_MAX: usize = 64;
/// Longest scenario, estimate or expectation id, probe name, family or other identifier.
pub const IDENT_MAX: usize = 100;

/// An architecture as `uname -m` names it: a lower-case letter, then lower-case letters, digits
/// and `_` (`x86_64`, `aarch64`, `riscv64`, `armv7l`), at most [`ARCH_MAX`] characters; or
/// `unknown` when the source does not say.
pub fn is_arch(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= ARCH_MAX
        && b[0].is_ascii_lowercase()
        && b.iter()
            .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

/// A kernel release as `uname -r` prints it: at most [`KERNEL_RELEASE_MAX`] characters of
/// `[A-Za-z0-9._+-]`, beginning with a letter or digit, never containing `..` (`6.8.0-45-generic`,
/// `5.11.0-rc5-00462-gdc8df6e85d2c`, `6.6.0+`); or `unknown`. Nor may it end like one of the
/// site's own files ([`is_site_file_name`]: `6.9.1-index.html`), which it would be written
/// beside. The one rule the collector, the importer and the site's checker all apply.
pub fn is_kernel_release(s: &str) -> bool {
    is_release_shaped(s) && !is_site_file_name(s)
}

/// The characters and length of a kernel release ([`is_kernel_release`] without the rule on
/// the site's file names).
pub fn is_release_shaped(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= KERNEL_RELEASE_MAX
        && b[0].is_ascii_alphanumeric()
        && b.iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'+' | b'-'))
        && !s.contains("..")
}

/// The extensions of every file the site writes. A record's architecture and kernel release
/// become directory names beside the site's pages (`runs/<arch>/<kernel>/`, `runs/index.html`),
/// so no name from a record may end in one of them.
pub const PAGE_EXTENSIONS: &[&str] = &["html", "json", "xml", "csv", "css", "js", "svg"];

/// Whether `name` could be (or become) one of the site's own file names: it begins with a dot
/// (the site's marker files) or ends in one of [`PAGE_EXTENSIONS`], in any case.
pub fn is_site_file_name(name: &str) -> bool {
    let b = name.as_bytes();
    b.first() == Some(&b'.')
        || PAGE_EXTENSIONS.iter().any(|ext| {
            b.len() > ext.len()
                && b[b.len() - ext.len() - 1] == b'.'
                && b[b.len() - ext.len()..].eq_ignore_ascii_case(ext.as_bytes())
        })
}

/// A scenario, estimate or expectation id and the like (`seccomp.bitmap.1`, `attach.bpf.tp`,
/// `per_filter.last2`): 1 to [`IDENT_MAX`] characters of `[A-Za-z0-9._+-]`.
pub fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= IDENT_MAX
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'+' | b'-'))
}

/// Lower-case hexadecimal digits, between `min` and `max` of them.
pub fn is_hex(s: &str, min: usize, max: usize) -> bool {
    (min..=max).contains(&s.len()) && s.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'))
}

/// Seconds since 1970-01-01T00:00:00Z of an RFC 3339 date (`2021-02-07`, read as its start) or
/// UTC time (`2021-02-07T10:00Z`, `2026-11-29T18:53:47Z`, with optional fraction of a second);
/// `None` if it is neither, or not a day of the calendar.
pub fn parse_date(s: &str) -> Option<i64> {
    let (date, time) = match s.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let num = |x: &str, n: usize| -> Option<i64> {
        (x.len() == n && x.bytes().all(|c| c.is_ascii_digit()))
            .then(|| x.parse().ok())
            .flatten()
    };
    let mut d = date.split('-');
    let (y, m, day) = (num(d.next()?, 4)?, num(d.next()?, 2)?, num(d.next()?, 2)?);
    if d.next().is_some() || !(1..=12).contains(&m) || day < 1 || day > days_in_month(y, m) {
        return None;
    }
    let mut secs = days_from_civil(y, m, day) * 86_400;
    if let Some(t) = time {
        let t = t.strip_suffix('Z')?;
        let hms = match t.split_once('.') {
            Some((h, f)) if !f.is_empty() && f.bytes().all(|c| c.is_ascii_digit()) => h,
            Some(_) => return None,
            None => t,
        };
        let mut p = hms.split(':');
        let (h, mi) = (num(p.next()?, 2)?, num(p.next()?, 2)?);
        let sec = match p.next() {
            Some(x) => num(x, 2)?,
            None => 0,
        };
        if p.next().is_some() || h > 23 || mi > 59 || sec > 60 {
            return None;
        }
        secs += h * 3600 + mi * 60 + sec;
    }
    Some(secs)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to a civil date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_the_site_s_files_are_no_kernel_release() {
        for n in [
            "index.html",
            "page-2.html",
            "feed.xml",
            "runs.csv",
            "INDEX.HTML",
            ".syscost-site",
            "6.9.1-index.html",
            "6.8.JSON",
        ] {
            assert!(is_site_file_name(n), "{n}");
        }
        for n in [
            "x86_64",
            "6.8.0-45-generic",
            "5.10-rc4",
            "unknown",
            "html",
            "6.8.0-html",
        ] {
            assert!(!is_site_file_name(n), "{n}");
        }
        assert!(!is_kernel_release("6.9.1-index.html"));
        assert!(is_release_shaped("6.9.1-index.html"));
        assert!(is_kernel_release("6.8.0-45-generic"));
    }

    #[test]
    fn identifiers_are_letters_digits_and_four_marks() {
        for c in 0..=255u8 {
            let plain = c.is_ascii_alphanumeric() || b"._+-".contains(&c);
            let one = [c];
            // Every byte alone.
            if let Ok(s) = std::str::from_utf8(&one) {
                assert_eq!(is_ident(s), plain, "{s:?}");
            }
        }
        assert!(is_ident("seccomp.bitmap.getpid"));
        assert!(is_ident("per_filter.last2+x-y"));
        for bad in ["", "a b", "a/b", "é", "a\u{0}"] {
            assert!(!is_ident(bad), "{bad:?}");
        }
        assert!(is_ident(&"a".repeat(IDENT_MAX)));
        assert!(!is_ident(&"a".repeat(IDENT_MAX + 1)));
    }

    #[test]
    fn arches() {
        for ok in [
            "x86_64", "aarch64", "riscv64", "armv7l", "s390x", "unknown", "x86",
        ] {
            assert!(is_arch(ok), "{ok}");
        }
        for bad in [
            "",
            "index.html",
            "page-2.html",
            "X86_64",
            "../x",
            "x86 64",
            "_x",
            "9x",
        ] {
            assert!(!is_arch(bad), "{bad}");
        }
        assert!(!is_arch(&"a".repeat(33)));
    }

    #[test]
    fn kernel_releases() {
        for ok in [
            "6.8.0-45-generic",
            "5.11.0-rc5-00462-gdc8df6e85d2c",
            "6.6.0+",
            "4.19.0-ARCH",
            "unknown",
            "5.10-rc4",
        ] {
            assert!(is_kernel_release(ok), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "../x",
            "/etc/passwd",
            "-rc1",
            "6.8 x",
            "6..8",
            "6.8\0",
        ] {
            assert!(!is_kernel_release(bad), "{bad:?}");
        }
        assert!(!is_kernel_release(&format!("6.{}", "9".repeat(63))));
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("1970-01-01"), Some(0));
        assert_eq!(parse_date("1970-01-02T00:00:01Z"), Some(86_401));
        assert_eq!(parse_date("2026-11-29T18:53:47Z"), Some(1_795_978_427));
        assert_eq!(parse_date("2000-02-29"), Some(951_782_400));
        assert_eq!(parse_date("2021-02-07T10:00Z"), Some(1_612_692_000));
        assert!(parse_date("2021-02-07T10:00:00.123Z").is_some());
        for bad in [
            "2021-02-30",
            "1900-02-29",
            "2021-13-01",
            "2021-2-7",
            "2021-02-07 10:00",
            "2021-02-07T10:00:00",
            "2021-02-07T24:00Z",
            "<script>",
            "9999-99-99",
            "",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }
}
