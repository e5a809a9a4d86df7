//! Charts with 50 kernel versions and 10 series, from the bench crate's synthetic series:
//! properties of the SVG the site draws (not pixels): each series its own marker shape, no
//! point outside the plot, releases without data as gaps on the version axis, labels that do
//! not overlap, a log axis where the series span more than ten times, and a huge interval
//! clipped with a marker instead of stretching the axis.

use crate::common::*;
use syscost_record::RunRecord;
use syscost_synth::Plan;

/// 4.0 to 6.18 (60 releases) less every sixth: 50 versions, with gaps.
fn versions() -> Vec<String> {
    let all = (0..=20)
        .map(|m| format!("4.{m}"))
        .chain((0..=19).map(|m| format!("5.{m}")))
        .chain((0..=18).map(|m| format!("6.{m}")));
    all.enumerate()
        .filter(|(i, _)| i % 6 != 5)
        .map(|(_, v)| v)
        .collect()
}

/// The attribute `name="…"` of the tag starting `tag`.
fn attr<'a>(tag: &'a str, name: &str) -> &'a str {
    let key = format!(" {name}=\"");
    let at = tag
        .find(&key)
        .map(|i| i + key.len())
        .unwrap_or_else(|| panic!("no {name} in {tag}"));
    &tag[at..at + tag[at..].find('"').unwrap()]
}

/// The numbers of an SVG path's `d`, in order.
fn path_numbers(d: &str) -> Vec<f64> {
    d.split(|c: char| c.is_ascii_alphabetic() || c == ' ')
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect()
}

/// Every chart section of a page: (its id, its SVG).
fn charts(page: &str) -> Vec<(String, String)> {
    page.split("<section class=\"chartblock\" id=\"")
        .skip(1)
        .filter_map(|s| {
            let id = s[..s.find('"').unwrap()].to_string();
            let start = s.find("<svg class=\"chart\"")?;
            let end = s[start..].find("</svg>").unwrap() + start;
            Some((id, s[start..end].to_string()))
        })
        .collect()
}

#[test]
fn fifty_versions_and_ten_series_stay_readable() {
    let vs = versions();
    assert_eq!(vs.len(), 50);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    let cpus: Vec<String> = (0..10).map(|i| format!("Test CPU model {i}")).collect();
    let machines: Vec<String> = (0..10).map(|i| format!("c0ffee00000000{i:02x}")).collect();
    let mut records: Vec<RunRecord> = Vec::new();
    for i in 0..10 {
        // Each series on every other version, so that every version has runs of five series.
        let mine: Vec<&str> = vs
            .iter()
            .enumerate()
            .filter(|(j, _)| (j + i) % 2 == 0)
            .map(|(_, v)| v.as_str())
            .collect();
        let mut plan = Plan::new(100 + i as u64, &machines[i], &mine);
        plan.cpu = cpus[i].as_str();
        // Twenty syscalls per operation: twenty times the costs of the others.
        if i == 9 {
            plan.syscalls_per_op = 20;
            plan.probe = "mix";
        }
        records.extend(syscost_synth::series(&plan));
    }
    // One run whose SUD overhead has an interval fifty times its median.
    let wide = records.len() / 2;
    records[wide] = edited(records[wide].clone(), |r| {
        let o = r
            .results
            .iter_mut()
            .find(|x| x.id == "sud.allow")
            .and_then(|x| x.overhead.as_mut())
            .expect("sud.allow overhead");
        o.ci_high_ns = Some(o.median_ns * 50.0);
    });
    for r in &records {
        save(&data, r);
    }
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));

    // The architecture page draws the three best-covered series of each headline metric and
    // links to the metric's page, which draws ten (and their numbers).
    let page = std::fs::read_to_string(site.join("arch/x86_64/index.html")).unwrap();
    for (id, svg) in charts(&page) {
        assert_eq!(svg.matches("<g class=\"series\"").count(), 3, "{id}");
    }
    assert!(page.contains("7 more series not drawn"), "{page}");
    let charts: Vec<(String, String)> = [
        "seccomp-entry",
        "seccomp-entry-fit",
        "seccomp-per-filter",
        "seccomp-per-filter-fit",
        "sud-allow",
        "sud-block",
        "bpf-tp",
        "bpf-rawtp",
    ]
    .iter()
    .filter_map(|slug| {
        let page = std::fs::read_to_string(site.join(format!("metrics/{slug}.html"))).ok()?;
        let c = charts(&page).into_iter().find(|c| c.0 == "x86_64")?;
        Some((slug.to_string(), c.1))
    })
    .collect();
    assert!(
        charts.len() >= 5,
        "{:?}",
        charts.iter().map(|c| &c.0).collect::<Vec<_>>()
    );
    for (id, svg) in &charts {
        // Ten series, each with a marker shape of its own (the definitions differ once their
        // colour is taken out).
        assert_eq!(svg.matches("<g class=\"series\"").count(), 10, "{id}");
        let defs = &svg[svg.find("<defs>").unwrap()..svg.find("</defs>").unwrap()];
        let shapes: Vec<String> = defs
            .split("<marker id=\"")
            .skip(1)
            .filter(|g| g.split('"').next().unwrap().contains("-m"))
            .map(|g| {
                let body = &g[g.find('>').unwrap()..g.find("</marker>").unwrap()];
                let mut s = body.to_string();
                for c in ["stroke=\"", "fill=\""] {
                    while let Some(at) = s.find(c) {
                        let end = s[at + c.len()..].find('"').unwrap() + at + c.len() + 1;
                        s.replace_range(at..end, "");
                    }
                }
                s
            })
            .collect();
        assert_eq!(shapes.len(), 10, "{id}");
        for a in 0..10 {
            for b in 0..a {
                assert_ne!(
                    shapes[a], shapes[b],
                    "{id}: series {a} and {b} share a shape"
                );
            }
        }
        // The plot: the axis path starts with the left edge and the bottom line.
        let axis = svg
            .split("<path class=\"axis\"")
            .nth(1)
            .expect("an axis path");
        let d = path_numbers(attr(axis, "d"));
        let (left, top, bottom, right) = (d[0], d[1], d[2], d[3]);
        // No marker outside the plot.
        let points: Vec<(f64, f64)> = svg
            .split("<path class=\"pts\"")
            .skip(1)
            .flat_map(|p| {
                let d = attr(p, "d").to_string();
                d.split('M')
                    .skip(1)
                    .map(|pt| {
                        let (x, y) = pt.strip_suffix("h0").unwrap().split_once(' ').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(!points.is_empty(), "{id}: no markers");
        for (x, y) in points {
            assert!(
                (left..=right).contains(&x) && (top..=bottom).contains(&y),
                "{id}: marker at ({x}, {y}) outside ({left}, {top})–({right}, {bottom})"
            );
        }
        // One tick per version, placed by release: the distance between neighbours is one
        // step per release, two where a release has no run.
        let ticks: Vec<f64> = d[4..].chunks(3).map(|c| c[0]).collect();
        assert_eq!(ticks.len(), 50, "{id}");
        let gaps: Vec<f64> = ticks.windows(2).map(|w| w[1] - w[0]).collect();
        let unit = gaps.iter().cloned().fold(f64::INFINITY, f64::min);
        let mut doubled = 0;
        for g in &gaps {
            let k = g / unit;
            assert!(
                (k - k.round()).abs() < 0.1 && (1.0..=2.0).contains(&k.round()),
                "{id}: {gaps:?}"
            );
            doubled += usize::from(k.round() == 2.0);
        }
        assert_eq!(
            doubled, 9,
            "{id}: the nine missing releases are gaps: {gaps:?}"
        );
        // Labels as many as fit, none overlapping.
        let labels: Vec<f64> = svg
            .split("<text class=\"tick")
            .skip(1)
            .filter_map(|t| t.split("translate(").nth(1))
            .map(|t| t.split(' ').next().unwrap().parse().unwrap())
            .collect();
        assert!(labels.len() >= 20, "{id}: {} labels", labels.len());
        for w in labels.windows(2) {
            assert!(w[1] - w[0] >= 15.9, "{id}: labels {w:?} overlap");
        }
    }
    let chart = |id: &str| -> &str {
        &charts
            .iter()
            .find(|c| c.0 == id)
            .unwrap_or_else(|| panic!("no {id} chart"))
            .1
    };
    // The entry cost of the 20-syscall series is twenty times the others': a log axis.
    assert!(chart("seccomp-entry").contains("log scale"));
    // SUD overhead is about the same in every series: linear, and the one huge interval is
    // clipped at the top with a marker naming its bound, every other bar fully drawn.
    let sud = chart("sud-allow");
    assert!(!sud.contains("log scale"));
    assert_eq!(sud.matches("<path class=\"clip\"").count(), 1, "{sud}");
    assert!(sud.contains("interval up to"));
    for (id, svg) in &charts {
        if id != "sud-allow" {
            assert!(
                !svg.contains("class=\"clip\""),
                "{id}: clipped without a reason"
            );
        }
    }
}
