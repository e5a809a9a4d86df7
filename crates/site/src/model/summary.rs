//! What the index pages need to know about one run, kept small so that 100,000 runs fit in
//! memory while the full records are read one at a time.

use crate::model::kver::KernelVersion;
use crate::model::metrics::{Registry, Spellings, Values};
use crate::model::quality::{self, Quality};
use crate::model::series::{self, SeriesInput, SeriesKey, Unplaced};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use syscost_record::{Environment, Method, RunRecord, Settings, Source, SourceKind};

/// The parts of a record that place it (its id, source, settings and environment), read with
/// the record's own types without the bulky rest: what the first pass orders the runs by. The
/// series key and the kernel version are computed from the same parts of a full record, by the
/// same functions. Unknown top-level fields (the rest of the record) are skipped by serde.
#[derive(Debug, Deserialize)]
pub struct Head {
    #[serde(default)]
    pub id: String,
    pub source: Source,
    pub settings: Settings,
    pub environment: Environment,
}

/// Reads a record's [`Head`], stopping as soon as `id`, `source`, `settings` and `environment`
/// have been read: records put them before the bulky results, so the first pass need not
/// tokenise whole files. Whatever is wrong with the rest is found when the record is read in
/// full. A file without all four (or not an object) is read whole, for serde's own error.
pub fn read_head(bytes: &[u8]) -> Result<Head, serde_json::Error> {
    use serde::de::{DeserializeSeed, Error, IgnoredAny, MapAccess, Visitor};

    struct Seed<'a>(&'a mut Option<Head>);
    impl<'de> DeserializeSeed<'de> for Seed<'_> {
        type Value = ();
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
            d.deserialize_map(self)
        }
    }
    impl<'de> Visitor<'de> for Seed<'_> {
        type Value = ();
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a run record")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let (mut id, mut source, mut settings, mut env) = (None, None, None, None);
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "id" => id = Some(map.next_value::<String>()?),
                    "source" => source = Some(map.next_value::<Source>()?),
                    "settings" => settings = Some(map.next_value::<Settings>()?),
                    "environment" => env = Some(map.next_value::<Environment>()?),
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                if id.is_some() && source.is_some() && settings.is_some() && env.is_some() {
                    if let (Some(id), Some(source), Some(settings), Some(environment)) =
                        (id, source, settings, env)
                    {
                        *self.0 = Some(Head {
                            id,
                            source,
                            settings,
                            environment,
                        });
                    }
                    // Stop here: the caller takes the head and ignores this "error".
                    return Err(A::Error::custom("head read"));
                }
            }
            Err(A::Error::custom("incomplete head"))
        }
    }

    let mut head = None;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let _ = Seed(&mut head).deserialize(&mut de);
    match head {
        Some(h) => Ok(h),
        None => serde_json::from_slice::<Head>(bytes),
    }
}

impl Head {
    pub fn series_input(&self) -> SeriesInput<'_> {
        SeriesInput::of_parts(&self.id, &self.source, &self.settings, &self.environment)
    }

    pub fn series(&self) -> SeriesKey {
        series::series_key(&self.series_input())
    }

    /// The kernel the run is placed on ([`KernelVersion::of_record`]).
    pub fn kernel(&self) -> KernelVersion {
        kernel_of(&self.source, &self.environment)
    }

    /// Whether the run can be put on the kernel-version axis.
    pub fn placement(&self) -> Result<(), Unplaced> {
        series::placement(&self.environment.comparability.arch, &self.kernel())
    }
}

/// The kernel a run is placed on, from its source (a stated kernel) and environment: for a
/// lab run, the exact release of the package it booted (each package of one Debian kernel is
/// its own point: an instruction count is exact, and two packages' counts pooled into one
/// point with a span said less than either).
fn kernel_of(source: &Source, env: &Environment) -> KernelVersion {
    let stated = source.stated.as_ref().and_then(|s| s.kernel.as_ref());
    let k = KernelVersion::of_record(
        &env.comparability.kernel_release,
        stated.map(|k| (k.release.as_str(), k.approximate)),
    );
    match env.lab.as_ref().and_then(|l| l.kernel_package.as_ref()) {
        Some(p) => k.packaged(&p.version),
        None => k,
    }
}

/// The kernel a full record is placed on: the same as [`Head::kernel`].
pub fn record_kernel(r: &RunRecord) -> KernelVersion {
    kernel_of(&r.source, &r.environment)
}

pub fn record_series(r: &RunRecord) -> SeriesKey {
    series::series_key(&SeriesInput::of(r))
}

/// One accepted run, as the index pages see it. What is made from the record alone is kept in
/// the summary cache between builds (`site::cache`); the rest is set by each build.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunInfo {
    pub id: String,
    pub arch: String,
    pub kernel: KernelVersion,
    /// Upstream base label (`6.8`): the kernel page and trend point this run belongs to.
    pub kbase: String,
    /// Why the run is not on the kernel-version axis, if it is not.
    pub placed: Result<(), Unplaced>,
    /// Shared by every run of the series.
    pub series: Arc<SeriesKey>,
    pub machine: Option<String>,
    pub date: Option<String>,
    pub kind: SourceKind,
    pub method: Method,
    pub tool: String,
    /// The record's canonical path relative to the site root, without extension: where its
    /// raw record is published, and the page of a run that is shown alone.
    pub page: String,
    /// Which page of its series' runs on its kernel version shows it (1-based), or 0 when it
    /// has a page alone: set by each build (`site::passes`); its link is `site::links::Links::run`.
    /// A number, not the link: 100,000 small strings kept among the build's transient ones
    /// cost more memory than their bytes (glibc keeps the pages they pin).
    #[serde(skip)]
    pub shown_on: u32,
    /// Path of the record file relative to the data directory.
    #[serde(skip)]
    pub record_rel: String,
    /// Cached apart: its metric ids are the build's own.
    #[serde(skip)]
    pub values: Values,
    pub quality: Quality,
    pub confidence: f64,
    /// A maintainer has accepted the run (`data/triage.tsv`); until then the site labels it
    /// "unverified".
    #[serde(skip)]
    pub accepted: bool,
    /// Emulated (QEMU TCG, `syscost lab`) and timed: its times are an emulator's. Shown on its
    /// run page and its own series (one virtualization kind), never pooled with measurements.
    /// An emulated run whose clock counted instructions is not this: its numbers are path
    /// lengths, drawn in charts of their own (their series say `instructions`).
    pub emulated: bool,
    /// Site path of the page of what the run shares with its machine's other runs, named by
    /// that content's hash: set by the build, which makes that page (`site::pages::run`).
    pub env_page: String,
}

impl RunInfo {
    /// The summary of `r`, its metric keys interned in `reg`; `series` is reused when it is the
    /// run's own key (runs of one series share it).
    pub fn from_record(
        r: &RunRecord,
        reg: &mut Registry,
        series: Option<&Arc<SeriesKey>>,
    ) -> RunInfo {
        RunInfo::from_record_spelled(r, reg, series, None).0
    }

    /// As [`RunInfo::from_record`], and the spellings of the metric keys met, noted in `sp`.
    pub fn from_record_spelled(
        r: &RunRecord,
        reg: &mut Registry,
        series: Option<&Arc<SeriesKey>>,
        sp: Option<&mut Spellings>,
    ) -> (RunInfo, Vec<u32>) {
        let (values, calls) = Values::read_spelled(r, reg, sp);
        let c = &r.environment.comparability;
        let kernel = record_kernel(r);
        let page = r.canonical_path();
        let page = page.strip_suffix(".json").unwrap_or(&page).to_string();
        let key = Arc::new(series::series_key(&SeriesInput::of(r)));
        let series = match series {
            Some(s) if Arc::ptr_eq(s, &key) || **s == *key => Arc::clone(s),
            _ => key,
        };
        let info = RunInfo {
            record_rel: format!("{page}.json"),
            id: r.id.clone(),
            arch: c.arch.trim().to_string(),
            kbase: kernel.base_label(),
            placed: series::placement(&c.arch, &kernel),
            kernel,
            series,
            machine: r
                .environment
                .incidental
                .machine_hash
                .clone()
                .filter(|m| !m.trim().is_empty()),
            date: r.source.date.clone(),
            kind: r.source.kind,
            method: r.source.method,
            tool: r.source.tool.clone(),
            page,
            shown_on: 0,
            values,
            quality: quality::assess(r),
            confidence: r.settings.confidence,
            accepted: false,
            emulated: r.is_emulated() && !r.counts_instructions(),
            env_page: String::new(),
        };
        (info, calls)
    }

    pub fn is_placed(&self) -> bool {
        self.placed.is_ok()
    }

    /// Low-quality runs are drawn hollow and kept out of headline medians and change detection.
    pub fn is_low(&self) -> bool {
        self.quality.is_low()
    }

    /// The runs of `idx` that measured hardware (or a VM on it): what the charts of the arch
    /// and metric pages may draw side by side (an emulated run keeps its own series page, an
    /// instruction count its own charts).
    pub fn measured(runs: &[RunInfo], idx: &[usize]) -> Vec<usize> {
        idx.iter()
            .copied()
            .filter(|&i| !runs[i].emulated && !runs[i].series.instructions)
            .collect()
    }

    /// The runs of `idx` whose numbers are instruction counts: the charts of their own.
    pub fn counted(runs: &[RunInfo], idx: &[usize]) -> Vec<usize> {
        idx.iter()
            .copied()
            .filter(|&i| runs[i].series.instructions)
            .collect()
    }

    /// Newest first: by date (undated last), then kernel, then id.
    pub fn newest_first(a: &RunInfo, b: &RunInfo) -> std::cmp::Ordering {
        b.date
            .cmp(&a.date)
            .then_with(|| b.kernel.cmp(&a.kernel))
            .then_with(|| a.id.cmp(&b.id))
    }
}

pub fn kind_label(k: SourceKind) -> &'static str {
    match k {
        SourceKind::Collected => "collected",
        SourceKind::Import => "imported",
        SourceKind::Synthetic => "synthetic",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_stops_early_but_matches_a_full_read() {
        let r = syscost_synth::generate(1, 5).next().unwrap();
        let bytes = syscost_synth::to_file_bytes(&r);
        let early = read_head(&bytes).unwrap();
        let full: Head = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(early.id, full.id);
        assert_eq!(early.series(), full.series());
        assert_eq!(early.series(), record_series(&r));
        assert_eq!(early.source.date, full.source.date);
        // Garbage after the head is left for the full read to find.
        let mut cut = bytes.clone();
        let at = String::from_utf8_lossy(&bytes).find("\"summary\"").unwrap();
        cut.truncate(at + 12);
        assert_eq!(read_head(&cut).unwrap().id, full.id);
        // Without all four fields: serde's own error, as before.
        let v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let e = read_head(format!("{{\"id\": \"x\", \"source\": {}}}", v["source"]).as_bytes())
            .unwrap_err();
        assert!(e.to_string().contains("missing field `settings`"), "{e}");
        assert!(read_head(b"[1]").is_err());
        assert!(read_head(b"").is_err());
    }

    /// The first pass places runs by the head alone: for every record in `data/`, the head's
    /// series and placement are the full record's.
    #[test]
    fn heads_of_the_real_records_give_their_series() {
        let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../../data");
        let mut n = 0;
        for c in crate::build::load::scan(std::path::Path::new(data)).records {
            let bytes = std::fs::read(&c.abs).unwrap();
            let head = read_head(&bytes).unwrap();
            let rec: RunRecord = serde_json::from_slice(&bytes).unwrap();
            let info = RunInfo::from_record(&rec, &mut Registry::default(), None);
            assert_eq!(head.series(), *info.series, "{}", c.rel);
            assert_eq!(head.placement(), info.placed, "{}", c.rel);
            assert_eq!(head.kernel(), info.kernel, "{}", c.rel);
            n += 1;
        }
        assert!(n > 0);
    }
}
