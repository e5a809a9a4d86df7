//! syscost-import: published kernel benchmark logs → syscost run records.
//!
//! A log is first cleaned ([`text`]: e-mail quoting, quoted-printable, CRLF, kernel console
//! lines), then read by one parser per format ([`seccomp`], [`sud`], [`bpf`], [`perf`]); `auto`
//! runs them all and keeps whatever each finds. Every record keeps its provenance (format, hash
//! of the original text, source, line range) and says in its notes what the log did not.

mod bpf;
mod build;
mod env;
mod lex;
mod perf;
mod seccomp;
mod sud;
mod text;

pub use build::{Hint, Outcome, Parsed};

use sha2::{Digest, Sha256};
use std::path::Path;
use syscost_record::{validate, with_id, RunRecord};

/// Which benchmark's output a log holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Try every parser and keep what each finds.
    Auto,
    /// tools/testing/selftests/seccomp/seccomp_benchmark.
    KselftestSeccomp,
    /// tools/testing/selftests/syscall_user_dispatch/sud_benchmark.
    KselftestSud,
    /// tools/testing/selftests/bpf/bench trig-*.
    BpfBench,
    /// perf bench syscall.
    PerfBench,
}

/// The parsers `auto` tries, with the name of the tool each reads (for messages).
const PARSERS: [(Format, &str, &str); 4] = [
    (
        Format::KselftestSeccomp,
        seccomp::FORMAT,
        "seccomp_benchmark",
    ),
    (Format::KselftestSud, sud::FORMAT, "sud_benchmark"),
    (Format::BpfBench, bpf::FORMAT, "BPF trigger bench"),
    (Format::PerfBench, perf::FORMAT, "perf bench syscall"),
];

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
    pub warnings: Vec<String>,
}

/// Provenance given on the command line.
#[derive(Debug, Clone, Default)]
pub struct Provenance<'a> {
    pub source: Option<&'a str>,
    pub note: Option<&'a str>,
}

/// Parses a log without finishing the records (no hash, source or id): what the parsers saw.
pub fn parse_log(
    raw: &str,
    format: Format,
    file: &str,
) -> Result<(Vec<Parsed>, Vec<String>), String> {
    if raw.trim().is_empty() {
        return Err(format!("{file} is empty"));
    }
    let cleaned = text::clean(raw);
    let chosen: Vec<&(Format, &str, &str)> = PARSERS
        .iter()
        .filter(|(f, _, _)| format == Format::Auto || *f == format)
        .collect();
    let mut runs = Vec::new();
    let mut warnings = Vec::new();
    let mut hints: Vec<Hint> = Vec::new();
    for (f, _, tool) in &chosen {
        let out = run_parser(*f, &cleaned);
        if out.runs.is_empty() {
            hints.extend(out.empty);
        } else {
            warnings.extend(out.empty.iter().map(|h| {
                format!(
                    "{file} line {}: \"{}\" {} ({tool}); nothing imported from there",
                    h.line,
                    lex::excerpt(&h.text),
                    h.why
                )
            }));
            runs.extend(out.runs);
        }
    }
    if runs.is_empty() {
        let what = match chosen.as_slice() {
            [(_, _, tool)] => format!("{tool} result"),
            _ => "supported benchmark result".to_string(),
        };
        let tried = if chosen.len() > 1 {
            let names: Vec<&str> = chosen.iter().map(|(_, n, _)| *n).collect();
            format!("tried {}; ", names.join(", "))
        } else {
            String::new()
        };
        hints.sort_by_key(|h| h.line);
        let place = match (hints.first(), cleaned.lines.first()) {
            (Some(h), _) => format!("line {}: \"{}\" {}", h.line, lex::excerpt(&h.text), h.why),
            (None, Some(l)) => format!(
                "no line looks like its output; line {} reads \"{}\"",
                l.no,
                lex::excerpt(&l.text)
            ),
            (None, None) => "no line looks like its output".to_string(),
        };
        return Err(format!("no {what} found in {file} ({tried}{place})"));
    }
    runs.sort_by_key(|p| p.first_line);
    Ok((runs, warnings))
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
) -> Result<Imported, String> {
    let raw = String::from_utf8_lossy(bytes);
    let (runs, warnings) = parse_log(&raw, format, file)?;
    let hash = sha256_hex(bytes);
    let mut records = Vec::with_capacity(runs.len());
    for p in runs {
        let mut r = p.record;
        r.source.text_sha256 = Some(hash.clone());
        r.source.url = prov.source.map(str::to_string);
        r.source.note = prov.note.map(str::to_string);
        env::note_unknowns(&mut r);
        let r = with_id(r);
        let problems = validate(&r);
        if !problems.is_empty() {
            let list: Vec<String> = problems.iter().map(|p| p.to_string()).collect();
            return Err(format!(
                "{file} lines {}-{}: the imported record would be invalid: {}",
                p.first_line,
                p.last_line,
                list.join("; ")
            ));
        }
        records.push(r);
    }
    Ok(Imported { records, warnings })
}

/// Largest log accepted. Published logs are kilobytes (a whole kselftest run a few megabytes);
/// the limit keeps memory bounded whatever is given, including `/dev/zero`.
pub const MAX_LOG_BYTES: u64 = 32 * 1024 * 1024;

/// Reads a log, refusing anything over [`MAX_LOG_BYTES`] without reading it whole.
fn read_log(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let name = path.display();
    let too_big = || {
        format!(
            "{name} is larger than {} MiB; a benchmark log is far smaller — cut out the \
             benchmark's output and import that",
            MAX_LOG_BYTES >> 20
        )
    };
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if meta.is_dir() {
        return Err(format!(
            "{name} is a directory; give the log files themselves"
        ));
    }
    if meta.len() > MAX_LOG_BYTES {
        return Err(too_big());
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // Pipes and devices report no size: `take` bounds them too.
    file.take(MAX_LOG_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read {name}: {e}"))?;
    if bytes.len() as u64 > MAX_LOG_BYTES {
        return Err(too_big());
    }
    Ok(bytes)
}

/// Reads and imports one file. Errors name the file.
pub fn import_file(path: &Path, format: Format, prov: &Provenance) -> Result<Imported, String> {
    let bytes = read_log(path)?;
    import_bytes(&bytes, &path.display().to_string(), format, prov)
}
