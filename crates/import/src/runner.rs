//! The kselftest runner's own lines around a benchmark's output (`make run_tests`,
//! `run_kselftest.sh`): the timeout it set, the header naming the test, and its TAP result line
//! with the test's number. They say how the run was started, not what it measured; the runner
//! also prefixes every line of the test with `# `, which says nothing about the benchmark's
//! own output format.

use crate::lex::leading_u64;
use std::collections::BTreeMap;

/// One runner line.
#[derive(Debug, Clone, PartialEq)]
pub enum RunnerLine {
    /// `timeout set to 180`
    Timeout(u64),
    /// `selftests: seccomp: seccomp_benchmark`
    Header { test: String },
    /// `ok 2 selftests: seccomp: seccomp_benchmark`, `not ok 1 … # TIMEOUT 45 seconds`
    Result {
        ok: bool,
        number: u64,
        test: String,
        directive: String,
    },
}

/// `selftests: <suite>: <test>` → `<test>` (whatever follows it).
fn test_name(s: &str) -> Option<(&str, &str)> {
    let rest = s.strip_prefix("selftests: ")?;
    let (_suite, rest) = rest.split_once(": ")?;
    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
    let name = &rest[..end];
    (!name.is_empty()).then(|| (name, rest[end..].trim()))
}

pub fn parse(t: &str) -> Option<RunnerLine> {
    if let Some((n, "")) = t.strip_prefix("timeout set to ").and_then(leading_u64) {
        return Some(RunnerLine::Timeout(n));
    }
    if let Some((name, "")) = test_name(t) {
        return Some(RunnerLine::Header {
            test: name.to_string(),
        });
    }
    let (ok, rest) = match t.strip_prefix("ok ") {
        Some(r) => (true, r),
        None => (false, t.strip_prefix("not ok ")?),
    };
    let (number, rest) = leading_u64(rest)?;
    let (name, directive) = test_name(rest.trim_start())?;
    Some(RunnerLine::Result {
        ok,
        number,
        test: name.to_string(),
        directive: directive.to_string(),
    })
}

/// What the runner said about one test's run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunnerFacts {
    pub timeout_s: Option<u64>,
    /// The runner's header for the test was seen.
    pub header: bool,
    /// ok, test number, directive.
    pub result: Option<(bool, u64, String)>,
}

impl RunnerFacts {
    /// Takes in a runner line about `test`; other tests' lines (and timeouts, which come before
    /// the header they belong to) are the caller's to place.
    pub fn take(&mut self, line: &RunnerLine, test: &str) -> bool {
        match line {
            RunnerLine::Timeout(n) => {
                self.timeout_s = Some(*n);
                true
            }
            RunnerLine::Header { test: t } if t == test => {
                self.header = true;
                true
            }
            RunnerLine::Result {
                ok,
                number,
                test: t,
                directive,
            } if t == test && self.result.is_none() => {
                self.result = Some((*ok, *number, directive.clone()));
                true
            }
            _ => false,
        }
    }

    /// The facts as incidental entries, and a note when the runner reported a failure.
    pub fn record(
        &self,
        test: &str,
        other: &mut BTreeMap<String, String>,
        notes: &mut Vec<String>,
    ) {
        if let Some(t) = self.timeout_s {
            other.insert("kselftest timeout s".into(), t.to_string());
        }
        if let Some((ok, number, directive)) = &self.result {
            let verdict = if *ok { "ok" } else { "not ok" };
            other.insert(
                "kselftest result".into(),
                format!("{verdict} {directive}").trim().to_string(),
            );
            other.insert("kselftest test number".into(), number.to_string());
            if !ok {
                notes.push(format!(
                    "The kselftest runner reported {test} as not ok {directive}."
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_lines() {
        assert_eq!(parse("timeout set to 180"), Some(RunnerLine::Timeout(180)));
        assert_eq!(
            parse("selftests: seccomp: seccomp_benchmark"),
            Some(RunnerLine::Header {
                test: "seccomp_benchmark".into()
            })
        );
        assert_eq!(
            parse("ok 2 selftests: syscall_user_dispatch: sud_benchmark"),
            Some(RunnerLine::Result {
                ok: true,
                number: 2,
                test: "sud_benchmark".into(),
                directive: String::new()
            })
        );
        assert_eq!(
            parse("not ok 1 selftests: seccomp: seccomp_benchmark # TIMEOUT 45 seconds"),
            Some(RunnerLine::Result {
                ok: false,
                number: 1,
                test: "seccomp_benchmark".into(),
                directive: "# TIMEOUT 45 seconds".into()
            })
        );
        assert_eq!(parse("ok 1 native ≤ 1 bitmap"), None);
    }
}
