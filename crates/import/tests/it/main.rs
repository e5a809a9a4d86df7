//! The importer against the published seed logs, their messy variants (quoted, interleaved
//! with kernel lines, CRLF, quoted-printable, flattened), hand-written fixtures of every
//! benchmark generation, and garbage. Every number the logs print is compared. One test binary;
//! the fixtures are in `tests/fixtures`.

mod bpf;
mod errors;
mod perf;
mod published;
mod records;
mod seccomp;
mod seeds;
mod sud;

use std::path::PathBuf;
use syscost_import::Format as ImportFormat;
use syscost_import::{import_bytes, Error, Imported, Provenance};
use syscost_record::{RunRecord, Verdict};

pub fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

pub fn try_import(name: &str, format: ImportFormat) -> Result<Imported, Error> {
    let bytes = std::fs::read(path(name)).unwrap();
    import_bytes(&bytes, name, format, &Provenance::default())
}

pub fn import(name: &str) -> Vec<RunRecord> {
    try_import(name, ImportFormat::Auto).unwrap().records
}

pub fn one(name: &str) -> RunRecord {
    let mut rs = import(name);
    assert_eq!(rs.len(), 1, "{name}: expected one run");
    rs.remove(0)
}

pub fn median(r: &RunRecord, id: &str) -> f64 {
    r.result(id)
        .unwrap_or_else(|| panic!("no result {id}"))
        .median_ns
        .unwrap()
}

pub fn estimate(r: &RunRecord, id: &str) -> f64 {
    r.estimate(id)
        .unwrap_or_else(|| panic!("no estimate {id}"))
        .median_ns
}

pub fn ids(r: &RunRecord) -> Vec<&str> {
    r.results.iter().map(|x| x.id.as_str()).collect()
}

pub fn has_note(r: &RunRecord, needle: &str) -> bool {
    r.notes.iter().any(|n| n.contains(needle))
}

/// The measured content of a record, without provenance (which differs between variants).
pub fn numbers(r: &RunRecord) -> String {
    serde_json::to_string(&(
        &r.results,
        &r.estimates,
        &r.expectations,
        &r.settings,
        &r.environment.comparability,
    ))
    .unwrap()
}

/// (id, lhs, rhs, tolerance, kernel verdict) for every expectation.
pub fn expectations(r: &RunRecord) -> Vec<(&str, f64, f64, f64, Verdict)> {
    r.expectations
        .iter()
        .map(|e| {
            assert_eq!(e.verdict, Verdict::Inconclusive, "{}", e.id);
            (
                e.id.as_str(),
                e.lhs_ns,
                e.rhs_ns,
                e.tolerance_ns,
                e.kernel_verdict,
            )
        })
        .collect()
}

pub fn assert_close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

pub const SEED_000: &str = "seeds/000_3e013fb81e017806.txt";
pub const SEED_001: &str = "seeds/001_7d615df1a09508f3.txt";
pub const SEED_002: &str = "seeds/002_7ed701cff3e01d97.txt";
pub const SEED_003: &str = "seeds/003_d0b369f7e103e02c.txt";
pub const SEED_004: &str = "seeds/004_3ea49f3098541147.txt";
