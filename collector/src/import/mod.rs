//! `syscost import`: published kernel benchmark logs → run records.
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

use crate::cli::{ImportArgs, ImportFormat};
use crate::export::save_record;
use sha2::{Digest, Sha256};
use std::path::Path;
use syscost_record::{validate, with_id, RunRecord};

/// Exit code when a file cannot be read or holds no result.
pub const EXIT_NO_RESULT: i32 = 1;

/// The parsers `auto` tries, with the name of the tool each reads (for messages).
const PARSERS: [(ImportFormat, &str, &str); 4] = [
    (
        ImportFormat::KselftestSeccomp,
        seccomp::FORMAT,
        "seccomp_benchmark",
    ),
    (ImportFormat::KselftestSud, sud::FORMAT, "sud_benchmark"),
    (ImportFormat::BpfBench, bpf::FORMAT, "BPF trigger bench"),
    (ImportFormat::PerfBench, perf::FORMAT, "perf bench syscall"),
];

fn run_parser(format: ImportFormat, cleaned: &text::Cleaned) -> Outcome {
    match format {
        ImportFormat::KselftestSeccomp => seccomp::parse(cleaned),
        ImportFormat::KselftestSud => sud::parse(cleaned),
        ImportFormat::BpfBench => bpf::parse(cleaned),
        ImportFormat::PerfBench => perf::parse(cleaned),
        ImportFormat::Auto => Outcome::default(),
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
    format: ImportFormat,
    file: &str,
) -> Result<(Vec<Parsed>, Vec<String>), String> {
    if raw.trim().is_empty() {
        return Err(format!("{file} is empty"));
    }
    let cleaned = text::clean(raw);
    let chosen: Vec<&(ImportFormat, &str, &str)> = PARSERS
        .iter()
        .filter(|(f, _, _)| format == ImportFormat::Auto || *f == format)
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
    format: ImportFormat,
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
pub fn import_file(
    path: &Path,
    format: ImportFormat,
    prov: &Provenance,
) -> Result<Imported, String> {
    let bytes = read_log(path)?;
    import_bytes(&bytes, &path.display().to_string(), format, prov)
}

/// `syscost import`. Every file is parsed before anything is written: one bad file fails the
/// whole command (exit 1) with nothing saved.
pub fn main(args: &ImportArgs) -> i32 {
    let prov = Provenance {
        source: args.source.as_deref(),
        note: args.note.as_deref(),
    };
    let mut imported = Vec::new();
    let mut failed = false;
    for file in &args.files {
        match import_file(file, args.format, &prov) {
            Ok(imp) => {
                for w in &imp.warnings {
                    eprintln!("syscost import: warning: {w}");
                }
                imported.push((file.display().to_string(), imp.records));
            }
            Err(e) => {
                eprintln!("syscost import: {e}");
                failed = true;
            }
        }
    }
    if failed {
        eprintln!("syscost import: nothing was imported");
        return EXIT_NO_RESULT;
    }
    let records: Vec<&RunRecord> = imported.iter().flat_map(|(_, rs)| rs).collect();
    if let Some(dir) = &args.save {
        for r in &records {
            match save_record(dir, (*r).clone()) {
                Ok((path, _)) if args.json => eprintln!("{}", path.display()),
                Ok((path, _)) => println!("{}", path.display()),
                Err(e) => {
                    eprintln!("syscost import: {e}");
                    return EXIT_NO_RESULT;
                }
            }
        }
    }
    if args.json {
        match serde_json::to_string_pretty(&records) {
            Ok(s) => println!("{s}"),
            Err(e) => {
                eprintln!("syscost import: cannot encode the records: {e}");
                return EXIT_NO_RESULT;
            }
        }
    } else if args.save.is_none() {
        for (file, rs) in &imported {
            for r in rs {
                print!("{}", summary(file, r));
            }
        }
    }
    0
}

/// A few readable lines per record, for a look before saving.
fn summary(file: &str, r: &RunRecord) -> String {
    let c = &r.environment.comparability;
    let lines = r
        .environment
        .incidental
        .other
        .get("log lines")
        .cloned()
        .unwrap_or_default();
    let mut s = format!(
        "{file} (lines {lines}): {} on {} {}, syscall {}, id {}\n",
        r.source.format.as_deref().unwrap_or("?"),
        c.arch,
        c.kernel_release,
        r.settings.syscall,
        r.id
    );
    for res in &r.results {
        let ns = res
            .median_ns
            .map_or("-".to_string(), |v| format!("{v:.1} ns"));
        let over = res.overhead.as_ref().map_or(String::new(), |o| {
            format!("  {:+.1} ns ({:+.1} %) vs {}", o.median_ns, o.pct, o.vs)
        });
        s.push_str(&format!("  {:<28} {:>12}{over}\n", res.id, ns));
    }
    for e in &r.estimates {
        s.push_str(&format!(
            "  estimate {:<15} {:>12.1} ns\n",
            e.id, e.median_ns
        ));
    }
    for e in &r.expectations {
        s.push_str(&format!(
            "  {:<55} kernel: {:?}\n",
            e.label, e.kernel_verdict
        ));
    }
    s.push_str(&format!("  {} notes (see --json)\n", r.notes.len()));
    s
}
