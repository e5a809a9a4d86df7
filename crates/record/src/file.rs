//! The file form of schemas 3 and 4: the record's lists as rows, and the tool's texts by reference.
//!
//! A default run's record was ~80 KB of JSON, and most of it was not its numbers: every
//! scenario, estimate and target repeated its field names (~13 KB), and every scenario carried
//! its description, parameters and what its verification counts — texts the tool writes the
//! same in every run of the same probe (~25 KB). Schema 3 keeps every value and changes only
//! how the lists are written:
//!
//! - `results`, `estimates`, `expectations`, `summary.targets` and `summary.groups` are lists
//!   of **rows** (JSON arrays, one position per field, `null` for an absent one) instead of
//!   objects; a result's sample statistics, overhead and verification are nested rows;
//! - a text of a row (a scenario's family, description, skip reason, what its verification
//!   counts; an estimate's label and formula; an expectation's label) that is in the
//!   **dictionary** (`dictionary.json`, compiled in) is written as its index there, and a
//!   parameter map that is in it as the map's index; any other text is written as it is;
//! - a throughput that is exactly 1000 / the median (with the interval's ends swapped), as
//!   every collected record's is, is written `0`: it is derived, not stated.
//!
//! The dictionary of schema 3 is frozen (a test pins its hash): a record refers to it by
//! position, so changing it would change what old records say. New texts go into the
//! dictionary of a new schema version: schema 4 appends the texts written since 3's froze
//! (`dictionary4.json`, frozen too), so an index of schema 3 means the same in 4, and writes a
//! target's group or a group's member that is the row's own id as `0`. A file is written with
//! the dictionary of its schema only; a file of schema 3 that uses an index of 4 is not in its
//! schema's file form (`is_file_form`) and is refused as such.
//!
//! Reading accepts both rows and objects in every list, so schema 1 and 2 records (objects)
//! still read with the same types; the file-form check (`is_file_form`) then holds each record
//! to the one form of its schema.

mod rows;
use rows::*;
pub(crate) use rows::{estimates, expectations, groups, results, targets};
#[cfg(test)]
pub(crate) use rows::{EstimateRow, ExpectationRow, GroupRow, ResultRow, TargetRow};

use crate::{
    Estimate, EstimateOrigin, Expectation, GroupSummary, Overhead, QuantityKind, Relation,
    RunRecord, RunSummary, ScenarioResult, Status, Target, Throughput, Verdict, Verification,
};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::OnceLock;

mod write;

/// The texts and parameter maps schema 3 refers to by index.
const DICTIONARY: &str = include_str!("dictionary.json");
/// What schema 4 appends to them: the texts of a default run and of the importers' formats
/// written since schema 3's froze. Appended, so an index of schema 3 means the same in 4.
const DICTIONARY_4: &str = include_str!("dictionary4.json");
/// What schema 5 appends to those: the texts written since schema 4's froze.
const DICTIONARY_5: &str = include_str!("dictionary5.json");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DictFile {
    texts: Vec<String>,
    params: Vec<BTreeMap<String, String>>,
}

pub(crate) struct Dictionary {
    texts: Vec<String>,
    params: Vec<BTreeMap<String, String>>,
    text_ix: HashMap<String, u32>,
    params_ix: HashMap<BTreeMap<String, String>, u32>,
    /// How many texts and maps are schema 3's (the rest are later schemas').
    schema3: (usize, usize),
    /// How many are schema 3's and 4's together (the rest are schema 5's).
    schema4: (usize, usize),
}

pub(crate) fn dictionary() -> &'static Dictionary {
    static D: OnceLock<Dictionary> = OnceLock::new();
    D.get_or_init(|| {
        // Committed data, checked by the tests: failing here is a build defect.
        let three: DictFile = serde_json::from_str(DICTIONARY).expect("dictionary.json parses");
        let four: DictFile = serde_json::from_str(DICTIONARY_4).expect("dictionary4.json parses");
        let five: DictFile = serde_json::from_str(DICTIONARY_5).expect("dictionary5.json parses");
        let schema3 = (three.texts.len(), three.params.len());
        let schema4 = (schema3.0 + four.texts.len(), schema3.1 + four.params.len());
        let texts: Vec<String> = (three.texts.into_iter().chain(four.texts))
            .chain(five.texts)
            .collect();
        let params: Vec<_> = (three.params.into_iter().chain(four.params))
            .chain(five.params)
            .collect();
        let text_ix = (0u32..).zip(&texts).map(|(i, t)| (t.clone(), i)).collect();
        let params_ix = (0u32..).zip(&params).map(|(i, p)| (p.clone(), i)).collect();
        Dictionary {
            texts,
            params,
            text_ix,
            params_ix,
            schema3,
            schema4,
        }
    })
}

/// How much of the dictionary a schema's file form uses: (texts, parameter maps).
fn in_force(form: u32) -> (usize, usize) {
    let d = dictionary();
    match form {
        5.. => (d.texts.len(), d.params.len()),
        4 => d.schema4,
        _ => d.schema3,
    }
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The SHA-256 (hex) of schema 3's dictionary, for the test that keeps it frozen.
pub fn dictionary_sha256() -> String {
    sha256_hex(DICTIONARY.as_bytes())
}

/// The SHA-256 (hex) of what schema 4 appends to it, frozen as well.
pub fn dictionary4_sha256() -> String {
    sha256_hex(DICTIONARY_4.as_bytes())
}

/// The SHA-256 (hex) of what schema 5 appends to those, frozen as well.
pub fn dictionary5_sha256() -> String {
    sha256_hex(DICTIONARY_5.as_bytes())
}

/// A text of a row: its index in the dictionary, or the text itself.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Text<'a> {
    Ref(u32),
    /// Borrowed from the record when a row is written (rows are made for each serialisation).
    Lit(Cow<'a, str>),
}

impl<'a> Text<'a> {
    /// The text as a file of schema `form` writes it.
    fn of(s: &'a str, form: u32) -> Text<'a> {
        match dictionary().text_ix.get(s) {
            Some(&i) if (i as usize) < in_force(form).0 => Text::Ref(i),
            _ => Text::Lit(Cow::Borrowed(s)),
        }
    }
    fn resolve(self) -> Result<String, RowError> {
        match self {
            Text::Lit(s) => Ok(s.into_owned()),
            Text::Ref(i) => dictionary()
                .texts
                .get(i as usize)
                .cloned()
                .ok_or(RowError::UnknownText(i)),
        }
    }
}

impl Serialize for Text<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Text::Ref(i) => s.serialize_u32(*i),
            Text::Lit(t) => s.serialize_str(t),
        }
    }
}

impl<'de> Deserialize<'de> for Text<'_> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Text<'static>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a text or its index in the dictionary")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                u32::try_from(v)
                    .map(Text::Ref)
                    .map_err(|_| E::custom(format_args!("text {v} is not in the dictionary")))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text::Lit(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text::Lit(Cow::Owned(v)))
            }
        }
        d.deserialize_any(V)
    }
}

/// A scenario's parameters: the index of the same map in the dictionary, or the map (whose
/// values may be texts of the dictionary).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Params<'a> {
    Ref(u32),
    Map(BTreeMap<Cow<'a, str>, Text<'a>>),
}

impl<'a> Params<'a> {
    fn of(p: &'a BTreeMap<String, String>, form: u32) -> Option<Params<'a>> {
        if p.is_empty() {
            return None;
        }
        Some(match dictionary().params_ix.get(p) {
            Some(&i) if (i as usize) < in_force(form).1 => Params::Ref(i),
            _ => Params::Map(
                p.iter()
                    .map(|(k, v)| (Cow::Borrowed(k.as_str()), Text::of(v, form)))
                    .collect(),
            ),
        })
    }
    fn resolve(self) -> Result<BTreeMap<String, String>, RowError> {
        match self {
            Params::Ref(i) => dictionary()
                .params
                .get(i as usize)
                .cloned()
                .ok_or(RowError::UnknownParams(i)),
            Params::Map(m) => m
                .into_iter()
                .map(|(k, v)| Ok((k.into_owned(), v.resolve()?)))
                .collect(),
        }
    }
}

impl Serialize for Params<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Params::Ref(i) => s.serialize_u32(*i),
            Params::Map(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Params<'_> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Params<'static>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map of parameters with unique keys, or its index in the dictionary")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                u32::try_from(v).map(Params::Ref).map_err(|_| {
                    E::custom(format_args!("parameters {v} are not in the dictionary"))
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut out = BTreeMap::new();
                while let Some((k, v)) = access.next_entry::<Cow<'static, str>, Text>()? {
                    if out.contains_key(&k) {
                        return Err(de::Error::custom(format_args!(
                            "duplicate key {k:?}: a key may appear only once"
                        )));
                    }
                    out.insert(k, v);
                }
                Ok(Params::Map(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// A scenario id in a row that is often the row's own id (a target's group, a member of a
/// group): from schema 4 written `0` when it is, else as it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Name<'a> {
    /// The row's own id (what schema 3 writes; empty when read).
    Own(Cow<'a, str>),
    Is(Cow<'a, str>),
}

impl<'a> Name<'a> {
    fn of(name: &'a str, own: &str, form: u32) -> Name<'a> {
        if form >= 4 && name == own {
            Name::Own(Cow::Borrowed(name))
        } else {
            Name::Is(Cow::Borrowed(name))
        }
    }
    fn resolve(self, own: &str) -> String {
        match self {
            Name::Own(_) => own.to_string(),
            Name::Is(s) => s.into_owned(),
        }
    }
}

impl Serialize for Name<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Name::Own(_) => s.serialize_u8(0),
            Name::Is(n) => s.serialize_str(n),
        }
    }
}

impl<'de> Deserialize<'de> for Name<'_> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Name<'static>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a scenario id, or 0 for the row's own id")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
                match v {
                    0 => Ok(Name::Own(Cow::Borrowed(""))),
                    _ => Err(E::custom(format_args!(
                        "{v}: a name is an id, or 0 for the row's own"
                    ))),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Name::Is(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Name::Is(Cow::Owned(v)))
            }
        }
        d.deserialize_any(V)
    }
}

/// Schemas 1 and 2: every list as objects, as the types derive them.
#[derive(Serialize)]
struct Objects<'a> {
    schema: u32,
    id: &'a str,
    source: &'a crate::Source,
    settings: &'a crate::Settings,
    environment: &'a crate::Environment,
    summary: &'a RunSummary,
    results: &'a [ScenarioResult],
    estimates: &'a [Estimate],
    expectations: &'a [Expectation],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
}

/// Schema 3: the lists as rows.
#[derive(Serialize)]
struct Rows<'a> {
    schema: u32,
    id: &'a str,
    source: &'a crate::Source,
    settings: &'a crate::Settings,
    environment: &'a crate::Environment,
    summary: SummaryRows<'a>,
    results: Vec<ResultRow<'a>>,
    estimates: Vec<EstimateRow<'a>>,
    expectations: Vec<ExpectationRow<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
}

#[derive(Serialize)]
struct SummaryRows<'a> {
    rounds: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    duration_s: Option<f64>,
    stop_reason: crate::StopReason,
    target_reached: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    worst_ci_pct: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    worst_ci_id: Option<&'a str>,
    ci_method: &'a str,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    targets: Vec<TargetRow<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    groups: Vec<GroupRow<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instances: Option<&'a crate::Instances>,
}

impl Serialize for RunRecord {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_with_id(self, &self.id, self.schema, s)
    }
}

/// The record's JSON in the file form of schema `form` (with `"schema": form`), with `id` in
/// place of its id (the content id is computed with it blank, without copying the record).
pub(crate) fn json_with_id(r: &RunRecord, id: &str, form: u32) -> String {
    let mut out = Vec::with_capacity(32 * 1024);
    if form >= 3 {
        write::record(r, id, form, &mut out, None);
    } else if serde_json::to_writer(&mut out, &objects(r, id, form)).is_err() {
        // Serialising plain data cannot fail (no maps with non-string keys).
        return String::new();
    }
    // serde_json and the writer write UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// [`json_with_id`] written to `w` (into a hash, or compared with a file's bytes); false when
/// `w` refused a write.
pub(crate) fn write_with_id<W: std::io::Write>(
    r: &RunRecord,
    id: &str,
    form: u32,
    mut w: W,
) -> bool {
    if form < 3 {
        return serde_json::to_writer(w, &objects(r, id, form)).is_ok();
    }
    let mut out = Vec::new();
    write::record(r, id, form, &mut out, None);
    w.write_all(&out).is_ok()
}

/// Compact JSON in which a whole number is written without `.0` (schema 4: `23500`, not
/// `23500.0`): the same number, two bytes shorter, read back as the same `f64`. The serde
/// route's formatter, which the tests hold the writer to.
#[cfg(test)]
struct Integral;

#[cfg(test)]
impl serde_json::ser::Formatter for Integral {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f64) -> std::io::Result<()> {
        // Below 2^53 every whole f64 is an exact i64; -0 keeps its sign as a float.
        if v.fract() == 0.0 && v.abs() < 9.0e15 && !(v == 0.0 && v.is_sign_negative()) {
            serde_json::ser::CompactFormatter.write_i64(w, v as i64)
        } else {
            serde_json::ser::CompactFormatter.write_f64(w, v)
        }
    }
}

/// The record with every list as objects, whatever its schema (the form of schema 2 and of the
/// types), for tools and tests that look fields up by name.
pub fn objects_json(r: &RunRecord) -> serde_json::Value {
    serde_json::to_value(objects(r, &r.id, r.schema)).unwrap_or_default()
}

/// The serde route of the file form, for generic serialisers (pretty printing, values); the
/// file form's bytes are written by [`write::record`], held to the same by a test.
fn serialize_with_id<S: Serializer>(
    r: &RunRecord,
    id: &str,
    form: u32,
    s: S,
) -> Result<S::Ok, S::Error> {
    if form < 3 {
        return objects(r, id, form).serialize(s);
    }
    rows(r, id, form).serialize(s)
}

fn objects<'a>(r: &'a RunRecord, id: &'a str, form: u32) -> Objects<'a> {
    Objects {
        schema: form,
        id,
        source: &r.source,
        settings: &r.settings,
        environment: &r.environment,
        summary: &r.summary,
        results: &r.results,
        estimates: &r.estimates,
        expectations: &r.expectations,
        notes: &r.notes,
    }
}

/// The record's rows in the file form of schema `form` (3 or later).
fn rows<'a>(r: &'a RunRecord, id: &'a str, form: u32) -> Rows<'a> {
    let m = &r.summary;
    Rows {
        schema: form,
        id,
        source: &r.source,
        settings: &r.settings,
        environment: &r.environment,
        summary: SummaryRows {
            rounds: m.rounds,
            duration_s: m.duration_s,
            stop_reason: m.stop_reason,
            target_reached: m.target_reached,
            worst_ci_pct: m.worst_ci_pct,
            worst_ci_id: m.worst_ci_id.as_deref(),
            ci_method: &m.ci_method,
            targets: m.targets.iter().map(|t| TargetRow::of(t, form)).collect(),
            groups: m.groups.iter().map(|g| GroupRow::of(g, form)).collect(),
            instances: m.instances.as_ref(),
        },
        results: r.results.iter().map(|x| ResultRow::of(x, form)).collect(),
        estimates: r
            .estimates
            .iter()
            .map(|e| EstimateRow::of(e, form))
            .collect(),
        expectations: (r.expectations.iter())
            .map(|e| ExpectationRow::of(e, form))
            .collect(),
        notes: &r.notes,
    }
}

/// A record's file form (schema 4 or later), and the SHA-256 of the form its content id covers (schema
/// 3's, the id blank), from one writing: schema 3's form is schema 4's with the texts and maps
/// 4 appended to the dictionary spelled out, a row's own id written out instead of `0` and
/// whole numbers with `.0`, so both are written together, each value formatted once. Whether
/// the file form is `file` (without its final newline).
pub(crate) fn file_form_and_id_hash(
    r: &RunRecord,
    file: &[u8],
    hash: &mut impl std::io::Write,
) -> std::io::Result<bool> {
    let (mut out, mut three) = (Vec::new(), Vec::new());
    write::record(r, &r.id, r.schema, &mut out, Some(&mut three));
    hash.write_all(&three)?;
    Ok(out.as_slice() == file)
}

/// The JSON Schema of a value that is a JSON type or an index into the dictionary.
#[cfg(test)]
fn or_index(name: &'static str, what: serde_json::Value, desc: &str) -> schemars::Schema {
    let v = serde_json::json!({
        "title": name,
        "description": desc,
        "anyOf": [what, {"type": "integer", "minimum": 0}]
    });
    schemars::Schema::try_from(v).unwrap_or_default()
}

#[cfg(test)]
impl schemars::JsonSchema for Text<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Text".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        or_index(
            "Text",
            serde_json::json!({"type": "string"}),
            "A text, or its index in the dictionary: schema 3's (crates/record/src/dictionary.json, `texts`), in schema 4 followed by dictionary4.json's, in schema 5 by dictionary5.json's too.",
        )
    }
}

#[cfg(test)]
impl schemars::JsonSchema for Params<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Params".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        or_index(
            "Params",
            serde_json::json!({"type": "object", "additionalProperties": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 0}]}}),
            "Scenario parameters (values: texts or their indices), or the index of the whole map in the dictionary (`params`: schema 3's, in schema 4 followed by dictionary4.json's, in 5 by dictionary5.json's too).",
        )
    }
}

#[cfg(test)]
impl schemars::JsonSchema for Name<'_> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Name".into()
    }
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let v = serde_json::json!({
            "description": "A scenario id, or (schema 4) 0: the row's own id.",
            "anyOf": [{"type": "string"}, {"const": 0}]
        });
        schemars::Schema::try_from(v).unwrap_or_default()
    }
}

#[cfg(test)]
impl schemars::JsonSchema for ThroughputCell {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "ThroughputCell".into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let row = serde_json::to_value(g.subschema_for::<ThroughputRow>()).unwrap_or_default();
        let v = serde_json::json!({
            "description": "0: derived, 1000 / the median with the interval's ends swapped, rounded by its own interval; or [median, ci_low, ci_high, stddev] as stated.",
            "anyOf": [{"const": 0}, row]
        });
        schemars::Schema::try_from(v).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records refer to the dictionary by position: schema 3's and what schemas 4 and 5 append
    /// must never change (a new text belongs to the dictionary of a new schema).
    #[test]
    fn the_dictionaries_of_schemas_3_to_5_are_frozen() {
        let d = dictionary();
        assert!(!d.texts.is_empty() && !d.params.is_empty());
        assert_eq!(d.text_ix.len(), d.texts.len(), "texts are unique");
        assert_eq!(
            d.params_ix.len(),
            d.params.len(),
            "parameter maps are unique"
        );
        assert_eq!(d.schema3, (279, 57), "schema 3's dictionary");
        assert!(d.texts.len() > d.schema3.0 && d.params.len() > d.schema3.1);
        assert_eq!(dictionary_sha256(), FROZEN, "dictionary.json changed");
        assert_eq!(dictionary4_sha256(), FROZEN_4, "dictionary4.json changed");
        assert_eq!(dictionary5_sha256(), FROZEN_5, "dictionary5.json changed");
        assert_eq!(in_force(3), d.schema3);
        assert_eq!(d.schema4, (315, 76), "schema 4's dictionary");
        assert_eq!(in_force(4), d.schema4);
        assert_eq!(in_force(5), (d.texts.len(), d.params.len()));
        assert!(d.texts.len() > d.schema4.0);
    }

    /// Schema 4's form is noted as schema 3's with `.0` after each whole number (what
    /// `Integral` writes without it): serde_json's own form of them.
    #[test]
    fn schema_3_writes_whole_numbers_with_dot_zero() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut values: Vec<f64> = (0..100_000).map(f64::from).collect();
        values.extend((0..16).flat_map(|e| (1..100).map(move |k| 10f64.powi(e) * f64::from(k))));
        values.extend((0..200_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 11) >> (x % 53)) as f64
        }));
        values.push(8_999_999_999_999_999.0);
        for v in values.into_iter().flat_map(|v| [v, -v]) {
            let mut four = Vec::new();
            v.serialize(&mut serde_json::Serializer::with_formatter(
                &mut four, Integral,
            ))
            .unwrap();
            if !four.contains(&b'.') && !four.contains(&b'e') && four != b"-0" {
                four.extend_from_slice(b".0");
                assert_eq!(
                    String::from_utf8(four).unwrap(),
                    serde_json::to_string(&v).unwrap()
                );
            }
        }
    }

    /// The file form through the row types and serde, as it was written before [`write`].
    fn serde_form(r: &RunRecord, id: &str, form: u32) -> String {
        let mut out = Vec::new();
        if form >= 4 {
            let mut ser = serde_json::Serializer::with_formatter(&mut out, Integral);
            serialize_with_id(r, id, form, &mut ser).unwrap();
        } else {
            serialize_with_id(r, id, form, &mut serde_json::Serializer::new(&mut out)).unwrap();
        }
        String::from_utf8(out).unwrap()
    }

    /// The writer writes what serde writes through the row types, in schemas 3 and 4, and the
    /// form the content id covers beside schema 4's: on every record of data/ and on variants
    /// of them that reach every branch (absent values, whole and odd numbers, texts of either
    /// dictionary or of none, escapes, own names, stated throughputs).
    #[test]
    fn the_writer_writes_what_serde_writes() {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data/runs");
        let mut dirs = vec![data];
        let mut records = Vec::new();
        while let Some(p) = dirs.pop() {
            if p.is_dir() {
                dirs.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            } else if p.extension().is_some_and(|x| x == "json") {
                records.push(
                    serde_json::from_slice::<RunRecord>(&std::fs::read(&p).unwrap()).unwrap(),
                );
            }
        }
        assert!(
            records.len() > 10,
            "only {} records in data/",
            records.len()
        );
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut next = move |n: usize| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % n as u64) as usize
        };
        let d = dictionary();
        let numbers = [
            0.0,
            -0.0,
            1.0,
            213.0,
            23500.0,
            -47.6,
            0.95,
            1e-7,
            1.5e300,
            9.0e15,
            8.999e15,
            f64::NAN,
            f64::INFINITY,
            165.027_792_539_058_34,
            3.0e16,
        ];
        let texts = |next: &mut dyn FnMut(usize) -> usize| -> String {
            // Each character serde_json escapes alone in a text, so none hides another.
            let odd = [
                "a \"quoted\" text",
                "a back\\slash",
                "a\nline",
                "unit\u{1f}sep",
                "del\u{7f} ü ✓",
            ];
            match next(4) {
                0 => d.texts[next(d.schema3.0)].clone(),
                1 => d.texts[d.schema3.0 + next(d.texts.len() - d.schema3.0)].clone(),
                2 => odd[next(odd.len())].to_string(),
                _ => "plain text of no dictionary".to_string(),
            }
        };
        let mut variants = Vec::new();
        for (k, r) in records.iter().enumerate() {
            variants.push(r.clone());
            for _ in 0..4 {
                let mut v = r.clone();
                let num = |next: &mut dyn FnMut(usize) -> usize| numbers[next(numbers.len())];
                let opt = |next: &mut dyn FnMut(usize) -> usize| (next(3) > 0).then(|| num(next));
                v.settings.budget_s = opt(&mut next);
                v.settings.sample_ms = opt(&mut next);
                v.settings.confidence = num(&mut next);
                v.summary.duration_s = opt(&mut next);
                v.summary.worst_ci_pct = opt(&mut next);
                v.environment.incidental.loadavg_start = Some([num(&mut next), 0.5, 2.0]);
                if next(3) == 0 {
                    v.notes.push(texts(&mut next));
                }
                for res in &mut v.results {
                    res.median_ns = opt(&mut next);
                    res.ci_low_ns = opt(&mut next);
                    res.mad_ns = opt(&mut next);
                    res.samples = (next(2) == 0).then_some(next(1000) as u64);
                    res.description = texts(&mut next);
                    res.family = texts(&mut next);
                    res.reason = (next(3) == 0).then(|| texts(&mut next));
                    if let Some(o) = &mut res.overhead {
                        o.median_ns = num(&mut next);
                        o.pct_ci_low = opt(&mut next);
                    }
                    res.throughput_mops = match next(3) {
                        0 => None,
                        1 => crate::precision::derived_throughput(
                            res.median_ns,
                            res.ci_low_ns,
                            res.ci_high_ns,
                        ),
                        _ => Some(crate::Throughput {
                            median: num(&mut next),
                            ci_low: opt(&mut next),
                            ci_high: None,
                            stddev: opt(&mut next),
                        }),
                    };
                    if let Some(ver) = &mut res.verification {
                        ver.what = texts(&mut next);
                    }
                    res.params = match next(4) {
                        0 => BTreeMap::new(),
                        1 => d.params[next(d.schema3.1)].clone(),
                        2 => d.params[d.schema3.1 + next(d.params.len() - d.schema3.1)].clone(),
                        _ => [("filters".to_string(), texts(&mut next))].into(),
                    };
                }
                for e in &mut v.estimates {
                    e.label = texts(&mut next);
                    e.ci_low_ns = opt(&mut next);
                    e.median_ns = num(&mut next);
                }
                for e in &mut v.expectations {
                    e.label = texts(&mut next);
                    e.lhs_ns = num(&mut next);
                    e.systematic_ns = opt(&mut next);
                }
                for t in &mut v.summary.targets {
                    if next(2) == 0 {
                        t.group = t.id.clone();
                    }
                    t.half_width_ns = opt(&mut next);
                }
                for g in &mut v.summary.groups {
                    if next(2) == 0 {
                        g.members.push(g.id.clone());
                    }
                    g.duration_s = num(&mut next);
                }
                if k % 3 == 0 {
                    v.estimates.clear();
                    v.summary.targets.clear();
                }
                variants.push(v);
            }
        }
        // Where two texts first differ, to read a failure.
        let same = |got: &[u8], want: String| {
            let at = got
                .iter()
                .zip(want.as_bytes())
                .take_while(|(a, b)| a == b)
                .count();
            let around = |t: &[u8]| {
                String::from_utf8_lossy(&t[at.saturating_sub(40)..(at + 40).min(t.len())])
                    .into_owned()
            };
            assert!(
                got == want.as_bytes(),
                "differ at {at}: {:?} instead of {:?}",
                around(got),
                around(want.as_bytes())
            );
        };
        use sha2::{Digest, Sha256};
        for r in &variants {
            for form in [3, 4] {
                same(
                    json_with_id(r, &r.id, form).as_bytes(),
                    serde_form(r, &r.id, form),
                );
            }
            let mut three = Vec::new();
            let mut four = Vec::new();
            write::record(r, &r.id, 4, &mut four, Some(&mut three));
            same(&four, serde_form(r, &r.id, 4));
            same(&three, serde_form(r, "", 3));
            // Schema 4's form, or the record's own when it is later (5 writes as 4 does).
            let form = r.schema.max(4);
            let (mut three, mut four) = (Vec::new(), Vec::new());
            write::record(r, &r.id, form, &mut four, Some(&mut three));
            same(&four, serde_form(r, &r.id, form));
            same(&three, serde_form(r, "", 3));
            let mut h = Sha256::new();
            let file = serde_form(r, &r.id, form);
            let r = &RunRecord {
                schema: form,
                ..r.clone()
            };
            assert!(file_form_and_id_hash(r, file.as_bytes(), &mut h).unwrap());
            assert_eq!(h.finalize()[..], Sha256::digest(serde_form(r, "", 3))[..]);
        }
        assert!(variants.len() > 50);
    }

    const FROZEN: &str = "aa6b3ad0476902b7fd0ef93302dc594796d1f36d04d299c15d27939007850155";
    const FROZEN_4: &str = "6ee4eca271a5f443bfffbae42cee0e146e0fee77850497ae586f217459518bad";
    const FROZEN_5: &str = "4283d2676973d53d9271f786c2f5d5cdaa0b8241fa239845e510ede2e1b85c96";
}
