//! What the index pages need to know about one run, kept small so that 100,000 runs fit in
//! memory while the full records are read one at a time.

use crate::kver::KernelVersion;
use crate::metrics::{self, Val};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use syscost_record::{RunRecord, SourceKind};

/// What makes two runs' numbers comparable over time (the brief's "comparable series"): same
/// architecture, CPU model, mitigation profile and virtualisation.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SeriesKey {
    pub arch: String,
    pub cpu: String,
    /// Short hash of the sorted vulnerability files, see [`mitigation_profile`].
    pub mitigations: String,
    pub virt: String,
}

impl SeriesKey {
    /// Stable, file-name-safe id of the series.
    pub fn id(&self) -> String {
        let mut h = Sha256::new();
        for part in [&self.arch, &self.cpu, &self.mitigations, &self.virt] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        hex(&h.finalize()[..6])
    }

    pub fn label(&self) -> String {
        format!(
            "{} · {} · mitigations {}",
            self.cpu, self.virt, self.mitigations
        )
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A profile of the CPU vulnerability mitigations: 8 hex digits over the sorted `name=value`
/// lines, so two machines with identical mitigation states share it. `none` when unrecorded.
pub fn mitigation_profile(m: &BTreeMap<String, String>) -> String {
    if m.is_empty() {
        return "none".to_string();
    }
    let mut h = Sha256::new();
    for (k, v) in m {
        h.update(k.trim().as_bytes());
        h.update(b"=");
        h.update(v.trim().as_bytes());
        h.update(b"\n");
    }
    hex(&h.finalize()[..4])
}

fn virt_label(kind: &str, hypervisor: Option<&str>) -> String {
    let kind = if kind.trim().is_empty() {
        "unknown"
    } else {
        kind.trim()
    };
    match hypervisor.map(str::trim).filter(|h| !h.is_empty()) {
        Some(h) => format!("{kind} ({h})"),
        None => kind.to_string(),
    }
}

/// The few fields read in the first pass (ordering runs per machine) without building the full
/// record. Unknown fields are skipped by serde.
#[derive(Debug, Deserialize)]
pub struct Head {
    #[serde(default)]
    pub id: String,
    pub source: HeadSource,
    pub environment: HeadEnv,
}

#[derive(Debug, Deserialize)]
pub struct HeadSource {
    #[serde(default)]
    pub date: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct HeadEnv {
    pub comparability: HeadComparability,
    #[serde(default)]
    pub incidental: HeadIncidental,
}

#[derive(Debug, Deserialize)]
pub struct HeadComparability {
    pub arch: String,
    pub kernel_release: String,
    #[serde(default)]
    pub cpu: HeadCpu,
    #[serde(default)]
    pub virtualization: HeadVirt,
    #[serde(default)]
    pub mitigations: BTreeMap<String, String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct HeadCpu {
    #[serde(default)]
    pub model_name: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct HeadVirt {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub hypervisor: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct HeadIncidental {
    #[serde(default)]
    pub machine_hash: Option<String>,
}

/// Reads a record's [`Head`], stopping as soon as `id`, `source` and `environment` have been
/// read: records put them before the bulky results, so the first pass need not tokenise whole
/// files. Whatever is wrong with the rest is found when the record is read in full. A file
/// without all three (or not an object) is read whole, for serde's own error.
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
            let (mut id, mut source, mut env) = (None, None, None);
            while let Some(key) = map.next_key::<String>()? {
                match key.as_str() {
                    "id" => id = Some(map.next_value::<String>()?),
                    "source" => source = Some(map.next_value::<HeadSource>()?),
                    "environment" => env = Some(map.next_value::<HeadEnv>()?),
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                if let (Some(_), Some(_), Some(_)) = (&id, &source, &env) {
                    if let (Some(id), Some(source), Some(environment)) = (id, source, env) {
                        *self.0 = Some(Head {
                            id,
                            source,
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
    pub fn series(&self) -> SeriesKey {
        let c = &self.environment.comparability;
        series_key(
            &c.arch,
            c.cpu.model_name.as_deref(),
            &c.mitigations,
            &c.virtualization.kind,
            c.virtualization.hypervisor.as_deref(),
        )
    }
}

fn series_key(
    arch: &str,
    cpu: Option<&str>,
    mitigations: &BTreeMap<String, String>,
    virt_kind: &str,
    hypervisor: Option<&str>,
) -> SeriesKey {
    SeriesKey {
        arch: arch.trim().to_string(),
        cpu: cpu
            .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "unknown CPU".to_string()),
        mitigations: mitigation_profile(mitigations),
        virt: virt_label(virt_kind, hypervisor),
    }
}

pub fn record_series(r: &RunRecord) -> SeriesKey {
    let c = &r.environment.comparability;
    series_key(
        &c.arch,
        c.cpu.model_name.as_deref(),
        &c.mitigations,
        &c.virtualization.kind,
        c.virtualization.hypervisor.as_deref(),
    )
}

/// One accepted run, as the index pages see it.
#[derive(Debug, Clone)]
pub struct RunInfo {
    pub id: String,
    pub arch: String,
    pub kernel: KernelVersion,
    /// Upstream base label (`6.8`): the kernel page and trend point this run belongs to.
    pub kbase: String,
    pub series: SeriesKey,
    pub machine: Option<String>,
    pub date: Option<String>,
    pub kind: SourceKind,
    pub tool: String,
    /// Path of the run page relative to the site root, without extension.
    pub page: String,
    pub metrics: Vec<Option<Val>>,
    pub confidence: f64,
    /// Emulated (QEMU TCG, `syscost lab`): its times are an emulator's. Shown on its run page
    /// and its own series (one virtualization kind), never pooled with measurements.
    pub emulated: bool,
}

impl RunInfo {
    pub fn from_record(r: &RunRecord) -> RunInfo {
        let c = &r.environment.comparability;
        let kernel = KernelVersion::parse(&c.kernel_release);
        let page = r.canonical_path();
        let page = page.strip_suffix(".json").unwrap_or(&page).to_string();
        RunInfo {
            id: r.id.clone(),
            arch: c.arch.trim().to_string(),
            kbase: kernel.base_label(),
            kernel,
            series: record_series(r),
            machine: r
                .environment
                .incidental
                .machine_hash
                .clone()
                .filter(|m| !m.trim().is_empty()),
            date: r.source.date.clone(),
            kind: r.source.kind,
            tool: r.source.tool.clone(),
            page,
            metrics: metrics::extract_all(r),
            confidence: r.settings.confidence,
            emulated: r.is_emulated(),
        }
    }

    /// The runs of `idx` that measured hardware (or a VM on it): what pooled views (the arch,
    /// metric and matrix pages, a kernel's summary) may put side by side.
    pub fn measured(runs: &[RunInfo], idx: &[usize]) -> Vec<usize> {
        idx.iter().copied().filter(|&i| !runs[i].emulated).collect()
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
        let r = syscost_site_bench::generate(1, 5).next().unwrap();
        let bytes = syscost_site_bench::to_file_bytes(&r);
        let early = read_head(&bytes).unwrap();
        let full: Head = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(early.id, full.id);
        assert_eq!(early.series(), full.series());
        assert_eq!(early.source.date, full.source.date);
        // Garbage after the head is left for the full read to find.
        let mut cut = bytes.clone();
        let at = String::from_utf8_lossy(&bytes).find("\"summary\"").unwrap();
        cut.truncate(at + 12);
        assert_eq!(read_head(&cut).unwrap().id, full.id);
        // Without all three fields: serde's own error, as before.
        let e = read_head(b"{\"id\": \"x\", \"source\": {}}").unwrap_err();
        assert!(e.to_string().contains("missing field `environment`"), "{e}");
        assert!(read_head(b"[1]").is_err());
        assert!(read_head(b"").is_err());
    }

    #[test]
    fn mitigation_profile_ignores_order_and_whitespace_only() {
        let mut a = BTreeMap::new();
        a.insert(
            "spectre_v2".to_string(),
            "Mitigation: Retpolines\n".to_string(),
        );
        a.insert("meltdown".to_string(), "Not affected".to_string());
        let mut b = BTreeMap::new();
        b.insert("meltdown".to_string(), " Not affected".to_string());
        b.insert(
            "spectre_v2".to_string(),
            "Mitigation: Retpolines".to_string(),
        );
        assert_eq!(mitigation_profile(&a), mitigation_profile(&b));
        b.insert("spectre_v2".to_string(), "Vulnerable".to_string());
        assert_ne!(mitigation_profile(&a), mitigation_profile(&b));
        assert_eq!(mitigation_profile(&BTreeMap::new()), "none");
    }

    #[test]
    fn series_key_normalises_cpu_whitespace_and_differs_by_virt() {
        let m = BTreeMap::new();
        let a = series_key("x86_64", Some("AMD  EPYC 7B13 "), &m, "vm", Some("KVM"));
        let b = series_key("x86_64", Some("AMD EPYC 7B13"), &m, "vm", Some("KVM"));
        let c = series_key("x86_64", Some("AMD EPYC 7B13"), &m, "bare-metal", None);
        assert_eq!(a, b);
        assert_eq!(a.id(), b.id());
        assert_ne!(a.id(), c.id());
        assert_eq!(a.virt, "vm (KVM)");
        assert_eq!(series_key("x", None, &m, "", None).cpu, "unknown CPU");
    }
}
