//! `syscost-site build` end to end: synthetic plus hand-made records into a temporary site,
//! then the site is inspected like a visitor (and a link checker) would.

use crate::common::*;
use std::path::Path;
use std::sync::OnceLock;
use syscost_record::{Estimate, EstimateId, SourceKind};

const HOSTILE: &str = "<script>alert(1)</script>";

/// The fixture data set, built once for all tests in this file.
struct Fixture {
    _tmp: tempfile::TempDir,
    data: std::path::PathBuf,
    site: std::path::PathBuf,
    old_id: String,
    new_id: String,
    new_page: String,
    hostile_page: String,
    import_page: String,
    tcg_page: String,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("records");
        // Enough synthetic runs to paginate the run list (200 per page).
        assert_eq!(syscost_site_bench::write(&data, 230, 3).unwrap(), 230);

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

        // Hostile strings everywhere a stranger can put them.
        let hostile = edited(base_record(12), |r| {
            let c = &mut r.environment.comparability;
            c.arch = format!("x86{HOSTILE}");
            c.kernel_release = format!("6.7.0-{HOSTILE}");
            c.cpu.model_name = Some(format!("<img src=x onerror=alert(2)>{HOSTILE}"));
            c.virtualization.hypervisor = Some(HOSTILE.into());
            c.mitigations
                .insert(format!("<svg onload=alert(3)>{HOSTILE}"), HOSTILE.into());
            c.cmdline = Some(format!("\"'><b>bold</b>{HOSTILE}"));
            r.environment.incidental.machine_hash = Some("\"><script>x</script>".to_string());
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
        save(&data, &lab(14, 3210.0));
        let tcg = emulated(lab(15, 987654.0));
        save(&data, &tcg);

        // A broken record: the default build goes on without it.
        let broken = data.join("runs/x86_64/6.8/0000000000000000.json");
        std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
        std::fs::write(&broken, b"{ \"schema\": 1, ").unwrap();

        let site = tmp.path().join("site");
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

        let page = |r: &syscost_record::RunRecord| r.canonical_path().replace(".json", ".html");
        Fixture {
            old_id: old.id.clone(),
            new_id: new.id.clone(),
            new_page: page(&new),
            hostile_page: page(&hostile),
            import_page: page(&import),
            tcg_page: page(&tcg),
            data,
            site,
            _tmp: tmp,
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
    let pages = html_pages(&f.site);
    assert!(pages.len() > 250, "{}", pages.len());
}

#[test]
fn link_checker_detects_breakage() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("a")).unwrap();
    std::fs::write(
        tmp.path().join("a/x.html"),
        "<a href=\"../y.html\">y</a><a href=\"../../z.html\">z</a><a href=\"/abs.html\">q</a>",
    )
    .unwrap();
    std::fs::write(tmp.path().join("y.html"), "<img src=\"a/x.html#top\">").unwrap();
    let broken = broken_links(tmp.path());
    assert_eq!(broken.len(), 2, "{broken:?}");
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
    let a = tree(&f.site);
    let b = tree(&again);
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (k, v) in &a {
        assert!(v == &b[k], "{k} differs between builds");
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
    assert!(home.contains("Headline numbers by architecture"));
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
        .contains("this record was generated for tests and benchmarks"));
}

#[test]
fn run_page_compares_with_the_previous_run_of_the_machine() {
    let f = fixture();
    let html = read(&f.site, &f.new_page);
    assert!(
        html.contains("Previous run:"),
        "no comparison on {}",
        f.new_page
    );
    assert!(html.contains(&format!("{}</a>", f.old_id)));
    assert!(html.contains("6.8.0-45-generic"));
    let row = |id: &str| {
        html.lines()
            .find(|l| l.starts_with(&format!("<tr><td class=\"mono\">{id}</td>")))
            .unwrap_or_else(|| panic!("no comparison row for {id}"))
            .to_string()
    };
    assert!(
        row("native").contains("no resolved change (CIs overlap)"),
        "{}",
        row("native")
    );
    assert!(
        row("null").contains("higher (CIs disjoint)"),
        "{}",
        row("null")
    );
    // The raw record is next to the page, byte for byte as submitted.
    let raw = f.site.join(f.new_page.replace(".html", ".json"));
    let orig = f.data.join(f.new_page.replace(".html", ".json"));
    assert_eq!(std::fs::read(raw).unwrap(), std::fs::read(orig).unwrap());
    assert!(html.contains(&format!("href=\"{}.json\" download", f.new_id)));
    // The older run is the first of its machine.
    let old_page = f
        .new_page
        .replace(&f.new_id, &f.old_id)
        .replace("6.9.2", "6.8.0-45-generic");
    assert!(read(&f.site, &old_page).contains("first run of this machine"));
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
    assert!(svg.contains("-h0\" x="), "CI-less points are hollow");
    assert!(!svg.contains("-m0\" x="), "CI-less points are hollow");
    let run = read(&f.site, &f.import_page);
    assert!(run.contains("imported by"));
    assert!(run.contains("href=\"https://example.org/log\""));
    assert!(run.contains("This record has no intervals"));
    // Synthetic runs do draw their intervals.
    let x86 = read(&f.site, "arch/x86_64/index.html");
    assert!(x86.contains("class=\"eb"));
}

#[test]
fn emulated_runs_are_never_pooled_with_measurements() {
    let f = fixture();
    let run = read(&f.site, &f.tcg_page);
    assert!(run.contains("987,654"), "the run page shows its own number");
    assert!(run.contains("qemu-tcg"));
    for page in [
        "arch/labarch/index.html",
        "matrix/sud-block.html",
        "metrics/sud-block.html",
    ] {
        let html = read(&f.site, page);
        assert!(!html.contains("987,654"), "{page} pools the emulated run");
    }
    assert!(read(&f.site, "arch/labarch/index.html").contains("3,210"));
    // Its own series (one virtualization kind) charts it.
    let series = html_pages(&f.site)
        .into_iter()
        .find(|(p, h)| p.starts_with("series/") && h.contains("987,654"));
    assert!(series.is_some_and(|(_, h)| !h.contains("3,210")));
}

#[test]
fn indexes_paginate_and_pages_stay_bounded() {
    let f = fixture();
    let first = read(&f.site, "runs/index.html");
    let second = read(&f.site, "runs/page-2.html");
    let rows = |h: &str| h.matches("<tr><td class=\"mono\">").count();
    assert_eq!(rows(&first), syscost_site::site::PAGE_SIZE);
    assert_eq!(rows(&first) + rows(&second), 230 + 4);
    assert!(first.contains("href=\"../runs/page-2.html\" rel=\"next\""));
    for (page, html) in html_pages(&f.site) {
        assert!(html.len() < 2_000_000, "{page} is {} bytes", html.len());
    }
}

#[test]
fn exports_list_every_run() {
    let f = fixture();
    let idx: serde_json::Value = serde_json::from_str(&read(&f.site, "index.json")).unwrap();
    assert_eq!(idx["runs"].as_array().unwrap().len(), 234);
    let csv = read(&f.site, "runs.csv");
    assert_eq!(csv.lines().count(), 235);
    assert!(csv.starts_with("id,date,kind,arch,"));
    let feed = read(&f.site, "feed.xml");
    assert_eq!(feed.matches("<entry>").count(), 50);
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
    assert!(read(&f.site, "kernels/6.9.2/index.html").contains(&f.new_id));
    let list = read(&f.site, "kernels/index.html");
    let pos = |s: &str| {
        list.find(&format!(">{s}</a>"))
            .unwrap_or_else(|| panic!("{s} missing"))
    };
    assert!(pos("6.10") < pos("6.9") && pos("6.9") < pos("6.8") && pos("6.8") < pos("6.8-rc1"));
}

#[test]
fn empty_and_missing_data_build_a_site_that_says_so() {
    let tmp = tempfile::tempdir().unwrap();
    for data in [tmp.path().join("missing"), tmp.path().join("empty")] {
        if data.ends_with("empty") {
            std::fs::create_dir_all(&data).unwrap();
        }
        let site = tmp.path().join(format!(
            "site-{}",
            data.file_name().unwrap().to_string_lossy()
        ));
        let o = run(&[
            "build",
            "--data",
            data.to_str().unwrap(),
            "--out",
            site.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(read(&site, "index.html").contains("No runs yet"));
        assert!(broken_links(&site).is_empty());
    }
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
    let o = run(&[
        "build",
        "--data",
        "nonexistent-dir",
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
