//! What the parsers hand back (a run's record, hints, the outcome of a log), and the parts
//! every imported record shares.

use crate::format::Format;
use crate::lex::excerpt;
use crate::text::Cleaned;
use std::fmt;
use syscost_record::{
    Comparability, Environment, Method, Overhead, RecordBuilder, RunRecord, RunSummary,
    ScenarioResult, Settings, Source, SourceKind, Status, Virtualization,
};

/// Written into `summary.ci_method` of every imported record.
pub const CI_METHOD: &str = "none (imported single measurement)";

/// What a log does not say about the machine is recorded as this, never guessed.
pub const UNKNOWN: &str = "unknown";

/// One run found in a log: its record, still without the file's hash, the command line's
/// provenance and the content id.
#[derive(Debug, Clone)]
pub struct Parsed {
    /// First and last line of the run in the original file (1-based).
    pub first_line: usize,
    pub last_line: usize,
    /// The line that gave the kernel release and architecture, when the log prints them.
    pub uname_line: Option<usize>,
    pub record: RecordBuilder,
}

impl Parsed {
    pub fn new(first_line: usize, last_line: usize, record: RecordBuilder) -> Parsed {
        Parsed {
            first_line,
            last_line,
            uname_line: None,
            record,
        }
    }
}

/// Where a log looked like a format but held no result, for the messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Hint {
    pub line: usize,
    pub text: String,
    /// Why nothing came of it ("begins a run, but no result follows").
    pub why: String,
}

/// Why most empty runs are empty.
pub const NO_RESULT_FOLLOWS: &str = "begins a run, but no result follows";

impl Hint {
    /// A run that begins at `line` of the cleaned log but holds no result.
    pub fn no_result_at(cleaned: &Cleaned, line: usize) -> Hint {
        Hint {
            line,
            text: line_text(cleaned, line),
            why: NO_RESULT_FOLLOWS.into(),
        }
    }
}

/// The cleaned text of line `no` (empty if cleaning dropped it).
pub fn line_text(cleaned: &Cleaned, no: usize) -> String {
    // Cleaned lines are in the order of the file.
    cleaned
        .lines
        .get(cleaned.lines.partition_point(|l| l.no < no))
        .filter(|l| l.no == no)
        .map(|l| l.text.to_string())
        .unwrap_or_default()
}

/// Figures of one run that cannot all be what the tool printed: a figure the tool computes
/// from others (an estimate, an overhead, a rate), the lines of those others, and what they
/// give instead — beyond what the printed rounding allows. Which line is wrong cannot be told,
/// so the log is refused, naming them all.
#[derive(Debug, Clone, PartialEq)]
pub struct Contradiction {
    /// The computed figure: its line and text.
    pub line: (usize, String),
    /// The lines it is computed from.
    pub from: Vec<(usize, String)>,
    /// What those give, and how far off the figure may be.
    pub why: String,
}

impl Contradiction {
    /// A contradiction of line `line` with the lines `from` (in the order given, each once).
    pub fn new(cleaned: &Cleaned, line: usize, from: &[usize], why: String) -> Contradiction {
        let mut seen: Vec<usize> = Vec::new();
        for &l in from {
            if l != line && !seen.contains(&l) {
                seen.push(l);
            }
        }
        Contradiction {
            line: (line, line_text(cleaned, line)),
            from: seen
                .into_iter()
                .map(|l| (l, line_text(cleaned, l)))
                .collect(),
            why,
        }
    }
}

/// `line 27 ("…") contradicts line 12 ("…") and line 21 ("…"): why`
impl fmt::Display for Contradiction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let quote = |(no, text): &(usize, String)| format!("line {no} (\"{}\")", excerpt(text));
        write!(f, "{} contradicts ", quote(&self.line))?;
        if self.from.is_empty() {
            f.write_str("itself")?;
        }
        for (i, l) in self.from.iter().enumerate() {
            if i > 0 {
                f.write_str(if i + 1 == self.from.len() {
                    " and "
                } else {
                    ", "
                })?;
            }
            f.write_str(&quote(l))?;
        }
        write!(f, ": {}", self.why)
    }
}

/// `line 49: "Benchmarking 100000 syscalls..." begins a run, but no result follows`
impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}: \"{}\" {}",
            self.line,
            excerpt(&self.text),
            self.why
        )
    }
}

/// Most runs one log may give. The largest published log imported into data/ gives 14 (a
/// kernel test robot's loop over configurations); a thousand leaves room for any real
/// benchmark session, while a log holding more is generated or repeated text whose records
/// would each become a file in data/ — a 31 MiB log of one SUD run repeated gave 139,510 of
/// them and 1.1 GB of memory before this limit. Parsers stop at the first run beyond it.
pub const MAX_RUNS: usize = 1000;

/// What one parser made of one log.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub runs: Vec<Parsed>,
    /// The log holds more than [`MAX_RUNS`] runs: the line where the first run beyond them
    /// begins (the parser stopped there and made no records).
    pub too_many: Option<usize>,
    /// A run holds more results than a record may ([`syscost_record::ENTRIES_MAX`]): the
    /// line of the first beyond them.
    pub too_large: Option<usize>,
    /// Parts that looked like a run but held no result (reported, not fatal, when other runs
    /// were found).
    pub empty: Vec<Hint>,
    /// Lines that look like a result in a form the parser does not read: cited when nothing
    /// at all is found, never warned about otherwise (prose mentions rates too).
    pub near: Vec<Hint>,
    /// Empty parts beyond the first [`MAX_HINTS`], counted, not kept.
    pub more_empty: usize,
    /// Lines whose number was refused (negative, not a whole number, out of range, zero, or
    /// contradicting the run's own timing); the runs were imported without them.
    pub refused: Vec<Hint>,
    /// Refused lines beyond the first [`MAX_HINTS`].
    pub more_refused: usize,
    /// The first run whose figures contradict each other: the log is refused.
    pub contradiction: Option<Contradiction>,
}

/// Most empty parts and near lines a parser keeps: messages cite the first few, and a log of
/// half a million lines that each look like a result must not keep half a million of them.
pub const MAX_HINTS: usize = 20;

impl Outcome {
    /// Keeps `h` among the empty parts, or counts it once [`MAX_HINTS`] are kept.
    pub fn empty(&mut self, h: Hint) {
        if self.empty.len() < MAX_HINTS {
            self.empty.push(h);
        } else {
            self.more_empty += 1;
        }
    }

    /// Keeps `h` among the refused lines, or counts it once [`MAX_HINTS`] are kept.
    pub fn refused(&mut self, h: Hint) {
        if self.refused.len() < MAX_HINTS {
            self.refused.push(h);
        } else {
            self.more_refused += 1;
        }
    }

    /// Keeps `h` among the near lines, up to [`MAX_HINTS`] (only the first few are cited).
    pub fn near(&mut self, h: Hint) {
        if self.near.len() < MAX_HINTS {
            self.near.push(h);
        }
    }
}

/// A record of `format` with everything an import cannot know set to its honest default.
pub fn skeleton(format: Format, syscall: &str) -> RecordBuilder {
    let mut source = Source::new(
        SourceKind::Import,
        format!("syscost {} import", env!("CARGO_PKG_VERSION")),
        Method::External,
    );
    source.format = Some(format.name().to_string());
    let environment = Environment {
        comparability: Comparability {
            arch: UNKNOWN.to_string(),
            kernel_release: UNKNOWN.to_string(),
            virtualization: Virtualization {
                kind: UNKNOWN.to_string(),
                ..Default::default()
            },
            ..Default::default()
        },
        incidental: Default::default(),
        lab: None,
    };
    // A published number is one measurement: no rounds, no interval, and the log seldom says
    // how long the benchmark ran (parsers set the duration when it does; otherwise absent).
    let summary = RunSummary::one_pass(None, CI_METHOD);
    RunRecord::builder(
        source,
        Settings::new(syscall, 1, 0.95),
        environment,
        summary,
    )
}

/// A measured result from one published number: one sample, no interval.
pub fn single(id: &str, family: &str, description: &str, ns: f64) -> ScenarioResult {
    let mut r = ScenarioResult::new(id, family, description, Status::Measured);
    r.median_ns = Some(ns);
    r.samples = Some(1);
    r
}

/// `ns − base_ns`, in ns and percent, from two single numbers (no interval). None when the
/// baseline cannot give a percentage.
pub fn overhead_vs(vs: &str, base_ns: f64, ns: f64) -> Option<Overhead> {
    (base_ns > 0.0 && base_ns.is_finite() && ns.is_finite())
        .then(|| published_overhead(vs, ns - base_ns, (ns - base_ns) / base_ns * 100.0))
}

/// An overhead as a log prints it: one figure in ns and one in percent, no interval.
pub fn published_overhead(vs: &str, ns: f64, pct: f64) -> Overhead {
    Overhead {
        vs: vs.to_string(),
        median_ns: ns,
        ci_low_ns: None,
        ci_high_ns: None,
        samples: 1,
        pct,
        pct_ci_low: None,
        pct_ci_high: None,
    }
}

/// The note a record carries for each line of its run whose number was refused.
pub fn refused_notes(refused: &[(usize, String, String)]) -> Vec<String> {
    refused
        .iter()
        .map(|(line, text, why)| {
            format!(
                "Not recorded: line {line} (\"{}\"): {why}.",
                crate::lex::excerpt(text)
            )
        })
        .collect()
}

/// Records which lines of the file a run came from, and what cleaning was needed. Called last
/// by every parser, so the cleaning note follows the parser's own.
pub fn provenance(
    mut record: RecordBuilder,
    first: usize,
    last: usize,
    repairs: &[String],
) -> RecordBuilder {
    record
        .record_mut()
        .environment
        .incidental
        .other
        .insert("log lines".to_string(), format!("{first}-{last}"));
    if repairs.is_empty() {
        record
    } else {
        record.note(format!(
            "The log was cleaned before parsing: {}.",
            repairs.join("; ")
        ))
    }
}
