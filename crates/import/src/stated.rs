//! Facts a log's source states outside the log (`--kernel`, `--arch`, `--machine`, `--date`,
//! `--stated-in`): checked on their own first, then put into each record beside what the log
//! prints — never over it. A stated fact that contradicts the log is an error naming both.

use crate::error::Error;
use crate::parsed::UNKNOWN;
use syscost_record::{RunRecord, Stated, StatedKernel};

/// The stated facts as given on the command line.
#[derive(Debug, Clone, Copy, Default)]
pub struct StatedFacts<'a> {
    /// The kernel release; a leading `~` marks an approximate one (`~5.7-rc`: "bpf-next around
    /// 5.7-rc").
    pub kernel: Option<&'a str>,
    /// The architecture, as `uname -m` names it where the source allows (`x86_64`, `aarch64`).
    pub arch: Option<&'a str>,
    /// The machine in the source's words.
    pub machine: Option<&'a str>,
    /// An RFC 3339 date (`2021-02-07`) or UTC time (`2021-02-07T10:00:00Z`).
    pub date: Option<&'a str>,
    /// Where and how the source states them.
    pub stated_in: Option<&'a str>,
}

/// Why a stated fact cannot be used, before any log is read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StatedError {
    #[error("--{flag} is empty")]
    Empty { flag: &'static str },
    #[error("--{flag} {value:?} contains a control character")]
    Control { flag: &'static str, value: String },
    #[error("--kernel {0:?}: a release has no blanks (for an approximate kernel give its version after '~', e.g. ~5.7-rc, and the source's words with --stated-in)")]
    KernelBlank(String),
    #[error("--arch {0:?}: an architecture is one word, as uname -m prints it (x86_64, aarch64, s390x, ...)")]
    ArchWord(String),
    #[error(
        "--date {0:?} is not an RFC 3339 date (2021-02-07) or UTC time (2021-02-07T10:00:00Z)"
    )]
    Date(String),
    #[error("--stated-in without any of --kernel, --arch, --machine, --date states nothing")]
    NothingStated,
}

impl<'a> StatedFacts<'a> {
    pub fn is_empty(&self) -> bool {
        self.kernel.is_none()
            && self.arch.is_none()
            && self.machine.is_none()
            && self.date.is_none()
            && self.stated_in.is_none()
    }

    /// Checks every fact on its own: well-formed, and something stated when `--stated-in` is.
    pub fn check(&self) -> Result<(), StatedError> {
        let given = [
            ("kernel", self.kernel),
            ("arch", self.arch),
            ("machine", self.machine),
            ("date", self.date),
            ("stated-in", self.stated_in),
        ];
        for (flag, v) in given {
            let Some(v) = v else { continue };
            if v.trim().is_empty() || v.trim() == "~" {
                return Err(StatedError::Empty { flag });
            }
            if v.chars().any(char::is_control) {
                return Err(StatedError::Control {
                    flag,
                    value: v.to_string(),
                });
            }
        }
        if let Some(k) = self.kernel {
            if k.trim().contains(char::is_whitespace) {
                return Err(StatedError::KernelBlank(k.to_string()));
            }
        }
        if let Some(a) = self.arch {
            if a.trim().contains(char::is_whitespace) {
                return Err(StatedError::ArchWord(a.to_string()));
            }
        }
        if let Some(d) = self.date {
            if !is_rfc3339(d.trim()) {
                return Err(StatedError::Date(d.to_string()));
            }
        }
        if self.stated_in.is_some()
            && self.kernel.is_none()
            && self.arch.is_none()
            && self.machine.is_none()
            && self.date.is_none()
        {
            return Err(StatedError::NothingStated);
        }
        Ok(())
    }

    /// The kernel as the record states it.
    fn stated_kernel(&self) -> Option<StatedKernel> {
        let k = self.kernel?.trim();
        Some(match k.strip_prefix('~') {
            Some(approx) => StatedKernel {
                release: approx.trim().to_string(),
                approximate: true,
            },
            None => StatedKernel {
                release: k.to_string(),
                approximate: false,
            },
        })
    }

    /// Puts the facts into `r`, where the log left them unknown; a fact the log prints
    /// differently is a conflict (`line` is where the log prints its kernel and architecture).
    pub fn apply(&self, r: &mut RunRecord, file: &str, line: usize) -> Result<(), Error> {
        if self.is_empty() {
            return Ok(());
        }
        let conflict =
            |fact: &'static str, printed: &str, flag: &'static str, stated: &str| Error::Conflict {
                file: file.to_string(),
                line,
                fact,
                printed: printed.to_string(),
                flag,
                stated: stated.to_string(),
            };
        let kernel = self.stated_kernel();
        let c = &mut r.environment.comparability;
        if let Some(k) = &kernel {
            let printed = c.kernel_release.clone();
            if printed != UNKNOWN {
                // The log prints the release: an exact statement must be it, an approximate
                // one its beginning.
                let agrees = if k.approximate {
                    printed.starts_with(k.release.trim_end_matches(['-', '.']))
                } else {
                    printed == k.release
                };
                if !agrees {
                    return Err(conflict(
                        "kernel release",
                        &printed,
                        "--kernel",
                        self.kernel.unwrap_or_default(),
                    ));
                }
            } else if !k.approximate {
                c.kernel_release = k.release.clone();
            }
        }
        let arch = self.arch.map(|a| a.trim().to_string());
        if let Some(a) = &arch {
            if c.arch != UNKNOWN && &c.arch != a {
                return Err(conflict("architecture", &c.arch, "--arch", a));
            }
            c.arch = a.clone();
        }
        let date = self.date.map(|d| d.trim().to_string());
        if date.is_some() {
            r.source.date = date.clone();
        }
        r.source.stated = Some(Stated {
            stated_in: self.stated_in.map(|s| s.trim().to_string()),
            kernel,
            arch,
            machine: self.machine.map(|m| m.trim().to_string()),
            date,
        });
        Ok(())
    }
}

/// `YYYY-MM-DD`, or that with `THH:MM[:SS[.frac]]Z`.
fn is_rfc3339(s: &str) -> bool {
    let (date, time) = match s.split_once(['T', 't']) {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let digits = |x: &str, n: usize| x.len() == n && x.bytes().all(|c| c.is_ascii_digit());
    let d: Vec<&str> = date.split('-').collect();
    let date_ok = d.len() == 3
        && digits(d[0], 4)
        && digits(d[1], 2)
        && digits(d[2], 2)
        && (1..=12).contains(&d[1].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&d[2].parse::<u32>().unwrap_or(0));
    let time_ok = match time {
        None => true,
        Some(t) => {
            let Some(t) = t.strip_suffix(['Z', 'z']) else {
                return false;
            };
            let (hms, frac) = t.split_once('.').unwrap_or((t, "0"));
            let p: Vec<&str> = hms.split(':').collect();
            (p.len() == 2 || p.len() == 3)
                && p.iter().all(|x| digits(x, 2))
                && p[0] < "24"
                && p[1] < "60"
                && p.get(2).is_none_or(|s| *s < "61")
                && !frac.is_empty()
                && frac.bytes().all(|c| c.is_ascii_digit())
        }
    };
    date_ok && time_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        for ok in ["2021-02-07", "2021-02-07T10:00:00Z", "2021-02-07T10:00Z"] {
            assert!(is_rfc3339(ok), "{ok}");
        }
        for bad in [
            "2021-2-7",
            "07.02.2021",
            "2021-13-01",
            "2021-02-07 10:00",
            "yesterday",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }

    #[test]
    fn each_fact_is_checked_on_its_own() {
        let f = |k, a, d, i| StatedFacts {
            kernel: k,
            arch: a,
            machine: None,
            date: d,
            stated_in: i,
        };
        assert_eq!(f(Some("~5.7-rc"), None, None, None).check(), Ok(()));
        assert!(matches!(
            f(Some("bpf-next around 5.7"), None, None, None).check(),
            Err(StatedError::KernelBlank(_))
        ));
        assert!(matches!(
            f(None, Some("x86 64"), None, None).check(),
            Err(StatedError::ArchWord(_))
        ));
        assert!(matches!(
            f(None, None, Some("Feb 2021"), None).check(),
            Err(StatedError::Date(_))
        ));
        assert_eq!(
            f(None, None, None, Some("the cover letter")).check(),
            Err(StatedError::NothingStated)
        );
        assert_eq!(
            f(Some("~"), None, None, None).check(),
            Err(StatedError::Empty { flag: "kernel" })
        );
        let k = f(Some("~5.7-rc"), None, None, None)
            .stated_kernel()
            .unwrap();
        assert_eq!((k.release.as_str(), k.approximate), ("5.7-rc", true));
    }
}
