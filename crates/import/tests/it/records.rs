//! What holds for every imported record, and the choice of parsers.

use crate::*;
use syscost_record::{content_id, validate, SourceKind};

#[test]
fn an_explicit_format_only_reads_that_format() {
    let e = try_import(SEED_000, ImportFormat::KselftestSud)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("no sud_benchmark result found in seeds/000"),
        "{e}"
    );
    for (seed, format) in [
        (SEED_000, ImportFormat::KselftestSeccomp),
        (SEED_003, ImportFormat::BpfBench),
        (SEED_004, ImportFormat::KselftestSud),
    ] {
        let explicit = try_import(seed, format).unwrap().records;
        assert!(explicit
            .iter()
            .all(|r| r.source.format.as_deref() == Some(format.name())));
        assert_eq!(explicit, import(seed), "{seed}");
    }
}

#[test]
fn every_imported_record_is_valid_single_sample_and_deterministic() {
    let all = [
        SEED_000,
        SEED_003,
        SEED_004,
        "seed000-quoted-interleaved-crlf.eml",
        "seed003-requoted-qp.eml",
        "seed004-unflattened-crlf.eml",
        "seccomp-ktap.txt",
        "seccomp-ktap-quoted.eml",
        "seccomp-ktap-qp-crlf.eml",
        "seccomp-ktap-negative.txt",
        "seccomp-ktap-truncated.txt",
        "seccomp-2020-two-runs.txt",
        "seccomp-2filters.txt",
        "sud-two-runs.txt",
        "bpf-bench-summary.txt",
        "bpf-bench-6.10-table.txt",
        "perf-bench-all.txt",
    ];
    for name in all {
        let rs = import(name);
        assert!(!rs.is_empty());
        assert_eq!(rs, import(name), "{name}: not deterministic");
        for r in &rs {
            assert_eq!(validate(r), vec![], "{name}");
            assert_eq!(r.id, content_id(r));
            assert_eq!(r.source.kind, SourceKind::Import);
            for res in &r.results {
                assert_eq!(res.samples, Some(1), "{name} {}", res.id);
                assert!(res.ci_low_ns.is_none() && res.ci_high_ns.is_none());
                if let Some(o) = &res.overhead {
                    assert!(o.ci_low_ns.is_none() && o.pct_ci_low.is_none());
                }
            }
            for e in &r.estimates {
                assert!(
                    e.ci_low_ns.is_none() && e.median_ns.abs() < 1e6,
                    "{name} {}",
                    e.id
                );
            }
        }
    }
}

#[test]
fn provenance_from_the_command_line_is_kept() {
    let bytes = std::fs::read(path(SEED_004)).unwrap();
    let prov = Provenance {
        source: Some("<202012011458.13B0254D@keescook>"),
        note: Some("quoted results"),
        ..Provenance::default()
    };
    let r = &import_bytes(&bytes, "x", ImportFormat::Auto, &prov)
        .unwrap()
        .records[0];
    assert_eq!(r.source.url.as_deref(), prov.source);
    assert_eq!(r.source.note.as_deref(), prov.note);
    assert_ne!(r.id, one(SEED_004).id);
}
