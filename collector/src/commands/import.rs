//! `syscost import`: published logs → records, printed, or saved under a data directory.

use crate::cli::{ImportArgs, ImportFormat};
use crate::error::Error;
use crate::report::json::save_record;
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
    let mut imported = Vec::new();
    let mut failed = false;
    for file in &args.files {
        match import_file(file, format(args.format), &prov) {
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
        return Err(Error::NothingImported);
    }
    let records: Vec<&RunRecord> = imported.iter().flat_map(|(_, rs)| rs).collect();
    if let Some(dir) = &args.save {
        for r in &records {
            let (path, _) = save_record(dir, (*r).clone())?;
            if args.json {
                eprintln!("{}", path.display());
            } else {
                println!("{}", path.display());
            }
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&records)?);
    } else if args.save.is_none() {
        for (file, rs) in &imported {
            for r in rs {
                print!("{}", summary(file, r));
            }
        }
    }
    Ok(0)
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
