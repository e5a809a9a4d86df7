//! syscost-import: published kernel benchmark logs → syscost run records.
//!
//! A log is first cleaned ([`text`]: e-mail quoting, quoted-printable, CRLF, kernel console
//! lines), then read by one parser per format ([`seccomp`], [`sud`], [`bpf`], [`perf`]); `auto`
//! runs them all and keeps whatever each finds. Every record keeps its provenance (format, hash
//! of the original text, source, line range, what the log shows before the run) and says in its
//! notes what the log did not. Facts the source states outside the log ([`StatedFacts`]) are
//! added beside what the log prints, never over it.

mod bpf;
mod context;
mod env;
mod error;
mod format;
mod lex;
mod parsed;
mod perf;
mod runner;
mod seccomp;
mod stated;
mod sud;
mod text;

pub use error::{Error, Place, Warning, WarningKind};
pub use format::Format;
pub use parsed::{Hint, Outcome, Parsed, MAX_RUNS};
pub use stated::{StatedError, StatedFacts};

use sha2::{Digest, Sha256};
use std::path::Path;
use syscost_record::{machine_hash, validate, RunRecord};

fn run_parser(format: Format, cleaned: &text::Cleaned) -> Outcome {
    match format {
        Format::KselftestSeccomp => seccomp::parse(cleaned),
        Format::KselftestSud => sud::parse(cleaned),
        Format::BpfBench => bpf::parse(cleaned),
        Format::PerfBench => perf::parse(cleaned),
        Format::Auto => Outcome::default(),
    }
}

/// What one file gave.
#[derive(Debug, Clone)]
pub struct Imported {
    /// Finished records (provenance filled in, id set, validated), in the order of the log.
    pub records: Vec<RunRecord>,
    /// Parts of the log that looked like a run but held no result.
    pub warnings: Vec<Warning>,
}

/// Provenance given on the command line.
#[derive(Debug, Clone, Default)]
pub struct Provenance<'a> {
    pub source: Option<&'a str>,
    pub note: Option<&'a str>,
    /// What the source states outside the log; check it with [`StatedFacts::check`] first.
    pub stated: StatedFacts<'a>,
}

/// Parses a log without finishing the records (no hash, source or id): what the parsers saw,
/// in the order of the log, and the warnings.
pub fn parse_log(
    raw: &str,
    format: Format,
    file: &str,
) -> Result<(Vec<Parsed>, Vec<Warning>), Error> {
    if raw.trim().is_empty() {
        return Err(Error::Empty { file: file.into() });
    }
    check_lines(raw, file)?;
    parse_cleaned(text::clean(raw), format, file)
}

/// [`parse_log`] of a log already cleaned.
fn parse_cleaned(
    cleaned: text::Cleaned,
    format: Format,
    file: &str,
) -> Result<(Vec<Parsed>, Vec<Warning>), Error> {
    let tried = format.parsers();
    let mut runs = Vec::new();
    let mut warnings = Vec::new();
    let mut hints: Vec<Hint> = Vec::new();
    let mut near: Vec<Hint> = Vec::new();
    for &parser in &tried {
        let out = run_parser(parser, &cleaned);
        if let Some(line) = out.too_large {
            return Err(Error::RunTooLarge {
                file: file.into(),
                format: parser,
                limit: syscost_record::ENTRIES_MAX,
                line,
            });
        }
        if let Some(line) = out.too_many {
            return Err(Error::TooManyRuns {
                file: file.into(),
                format: parser,
                limit: MAX_RUNS,
                line,
            });
        }
        if let Some(contradiction) = out.contradiction {
            return Err(Error::Contradiction {
                file: file.into(),
                format: parser,
                contradiction,
            });
        }
        near.extend(out.near);
        // An empty or refused part is only worth a warning when the parser found runs
        // elsewhere; otherwise it may explain why nothing was found.
        if out.runs.is_empty() {
            hints.extend(out.refused);
            hints.extend(out.empty);
        } else {
            let warn = |hints: Vec<Hint>, more: usize, kind: WarningKind| {
                let n = hints.len();
                hints.into_iter().enumerate().map(move |(i, hint)| Warning {
                    file: file.into(),
                    format: parser,
                    hint,
                    more: if i + 1 == n { more } else { 0 },
                    kind,
                })
            };
            warnings.extend(warn(out.refused, out.more_refused, WarningKind::Refused));
            warnings.extend(warn(out.empty, out.more_empty, WarningKind::Empty));
            runs.extend(out.runs);
        }
    }
    if runs.is_empty() {
        return Err(Error::NoResult {
            file: file.into(),
            what: format,
            tried,
            place: place(hints, near, &cleaned),
        });
    }
    runs.sort_by_key(|p| p.first_line);
    // Each parser stops at the limit; together they may still pass it.
    if let Some(p) = runs.get(MAX_RUNS) {
        return Err(Error::TooManyRuns {
            file: file.into(),
            format,
            limit: MAX_RUNS,
            line: p.first_line,
        });
    }
    let mut spans: Vec<(usize, usize)> = runs.iter().map(|p| (p.first_line, p.last_line)).collect();
    spans.sort_unstable();
    let firsts: Vec<usize> = runs.iter().map(|p| p.first_line).collect();
    let befores = context::before_all(&cleaned.lines, &firsts, &spans);
    for (p, before) in runs.iter_mut().zip(&befores) {
        add_context(p.record.record_mut(), before);
    }
    Ok((runs, warnings))
}

/// How many of the closest lines a "no result" message cites.
const CLOSEST: usize = 3;

/// What a "no result" message points at: the earliest run that held nothing, else the lines
/// that came closest to a result, else the first line of the log.
fn place(hints: Vec<Hint>, mut near: Vec<Hint>, cleaned: &text::Cleaned) -> Place {
    near.sort_by_key(|h| h.line);
    near.dedup_by_key(|h| h.line);
    near.truncate(CLOSEST);
    match (
        hints.into_iter().min_by_key(|h| h.line),
        cleaned.lines.first(),
    ) {
        (Some(h), _) => Place::Hint(h),
        (None, _) if !near.is_empty() => Place::Closest(near),
        (None, Some(l)) => Place::FirstLine {
            line: l.no,
            text: l.text.to_string(),
        },
        (None, None) => Place::Nothing,
    }
}

/// The prompt and heading the log shows before a run, kept as incidental facts; the prompt's
/// host name only as a hash, and only when the log gave none of its own (`uname -a`).
fn add_context(r: &mut RunRecord, before: &context::Before) {
    let inc = &mut r.environment.incidental;
    if let Some(p) = &before.prompt {
        inc.other
            .insert("command (from the shell prompt)".into(), p.command.clone());
        if let (Some(host), None) = (&p.host, &inc.machine_hash) {
            inc.machine_hash = Some(machine_hash(host));
            r.notes.push(
                "machine_hash is the hash of the host name in the shell prompt before the run."
                    .into(),
            );
        }
    }
    if let Some(h) = &before.heading {
        r.environment.incidental.other.insert(
            "log heading (the text introducing the run)".into(),
            h.clone(),
        );
    }
}

/// SHA-256 of the original bytes, hex.
fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Imports one log: parses it, fills in provenance, sets ids and validates every record.
pub fn import_bytes(
    bytes: &[u8],
    file: &str,
    format: Format,
    prov: &Provenance,
) -> Result<Imported, Error> {
    let raw = String::from_utf8_lossy(bytes);
    let (runs, warnings) = parse_log(&raw, format, file)?;
    finish_all(runs, warnings, &sha256_hex(bytes), file, prov)
}

fn finish_all(
    runs: Vec<Parsed>,
    warnings: Vec<Warning>,
    hash: &str,
    file: &str,
    prov: &Provenance,
) -> Result<Imported, Error> {
    let hash = hash.to_string();
    let records = runs
        .into_iter()
        .map(|p| finish(p, &hash, prov, file))
        .collect::<Result<_, _>>()?;
    Ok(Imported { records, warnings })
}

/// Completes a parsed run: the file's hash, the command line's provenance and stated facts,
/// what neither the log nor its source says, the content id; then checks it.
fn finish(p: Parsed, hash: &str, prov: &Provenance, file: &str) -> Result<RunRecord, Error> {
    let Parsed {
        first_line,
        last_line,
        uname_line,
        mut record,
    } = p;
    let r = record.record_mut();
    r.source.text_sha256 = Some(hash.to_string());
    r.source.url = prov.source.map(str::to_string);
    r.source.note = prov.note.map(str::to_string);
    prov.stated
        .apply(r, file, uname_line.unwrap_or(first_line))?;
    env::note_unknowns(r);
    let r = record.build();
    let problems = validate(&r);
    if !problems.is_empty() {
        return Err(Error::Invalid {
            file: file.into(),
            first_line,
            last_line,
            problems,
        });
    }
    Ok(r)
}

/// Most lines a log may have. The parsers keep the cleaned lines while they run (a place in
/// the list each, and, for decoded ones, text of their own beside the log), so this keeps any
/// log under [`MAX_LOG_BYTES`] below 100 MB of memory however short its lines (measured in
/// docs/robustness.md); a benchmark prints a few dozen lines per run, and the longest
/// published log imported into data/ has 59.
pub const MAX_LOG_LINES: usize = 250_000;

/// Refuses a text of more than [`MAX_LOG_LINES`] lines (counted as `\n`, or `\r` for old Mac
/// line endings) before it is split into lines.
fn check_lines(text: &str, file: &str) -> Result<(), Error> {
    let count = |c: u8| text.bytes().filter(|&b| b == c).count();
    let lines = count(b'\n').max(count(b'\r'));
    if lines > MAX_LOG_LINES {
        return Err(Error::TooManyLines {
            file: file.into(),
            lines,
            limit: MAX_LOG_LINES,
        });
    }
    Ok(())
}

/// Largest log accepted. Published logs are kilobytes (a whole kselftest run a few megabytes);
/// the limit keeps memory bounded whatever is given, including `/dev/zero`.
pub const MAX_LOG_BYTES: u64 = 32 * 1024 * 1024;

/// Reads a log, refusing anything over [`MAX_LOG_BYTES`] without reading it whole.
fn read_log(path: &Path) -> Result<Vec<u8>, Error> {
    use std::io::Read;
    let file = || path.display().to_string();
    let read = |source| Error::Read {
        file: file(),
        source,
    };
    let too_big = || Error::TooBig {
        file: file(),
        limit: MAX_LOG_BYTES,
    };
    let f = std::fs::File::open(path).map_err(read)?;
    let meta = f.metadata().map_err(read)?;
    if meta.is_dir() {
        return Err(Error::Directory { file: file() });
    }
    if meta.len() > MAX_LOG_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // Pipes and devices report no size: `take` bounds them too.
    f.take(MAX_LOG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(read)?;
    if bytes.len() as u64 > MAX_LOG_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Reads and imports one file. Errors name the file.
pub fn import_file(path: &Path, format: Format, prov: &Provenance) -> Result<Imported, Error> {
    let bytes = read_log(path)?;
    let file = path.display().to_string();
    let hash = sha256_hex(&bytes);
    let raw = String::from_utf8_lossy(&bytes);
    if raw.trim().is_empty() {
        return Err(Error::Empty { file });
    }
    check_lines(&raw, &file)?;
    let cleaned = text::clean(&raw);
    let (runs, warnings) = if cleaned.lines.iter().all(|l| l.is_decoded()) {
        // Every line is text of its own (quoted-printable, decoded): the log itself is no
        // longer needed, and is not kept beside its lines while they are parsed.
        let cleaned = cleaned.into_owned();
        drop(raw);
        drop(bytes);
        parse_cleaned(cleaned, format, &file)?
    } else {
        parse_cleaned(cleaned, format, &file)?
    };
    finish_all(runs, warnings, &hash, &file, prov)
}
