//! Why a file gave no records, and what a file gave besides them. Every variant names the file
//! as the caller named it; `Display` is the message the command prints.

use crate::format::Format;
use crate::lex::excerpt;
use crate::parsed::Hint;
use std::fmt;
use syscost_record::Problem;

/// Why a file was not imported.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Nothing but blanks.
    #[error("{file} is empty")]
    Empty { file: String },
    #[error("{file} is a directory; give the log files themselves")]
    Directory { file: String },
    /// Over the size limit (bytes) before it was read whole.
    #[error(
        "{file} is larger than {} MiB; a benchmark log is far smaller — cut out the \
         benchmark's output and import that",
        .limit >> 20
    )]
    TooBig { file: String, limit: u64 },
    /// One run with more results than a record holds.
    #[error(
        "{file}: a {} run with more than {limit} results (the first beyond them is line \
         {line}); a benchmark prints a few dozen — import the part that was published",
        .format.tool()
    )]
    RunTooLarge {
        file: String,
        format: Format,
        limit: usize,
        line: usize,
    },
    /// More lines than [`crate::MAX_LOG_LINES`], counted before the log is split.
    #[error(
        "{file} has {lines} lines, more than {limit}; a benchmark log is far shorter — cut out \
         the benchmark's output and import that"
    )]
    TooManyLines {
        file: String,
        lines: usize,
        limit: usize,
    },
    /// More runs than [`crate::MAX_RUNS`]: generated or repeated text, not a benchmark log.
    #[error(
        "{file} holds more than {limit} {} runs (the first beyond them begins at line {line}); \
         a published log holds a few — import the part that was published, or split the file",
        .format.tool()
    )]
    TooManyRuns {
        file: String,
        format: Format,
        limit: usize,
        line: usize,
    },
    #[error("cannot read {file}: {source}")]
    Read {
        file: String,
        source: std::io::Error,
    },
    /// No parser found a result. `what` is the format asked for, `tried` the parsers that ran,
    /// `place` the line the message points at.
    #[error("no {} result found in {file} ({}{place})", .what.tool(), Tried(.tried))]
    NoResult {
        file: String,
        what: Format,
        tried: Vec<Format>,
        place: Place,
    },
    /// A fact stated on the command line contradicts what the log prints.
    #[error(
        "{file} line {line}: the log prints the {fact} {printed:?}, but {flag} states {stated:?}; \
         a stated fact never overrides the log — correct {flag} or leave it out"
    )]
    Conflict {
        file: String,
        line: usize,
        fact: &'static str,
        printed: String,
        flag: &'static str,
        stated: String,
    },
    /// Figures of a run contradict each other beyond their printed rounding: the log was
    /// edited or damaged, and which of them is wrong cannot be told.
    #[error(
        "{file}: {contradiction}; the {} output disagrees with itself beyond its printed \
         rounding (edited, damaged or two runs mixed up), so none of it is imported",
        .format.tool()
    )]
    Contradiction {
        file: String,
        format: Format,
        contradiction: crate::parsed::Contradiction,
    },
    /// A run was read but its record breaks the format's rules (a parser's bug, not the
    /// log's).
    #[error(
        "{file} lines {first_line}-{last_line}: the imported record would be invalid: {}",
        Problems(.problems)
    )]
    Invalid {
        file: String,
        first_line: usize,
        last_line: usize,
        problems: Vec<Problem>,
    },
}

impl Error {
    /// The file the error is about.
    pub fn file(&self) -> &str {
        match self {
            Error::Empty { file }
            | Error::Directory { file }
            | Error::TooBig { file, .. }
            | Error::Read { file, .. }
            | Error::NoResult { file, .. }
            | Error::Conflict { file, .. }
            | Error::TooManyRuns { file, .. }
            | Error::TooManyLines { file, .. }
            | Error::RunTooLarge { file, .. }
            | Error::Contradiction { file, .. }
            | Error::Invalid { file, .. } => file,
        }
    }
}

/// The line a "no result" message points at.
#[derive(Debug, Clone, PartialEq)]
pub enum Place {
    /// The earliest line that began a run but held no result.
    Hint(Hint),
    /// No run began, but these lines (the first few, in order) look like a result in a form
    /// the parser does not read.
    Closest(Vec<Hint>),
    /// No line looks like any output that was looked for; the first line shows what the file
    /// holds instead.
    FirstLine { line: usize, text: String },
    /// Nothing is left after cleaning.
    Nothing,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Hint(h) => h.fmt(f),
            Place::Closest(hints) => {
                f.write_str("the closest lines: ")?;
                for (i, h) in hints.iter().enumerate() {
                    if i > 0 {
                        f.write_str("; ")?;
                    }
                    h.fmt(f)?;
                }
                Ok(())
            }
            Place::FirstLine { line, text } => write!(
                f,
                "no line looks like its output; line {line} reads \"{}\"",
                excerpt(text)
            ),
            Place::Nothing => f.write_str("no line looks like its output"),
        }
    }
}

/// `tried kselftest-seccomp, kselftest-sud, …; ` when several parsers ran, else nothing.
struct Tried<'a>(&'a [Format]);

impl fmt::Display for Tried<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.len() < 2 {
            return Ok(());
        }
        let names: Vec<&str> = self.0.iter().map(|p| p.name()).collect();
        write!(f, "tried {}; ", names.join(", "))
    }
}

struct Problems<'a>(&'a [Problem]);

impl fmt::Display for Problems<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.0.iter().map(|p| p.to_string()).collect();
        f.write_str(&list.join("; "))
    }
}

/// A part of a log that looked like a run but held no result, in a file that gave records
/// elsewhere: reported, not fatal.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub file: String,
    /// The parser that saw it.
    pub format: Format,
    pub hint: Hint,
    /// Parts like it after this one, not listed.
    pub more: usize,
    pub kind: WarningKind,
}

/// What a warning is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningKind {
    /// A part that looked like a run but held no result: nothing was imported from it.
    Empty,
    /// A line whose number was refused: its run was imported without it.
    Refused,
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let what = match self.kind {
            WarningKind::Empty => "nothing imported from there",
            WarningKind::Refused => "not recorded; the rest of its run is",
        };
        write!(
            f,
            "{} {} ({}); {what}",
            self.file,
            self.hint,
            self.format.tool()
        )?;
        if self.more > 0 {
            write!(f, " (nor from {} more parts like it)", self.more)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hint() -> Hint {
        Hint {
            line: 49,
            text: "Benchmarking 100000 syscalls...".into(),
            why: "begins a run, but no result follows".into(),
        }
    }

    #[test]
    fn no_result_names_what_was_tried_only_when_several_were() {
        let all = Error::NoResult {
            file: "x.log".into(),
            what: Format::Auto,
            tried: Format::Auto.parsers(),
            place: Place::FirstLine {
                line: 1,
                text: "hello\u{7}".into(),
            },
        };
        assert_eq!(
            all.to_string(),
            "no supported benchmark result found in x.log (tried kselftest-seccomp, \
             kselftest-sud, bpf-bench, perf-bench; no line looks like its output; line 1 reads \
             \"hello\\u{7}\")"
        );
        let one = Error::NoResult {
            file: "x.log".into(),
            what: Format::KselftestSeccomp,
            tried: Format::KselftestSeccomp.parsers(),
            place: Place::Hint(hint()),
        };
        assert_eq!(
            one.to_string(),
            "no seccomp_benchmark result found in x.log (line 49: \"Benchmarking 100000 \
             syscalls...\" begins a run, but no result follows)"
        );
        assert_eq!(one.file(), "x.log");
    }

    #[test]
    fn file_errors_read_as_before() {
        let big = Error::TooBig {
            file: "/dev/zero".into(),
            limit: 32 << 20,
        };
        assert_eq!(
            big.to_string(),
            "/dev/zero is larger than 32 MiB; a benchmark log is far smaller — cut out the \
             benchmark's output and import that"
        );
        let read = Error::Read {
            file: "a.log".into(),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        };
        assert_eq!(read.to_string(), "cannot read a.log: entity not found");
        assert_eq!(
            Error::Directory { file: "d".into() }.to_string(),
            "d is a directory; give the log files themselves"
        );
    }

    #[test]
    fn invalid_lists_every_problem() {
        let e = Error::Invalid {
            file: "x.log".into(),
            first_line: 2,
            last_line: 30,
            problems: vec![
                Problem {
                    field: "results[0].median_ns".into(),
                    message: "-1 is a negative time".into(),
                },
                Problem {
                    field: "id".into(),
                    message: "is empty".into(),
                },
            ],
        };
        assert_eq!(
            e.to_string(),
            "x.log lines 2-30: the imported record would be invalid: results[0].median_ns: -1 \
             is a negative time; id: is empty"
        );
    }

    #[test]
    fn warnings_name_file_line_and_tool() {
        let w = Warning {
            file: "./b.txt".into(),
            format: Format::KselftestSud,
            hint: hint(),
            more: 0,
            kind: WarningKind::Empty,
        };
        assert_eq!(
            w.to_string(),
            "./b.txt line 49: \"Benchmarking 100000 syscalls...\" begins a run, but no result \
             follows (sud_benchmark); nothing imported from there"
        );
    }
}
