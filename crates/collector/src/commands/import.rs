//! `syscost import`: published logs → records, printed, or saved under a data directory.

use crate::cli::{ImportArgs, ImportFormat};
use crate::error::Error;
use crate::report::json::save_record;
use crate::report::stdout;
use std::path::Path;
use syscost_import::{import_file, Format, Provenance, StatedFacts};
use syscost_record::RunRecord;

fn format(f: ImportFormat) -> Format {
    match f {
        ImportFormat::Auto => Format::Auto,
        ImportFormat::KselftestSeccomp => Format::KselftestSeccomp,
        ImportFormat::KselftestSud => Format::KselftestSud,
        ImportFormat::BpfBench => Format::BpfBench,
        ImportFormat::PerfBench => Format::PerfBench,
    }
}

/// Every file is parsed before anything is written: one bad file fails the whole command
/// (exit 1) with nothing saved. A malformed stated fact is a usage error (exit 2) before any
/// file is read; one that contradicts a log fails that file.
///
/// Memory holds one file's records at a time (each log gives at most
/// [`syscost_import::MAX_RUNS`]): a regular file is imported once to check it and again to
/// write its records as they come; only what cannot be read twice (a pipe) is kept between the
/// passes.
pub fn run(args: &ImportArgs) -> Result<i32, Error> {
    let stated = StatedFacts {
        kernel: args.kernel.as_deref(),
        arch: args.arch.as_deref(),
        machine: args.machine.as_deref(),
        date: args.date.as_deref(),
        stated_in: args.stated_in.as_deref(),
    };
    stated.check().map_err(|e| Error::Argument(e.to_string()))?;
    let prov = Provenance {
        source: args.source.as_deref(),
        note: args.note.as_deref(),
        stated,
    };
    let format = format(args.format);
    // Per file: the records, kept only when the file cannot be read again; else the hash of
    // the text they came from, to notice a file that changes between the passes.
    let mut checked: Vec<Checked> = Vec::new();
    let mut failed = false;
    for file in &args.files {
        match import_file(file, format, &prov) {
            Ok(imp) => {
                for w in &imp.warnings {
                    eprintln!("syscost import: warning: {w}");
                }
                checked.push(if rereadable(file) {
                    Checked::Again(text_hash(&imp.records))
                } else {
                    Checked::Kept(imp.records)
                });
            }
            Err(e) => {
                eprintln!("syscost import: {e}");
                failed = true;
            }
        }
    }
    if failed {
        return Err(Error::NothingImported);
    }
    let out = |s: &str| stdout::print(s).map_err(Error::Stdout);
    let mut first = true;
    if args.json {
        out("[")?;
    }
    for (file, c) in args.files.iter().zip(checked) {
        let records = match c {
            Checked::Kept(records) => records,
            Checked::Again(hash) => {
                let again = import_file(file, format, &prov).map_err(|e| {
                    eprintln!("syscost import: {e}");
                    Error::ChangedWhileImporting(file.clone())
                })?;
                if text_hash(&again.records) != hash {
                    return Err(Error::ChangedWhileImporting(file.clone()));
                }
                again.records
            }
        };
        let name = file.display().to_string();
        for r in records {
            let r = if let Some(dir) = &args.save {
                let (path, r) = save_record(dir, r)?;
                if args.json {
                    eprintln!("{}", path.display());
                } else {
                    out(&format!("{}\n", path.display()))?;
                }
                r
            } else {
                r
            };
            if args.json {
                // The elements of a pretty-printed array, one record at a time.
                let json = serde_json::to_string_pretty(&r)?;
                let indented: Vec<String> = json.lines().map(|l| format!("  {l}")).collect();
                let sep = if first { "\n" } else { ",\n" };
                out(&format!("{sep}{}", indented.join("\n")))?;
            } else if args.save.is_none() {
                out(&summary(&name, &r))?;
            }
            first = false;
        }
    }
    if args.json {
        out(if first { "]\n" } else { "\n]\n" })?;
    }
    Ok(0)
}

/// What the first pass keeps of a file.
enum Checked {
    Kept(Vec<RunRecord>),
    Again(Option<String>),
}

/// A regular file gives the same text when read again; a pipe or a device does not.
fn rereadable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// The hash of the text the records came from (the same for all of a file's records).
fn text_hash(records: &[RunRecord]) -> Option<String> {
    records.first().and_then(|r| r.source.text_sha256.clone())
}

/// A few readable lines per record, for a look before saving.
fn summary(file: &str, r: &RunRecord) -> String {
    let c = &r.environment.comparability;
    let approx = r
        .source
        .stated
        .as_ref()
        .and_then(|s| s.kernel.as_ref())
        .filter(|k| k.approximate)
        .map(|k| format!(" (stated: around {})", k.release))
        .unwrap_or_default();
    let lines = r
        .environment
        .incidental
        .other
        .get("log lines")
        .cloned()
        .unwrap_or_default();
    let mut s = format!(
        "{file} (lines {lines}): {} on {} {}{approx}, syscall {}, id {}\n",
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
