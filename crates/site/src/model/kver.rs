//! Kernel release strings (`uname -r`) mapped onto the upstream version they are built from, so
//! that distribution kernels land on the same point of a trend as the release they package and
//! versions sort the way kernel people expect: `6.8-rc1 < 6.8 < 6.8.1 < 6.9 < 6.10`.
//!
//! A kernel that the source of an imported log gives only approximately ("bpf-next around
//! 5.7-rc") is a version of its own, labelled `≈5.7-rc`: it sorts just before the releases it
//! is near (`≈5.7-rc < 5.7-rc1`, `≈6.1 < 6.1`) and never shares a point, a page or a
//! comparison with a version that was measured.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// The upstream base of a kernel release: numeric components (trailing zeros trimmed, so
/// `6.8.0` equals `6.8`) and an optional release-candidate number.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Base {
    parts: Vec<u32>,
    /// `Some(0)` only for an approximate `-rc` ("some release candidate of 5.9").
    rc: Option<u32>,
    /// Stated only approximately by the source.
    approx: bool,
}

/// Marks an approximate version's label.
pub const APPROX: char = '≈';

impl Ord for Base {
    fn cmp(&self, other: &Self) -> Ordering {
        // Trailing zeros are trimmed, so comparing the vectors lexicographically is numeric
        // comparison with missing components treated as zero.
        self.parts.cmp(&other.parts).then_with(|| {
            // A release candidate comes before its release.
            match (self.rc, other.rc) {
                (None, None) => Ordering::Equal,
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (Some(a), Some(b)) => a.cmp(&b),
            }
            // An approximate version comes just before the measured one it names.
            .then_with(|| other.approx.cmp(&self.approx))
        })
    }
}

impl Base {
    /// Where this version goes on a chart's x axis: one unit per upstream release, so that the
    /// distance between two versions is the number of releases between them and missing
    /// releases show as gaps. 3.0 is 0; a major version ends where it ended (3.19, 4.20, 5.19,
    /// 6.19), a later one is assumed to have 20 releases too; 2.6.N is N − 40. Release
    /// candidates sit in the second half of the interval before their release (`-rc1` at
    /// −0.45, `-rc9` and later at −0.05), stable updates in the first four tenths after it
    /// (6.8.1 just after 6.8, 6.8.N approaching 6.8 + 0.4), approximate versions just before
    /// what they name: the same order as [`Ord`].
    pub fn axis_position(&self) -> f64 {
        let at = |i: usize| f64::from(self.parts.get(i).copied().unwrap_or(0));
        let major = self.parts.first().copied().unwrap_or(0);
        let (release, stable) = match major {
            0..=2 if self.parts.get(1) == Some(&6) => (at(2) - 40.0, at(3)),
            0..=2 => (-41.0, 0.0),
            3 => (at(1), at(2)),
            4 => (20.0 + at(1), at(2)),
            5 => (41.0 + at(1), at(2)),
            m => (61.0 + 20.0 * f64::from(m - 6) + at(1), at(2)),
        };
        match (self.rc, self.approx) {
            (Some(0), true) => release - 0.5,
            (Some(rc), approx) => {
                release - 0.5 + 0.05 * f64::from(rc.min(9)) - if approx { 0.01 } else { 0.0 }
            }
            (None, true) => release - 0.02,
            (None, false) => release + 0.4 * stable / (stable + 10.0),
        }
    }
}

impl PartialOrd for Base {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.approx {
            write!(f, "{APPROX}")?;
        }
        let major = self.parts.first().copied().unwrap_or(0);
        let minor = self.parts.get(1).copied().unwrap_or(0);
        write!(f, "{major}.{minor}")?;
        for n in self.parts.iter().skip(2) {
            write!(f, ".{n}")?;
        }
        match self.rc {
            Some(0) if self.approx => write!(f, "-rc")?,
            Some(rc) => write!(f, "-rc{rc}")?,
            None => {}
        }
        Ok(())
    }
}

/// A parsed `uname -r`: the upstream base, or the raw string when it does not start with a
/// version number at all (those sort after every real version, by text).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct KernelVersion {
    pub base: Option<Base>,
    pub release: String,
}

impl KernelVersion {
    pub fn parse(release: &str) -> KernelVersion {
        let t = release.trim();
        if let Some(rest) = t.strip_prefix(APPROX) {
            return KernelVersion::approximate(rest);
        }
        KernelVersion {
            base: parse_base(t),
            release: release.to_string(),
        }
    }

    /// A version the source states only approximately: `5.9-rc` (some release candidate of
    /// 5.9), `6.1` (around 6.1). Without a version number it has no base, like any other
    /// unparseable release.
    pub fn approximate(release: &str) -> KernelVersion {
        let t = release.trim();
        let (num, any_rc) = match t.strip_suffix("-rc").or_else(|| t.strip_suffix("rc")) {
            Some(n) => (n, true),
            None => (t, false),
        };
        let base = parse_base(num).map(|mut b| {
            if any_rc && b.rc.is_none() {
                b.rc = Some(0);
            }
            b.approx = true;
            b
        });
        KernelVersion {
            base,
            release: format!("{APPROX}{t}"),
        }
    }

    /// The kernel a record is placed on: its recorded release, or, when that is not known,
    /// the kernel its source states (an approximate one as such).
    pub fn of_record(release: &str, stated: Option<(&str, bool)>) -> KernelVersion {
        match stated {
            Some((s, approx)) if unknown_release(release) => {
                if approx {
                    KernelVersion::approximate(s)
                } else {
                    KernelVersion::parse(s)
                }
            }
            _ => KernelVersion::parse(release),
        }
    }

    /// This kernel as its distribution package names it, when that is more exact: Debian's
    /// `6.1.0-47-amd64` is the package `6.1.170-3`, and `6.1.0-50-amd64` is `6.1.176-1`: two
    /// kernels that the release string alone would put on one point, 6.1. A package version
    /// of another release (or that is no version) changes nothing.
    pub fn packaged(self, package_version: &str) -> KernelVersion {
        let exact = match (&self.base, parse_base(package_version)) {
            (Some(b), Some(p))
                if !b.approx
                    && b.rc == p.rc
                    && p.parts.len() > b.parts.len()
                    && p.parts.starts_with(&b.parts) =>
            {
                Some(p)
            }
            _ => None,
        };
        match exact {
            Some(base) => KernelVersion {
                base: Some(base),
                ..self
            },
            None => self,
        }
    }

    pub fn is_approximate(&self) -> bool {
        self.base.as_ref().is_some_and(|b| b.approx)
    }

    /// What a trend point or a kernel page is keyed on: the upstream base (`6.8`, `6.8.1`,
    /// `6.9-rc2`), or the raw release when unparseable.
    pub fn base_label(&self) -> String {
        match &self.base {
            Some(b) => b.to_string(),
            None => self.release.trim().to_string(),
        }
    }
}

impl Ord for KernelVersion {
    fn cmp(&self, other: &Self) -> Ordering {
        match (&self.base, &other.base) {
            (Some(a), Some(b)) => a.cmp(b),
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        }
        // Same base: order distribution builds by their full string, so sorting is total.
        .then_with(|| self.release.cmp(&other.release))
    }
}

impl PartialOrd for KernelVersion {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A release string that says nothing: empty, `unknown`, `?`.
pub fn unknown_release(s: &str) -> bool {
    let s = s.trim();
    s.is_empty() || s.eq_ignore_ascii_case("unknown") || s == "?"
}

/// Sort key for a base label as produced by [`KernelVersion::base_label`].
pub fn label_key(label: &str) -> KernelVersion {
    KernelVersion::parse(label)
}

/// `6.8.0-45-generic` → 6.8; `6.10.0-rc3-00003-g626fa9223749` → 6.10-rc3; `5.10.0-fc-v669` →
/// 5.10; `6.1+` → 6.1. Needs at least `major.minor`; anything after the numeric components other
/// than an `-rcN`/`rcN` marker is a distribution or build suffix and is ignored.
fn parse_base(s: &str) -> Option<Base> {
    let bytes = s.as_bytes();
    let mut parts = Vec::new();
    let mut i = 0;
    loop {
        let start = i;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
        if i == start || i - start > 9 {
            // Not a number, or too long to be a version component.
            return if parts.len() >= 2 {
                finish(parts, None)
            } else {
                None
            };
        }
        parts.push(s[start..i].parse::<u32>().ok()?);
        if parts.len() < 4
            && i + 1 < bytes.len()
            && bytes[i] == b'.'
            && bytes[i + 1].is_ascii_digit()
        {
            i += 1;
            continue;
        }
        break;
    }
    if parts.len() < 2 {
        return None;
    }
    let rest = &s[i..];
    let rc = rest
        .strip_prefix("-rc")
        .or_else(|| rest.strip_prefix("rc"))
        .and_then(|r| {
            let digits: String = r.chars().take_while(|c| c.is_ascii_digit()).collect();
            digits.parse::<u32>().ok()
        });
    finish(parts, rc)
}

fn finish(mut parts: Vec<u32>, rc: Option<u32>) -> Option<Base> {
    while parts.len() > 2 && parts.last() == Some(&0) {
        parts.pop();
    }
    Some(Base {
        parts,
        rc,
        approx: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(s: &str) -> KernelVersion {
        KernelVersion::parse(s)
    }

    #[test]
    fn upstream_order() {
        let order = [
            "6.8-rc1", "6.8-rc2", "6.8", "6.8.1", "6.8.12", "6.9", "6.10", "7.0",
        ];
        for w in order.windows(2) {
            assert!(v(w[0]) < v(w[1]), "{} < {}", w[0], w[1]);
        }
    }

    #[test]
    fn axis_positions_count_releases_and_keep_the_order() {
        let pos = |s: &str| v(s).base.unwrap().axis_position();
        // One unit per release, across major versions.
        assert_eq!(pos("3.19") + 1.0, pos("4.0"));
        assert_eq!(pos("4.20") + 1.0, pos("5.0"));
        assert_eq!(pos("5.19") + 1.0, pos("6.0"));
        assert_eq!(pos("6.19") + 1.0, pos("7.0"));
        assert_eq!(pos("2.6.39") + 1.0, pos("3.0"));
        assert_eq!(pos("6.18") - pos("6.8"), 10.0);
        let order = [
            "2.6.32",
            "3.0",
            "5.19.17",
            "≈6.0-rc",
            "6.0-rc1",
            "6.0-rc7",
            "6.0-rc12",
            "≈6.0",
            "6.0",
            "6.0.1",
            "6.0.19",
            "6.0.200",
            "6.1-rc1",
            "6.1",
            "6.10",
            "7.0",
        ];
        for w in order.windows(2) {
            assert!(v(w[0]) < v(w[1]), "{} < {}", w[0], w[1]);
            assert!(pos(w[0]) < pos(w[1]), "{} before {}", w[0], w[1]);
        }
    }

    #[test]
    fn zero_patch_equals_release() {
        assert_eq!(v("6.8.0").base, v("6.8").base);
        assert_eq!(v("6.8.0").base_label(), "6.8");
        assert_eq!(v("4.19.0-26-amd64").base_label(), "4.19");
    }

    #[test]
    fn distro_suffixes_map_to_upstream_base() {
        assert_eq!(v("6.8.0-45-generic").base_label(), "6.8");
        assert_eq!(v("6.10.0-rc3-00003-g626fa9223749").base_label(), "6.10-rc3");
        assert_eq!(v("5.10.0-fc-v669").base_label(), "5.10");
        assert_eq!(v("6.1+").base_label(), "6.1");
        assert_eq!(v("6.6.30-00003-g626fa9223749").base_label(), "6.6.30");
        assert_eq!(v("5.15.0-1057-aws").base_label(), "5.15");
        assert_eq!(v("6.11.5-300.fc41.x86_64").base_label(), "6.11.5");
        assert_eq!(v("6.9.0rc2").base_label(), "6.9-rc2");
        assert_eq!(v("2.6.32.27").base_label(), "2.6.32.27");
    }

    #[test]
    fn distro_kernels_sort_with_their_base() {
        assert!(v("6.8.0-45-generic") < v("6.8.1"));
        assert!(v("6.8-rc7") < v("6.8.0-45-generic"));
        assert!(v("6.9.0-rc1+") < v("6.9"));
        assert!(v("6.8.0-31-generic") < v("6.8.0-45-generic"));
        assert!(v("6.9.12-foo") < v("6.10.0-rc3-00003-g626fa9223749"));
    }

    #[test]
    fn unparseable_sorts_last_and_keeps_its_text() {
        assert!(v("6.10") < v("linux-next"));
        assert_eq!(v("linux-next").base, None);
        assert_eq!(v("6").base, None);
        assert_eq!(v(" weird ").base_label(), "weird");
        assert_eq!(v("").base, None);
        assert_eq!(v("99999999999.1").base, None);
    }

    #[test]
    fn label_round_trips() {
        for s in [
            "6.8-rc1",
            "6.8",
            "6.8.1",
            "6.10",
            "2.6.32.27",
            "≈5.9-rc",
            "≈6.1",
            "≈5.10-rc4",
        ] {
            assert_eq!(label_key(s).base_label(), s);
        }
    }

    #[test]
    fn approximate_versions_are_their_own_points_next_to_the_measured_ones() {
        let a = KernelVersion::approximate;
        assert_eq!(a("5.9-rc").base_label(), "≈5.9-rc");
        assert_eq!(a("6.14-rc").base_label(), "≈6.14-rc");
        assert_eq!(a("6.1").base_label(), "≈6.1");
        assert!(a("5.9-rc").is_approximate());
        assert!(!v("5.9-rc1").is_approximate());
        // Never the same point as a measured version, whatever it names.
        assert_ne!(a("5.10-rc4").base, v("5.10-rc4").base);
        assert_ne!(a("6.1").base, v("6.1").base);
        assert_ne!(a("5.9-rc").base, v("5.9").base);
        // Just before what it is near.
        let order = [
            v("5.8.18"),
            a("5.9-rc"),
            v("5.9-rc1"),
            v("5.9"),
            a("5.10-rc"),
            v("5.10-rc4"),
            a("6.1"),
            v("6.1"),
        ];
        for w in order.windows(2) {
            assert!(w[0] < w[1], "{:?} < {:?}", w[0], w[1]);
        }
        assert_eq!(a("bpf-next").base, None);
    }

    #[test]
    fn a_record_is_placed_on_its_release_or_on_what_its_source_states() {
        let of = KernelVersion::of_record;
        assert_eq!(of("6.8.0-45-generic", None).base_label(), "6.8");
        assert_eq!(
            of("unknown", Some(("5.9-rc", true))).base_label(),
            "≈5.9-rc"
        );
        assert_eq!(
            of("unknown", Some(("5.10-rc4", false))).base_label(),
            "5.10-rc4"
        );
        // The log's own release wins (the importer never lets a stated fact override it).
        assert_eq!(
            of("5.11.0-rc5", Some(("5.11-rc", true))).base_label(),
            "5.11-rc5"
        );
        assert_eq!(of("unknown", None).base, None);
    }

    #[test]
    fn a_package_names_the_stable_release_its_release_string_hides() {
        let p = |release: &str, package: &str| v(release).packaged(package).base_label();
        assert_eq!(p("6.1.0-47-amd64", "6.1.170-3"), "6.1.170");
        assert_eq!(p("6.1.0-50-amd64", "6.1.176-1"), "6.1.176");
        assert_eq!(p("5.10.0-32-amd64", "5.10.223-1"), "5.10.223");
        // Already exact, or the package of another release, or not a version: unchanged.
        assert_eq!(p("6.12.117+deb13-amd64", "6.12.117-1"), "6.12.117");
        assert_eq!(p("6.1.0-47-amd64", "6.2.1-1"), "6.1");
        assert_eq!(p("6.12.117+deb13-amd64", "6.12.118-1"), "6.12.117");
        assert_eq!(p("6.1.0-47-amd64", "1:6.1.170-3"), "6.1");
        assert_eq!(p("6.10.0-rc3", "6.10.1-1"), "6.10-rc3");
        assert_eq!(
            v("6.1.0-47-amd64").packaged("6.1.170-3").release,
            "6.1.0-47-amd64"
        );
    }
}
