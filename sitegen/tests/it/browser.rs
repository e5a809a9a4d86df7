//! Loads the home, a kernel, an architecture and a run page in headless Chromium over file://
//! and checks that they render. Runs when /usr/bin/chromium exists (CI installs it); otherwise
//! it says plainly that it did not run.

use crate::common::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";

/// The DOM after load, or an error (with a hard timeout so a stuck browser cannot hang CI).
fn dump_dom(page: &Path, profile: &Path) -> Result<String, String> {
    let url = format!("file://{}", page.display());
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start chromium: {e}"))?;
    // Drain stdout while waiting: a large DOM would otherwise fill the pipe and block.
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
        s
    });
    let start = Instant::now();
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            break;
        }
        if start.elapsed() > Duration::from_secs(90) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("chromium timed out on {url}"));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    reader
        .join()
        .map_err(|_| "reader thread panicked".to_string())
}

#[test]
fn pages_render_in_headless_chromium() {
    if !Path::new(CHROMIUM).exists() {
        println!("NOT RUN: {CHROMIUM} is not installed; the browser smoke test was skipped");
        eprintln!("NOT RUN: {CHROMIUM} is not installed; the browser smoke test was skipped");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("records");
    let site = tmp.path().join("site");
    syscost_site_bench::write(&data, 40, 9).unwrap();
    let rec = edited(base_record(40), |r| {
        r.environment.comparability.arch = "x86_64".into();
        r.environment.comparability.kernel_release = "6.8.0-45-generic".into();
    });
    save(&data, &rec);
    let o = run(&[
        "build",
        "--data",
        data.to_str().unwrap(),
        "--out",
        site.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));

    let run_page = rec.canonical_path().replace(".json", ".html");
    let checks = [
        ("index.html", "Headline numbers by architecture"),
        ("kernels/6.8/index.html", "<h1>Linux 6.8</h1>"),
        ("arch/x86_64/index.html", "<h1>x86_64</h1>"),
        (
            run_page.as_str(),
            &format!("Run <span class=\"mono\">{}</span>", rec.id),
        ),
    ];
    let profile = tmp.path().join("profile");
    for (page, expect) in checks {
        let dom = dump_dom(&site.join(page), &profile).unwrap();
        assert!(
            dom.contains(expect),
            "{page}: expected {expect:?} in the rendered DOM ({} bytes)",
            dom.len()
        );
        // The whole page was parsed, and charts are part of it.
        assert!(dom.contains("</footer>"), "{page}: incomplete DOM");
        if page.starts_with("arch/") {
            assert!(dom.contains("<svg class=\"chart\""), "{page}: no chart");
        }
    }
}
