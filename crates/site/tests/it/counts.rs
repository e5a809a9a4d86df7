//! Instruction-count series (the lab's `--count instructions`) next to measured times: which
//! an architecture's page leads with, and where each kernel package goes on the history.

use crate::common::*;
use syscost_record::{KernelPackage, RunRecord};

/// A run counting instructions on `release`, booted from the Debian package `package` when
/// given, whose `native` count is `native`.
fn counted_on(seed: u64, release: &str, package: Option<&str>, native: f64) -> RunRecord {
    let r = counted(edited(base_record(seed), |r| {
        let c = &mut r.environment.comparability;
        c.arch = "x86_64".into();
        c.kernel_release = release.into();
        for x in r.results.iter_mut().filter(|x| x.id == "native") {
            (x.median_ns, x.ci_low_ns, x.ci_high_ns) = (Some(native), Some(native), Some(native));
        }
    }));
    edited(r, |r| {
        let lab = r.environment.lab.as_mut().expect("lab facts");
        lab.kernel_package = package.map(|v| KernelPackage {
            name: format!("linux-image-{release}"),
            version: v.into(),
            suite: Some("bookworm".into()),
        });
    })
}

fn build(records: &[RunRecord]) -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    for r in records {
        save(&data, r);
    }
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    (tmp, site)
}

/// The ids of a page's chart sections, in order.
fn chart_ids(html: &str) -> Vec<String> {
    html.split(r#"<section class="chartblock" id=""#)
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

/// An architecture whose times are of one kernel and whose instruction counts span three
/// leads with the counts: what has a history comes first (the x86_64 page led with one
/// kernel's times, the counts of eleven below). Times and counts stay on charts of their own.
#[test]
fn an_architecture_page_leads_with_the_series_that_has_history() {
    let measured = edited(base_record(60), |r| {
        let c = &mut r.environment.comparability;
        c.arch = "x86_64".into();
        c.kernel_release = "6.18.44-fc-v669".into();
    });
    let (_tmp, site) = build(&[
        measured,
        counted_on(61, "5.10.0-32-amd64", None, 231.0),
        counted_on(61, "6.1.0-50-amd64", None, 300.0),
        counted_on(61, "6.12.117+deb13-amd64", None, 314.0),
    ]);
    let html = std::fs::read_to_string(site.join("arch/x86_64/index.html")).unwrap();
    let ids = chart_ids(&html);
    let counts = ids
        .iter()
        .filter(|id| id.ends_with("-instructions"))
        .count();
    assert!(counts > 0 && counts < ids.len(), "{ids:?}");
    // Every count chart before every time chart.
    assert!(
        ids[..counts].iter().all(|id| id.ends_with("-instructions")),
        "{ids:?}"
    );
    // One unit per chart: no chart of times names instructions, and the reverse.
    for block in html.split(r#"<section class="chartblock""#).skip(1) {
        let title = &block[block.find("<h3>").unwrap()..block.find("</h3>").unwrap()];
        let svg = &block[block.find("<svg class=\"chart\"").unwrap()..];
        let svg = &svg[..svg.find("</svg>").unwrap()];
        if title.contains("instruction counts") {
            assert!(
                svg.contains(" (instructions)") && !svg.contains(" (ns)"),
                "{title}"
            );
        } else {
            assert!(!svg.contains("instructions"), "{title}");
        }
    }
}

/// Two packages of one Debian kernel (`6.1.0-47-amd64` is 6.1.170, `6.1.0-50-amd64` 6.1.176)
/// are two points of an instruction-count history, each its exact count, and the move from
/// one to the other is judged: they were one "6.1" point with a span of both counts.
#[test]
fn each_kernel_package_is_its_own_point_of_a_count_history() {
    let runs = [
        counted_on(62, "5.10.0-32-amd64", Some("5.10.223-1"), 231.0),
        counted_on(62, "6.1.0-47-amd64", Some("6.1.170-3"), 300.0),
        counted_on(62, "6.1.0-50-amd64", Some("6.1.176-1"), 330.0),
    ];
    let (_tmp, site) = build(&runs);
    for v in ["5.10.223", "6.1.170", "6.1.176"] {
        assert!(
            site.join(format!("kernels/{v}/index.html")).exists(),
            "no page of {v}"
        );
    }
    // 6.1 itself is no point: its page only lists the two packages' releases.
    let release = std::fs::read_to_string(site.join("kernels/6.1/index.html")).unwrap();
    assert!(release.contains("of its stable updates"), "{release}");
    assert!(!release.contains("<table"), "{release}");
    // The metric's numbers: each version its own row with its exact count, and no pooled
    // span drawn.
    let html = std::fs::read_to_string(site.join("metrics/r-native.html")).unwrap();
    for (v, n) in [("6.1.170", "300"), ("6.1.176", "330")] {
        let row = html
            .split("<tr>")
            .find(|r| r.contains(&format!(">{v}</a>")))
            .unwrap_or_else(|| panic!("no row of {v}: {html}"));
        assert!(row.contains(&format!("<td>{n} [{n}, {n}]")), "{v}: {row}");
    }
    assert!(
        !html.contains("eb span") && !html.contains("(span"),
        "a pooled span"
    );
    let changes: serde_json::Value =
        serde_json::from_slice(&std::fs::read(site.join("changes.json")).unwrap()).unwrap();
    assert!(
        changes
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["metric"] == "native"
                && c["from"] == "6.1.170"
                && c["to"] == "6.1.176"
                && c["delta_ns"] == 30.0),
        "{changes}"
    );
}
