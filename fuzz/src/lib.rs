//! Checks shared by the fuzz targets: what must hold for any input, not just "no panic".

use syscost_import::Format as ImportFormat;
use syscost_import::{import_bytes, Provenance};
use syscost_record::{validate, RunRecord};

/// A record's canonical path stays inside the data directory whatever its strings say.
pub fn assert_safe_path(r: &RunRecord) {
    let p = r.canonical_path();
    assert!(!p.starts_with('/'), "absolute path {p:?}");
    let parts: Vec<&str> = p.split('/').collect();
    assert_eq!(parts.len(), 4, "{p:?}");
    assert_eq!(parts[0], "runs");
    for c in &parts[1..] {
        assert!(!c.is_empty() && *c != "." && *c != "..", "{p:?}");
        assert!(!c.contains('\\') && !c.contains('\0'), "{p:?}");
    }
}

/// Runs one importer. On success every record must already be valid (the importer promises it)
/// and must survive the round trip through its own JSON with the same id.
pub fn check_import(data: &[u8], format: ImportFormat) {
    let prov = Provenance::default();
    match import_bytes(data, "fuzz.log", format, &prov) {
        Ok(imp) => {
            for r in &imp.records {
                assert!(
                    validate(r).is_empty(),
                    "importer returned an invalid record"
                );
                assert_safe_path(r);
                let text = serde_json::to_string(r).expect("records serialise");
                let back: RunRecord = serde_json::from_str(&text).expect("own JSON parses");
                assert_eq!(&back, r, "JSON round trip changed the record");
                assert!(validate(&back).is_empty());
            }
        }
        Err(e) => {
            assert_eq!(e.file(), "fuzz.log", "error is about another file: {e:?}");
            let message = e.to_string();
            assert!(
                message.contains("fuzz.log"),
                "error does not name the file: {message}"
            );
        }
    }
}
