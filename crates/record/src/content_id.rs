//! Content ids and canonical paths: the same record always gets the same id and file name, so a
//! run saved twice is one file and a duplicate submission is recognisable.

use crate::RunRecord;
use sha2::{Digest, Sha256};

/// The record serialised the one way its schema writes it: compact JSON in field order.
pub fn canonical_json(record: &RunRecord) -> String {
    crate::file::json_with_id(record, &record.id, record.schema)
}

/// The form the content id is computed on: a record's own up to schema 3; from schema 4 on,
/// schema 3's (`"schema":3`, its dictionary, every name spelled out). Schema 4 writes the same
/// values smaller, so a record rewritten in it keeps its id, its file name and its page.
pub(crate) fn id_form(schema: u32) -> u32 {
    schema.min(3)
}

/// The record as a file holds it, and as the site publishes it: its canonical JSON on one line,
/// with a trailing newline. The only form of a record in `data/` (`syscost-site check` refuses
/// any other), so what the content id covers is exactly what is published, and rewriting a
/// record gives the same bytes.
pub fn to_file_json(record: &RunRecord) -> String {
    let mut s = canonical_json(record);
    s.push('\n');
    s
}

/// A record of an older schema in the current one: its numbers rounded to the precision their
/// intervals justify, the current schema version, and the content id of that content (a new
/// id if the content changed, as from schema 1 or 2; from schema 3, which is already rounded,
/// only the form changes and the id stays). Migrating a current record changes nothing.
pub fn migrate(mut record: RunRecord) -> RunRecord {
    let before = record.clone();
    record.schema = crate::SCHEMA_VERSION;
    crate::round_to_intervals(&mut record);
    if record == before {
        return before;
    }
    with_id(record)
}

/// Whether `bytes` are the file form of `record`: [`to_file_json`] for the current schema; for
/// schema 1, the form syscost wrote then (pretty JSON in field order, a final newline), which
/// is read and published as it is until `syscost-site migrate` rewrites it.
pub fn is_file_form(record: &RunRecord, bytes: &[u8]) -> bool {
    if record.schema == 1 {
        let mut s = serde_json::to_string_pretty(record).unwrap_or_default();
        s.push('\n');
        return bytes == s.as_bytes();
    }
    // Compared as it is serialised: no copy of the text, and the first difference ends it.
    let mut rest = Same { rest: bytes };
    crate::file::write_with_id(record, &record.id, record.schema, &mut rest) && rest.rest == b"\n"
}

/// [`is_file_form`] and [`content_id`] together, from one serialisation from schema 4 on (see
/// `file::file_form_and_id_hash`).
pub(crate) fn file_form_and_id(record: &RunRecord, bytes: &[u8]) -> (bool, String) {
    let mut h = Sha256::new();
    let file = bytes.strip_suffix(b"\n");
    match (record.schema >= 4)
        .then(|| crate::file::file_form_and_id_hash(record, file.unwrap_or(b"\0"), &mut h))
    {
        Some(Ok(same)) => (same && file.is_some(), hex16(&h.finalize())),
        _ => (is_file_form(record, bytes), content_id(record)),
    }
}

/// A writer that accepts only the bytes it was given, in order, and keeps what is left.
struct Same<'a> {
    rest: &'a [u8],
}

impl std::io::Write for Same<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.rest.strip_prefix(buf) {
            Some(r) => {
                self.rest = r;
                Ok(buf.len())
            }
            None => Err(std::io::ErrorKind::InvalidData.into()),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// First 16 hex digits of SHA-256 over the canonical JSON with `id` set to "" (from schema 4,
/// schema 3's canonical JSON: [`id_form`]).
pub fn content_id(record: &RunRecord) -> String {
    let form = id_form(record.schema);
    // Hashed as it is serialised: no copy of the text is made.
    let mut h = Sha256::new();
    crate::file::write_with_id(record, "", form, &mut h);
    hex16(&h.finalize())
}

fn hex16(digest: &[u8]) -> String {
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// [`content_id`] from the record's canonical JSON, without serialising it again: `id` is its
/// second field, so the text with the id blank is a splice of this one (up to schema 3; a
/// later schema's id is of another form, serialised here).
pub fn content_id_of_json(record: &RunRecord, canonical: &str) -> String {
    if id_form(record.schema) != record.schema {
        return content_id(record);
    }
    let head = format!("{{\"schema\":{},\"id\":", record.schema);
    let quoted = serde_json::to_string(&record.id).unwrap_or_default();
    let Some(rest) = canonical
        .strip_prefix(head.as_str())
        .and_then(|r| r.strip_prefix(quoted.as_str()))
    else {
        return content_id(record);
    };
    let digest = Sha256::new()
        .chain_update(head.as_bytes())
        .chain_update(b"\"\"")
        .chain_update(rest.as_bytes())
        .finalize();
    hex16(&digest)
}

/// The record with its `id` filled in.
pub fn with_id(mut record: RunRecord) -> RunRecord {
    record.id = content_id(&record);
    record
}

/// What `incidental.machine_hash` holds for a host name: 12 hex digits of SHA-256 over
/// `syscost-machine:<hostname>`. Links runs of one machine without naming it (a short or common
/// host name can still be guessed from it: it is a pseudonym, not a secret).
pub fn machine_hash(hostname: &str) -> String {
    let d = Sha256::digest(format!("syscost-machine:{hostname}").as_bytes());
    d.iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// Maps any string onto a safe single path component: `[A-Za-z0-9._+-]`, never `.`/`..`/empty.
pub fn sanitize_path_component(s: &str) -> String {
    let mut out: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '+') {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    if out.is_empty() || out.chars().all(|c| c == '.') {
        out = format!("_{out}");
    }
    out
}

/// Where a record of this arch, kernel release and id lives under a data directory:
/// `runs/<arch>/<kernel>/<id>.json`.
pub fn canonical_path_for(arch: &str, kernel_release: &str, id: &str) -> String {
    format!(
        "runs/{}/{}/{}.json",
        sanitize_path_component(arch),
        sanitize_path_component(kernel_release),
        sanitize_path_component(id)
    )
}

impl RunRecord {
    /// Where the record lives under a data directory: `runs/<arch>/<kernel>/<id>.json`.
    pub fn canonical_path(&self) -> String {
        let c = &self.environment.comparability;
        canonical_path_for(&c.arch, &c.kernel_release, &self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitize_blocks_traversal_and_separators() {
        assert_eq!(sanitize_path_component("../../etc"), ".._.._etc");
        assert_eq!(sanitize_path_component(".."), "_..");
        assert_eq!(sanitize_path_component(""), "_");
        assert_eq!(
            sanitize_path_component("6.8.0-45-generic"),
            "6.8.0-45-generic"
        );
        assert_eq!(sanitize_path_component("a/b\\c d"), "a_b_c_d");
    }
}
