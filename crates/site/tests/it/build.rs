//! `syscost-site build` end to end: synthetic plus hand-made records into a temporary site,
//! then the site is inspected like a visitor (and a link checker) would.

use crate::common::*;
use std::path::Path;
use std::sync::OnceLock;
use syscost_record::{Estimate, EstimateId, Method, RunRecord, SourceKind};
use syscost_site::model::summary::record_series;
use syscost_synth::{Plan, Step};

const HOSTILE: &str = "<script>alert(1)</script>";

/// The fixture data set, built once for all tests in this file.
struct Fixture {
    data: std::path::PathBuf,
    site: std::path::PathBuf,
    new_id: String,
    new_page: String,
    /// The new run's record, at its canonical path.
    new_record: String,
    hostile_page: String,
    import_page: String,
    /// One machine on eight versions: getpid with a step in `sud.allow` at 6.9, `mix` and the
    /// sequential method without one.
    step: Vec<RunRecord>,
    mix: Vec<RunRecord>,
    sequential: Vec<RunRecord>,
    unknown_page: String,
    tcg_page: String,
}

/// Runs in the fixture: synthetic, hand-made, the three series, the unknown import, the
/// measured and the emulated lab run.
const RUNS: usize = 230 + 4 + 3 * 8 + 1 + 2;

/// The versions of the comparability fixtures.
const VERSIONS: &[&str] = &["6.4", "6.5", "6.6", "6.7", "6.8", "6.9", "6.10", "6.11"];
/// Where the step is (index into VERSIONS) and how big.
const STEP_AT: usize = 5;
const STEP_NS: f64 = 150.0;

/// A series of the comparability fixtures as collected (not synthetic) records.
fn collected_series(plan: &Plan) -> Vec<RunRecord> {
    syscost_synth::series(plan)
        .into_iter()
        .map(|r| {
            edited(r, |r| {
                r.source.kind = SourceKind::Collected;
                r.source.tool = "syscost 0.1.0".into();
                r.source.note = None;
                r.notes.clear();
                r.environment.comparability.arch = "cmparch".into();
            })
        })
        .collect()
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = fixture_dir("site-build");
        let data = dir.join("records");
        // Enough synthetic runs to paginate the run list (200 per page).
        assert_eq!(syscost_synth::write(&data, 230, 3).unwrap(), 230);

        // Two runs of one machine: the newer page must compare with the older.
        let old = edited(base_record(11), |r| {
            r.environment.comparability.arch = "testarch".into();
            r.environment.comparability.kernel_release = "6.8.0-45-generic".into();
            r.environment.incidental.machine_hash = Some("feedface00000001".into());
            r.source.date = Some("2024-03-01T10:00:00Z".into());
            for x in &mut r.results {
                if x.id == "native" || x.id == "null" {
                    x.status = syscost_record::Status::Measured;
                    x.median_ns = Some(100.0);
                    x.ci_low_ns = Some(99.0);
                    x.ci_high_ns = Some(101.0);
                }
            }
        });
        let new = edited(old.clone(), |r| {
            r.environment.comparability.kernel_release = "6.9.2".into();
            r.source.date = Some("2024-06-01T10:00:00Z".into());
            for x in &mut r.results {
                // Within the CIs for `native`; clearly beyond them for `null`.
                if x.id == "native" {
                    x.median_ns = Some(100.5);
                    x.ci_low_ns = Some(99.5);
                    x.ci_high_ns = Some(101.5);
                }
                if x.id == "null" {
                    x.median_ns = Some(120.0);
                    x.ci_low_ns = Some(119.0);
                    x.ci_high_ns = Some(121.0);
                }
            }
        });
        save(&data, &old);
        save(&data, &new);

        // Hostile strings everywhere a stranger can put free text (names with a grammar, such
        // as the arch, refuse them: the hostile corpus covers those).
        let hostile = edited(base_record(12), |r| {
            let c = &mut r.environment.comparability;
            c.kernel_release = "6.7.0-hostile".into();
            c.cpu.model_name = Some(format!("<img src=x onerror=alert(2)>{HOSTILE}"));
            c.virtualization.hypervisor = Some(HOSTILE.into());
            c.mitigations.insert(
                "spectre_v2".into(),
                format!("<svg onload=alert(3)>{HOSTILE}"),
            );
            c.cmdline = Some(format!("\"'><b>bold</b>{HOSTILE}"));
            r.environment.incidental.clocksource = Some("\"><script>x</script>".to_string());
            r.source.url = Some("javascript:alert(4)".into());
            r.source.note = Some(HOSTILE.into());
            r.notes = vec![HOSTILE.into()];
            if let Some(x) = r.results.iter_mut().find(|x| x.id == "bpf.tp") {
                x.status = syscost_record::Status::Skipped;
                x.reason = Some(format!("because {HOSTILE}"));
                x.median_ns = None;
                x.ci_low_ns = None;
                x.ci_high_ns = None;
                x.overhead = None;
                x.throughput_mops = None;
            }
            r.results[0].description = HOSTILE.into();
            r.estimates[0].label = HOSTILE.into();
        });
        save(&data, &hostile);

        // An import-like record: single-sample numbers, no intervals, no machine identity.
        let import = edited(base_record(13), |r| {
            r.source.kind = SourceKind::Import;
            r.source.format = Some("kselftest-seccomp".into());
            r.source.url = Some("https://example.org/log".into());
            r.environment.comparability.arch = "importarch".into();
            r.environment.incidental.machine_hash = None;
            for x in &mut r.results {
                x.ci_low_ns = None;
                x.ci_high_ns = None;
                x.throughput_mops = None;
                if let Some(o) = &mut x.overhead {
                    o.ci_low_ns = None;
                    o.ci_high_ns = None;
                    o.pct_ci_low = None;
                    o.pct_ci_high = None;
                }
            }
            let entry = EstimateId::Entry;
            r.estimates = vec![Estimate {
                id: entry.id().into(),
                label: entry.label().into(),
                formula: entry.kernel_formula().unwrap_or_default().into(),
                median_ns: 42.0,
                ci_low_ns: None,
                ci_high_ns: None,
                samples: 1,
                origin: None,
            }];
        });
        save(&data, &import);

        // One machine, one kernel per version, three series that must never be pooled or
        // compared with each other: two probes, two methods. Only the first has a step.
        let base = Plan::new(31, "cafe0000c0000001", VERSIONS);
        let step = collected_series(&Plan {
            step: Some(Step {
                at: STEP_AT,
                id: "sud.allow",
                ns: STEP_NS,
            }),
            ..base
        });
        let mix = collected_series(&Plan {
            seed: 32,
            probe: "mix",
            syscalls_per_op: 5,
            ..base
        });
        let sequential = collected_series(&Plan {
            seed: 33,
            method: Method::Sequential,
            ..base
        });
        for r in step.iter().chain(&mix).chain(&sequential) {
            save(&data, r);
        }

        // An imported log that does not say its architecture or kernel.
        let unknown = edited(base_record(14), |r| {
            r.source.kind = SourceKind::Import;
            r.source.method = Method::External;
            r.source.format = Some("kselftest-seccomp".into());
            r.source.date = None;
            let c = &mut r.environment.comparability;
            c.arch = "unknown".into();
            c.kernel_release = "unknown".into();
            r.environment.incidental.machine_hash = None;
        });
        save(&data, &unknown);

        // The same machine measured, and emulated under TCG with a number no measurement has:
        // the emulated one is on its own run and series pages, in no pooled view.
        let lab = |seed, ns: f64| {
            edited(base_record(seed), |r| {
                r.environment.comparability.arch = "labarch".into();
                r.environment.comparability.kernel_release = "6.1.0-50-amd64".into();
                for x in &mut r.results {
                    if let Some(o) = x.overhead.as_mut().filter(|_| x.id == "sud.block") {
                        x.status = syscost_record::Status::Measured;
                        o.median_ns = ns;
                        o.ci_low_ns = Some(ns - 1.0);
                        o.ci_high_ns = Some(ns + 1.0);
                    }
                }
            })
        };
        save(&data, &lab(15, 3210.0));
        let tcg = emulated(lab(16, 987654.0));
        save(&data, &tcg);

        // A broken record: the default build goes on without it.
        let broken = data.join("runs/x86_64/6.8/0000000000000000.json");
        std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
        std::fs::write(&broken, b"{ \"schema\": 1, ").unwrap();

        let site = dir.join("site");
        let o = run(&[
            "build",
            "--data",
            data.to_str().unwrap(),
            "--out",
            site.to_str().unwrap(),
            "--base-url",
            "https://example.github.io/syscost/",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("1 record(s) left out"), "{err}");
        assert!(
            err.contains("0000000000000000.json") && err.contains("not valid JSON"),
            "{err}"
        );

        let page = |r: &syscost_record::RunRecord| page_of(&site, &r.id);
        Fixture {
            new_id: new.id.clone(),
            new_page: page(&new),
            new_record: new.canonical_path(),
            hostile_page: page(&hostile),
            import_page: page(&import),
            unknown_page: page(&unknown),
            step,
            mix,
            sequential,
            tcg_page: page(&tcg),
            data,
            site,
        }
    })
}

fn read(site: &Path, rel: &str) -> String {
    std::fs::read_to_string(site.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

#[test]
fn every_internal_link_resolves() {
    let f = fixture();
    let broken = broken_links(&f.site);
    assert!(
        broken.is_empty(),
        "{} broken links, e.g. {:?}",
        broken.len(),
        &broken[..broken.len().min(10)]
    );
    // The checker itself must notice a broken link.
    let pages = html_pages(&f.site).count();
    assert!(pages > 250, "{pages}");
}

#[test]
fn link_checker_detects_breakage() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("a")).unwrap();
    std::fs::write(
        tmp.path().join("a/x.html"),
        "<a href=\"../y.html\">y</a><a href=\"../../z.html\">z</a><a href=\"/abs.html\">q</a><p id=\"here\">",
    )
    .unwrap();
    std::fs::write(
        tmp.path().join("y.html"),
        "<img src=\"a/x.html#top\"><a href=\"a/x.html#here\">h</a><a href=\"#\">t</a>",
    )
    .unwrap();
    let broken = broken_links(tmp.path());
    // Leaving the site, an absolute link, and an anchor the page does not have.
    assert_eq!(broken.len(), 3, "{broken:?}");
    assert!(
        broken.iter().any(|b| b.contains("no id=\"top\"")),
        "{broken:?}"
    );
}

#[test]
fn two_builds_are_byte_identical() {
    let f = fixture();
    let again = f.site.with_file_name("site2");
    let o = run(&[
        "build",
        "--data",
        f.data.to_str().unwrap(),
        "--out",
        again.to_str().unwrap(),
        "--base-url",
        "https://example.github.io/syscost/",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a = files(&f.site);
    assert_eq!(a, files(&again));
    for k in &a {
        let (x, y) = (std::fs::read(f.site.join(k)), std::fs::read(again.join(k)));
        assert!(x.unwrap() == y.unwrap(), "{k} differs between builds");
    }
}

#[test]
fn record_strings_never_become_markup() {
    let f = fixture();
    for (page, html) in html_pages(&f.site) {
        // The only script is our own optional table sorter.
        assert_eq!(html.matches("<script").count(), 1, "{page}");
        assert!(html.contains("sort.js\" defer></script>"), "{page}");
        for bad in [
            "<img",
            "<svg onload",
            "<b>bold",
            "href=\"javascript:",
            "alert(1)</script>",
        ] {
            assert!(!html.contains(bad), "{page} contains raw {bad}");
        }
    }
    let feed = read(&f.site, "feed.xml");
    assert!(
        !feed.contains("<script") && !feed.contains("<img"),
        "feed.xml"
    );
    // The hostile run is there, with its strings shown as text.
    let html = read(&f.site, &f.hostile_page);
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(
        html.contains("javascript:alert(4)"),
        "the URL is shown as text"
    );
}

#[test]
fn home_shows_headlines_and_labels_synthetic_data() {
    let f = fixture();
    let home = read(&f.site, "index.html");
    assert!(home.contains("Headline numbers by series"));
    assert!(home.contains("seccomp entry cost (kernel formula)"));
    assert!(home.contains("SUD on, selector BLOCK"));
    assert!(home.contains("<strong>Synthetic data:</strong> 230 of these runs"));
    assert!(home.contains("1 record(s) in the data directory could not be used"));
    let run = html_pages(&f.site)
        .into_iter()
        .find(|(p, h)| p.starts_with("runs/x86_64/") && h.contains("badge synthetic"))
        .expect("a synthetic run page");
    assert!(run
        .1
        .contains("title=\"generated for tests and benchmarks, not a measurement\""));
}

#[test]
fn run_page_shows_the_run_and_publishes_its_record() {
    let f = fixture();
    let html = read(&f.site, &f.new_page);
    assert!(html.contains("6.8.0-45-generic") || html.contains(&f.new_id));
    // A run is no longer set against one earlier run (single runs differ beyond their
    // intervals between reruns): its page links the page against its series instead.
    assert!(!html.contains("Nearest earlier version"));
    assert!(html.contains("against the series and other machines"));
    // The raw record is at its canonical path, in the one form its id covers (which is the
    // form the data directory holds it in).
    let raw = f.site.join(&f.new_record);
    let orig = f.data.join(&f.new_record);
    let raw = std::fs::read(raw).unwrap();
    assert_eq!(raw, std::fs::read(orig).unwrap());
    let rec: syscost_record::RunRecord = serde_json::from_slice(&raw).unwrap();
    assert_eq!(raw, syscost_record::to_file_json(&rec).as_bytes());
    assert!(html.contains(&format!("/{}.json\">raw record</a>", f.new_id)));
}

#[test]
fn imported_numbers_have_no_error_bars() {
    let f = fixture();
    let arch = read(&f.site, "arch/importarch/index.html");
    let svg_start = arch.find("<svg class=\"chart\"").expect("a chart");
    let svg = &arch[svg_start..arch[svg_start..].find("</svg>").unwrap() + svg_start];
    assert!(
        !svg.contains("class=\"eb"),
        "an error bar was drawn for a CI-less number"
    );
    // Points are drawn by the markers of a path of points: the hollow one, never the filled.
    assert!(svg.contains("marker-mid=\"url(#"), "no points drawn");
    assert!(svg.contains("-h0)\""), "CI-less points are hollow");
    assert!(!svg.contains("-m0)\""), "CI-less points are hollow");
    let run = read(&f.site, &f.import_page);
    assert!(
        run.contains("<span class=\"badge\" title=\"parsed from a published log\">imported</span>")
    );
    assert!(run.contains("href=\"https://example.org/log\""));
    assert!(run.contains("No intervals: single samples."));
    // How it was imported is on the page of what it shares with the runs of its machine.
    assert!(read(&f.site, &env_of(&run)).contains("imported by"));
    // Synthetic runs do draw their intervals.
    let x86 = read(&f.site, "arch/x86_64/index.html");
    assert!(x86.contains("class=\"eb"));
}

#[test]
fn the_scenario_note_names_a_baseline_only_when_some_overhead_has_one() {
    let dir = fixture_dir("no-overhead");
    let data = dir.join("records");
    let with = base_record(21);
    let without = edited(base_record(22), |r| {
        r.results.iter_mut().for_each(|x| x.overhead = None);
    });
    for r in [&with, &without] {
        save(&data, r);
    }
    let site = dir.join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let note = |id: &str| {
        let html = read(&site, &page_of(&site, id));
        let at = html.find("<h2 id=\"results\">").expect("a scenario table");
        html[at..]
            .split("</p>")
            .next()
            .unwrap_or_default()
            .to_string()
    };
    let named = note(&with.id);
    assert!(
        named.contains("overhead [CI] over <span class=\"mono\">native</span> unless named"),
        "{named}"
    );
    let none = note(&without.id);
    assert!(none.contains("median [95% CI]; n= samples"), "{none}");
    assert!(!none.contains("overhead [CI] over"), "{none}");
}

#[test]
fn emulated_runs_are_never_pooled_with_measurements() {
    let f = fixture();
    let run = read(&f.site, &f.tcg_page);
    assert!(
        run.contains("987.654 µs"),
        "the run page shows its own number"
    );
    assert!(run.contains("qemu-tcg"));
    for page in [
        "arch/labarch/index.html",
        "matrix/sud-block.html",
        "metrics/sud-block.html",
    ] {
        let html = read(&f.site, page);
        assert!(!html.contains("987,654"), "{page} pools the emulated run");
    }
    // The measured run is there (the architecture page links its charts' numbers to the
    // metric page).
    assert!(read(&f.site, "metrics/sud-block.html").contains("3,210"));
    // Its own series (one virtualization kind) charts it.
    let series = html_pages(&f.site)
        .into_iter()
        .find(|(p, h)| p.starts_with("series/") && h.contains("987,654"));
    assert!(series.is_some_and(|(_, h)| !h.contains("3,210")));
}

#[test]
fn indexes_paginate_and_pages_stay_bounded() {
    let f = fixture();
    // The runs page is the newest runs; every run is listed once on its kernel's pages (and
    // once by month, `lists.rs`).
    let newest = read(&f.site, "runs/index.html");
    let rows = |h: &str| h.matches("<tr><td>").count();
    assert_eq!(rows(&newest), syscost_site::commands::build::PAGE_SIZE);
    assert!(newest.contains(&format!("The {} newest of {RUNS} runs", rows(&newest))));
    assert!(!f.site.join("runs/page-2.html").exists());
    for (page, html) in html_pages(&f.site) {
        assert!(html.len() < 2_000_000, "{page} is {} bytes", html.len());
    }
    // A kernel with more runs than a page holds: its list is paged, every run on one page.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    let n = syscost_site::commands::build::PAGE_SIZE + 3;
    let plan = Plan {
        runs_per_version: n,
        ..Plan::new(43, "beef000000000002", &["6.1"])
    };
    let rs = syscost_synth::series(&plan);
    assert_eq!(rs.len(), n);
    for r in &rs {
        save(&data, r);
    }
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let first = read(&site, "kernels/6.1/index.html");
    let second = read(&site, "kernels/6.1/page-2.html");
    let runs_of = |h: &str| {
        rs.iter()
            .filter(|r| h.contains(&format!(">{}</a>", r.id)))
            .count()
    };
    assert_eq!(runs_of(&first), syscost_site::commands::build::PAGE_SIZE);
    assert_eq!(runs_of(&first) + runs_of(&second), n);
    assert!(first.contains("href=\"../../kernels/6.1/page-2.html\" rel=\"next\""));
    // The series' runs on the version: pages of at most RUNS_A_PAGE runs, oldest first, each
    // linking the next; every run on exactly one of them.
    let per = syscost_site::commands::build::RUNS_A_PAGE;
    let pages: Vec<(String, String)> = html_pages(&site)
        .filter(|(p, _)| p.starts_with("runs/") && p.matches('/').count() > 1)
        .collect();
    assert_eq!(pages.len(), n.div_ceil(per));
    assert_eq!(broken_links(&site), Vec::<String>::new());
    let mut by_date: Vec<&RunRecord> = rs.iter().collect();
    // In time order (ties by release, then id).
    by_date.sort_by_key(|r| {
        let release = &r.environment.comparability.kernel_release;
        (r.source.date.clone(), release.clone(), r.id.clone())
    });
    for (k, chunk) in by_date.chunks(per).enumerate() {
        let name = if k == 0 {
            String::new()
        } else {
            format!("-{}", k + 1)
        };
        let (path, html) = pages
            .iter()
            .find(|(p, _)| p.ends_with(&format!("{name}.html")) && (k > 0 || !p.contains('-')))
            .unwrap_or_else(|| panic!("no page {}", k + 1));
        let shown = rs
            .iter()
            .filter(|r| html.contains(&format!("<h2 id=\"{}\">", r.id)))
            .count();
        assert_eq!(shown, chunk.len(), "{path}");
        for r in chunk {
            assert!(
                html.contains(&format!("<h2 id=\"{}\">", r.id)),
                "{path}: {}",
                r.id
            );
        }
        assert_eq!(html.contains("rel=\"next\""), k + 1 < pages.len(), "{path}");
        assert_eq!(html.contains("rel=\"prev\""), k > 0, "{path}");
    }
}

/// A run that moves to another page of its version's runs (an earlier run was added before it)
/// is linked on its new page by the pages that compare with it, in a rebuild as in a build
/// from scratch.
#[test]
fn a_run_moved_to_another_page_is_linked_there_after_a_rebuild() {
    let per = syscost_site::commands::build::RUNS_A_PAGE;
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    let site = tmp.path().join("site");
    let plan = Plan {
        runs_per_version: per,
        ..Plan::new(51, "beef000000000003", &["6.1", "6.2"])
    };
    let rs = syscost_synth::series(&plan);
    for r in &rs {
        save(&data, r);
    }
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    // The 6.1 runs fill one page; the 6.2 runs compare with the latest of them.
    let latest = rs
        .iter()
        .filter(|r| r.environment.comparability.kernel_release == "6.1")
        .max_by_key(|r| r.source.date.clone())
        .unwrap();
    let before = page_of(&site, &latest.id);
    assert!(!before.contains('-'), "{before}");
    let earliest = edited(rs[0].clone(), |r| {
        r.source.date = Some("2000-01-01T00:00:00Z".into());
    });
    save(&data, &earliest);
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let after = page_of(&site, &latest.id);
    assert!(after.ends_with("-2.html"), "{after}");
    assert_eq!(broken_links(&site), Vec::<String>::new());
    let fresh = tmp.path().join("fresh");
    let o = build_site(&data, &fresh);
    assert!(o.status.success(), "{}", stderr(&o));
    let strip = |mut t: std::collections::BTreeMap<String, Vec<u8>>| {
        t.remove(".syscost-manifest");
        t
    };
    assert!(
        strip(tree(&site)) == strip(tree(&fresh)),
        "the rebuild differs from a fresh build"
    );
}

/// What axe-core's landmark-unique rule asks, on every page of the fixture (the browser test
/// audits one page of each kind; this covers the rest, paginated lists included): no two
/// labelled regions or navigation landmarks of a page share a label.
#[test]
fn landmarks_of_a_page_have_labels_of_their_own() {
    let f = fixture();
    let mut pages = 0;
    for (page, html) in html_pages(&f.site) {
        let mut seen = std::collections::BTreeSet::new();
        for tag in html.split('<').skip(1) {
            let tag = &tag[..tag.find('>').unwrap_or(tag.len())];
            let landmark = tag.starts_with("nav ") || tag.contains("role=\"region\"");
            let Some(at) = tag.find("aria-label=\"").filter(|_| landmark) else {
                continue;
            };
            let label = &tag[at + 12..];
            let label = &label[..label.find('"').unwrap()];
            let kind = if tag.starts_with("nav") {
                "nav"
            } else {
                "region"
            };
            assert!(
                seen.insert((kind, label.to_string())),
                "{page}: two {kind} landmarks labelled {label:?}"
            );
        }
        pages += 1;
    }
    assert!(pages > 100, "{pages} pages");
}

/// "1 runs", "1 identified machines": no page of the fixture counts one thing in the plural.
#[test]
fn one_is_never_counted_in_the_plural() {
    let f = fixture();
    let plurals = [
        "runs",
        "identified machines",
        "machines",
        "kernel versions",
        "architectures",
        "steps",
        "samples",
    ];
    for (page, html) in html_pages(&f.site) {
        for (at, _) in html.match_indices("1 ") {
            let before = html[..at].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_digit() || c == '.' || c == ',') {
                continue;
            }
            let rest = &html[at + 2..];
            for p in plurals {
                let word_end = rest
                    .strip_prefix(p)
                    .and_then(|r| r.chars().next())
                    .is_some_and(|c| !c.is_alphanumeric());
                assert!(
                    !word_end,
                    "{page}: \"1 {p}\" in …{}…",
                    &html[at.saturating_sub(60)..(at + 40).min(html.len())]
                );
            }
        }
    }
}

#[test]
fn exports_list_every_run() {
    let f = fixture();
    let runs = index_runs(&f.site);
    assert_eq!(runs.len(), RUNS);
    // Headline metrics in the order of the index's `metrics`: [median, low, high] or null.
    let metrics = json(&f.site, "index.json")["metrics"]
        .as_array()
        .unwrap()
        .len();
    assert!(runs
        .iter()
        .all(|r| r["metrics"].as_array().unwrap().len() == metrics));
    assert!(runs
        .iter()
        .any(|r| r["metrics"][0].as_array().is_some_and(|m| m.len() == 3)));
    // Fewer runs than a file holds: one file of each kind, every run in it.
    let csv = read(&f.site, "exports/runs.csv");
    assert_eq!(csv.lines().count(), RUNS + 1);
    assert!(csv.starts_with("id,date,kind,arch,"));
    // Its record links resolve from the file, one directory below the site's root.
    let record = csv.lines().nth(1).unwrap().split(',').nth(11).unwrap();
    assert!(
        record.starts_with("https://") || f.site.join("exports").join(record).is_file(),
        "{record}"
    );
    let runs_page = read(&f.site, "runs/index.html");
    assert!(
        runs_page.contains("href=\"../exports/runs.csv\""),
        "{runs_page}"
    );
    let feed = read(&f.site, "feed.xml");
    // The 50 newest dated runs, and the dated changes (50 at most).
    let changes: serde_json::Value = serde_json::from_str(&read(&f.site, "changes.json")).unwrap();
    let dated = changes
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["date"].is_string())
        .count();
    assert_eq!(feed.matches("<entry>").count(), 50 + dated.min(50));
    assert_eq!(feed.matches("<id>urn:syscost:run:").count(), 50);
    assert!(feed.contains("<link href=\"https://example.github.io/syscost/runs/"));
    assert!(
        feed.contains("<link rel=\"self\" href=\"https://example.github.io/syscost/feed.xml\"/>")
    );
}

#[test]
fn kernel_pages_use_upstream_versions() {
    let f = fixture();
    // 6.8.0-45-generic is listed on the 6.8 page, 6.9.2 on its own.
    let k = read(&f.site, "kernels/6.8/index.html");
    assert!(k.contains("6.8.0-45-generic"));
    // Its runs are in one table ordered by machine, which each row names.
    assert!(k.contains("<th>machine<th>"), "no machine column");
    assert!(
        k.contains("<td>feedface00000001<td>"),
        "the machine of the run is not named"
    );
    assert!(read(&f.site, "kernels/6.9.2/index.html").contains(&f.new_id));
    let list = read(&f.site, "kernels/index.html");
    let pos = |s: &str| {
        list.find(&format!(">{s}</a>"))
            .unwrap_or_else(|| panic!("{s} missing"))
    };
    assert!(pos("6.10") < pos("6.9") && pos("6.9") < pos("6.8") && pos("6.8") < pos("6.8-rc1"));
}

#[test]
fn empty_data_builds_a_site_that_says_so_and_missing_data_is_an_error() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("empty");
    std::fs::create_dir_all(&data).unwrap();
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(read(&site, "index.html").contains("No runs yet"));
    assert!(broken_links(&site).is_empty());
    // Issue 42: a missing data directory built an empty site too (see
    // hostile::a_bad_data_path_is_an_error_and_the_published_site_stays).
    let o = build_site(&tmp.path().join("missing"), &tmp.path().join("site2"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("missing: does not exist"),
        "{}",
        stderr(&o)
    );
    assert!(!tmp.path().join("site2").exists());
}

#[test]
fn strict_build_fails_and_keeps_the_old_site() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    save(&data, &base_record(21));
    let site = tmp.path().join("site");
    let args = [
        "build",
        "--data",
        data.to_str().unwrap(),
        "--out",
        site.to_str().unwrap(),
    ];
    assert!(run(&args).status.success());
    let before = tree(&site);
    std::fs::write(data.join("runs/bad.json"), b"[]").unwrap();
    let mut strict = args.to_vec();
    strict.push("--strict");
    let o = run(&strict);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("runs/bad.json"), "{}", stderr(&o));
    assert_eq!(
        tree(&site),
        before,
        "a failed strict build must not touch the site"
    );
    // Without --strict it builds, warns, and leaves the bad record out.
    let o = run(&args);
    assert!(o.status.success());
    assert!(stderr(&o).contains("warning: 1 record(s) left out"));
}

#[test]
fn refuses_to_replace_a_directory_it_did_not_make() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("precious");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("thesis.tex"), b"important").unwrap();
    let data = tmp.path().join("data");
    save(&data, &base_record(22));
    let o = run(&[
        "build",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("refusing to replace"), "{}", stderr(&o));
    assert!(out.join("thesis.tex").exists());
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(run(&["build", "--bogus"]).status.code(), Some(2));
    assert_eq!(
        run(&["build", "--base-url", "example.org"]).status.code(),
        Some(2)
    );
    // Synthetic records are made by the bench crate; the production binary has no such command.
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("records");
    let o = run(&["synth", "--runs", "1", "--out", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(!out.exists());
}

fn json(site: &Path, rel: &str) -> serde_json::Value {
    serde_json::from_str(&read(site, rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The runs of the files the JSON index lists, each row read by its file's `run_fields` as an
/// object.
fn index_runs(site: &Path) -> Vec<serde_json::Value> {
    let idx = json(site, "index.json");
    let shards = idx["shards"].as_array().expect("shards");
    let mut rows = Vec::new();
    for s in shards {
        let file = json(site, s["json"].as_str().expect("a file of runs"));
        let listed = file["runs"].as_array().expect("runs").len();
        assert_eq!(s["runs"].as_u64(), Some(listed as u64), "{s}");
        assert_eq!(file["run_fields"], idx["run_fields"]);
        rows.push(file);
    }
    assert_eq!(
        idx["runs"].as_u64(),
        Some(
            rows.iter()
                .map(|f| f["runs"].as_array().unwrap().len() as u64)
                .sum()
        )
    );
    rows.iter()
        .flat_map(|f| {
            let fields = f["run_fields"].as_array().expect("run_fields").clone();
            f["runs"]
                .as_array()
                .expect("runs")
                .clone()
                .into_iter()
                .map(move |row| (fields.clone(), row))
        })
        .map(|(fields, row)| {
            let row = row.as_array().expect("a run is a row");
            assert_eq!(row.len(), fields.len(), "a row has every field");
            let obj = fields
                .iter()
                .zip(row)
                .map(|(k, v)| (k.as_str().unwrap().to_string(), v.clone()))
                .collect();
            serde_json::Value::Object(obj)
        })
        .collect()
}

/// Run id → series id, from the JSON index.
fn series_of_runs(site: &Path) -> std::collections::BTreeMap<String, String> {
    index_runs(site)
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["series"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn probes_and_methods_are_separate_series_never_pooled() {
    let f = fixture();
    let ids: Vec<String> = [&f.step, &f.mix, &f.sequential]
        .iter()
        .map(|s| record_series(&s[0]).id())
        .collect();
    assert_eq!(
        ids.iter().collect::<std::collections::BTreeSet<_>>().len(),
        3,
        "{ids:?}"
    );
    // Every run of a fixture series is in its series.
    let of = series_of_runs(&f.site);
    for (runs, id) in [&f.step, &f.mix, &f.sequential].iter().zip(&ids) {
        for r in runs.iter() {
            assert_eq!(&of[&r.id], id);
        }
        // Each series page says in words what is the same in it.
        let page = read(&f.site, &format!("series/{id}.html"));
        assert!(page.contains("<th>probe</th>"), "{id}");
        assert!(page.contains("<th>method</th>"), "{id}");
    }
    let mix_page = read(&f.site, &format!("series/{}.html", ids[1]));
    assert!(mix_page.contains("5 syscalls (mix)"));
    assert!(read(&f.site, &format!("series/{}.html", ids[2])).contains("sequential"));
    // One run of each series per version: a point made of two or three runs would be a pool.
    for v in VERSIONS {
        let k = read(&f.site, &format!("kernels/{v}/index.html"));
        for id in &ids {
            let row = k
                .lines()
                .find(|l| l.contains(&format!(">{id}</a>")))
                .unwrap_or_else(|| panic!("{v}: no row for {id}"));
            assert!(!row.contains("runs)"), "{v}: a pooled span: {row}");
        }
    }
    for m in ["sud-allow", "seccomp-entry-fit"] {
        let page = read(&f.site, &format!("metrics/{m}.html"));
        let at = page.find("id=\"cmparch\"").expect("a cmparch chart");
        let block = &page[at..page[at..].find("</section>").unwrap() + at];
        assert!(!block.contains("(span"), "{m}: a pooled span");
    }
}

#[test]
fn comparisons_stay_within_the_series() {
    let f = fixture();
    let of = series_of_runs(&f.site);
    let (mut alone, mut set) = (0, 0);
    for r in f.step.iter().chain(&f.mix).chain(&f.sequential) {
        let page = page_of(&f.site, &r.id);
        let html = read(&f.site, &page);
        // Its page against the series: every run listed there is of its series.
        let href = html
            .split("<a href=\"")
            .filter_map(|s| s.split_once("\">against the series and other machines<"))
            .map(|(h, _)| h.to_string())
            .next()
            .unwrap_or_else(|| panic!("no page against the series on {page}"));
        let against = resolve(&page, &href).expect("a link in the site");
        let html = read(&f.site, &against);
        let runs = &html[html.find("id=\"runs\"").expect("the runs section")..];
        let listed: Vec<String> = links(runs)
            .into_iter()
            .filter_map(|l| Some(l.rsplit_once('#')?.1.to_string()))
            .filter(|id| id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()))
            .collect();
        if listed.is_empty() {
            assert!(runs.contains("The only run of its series"), "{against}");
            alone += 1;
            continue;
        }
        assert!(listed.contains(&r.id), "{} not on {against}", r.id);
        for id in &listed {
            assert_eq!(of[id], of[&r.id], "{} set against {id}", r.id);
            set += 1;
        }
    }
    // Each series of the fixture has one run a version: every run is alone on its page.
    assert_eq!(alone, f.step.len() + f.mix.len() + f.sequential.len());
    assert_eq!(set, 0);
    // The unknown import is on a page of its own, with no page against a series.
    let unknown = read(&f.site, &f.unknown_page);
    assert!(!unknown.contains("against the series and other machines"));
}

#[test]
fn unplaced_runs_are_listed_but_never_counted_or_ordered() {
    let f = fixture();
    let home = read(&f.site, "index.html");
    assert!(
        !home.contains(">unknown</a></h3>"),
        "an \"unknown\" architecture card"
    );
    assert!(home.contains("1 <a href=\"unplaced.html\">unplaced run</a>"));
    assert!(!f.site.join("arch/unknown/index.html").exists());
    assert!(!f.site.join("kernels/unknown/index.html").exists());
    let kernels = read(&f.site, "kernels/index.html");
    assert!(!kernels.contains(">unknown</a>"));
    assert!(!kernels.contains(">unknown<"));
    let list = read(&f.site, "unplaced.html");
    assert!(list.contains("neither the architecture nor the kernel release is recorded"));
    let page = read(&f.site, &f.unknown_page);
    assert!(page.contains("Not placed on the kernel-version axis"));
    // In the exports, marked.
    let runs = index_runs(&f.site);
    let unplaced: Vec<&serde_json::Value> = runs.iter().filter(|r| r["placed"] == false).collect();
    assert_eq!(unplaced.len(), 1);
    assert_eq!(
        unplaced[0]["unplaced_reason"],
        "neither the architecture nor the kernel release is recorded"
    );
    // Not counted: the build's own summary line.
    let o = run(&[
        "build",
        "--data",
        f.data.to_str().unwrap(),
        "--out",
        f.site.with_file_name("site-count").to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert!(out.contains("; 1 unplaced;"), "{out}");
    let arches: std::collections::BTreeSet<&str> = runs
        .iter()
        .filter(|r| r["placed"] == true)
        .map(|r| r["arch"].as_str().unwrap())
        .collect();
    assert!(
        out.contains(&format!("({} architectures,", arches.len())),
        "{out}"
    );
}

#[test]
fn the_step_is_found_between_the_right_versions_and_noise_is_not() {
    let f = fixture();
    let step = record_series(&f.step[0]).id();
    let changes = json(&f.site, "changes.json");
    let changes = changes.as_array().unwrap();
    let of = |series: &str| -> Vec<&serde_json::Value> {
        changes.iter().filter(|c| c["series"] == series).collect()
    };
    // The stepped scenario's median and its overhead over native, nothing else.
    let found = of(&step);
    let metrics: Vec<&str> = found
        .iter()
        .map(|c| c["metric"].as_str().unwrap())
        .collect();
    assert_eq!(metrics, ["sud.allow", "sud.allow − native"], "{found:?}");
    let c = found[1];
    assert_eq!(c["from"], VERSIONS[STEP_AT - 1]);
    assert_eq!(c["to"], VERSIONS[STEP_AT]);
    let delta = c["delta_ns"].as_f64().unwrap();
    assert!((delta - STEP_NS).abs() < 10.0, "{delta}");
    let (lo, hi) = (
        c["delta_interval_ns"][0].as_f64().unwrap(),
        c["delta_interval_ns"][1].as_f64().unwrap(),
    );
    assert!(lo <= delta && delta <= hi);
    let to_run = &f.step[STEP_AT];
    assert_eq!(c["to_runs"][0], to_run.id.as_str());
    assert_eq!(c["date"].as_str(), to_run.source.date.as_deref());
    // Noise alone: nothing in the other two series.
    for s in [&f.mix, &f.sequential] {
        let id = record_series(&s[0]).id();
        assert!(of(&id).is_empty(), "{id}: {:?}", of(&id));
    }
    // On the changes page, in the group of its series and pair of versions, with the
    // upstream log between them...
    let page = read(&f.site, "changes/index.html");
    let group = page
        .split("<section class=\"change-group\">")
        .find(|g| g.contains(&format!(">{step}</a>")))
        .expect("the step's group");
    assert!(group.contains("sud.allow − native"), "{group}");
    assert!(group.contains("log/kernel/seccomp.c?qt=range&amp;q=v6.8..v6.9"));
    // (An architecture whose entry code has no known place: the four common paths.)
    assert!(group.contains(
        "git log --oneline v6.8..v6.9 -- kernel/seccomp.c kernel/entry kernel/bpf kernel/trace"
    ));
    // ...and on the group's page, with links to the runs on both sides.
    let all = read(
        &f.site,
        &format!(
            "changes/{step}/{}/{}.html",
            VERSIONS[STEP_AT - 1],
            VERSIONS[STEP_AT]
        ),
    );
    let row = all
        .lines()
        .find(|l| l.contains("sud.allow − native"))
        .expect("the step's row");
    assert!(row.contains(&format!(">{}</a>", f.step[STEP_AT - 1].id)));
    assert!(row.contains(&format!(">{}</a>", to_run.id)));
    // In the feed, with the date of the run that showed it.
    let feed = read(&f.site, "feed.xml");
    let entry = feed
        .split("<entry>")
        .find(|e| e.contains(&format!("urn:syscost:change:{step}:sud-allow:")))
        .expect("the step in the feed");
    assert!(
        entry.contains("sud.allow − native rose 6.8 → 6.9"),
        "{entry}"
    );
    assert!(entry.contains(&format!(
        "<updated>{}</updated>",
        to_run.source.date.as_deref().unwrap()
    )));
    // The series' metric page judges every move; the step is the only one.
    let m = read(&f.site, &format!("series/{step}/sud-allow.html"));
    assert_eq!(m.matches("class=\"v step-up\">step\n").count(), 1);
}

#[test]
fn the_feed_has_only_real_dates() {
    let f = fixture();
    let feed = read(&f.site, "feed.xml");
    assert!(!feed.contains("1970-01-01"), "an entry dated 1970");
    for part in feed.split("<updated>").skip(1) {
        let d = &part[..part.find("</updated>").unwrap()];
        assert!(
            d.len() >= 20 && d.as_bytes()[10] == b'T',
            "not an RFC 3339 date: {d}"
        );
    }
    // The undated import is not in it.
    assert!(!feed.contains(&f.unknown_page));
}

#[test]
fn every_measured_scenario_has_a_trend_and_depth_is_a_sweep() {
    let f = fixture();
    let id = record_series(&f.step[0]).id();
    let r = &f.step[0];
    let overview = read(&f.site, &format!("series/{id}.html"));
    for x in r
        .results
        .iter()
        .filter(|x| x.status == syscost_record::Status::Measured)
    {
        // Every metric has its trend on this architecture on its metric page, linked from the
        // series overview; only headline metrics and metrics with a step have a page of their
        // own in the series.
        let page = format!("metrics/r-{}.html", x.id);
        assert!(read(&f.site, &page).contains("id=\"cmparch\""), "{page}");
        let own = format!("series/{id}/r-{}.html", x.id);
        let link = if f.site.join(&own).exists() {
            format!("{id}/r-{}.html", x.id)
        } else {
            format!("metrics/r-{}.html#cmparch", x.id)
        };
        assert!(
            overview.contains(&link),
            "{} not linked from its series",
            x.id
        );
    }
    // No step in native: its trend is on its metric page only.
    assert!(!f.site.join(format!("series/{id}/r-native.html")).exists());
    for o in ["sud-allow", "seccomp-entry"] {
        assert!(
            f.site.join(format!("series/{id}/{o}.html")).is_file(),
            "no page of headline {o} in its series"
        );
    }
    // The kernel page draws the depth sweep with its fitted line; the run page has its numbers
    // (the depth rows and the fit's estimates) and no chart.
    let html = read(&f.site, &page_of(&f.site, &r.id));
    assert!(!html.contains("<svg class=\"chart\""));
    assert!(html.contains("<tr><td>seccomp.depth.4<td>"));
    assert!(html.contains("<tr><td>depth.per_filter<td>"));
    let k = read(&f.site, &format!("kernels/{}/index.html", VERSIONS[0]));
    let at = k.find("Depth sweep on cmparch").unwrap();
    assert!(k[at..].contains("class=\"fit\""));
}

#[test]
fn run_quality_is_a_badge_and_low_runs_stay_out_of_headlines() {
    let f = fixture();
    // The fixture's synthetic-looking runs count no preemption: none is low.
    let html = read(&f.site, &page_of(&f.site, &f.step[0].id));
    assert!(html.contains("#run-quality\">Quality</a> good: "), "{html}");
    let runs = read(&f.site, "runs/index.html");
    assert!(runs.contains("class=\"badge q-"));
    // A low-quality run alone on a new version: hollow, not a headline, not compared.
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    let plan = Plan::new(41, "beef000000000001", &["6.1", "6.2"]);
    let mut rs = syscost_synth::series(&plan);
    rs[1] = edited(rs[1].clone(), |r| {
        for x in &mut r.results {
            if x.family == "baseline" {
                x.preempted = x.samples.map(|n| n / 2);
            }
        }
    });
    for r in &rs {
        save(&data, r);
    }
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let page = read(&site, &page_of(&site, &rs[1].id));
    assert!(page.contains("<span class=\"badge q-low\""));
    // The headline is the latest version with a run of good enough quality.
    let home = read(&site, "index.html");
    let at = home.find("<section class=\"card\"").unwrap();
    let card = &home[at..home[at..].find("</section>").unwrap() + at];
    assert!(card.contains("data-label=\"kernel\">6.1</td>"));
    assert!(
        !card.contains("data-label=\"kernel\">6.2</td>"),
        "the low run as a headline"
    );
    let id = record_series(&rs[0]).id();
    let m = read(&site, &format!("series/{id}/sud-allow.html"));
    assert!(m.contains("class=\"eb low\""), "not hollow");
    assert!(m.contains("not compared: low-quality runs only"));
}

/// Imports placed by what their sources state: an exact kernel on its release, an approximate
/// one as a version of its own that shares no point, page, comparison or change with the
/// releases it is near; imports dated by their published logs' dates; no invented duration.
#[test]
fn stated_kernels_place_imports_and_approximate_ones_stay_apart() {
    use syscost_record::{Stated, StatedKernel};
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    let import = |release: &str, stated: (&str, bool), date: &str| {
        edited(base_record(51), |r| {
            r.source.kind = SourceKind::Import;
            r.source.method = Method::External;
            r.source.format = Some("kselftest-seccomp".into());
            r.source.tool = "syscost 0.1.0 import".into();
            r.source.date = Some(date.into());
            r.source.stated = Some(Stated {
                stated_in: Some("the message around the log".into()),
                kernel: Some(StatedKernel {
                    release: stated.0.into(),
                    approximate: stated.1,
                }),
                arch: Some("x86_64".into()),
                machine: None,
                date: Some(date.into()),
            });
            r.environment.comparability.arch = "x86_64".into();
            r.environment.comparability.kernel_release = release.into();
            r.summary.duration_s = None;
        })
    };
    let exact = import("5.10-rc4", ("5.10-rc4", false), "2020-11-18");
    // Far from its neighbours with narrow intervals: a step, were it judged.
    let approx = edited(import("unknown", ("5.10-rc", true), "2020-11-17"), |r| {
        for x in &mut r.results {
            if let (Some(m), Some(lo), Some(hi)) = (x.median_ns, x.ci_low_ns, x.ci_high_ns) {
                x.median_ns = Some(m + 1000.0);
                x.ci_low_ns = Some(lo + 1000.0);
                x.ci_high_ns = Some(hi + 1000.0);
            }
        }
    });
    let later = import("5.11", ("5.11", false), "2021-02-14");
    for r in [&exact, &approx, &later] {
        save(&data, r);
    }
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("2 kernel versions and 1 stated only approximately; 0 changes"),
        "{out}"
    );
    // One series, three versions: the approximate one is a point of its own.
    let of = series_of_runs(&site);
    assert_eq!(of[&exact.id], of[&approx.id]);
    assert_eq!(of[&exact.id], of[&later.id]);
    let kernels = read(&site, "kernels/index.html");
    let rows: Vec<&str> = kernels
        .lines()
        .filter(|l| l.contains("href=\"") && l.contains("<td"))
        .collect();
    let order: Vec<usize> = ["≈5.10-rc", ">5.10-rc4<", ">5.11<"]
        .iter()
        .map(|v| {
            rows.iter()
                .position(|r| r.contains(v))
                .unwrap_or_else(|| panic!("{v} not listed: {kernels}"))
        })
        .collect();
    // Newest first, the approximate version just before (below) what it is near.
    assert!(order[2] < order[1] && order[1] < order[0], "{order:?}");
    let measured = read(&site, "kernels/5.10-rc4/index.html");
    assert!(measured.contains(&exact.id));
    assert!(
        !measured.contains(&approx.id),
        "approximate run on 5.10-rc4"
    );
    // The approximate run has a page of its own, set against nothing.
    let approx_page = read(&site, &page_of(&site, &approx.id));
    assert!(approx_page.contains("stated only approximately by the source"));
    assert!(!approx_page.contains(&format!(">{}</a>", exact.id)));
    assert!(!approx_page.contains("against the series and other machines"));
    let exact_page = read(&site, &page_of(&site, &exact.id));
    let section = run_section(&exact_page, &exact.id);
    assert!(!section.contains(&approx.id), "{section}");
    // The chart marks the approximate column.
    let arch = read(&site, "arch/x86_64/index.html");
    assert!(arch.contains("class=\"tick approx\""));
    // Stated facts are shown as such; an absent duration is absent, not zero.
    assert!(exact_page.contains("Stated by the source, not printed in the log"));
    assert!(exact_page.contains(", duration not recorded\n"));
    assert!(!exact_page.contains("0.0 s"));
    // The feed dates each import by its published log's day.
    let feed = read(&site, "feed.xml");
    for (r, day) in [
        (&exact, "2020-11-18"),
        (&approx, "2020-11-17"),
        (&later, "2021-02-14"),
    ] {
        let entry = feed
            .split("<entry>")
            .find(|e| e.contains(&format!("urn:syscost:run:{}", r.id)))
            .unwrap_or_else(|| panic!("{} not in the feed", r.id));
        assert!(
            entry.contains(&format!("<updated>{day}T00:00:00Z</updated>")),
            "{entry}"
        );
        assert!(
            entry.contains("<title>Imported run: x86_64 · Linux "),
            "{entry}"
        );
    }
    assert!(feed.contains("Linux ≈5.10-rc ·"));
}

#[test]
fn every_file_the_site_writes_has_a_page_extension() {
    // What keeps a record's names off the site's own: names from records never end in one of
    // these (the record's own grammar, syscost_record::format), and every file the site writes
    // does.
    let f = fixture();
    let odd: Vec<String> = tree(&f.site)
        .into_keys()
        .filter(|p| {
            let name = p.rsplit('/').next().unwrap_or(p);
            !syscost_record::format::is_site_file_name(name)
        })
        .collect();
    assert!(odd.is_empty(), "{odd:?}");
}

/// A data directory of the given records, built; returns (exit code, stderr, site dir).
fn build_of(
    tmp: &Path,
    strict: bool,
    add: impl FnOnce(&Path),
) -> (Option<i32>, String, std::path::PathBuf) {
    let data = tmp.join("records");
    std::fs::create_dir_all(&data).unwrap();
    add(&data);
    let site = tmp.join("site");
    let mut args = vec![
        "build",
        "--data",
        data.to_str().unwrap(),
        "--out",
        site.to_str().unwrap(),
    ];
    if strict {
        args.push("--strict");
    }
    let o = run(&args);
    (o.status.code(), stderr(&o), site)
}

#[test]
fn strict_builds_refuse_synthetic_records() {
    // Issue 17: `check` refused them but `build --strict` published them.
    let tmp = tempfile::tempdir().unwrap();
    let synth = syscost_synth::generate(1, 5).next().unwrap();
    let (code, err, site) = build_of(tmp.path(), true, |d| {
        save(d, &base_record(31));
        save(d, &synth);
    });
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&synth.canonical_path()) && err.contains("synthetic"),
        "{err}"
    );
    assert!(!site.exists());
}

#[test]
fn a_page_named_kernel_is_left_out_not_fatal() {
    // Issue 17: a record passing `check` whose kernel release was `index.html` stopped the
    // whole build ("kernels/index.html: File exists") and nothing was written.
    let tmp = tempfile::tempdir().unwrap();
    let good = base_record(32);
    let (code, err, site) = build_of(tmp.path(), false, |d| {
        save(d, &good);
        for k in ["index.html", "page-2.html"] {
            save(
                d,
                &edited(base_record(33), |r| {
                    r.environment.comparability.kernel_release = k.into()
                }),
            );
        }
    });
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("2 record(s) left out"), "{err}");
    assert!(
        err.contains("named like one of the site's own pages"),
        "{err}"
    );
    assert!(site.join(page_of(&site, &good.id)).is_file());
    assert!(site.join("kernels/index.html").is_file());
}

#[test]
fn the_canonical_form_is_published_and_the_canonical_copy_wins() {
    // Issue 17: the file was published verbatim as the raw record, and a copy under a name that
    // sorts first (runs/0.json) displaced the genuine file.
    let tmp = tempfile::tempdir().unwrap();
    let r = base_record(34);
    let pretty = edited(base_record(35), |_| {});
    let (code, err, site) = build_of(tmp.path(), false, |d| {
        save(d, &r);
        save_at(&d.join("runs/0.json"), &r);
        let p = d.join(pretty.canonical_path());
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, serde_json::to_string_pretty(&pretty).unwrap() + "\n").unwrap();
    });
    assert_eq!(code, Some(0), "{err}");
    let dup: Vec<&str> = err.lines().filter(|l| l.contains("duplicate")).collect();
    assert_eq!(dup.len(), 1, "{err}");
    assert!(dup[0].trim_start().contains("/runs/0.json: "), "{}", dup[0]);
    assert!(
        !err.contains(&format!("{}: duplicate", r.canonical_path())),
        "{err}"
    );
    // The pretty-printed file is published in the canonical form.
    let raw = std::fs::read(site.join(pretty.canonical_path())).unwrap();
    assert_eq!(raw, syscost_record::to_file_json(&pretty).as_bytes());
    assert!(err.contains("is not in the form syscost writes"), "{err}");
}

#[test]
fn runs_are_labelled_unverified_until_a_maintainer_accepts_them() {
    let tmp = tempfile::tempdir().unwrap();
    let (seen, new) = (base_record(36), base_record(37));
    let (code, err, site) = build_of(tmp.path(), true, |d| {
        save(d, &seen);
        save(d, &new);
        std::fs::write(
            d.join("triage.tsv"),
            format!("{}\taccepted\tlooked at it\n", seen.id),
        )
        .unwrap();
    });
    assert_eq!(code, Some(0), "{err}");
    let page = |r: &syscost_record::RunRecord| read(&site, &page_of(&site, &r.id));
    assert!(!page(&seen).contains("badge unverified"));
    let p = page(&new);
    assert!(
        p.contains("<a class=\"badge unverified\" href=\"../../../methodology.html#unverified\">")
    );
    // The run lists show the label too, once per unverified run.
    let runs = read(&site, "runs/index.html");
    assert_eq!(runs.matches("badge unverified").count(), 1, "{runs}");
}

/// Every file of a site with its inode: a file the build did not write again keeps its inode.
fn inodes(site: &Path) -> std::collections::BTreeMap<String, u64> {
    use std::os::unix::fs::MetadataExt;
    files(site)
        .into_iter()
        .map(|rel| {
            let ino = std::fs::metadata(site.join(&rel)).unwrap().ino();
            (rel, ino)
        })
        .collect()
}

/// Issue 14: a rebuild writes only what changed. Unchanged data rewrites nothing (only the
/// manifest, which says what each file was made from); one more run rewrites its own page and
/// the pages that list or chart it, and leaves every other run's page as it was, unrendered.
#[test]
fn a_rebuild_writes_only_the_pages_a_new_run_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    assert_eq!(syscost_synth::write(&data, 40, 21).unwrap(), 40);
    let site = tmp.path().join("site");
    let build = || {
        let o = build_site(&data, &site);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    build();
    let first = inodes(&site);
    let out = build();
    let same = inodes(&site);
    let rewritten: Vec<&String> = same
        .iter()
        .filter(|(p, i)| first.get(*p) != Some(*i))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(rewritten, [".syscost-manifest"], "{out}");
    assert!(out.contains("0 written"), "{out}");
    let old_runs: Vec<&String> = first
        .keys()
        .filter(|p| p.starts_with("runs/") && p.matches('/').count() == 3 && p.ends_with(".html"))
        .collect();
    // The 40 runs, on fewer pages: each series' runs on one version share one.
    let sections: usize = old_runs
        .iter()
        .map(|p| read(&site, p).matches(" id=\"").count())
        .sum();
    assert!(old_runs.len() < 40, "{old_runs:?}");
    assert!(sections >= 40, "{sections}");
    // The run pages, and the series and kernel pages (whose runs are the same).
    let not_rendered = |out: &str| -> usize {
        let n = out.split(" pages not rendered").next().unwrap();
        n.rsplit('(').next().unwrap().parse().unwrap()
    };
    assert!(not_rendered(&out) > old_runs.len(), "{out}");

    // One more run, on a machine and architecture of its own.
    let new = edited(base_record(77), |r| {
        r.source.kind = SourceKind::Synthetic;
        r.environment.comparability.arch = "newarch".into();
        r.environment.incidental.machine_hash = Some("0123456789ab".into());
    });
    save(&data, &new);
    let out = build();
    let after = inodes(&site);
    let changed: std::collections::BTreeSet<&str> = after
        .iter()
        .filter(|(p, i)| same.get(*p) != Some(*i))
        .map(|(p, _)| p.as_str())
        .collect();
    let page = page_of(&site, &new.id);
    assert!(changed.contains(page.as_str()), "{changed:?}");
    for p in [
        "index.html",
        "runs/index.html",
        "index.json",
        "exports/runs.json",
        "exports/runs.csv",
    ] {
        assert!(changed.contains(p), "{p} not rewritten: {changed:?}");
    }
    for p in &old_runs {
        assert!(!changed.contains(p.as_str()), "{p} rewritten: {out}");
    }
    // Pages of other architectures that do not list runs are untouched.
    assert!(
        changed.iter().all(|p| !p.starts_with("arch/")
            || p.starts_with("arch/newarch/")
            || *p == "arch/index.html"),
        "{changed:?}"
    );
    assert!(not_rendered(&out) >= old_runs.len(), "{out}");
    // And the result is the site a build from scratch gives.
    let fresh = tmp.path().join("fresh");
    let o = build_site(&data, &fresh);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tree(&fresh), tree(&site));
}

/// A page is keyed by what it is rendered from (its template and its whole context), not by a
/// list of its inputs: a maintainer accepting one run changes its run page, the pages that
/// list it and nothing else, and those pages are made again; unchanged data makes none again.
#[test]
fn an_input_of_a_page_changed_makes_that_page_again_and_only_it() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    assert_eq!(syscost_synth::write(&data, 40, 29).unwrap(), 40);
    let site = tmp.path().join("site");
    let build = || {
        let o = build_site(&data, &site);
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o)
    };
    build();
    let first = inodes(&site);
    let out = build();
    assert!(out.contains("; 0 written"), "{out}");
    let rewritten: Vec<String> = inodes(&site)
        .into_iter()
        .filter(|(p, i)| first.get(p) != Some(i))
        .map(|(p, _)| p)
        .collect();
    assert_eq!(rewritten, [".syscost-manifest"], "{out}");
    let record = walkdir::WalkDir::new(data.join("runs"))
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap().into_path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    let rec: RunRecord = serde_json::from_slice(&std::fs::read(record).unwrap()).unwrap();
    let page = page_of(&site, &rec.id);
    assert!(read(&site, &page).contains("badge unverified"));
    let before = inodes(&site);
    std::fs::write(
        data.join("triage.tsv"),
        format!("{}\taccepted\ta maintainer, checked\n", rec.id),
    )
    .unwrap();
    let out = build();
    let after = inodes(&site);
    let changed: std::collections::BTreeSet<&str> = after
        .iter()
        .filter(|(p, i)| before.get(*p) != Some(*i))
        .map(|(p, _)| p.as_str())
        .collect();
    assert!(changed.contains(page.as_str()), "{changed:?}");
    assert!(changed.contains("runs/index.html"), "{changed:?}");
    // Its page no longer calls it unverified (the other runs of its page still are).
    let section = read(&site, &page);
    let own = section.split(&format!("id=\"{}\"", rec.id)).nth(1).unwrap();
    let own = own.split("<section").next().unwrap();
    assert!(!own.contains("badge unverified"), "{own}");
    // No other run's page is made again, nor most of the site.
    let run_pages = |p: &&str| p.starts_with("runs/") && p.matches('/').count() == 3 && *p != page;
    assert!(!changed.iter().any(run_pages), "{changed:?}");
    assert!(
        changed.len() < after.len() / 4,
        "{} of {} files: {out}",
        changed.len(),
        after.len()
    );
    // And the site is the one a build from scratch gives.
    let fresh = tmp.path().join("fresh");
    let o = build_site(&data, &fresh);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tree(&fresh), tree(&site));
}

/// Issue 14: a rebuild takes what it can from the previous build (run summaries from the
/// summary cache, pages whose inputs are unchanged) and must still give exactly the site a
/// build from scratch gives: after a record changed, one removed, one added in a series and on
/// a kernel version of its own, a run accepted, with a file not in its form and one misplaced
/// (whose warnings must come again); and when the manifest or the cache is damaged, it
/// trusts neither and builds everything.
#[test]
fn an_incremental_build_is_the_build_from_scratch() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    assert_eq!(syscost_synth::write(&data, 30, 23).unwrap(), 30);
    let pretty = base_record(41);
    let p = data.join(pretty.canonical_path());
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(&p, serde_json::to_string_pretty(&pretty).unwrap() + "\n").unwrap();
    let misplaced = base_record(42);
    save_at(&data.join("runs/elsewhere.json"), &misplaced);
    let build = |out: &Path| {
        let o = build_site(&data, out);
        assert!(o.status.success(), "{}", stderr(&o));
        (stdout(&o), stderr(&o))
    };
    let site = tmp.path().join("site");
    let (out, _) = build(&site);
    assert!(out.contains(" 0 records summarised"), "{out}");
    let (out, _) = build(&site);
    // The file not in its form is read again (to warn again), the others are not.
    assert!(out.contains(" 31 records summarised"), "{out}");

    let records = || {
        let mut v: Vec<std::path::PathBuf> = walkdir::WalkDir::new(data.join("runs"))
            .sort_by_file_name()
            .into_iter()
            .map(|e| e.unwrap().into_path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        v.sort();
        v
    };
    let read =
        |p: &Path| -> RunRecord { serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap() };
    let all: Vec<_> = records()
        .into_iter()
        .filter(|x| *x != p && !x.ends_with("elsewhere.json"))
        .collect();
    // Changed: another value, so another id and file.
    let old = read(&all[3]);
    let changed = edited(old.clone(), |r| {
        let x = r
            .results
            .iter_mut()
            .find(|x| x.median_ns.is_some())
            .unwrap();
        x.median_ns = x.median_ns.map(|m| m * 1.5);
        x.ci_low_ns = x.ci_low_ns.map(|m| m * 1.5);
        x.ci_high_ns = x.ci_high_ns.map(|m| m * 1.5);
    });
    std::fs::remove_file(&all[3]).unwrap();
    save(&data, &changed);
    // Removed.
    std::fs::remove_file(&all[7]).unwrap();
    // New, in a series and on a kernel version no run had; its head (what places it) runs
    // past the part of a file the first pass of a build from scratch reads.
    let new = edited(base_record(43), |r| {
        r.environment.comparability.cpu.model_name = Some("A CPU no run had".into());
        r.environment.comparability.kernel_release = "7.3.0-1-new".into();
        r.environment.incidental.machine_hash = Some("fedcba987654".into());
        for i in 0..10 {
            let other = &mut r.environment.incidental.other;
            other.insert(format!("padding.{i}"), "x".repeat(4_000));
        }
    });
    save(&data, &new);
    // Accepted by a maintainer.
    let accepted = read(&all[11]);
    std::fs::write(
        data.join("triage.tsv"),
        format!("{}\taccepted\ta maintainer, checked\n", accepted.id),
    )
    .unwrap();

    let (out, err) = build(&site);
    let fresh = tmp.path().join("fresh");
    let (fresh_out, fresh_err) = build(&fresh);
    assert!(fresh_out.contains(" 0 records summarised"), "{fresh_out}");
    assert!(out.contains(" 29 records summarised"), "{out}");
    assert_eq!(err, fresh_err);
    for w in ["is not in the form syscost writes", "should be stored as"] {
        assert!(err.contains(w), "{err}");
    }
    let want = tree(&fresh);
    assert_eq!(tree(&site), want);
    assert!(site.join(page_of(&site, &new.id)).is_file());
    assert!(
        !html_pages(&site).any(|(_, h)| h.contains(&format!("id=\"{}\"", old.id))),
        "the removed run is shown nowhere"
    );

    // A damaged manifest or cache is not trusted: everything is read and written again.
    let files = want.len();
    assert!(files > 100, "{files}");
    let summaries = tmp.path().join(".site.summaries");
    let flip = |p: &Path| {
        let mut b = std::fs::read(p).unwrap();
        let at = b.len() / 2;
        b[at] ^= 0x20;
        std::fs::write(p, b).unwrap();
    };
    flip(&site.join(".syscost-manifest"));
    flip(&summaries);
    let (out, _) = build(&site);
    let n = out
        .split(" files, ")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .unwrap();
    assert!(n.parse::<usize>().unwrap() + 2 >= files, "{out}");
    assert!(out.contains(&format!("; {n} written")), "{out}");
    assert!(out.contains(" 0 records summarised"), "{out}");
    assert_eq!(tree(&site), want);
    // Cut short.
    let len = std::fs::metadata(&summaries).unwrap().len();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&summaries)
        .unwrap();
    f.set_len(len - 1).unwrap();
    let (out, _) = build(&site);
    assert!(out.contains(" 0 records summarised"), "{out}");
    assert_eq!(tree(&site), want);
}

/// Runs whose shared facts differ in one input each (a machine fact, a setting, the tool, a
/// skipped scenario's reason) each link a shared page of their own that says it; a run with
/// the same facts as another links the same page. A build makes each shared page once, from
/// the first run with its inputs, and checks every other run's against it in a debug build.
#[test]
fn each_machine_and_settings_has_its_own_shared_page() {
    type Edit = (&'static str, fn(&mut RunRecord));
    let edits: [Edit; 9] = [
        ("governor-x", |r| {
            r.environment.incidental.governor = Some("governor-x".into())
        }),
        ("0xfeed", |r| {
            r.environment.comparability.cpu.microcode = Some("0xfeed".into())
        }),
        ("clock-x", |r| {
            r.environment.incidental.clocksource = Some("clock-x".into())
        }),
        ("123 s", |r| r.settings.budget_s = Some(123.0)),
        ("abcdef1", |r| r.source.commit = Some("abcdef1".into())),
        ("only.this", |r| r.settings.only = vec!["only.this".into()]),
        ("97 /", |r| {
            r.environment.comparability.cpu.logical_cpus = Some(97)
        }),
        ("syscost 9.9.9", |r| r.source.tool = "syscost 9.9.9".into()),
        ("a reason of its own", |r| {
            let x = r
                .results
                .iter_mut()
                .find(|x| x.id == "bpf.tp")
                .expect("bpf.tp");
            x.status = syscost_record::Status::Skipped;
            x.reason = Some("a reason of its own".into());
            x.median_ns = None;
            x.ci_low_ns = None;
            x.ci_high_ns = None;
            x.overhead = None;
            x.throughput_mops = None;
        }),
    ];
    let dir = fixture_dir("shared-pages");
    let (data, site) = (dir.join("data"), dir.join("site"));
    let base = base_record(11);
    let dated = |r: &mut RunRecord, day: usize| {
        r.source.date = Some(format!("2026-03-{:02}T10:00:00Z", day + 1));
    };
    let same = edited(base.clone(), |r| dated(r, 20));
    let mut runs = vec![(String::new(), base.clone()), (String::new(), same)];
    for (day, (says, edit)) in edits.iter().enumerate() {
        let r = edited(base.clone(), |r| {
            dated(r, day + 1);
            edit(r);
        });
        runs.push((says.to_string(), r));
    }
    for (_, r) in &runs {
        save(&data, r);
    }
    let out = build_site(&data, &site);
    assert!(out.status.success(), "{}", stderr(&out));
    let env: Vec<String> = runs
        .iter()
        .map(|(_, r)| {
            let page = read(&site, &page_of(&site, &r.id));
            env_of(&run_section(&page, &r.id))
        })
        .collect();
    assert_eq!(env[0], env[1], "runs with the same facts share a page");
    for (i, ((says, r), page)) in runs.iter().zip(&env).enumerate().skip(2) {
        let others = env
            .iter()
            .enumerate()
            .filter(|(j, e)| *j != i && *e == page);
        assert_eq!(others.count(), 0, "{} ({says}) shares {page}", r.id);
        let text = read(&site, page);
        assert!(text.contains(says.as_str()), "{page} does not say {says}");
    }
}

/// An upstream release measured only on stable updates has a page at the address a reader
/// guesses (`kernels/6.1/`), listing them; one measured itself keeps its own page.
#[test]
fn a_release_measured_only_on_stable_updates_lists_them() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    for (seed, release) in [(61, "6.1.170"), (62, "6.1.176"), (63, "6.8")] {
        save(
            &data,
            &edited(base_record(seed), |r| {
                r.environment.comparability.kernel_release = release.into();
            }),
        );
    }
    let site = tmp.path().join("site");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(broken_links(&site), Vec::<String>::new());
    let page = read(&site, "kernels/6.1/index.html");
    assert!(page.contains("<h1>Linux 6.1</h1>"), "{page}");
    for v in ["6.1.170", "6.1.176"] {
        assert!(
            page.contains(&format!("href=\"../../kernels/{v}/index.html\"")),
            "{v}: {page}"
        );
    }
    // 6.8 has runs of its own: its page is the version's, not a list.
    assert!(!read(&site, "kernels/6.8/index.html").contains("of its stable updates"));
}
