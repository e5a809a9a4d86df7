//! What only a browser can show: the pages load in headless Chromium with their stylesheet
//! applied and their charts laid out, the optional table sorter (`static/sort.js`) runs without
//! an error and really sorts a table when a header is clicked.
//!
//! A harness page written into the built site loads the pages in iframes (`file://`, same
//! origin thanks to `--allow-file-access-from-files`), inspects them, clicks a header and writes
//! what it found into its own DOM, which `--dump-dom` prints once every frame has loaded. Script
//! errors reach Chromium's log on stderr, which is read after the browser has exited.

use crate::common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

const CHROMIUM: &str = "/usr/bin/chromium";
/// A stuck browser fails the test instead of hanging it (a normal run takes a few seconds).
const DEADLINE: Duration = Duration::from_secs(120);
/// Logged by the harness itself: proves that console messages do reach stderr, so that the
/// absence of any other message means something.
const CANARY: &str = "syscost-harness-canary";
/// The column the sorting check clicks (the first key metric of run lists).
const SORT_COLUMN: &str = "entry (ns)";

const HARNESS: &str = r#"<!doctype html>
<html><head><meta charset="utf-8"><title>harness</title></head><body>
<pre id="results">pending</pre>
<script>
console.error("CANARY");
var PAGES = PAGE_LIST;
var results = { pages: {}, narrow: {} };
var each = Array.prototype.map;

function facts(d, w) {
  var h1 = d.querySelector("main h1");
  var header = d.querySelector("header.site");
  return {
    title: d.title,
    h1: h1 ? h1.textContent.trim() : null,
    footer: d.querySelector("footer") !== null,
    // Only a browser that loaded and applied style.css computes this.
    header_border: header ? w.getComputedStyle(header).borderBottomStyle : null,
    sortable: d.querySelectorAll("table.sortable").length,
    charts: each.call(d.querySelectorAll("svg.chart"), function (svg) {
      var uses = svg.querySelectorAll("use");
      // A marker is drawn only if its <use> resolved to the definition it points at.
      var drawn = Array.prototype.filter.call(uses, function (u) {
        var b = u.getBBox();
        return b.width > 0 && b.height > 0;
      });
      return { width: svg.getBoundingClientRect().width, markers: uses.length, drawn: drawn.length };
    })
  };
}

function column(table, col) {
  return each.call(table.tBodies[0].rows, function (r) {
    var c = r.cells[col];
    var v = c.getAttribute("data-v");
    return v === null ? c.textContent.trim() : v;
  });
}

function sortCheck(d, header) {
  var table = d.querySelector("table.sortable");
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  var col = heads.findIndex(function (h) { return h.textContent.trim() === header; });
  if (col < 0) return { error: "no column " + header };
  var th = heads[col];
  var out = { before: column(table, col) };
  // The sorter turns each header into a button: keyboard users reach it, clicks go to it.
  var button = th.querySelector("button");
  if (!button) return { error: "header " + header + " has no button" };
  button.click();
  out.first = { order: th.getAttribute("aria-sort"), values: column(table, col) };
  button.click();
  out.second = { order: th.getAttribute("aria-sort"), values: column(table, col) };
  return out;
}

// Runs in each frame's load event: its deferred scripts have run, and the harness's own load
// event (after which the DOM is dumped) waits for every frame.
// At a phone's width: the page must not scroll sideways, and chart text (11 px in the SVG's
// own units) must not be scaled below 11 CSS px.
function narrow(d, w) {
  var scales = each.call(d.querySelectorAll("svg.chart"), function (svg) {
    return svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  });
  return {
    scroll_width: d.documentElement.scrollWidth,
    inner_width: w.innerWidth,
    chart_scale: scales.length ? Math.min.apply(null, scales) : null
  };
}

function loaded(f) {
  var page = f.getAttribute("data-page");
  if (f.hasAttribute("data-narrow")) {
    try { results.narrow[page] = narrow(f.contentDocument, f.contentWindow); }
    catch (e) { results.narrow[page] = { error: String(e) }; }
    dump();
    return;
  }
  try {
    results.pages[page] = facts(f.contentDocument, f.contentWindow);
    if (f.hasAttribute("data-sort")) results.sort = sortCheck(f.contentDocument, f.getAttribute("data-sort"));
  } catch (e) {
    results.pages[page] = { error: String(e) };
  }
  dump();
}

function dump() {
  var text = JSON.stringify(results).replace(/[<>&]/g, function (c) {
    return "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0");
  });
  document.getElementById("results").textContent = text;
}

PAGES.forEach(function (p) {
  var f = document.createElement("iframe");
  f.setAttribute("data-page", p[0]);
  if (p[1]) f.setAttribute("data-sort", p[1]);
  f.style.width = "1200px";
  f.style.height = "900px";
  f.onload = function () { loaded(f); };
  f.src = p[0];
  document.body.appendChild(f);
  var n = document.createElement("iframe");
  n.setAttribute("data-page", p[0]);
  n.setAttribute("data-narrow", "");
  n.style.width = "400px";
  n.style.height = "900px";
  n.onload = function () { loaded(n); };
  n.src = p[0];
  document.body.appendChild(n);
});
</script>
</body></html>
"#;

/// What the browser printed, after it exited.
struct Dump {
    dom: String,
    stderr: String,
}

/// Loads `page` in headless Chromium and returns the DOM after load and the browser's log.
fn dump_dom(page: &Path, scratch: &Path) -> Dump {
    let profile = scratch.join("profile");
    std::fs::create_dir_all(&profile).unwrap();
    // Files, not pipes: helper processes that outlive the browser cannot block a reader.
    let (out_path, err_path) = (scratch.join("dom.html"), scratch.join("chromium.log"));
    let mut child = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-dev-shm-usage",
            "--allow-file-access-from-files",
            "--enable-logging=stderr",
            "--v=0",
            "--window-size=1280,1024",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .expect("start chromium");
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = mpsc::channel();
    let waiter = std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    match rx.recv_timeout(DEADLINE) {
        Ok(status) => {
            let status = status.expect("wait for chromium");
            assert!(status.success(), "chromium failed: {status}");
        }
        Err(_) => {
            // SAFETY: kill(2) has no memory-safety preconditions; the pid is our child's, not
            // yet reported as exited.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            let _ = waiter.join();
            panic!("chromium did not finish within {DEADLINE:?}");
        }
    }
    let _ = waiter.join();
    Dump {
        dom: std::fs::read_to_string(&out_path).unwrap(),
        stderr: std::fs::read_to_string(&err_path).unwrap(),
    }
}

/// The harness's findings, from the dumped DOM.
fn results(dom: &str) -> Value {
    let start = dom
        .find("<pre id=\"results\">")
        .unwrap_or_else(|| panic!("no results in the dumped DOM:\n{dom}"));
    let rest = &dom[start + "<pre id=\"results\">".len()..];
    let text = &rest[..rest.find("</pre>").expect("end of results")];
    serde_json::from_str(text).unwrap_or_else(|e| panic!("results are not JSON ({e}): {text}"))
}

/// The leading number of each cell ("2,986 [2,834, 3,080]" → 2986).
fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .expect("a column")
        .iter()
        .map(|x| {
            let s = x.as_str().expect("a cell");
            let lead: String = s
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .replace(',', "");
            lead.parse()
                .unwrap_or_else(|_| panic!("not a number: {s:?}"))
        })
        .collect()
}

fn ascending(xs: &[f64]) -> bool {
    xs.windows(2).all(|w| w[0] <= w[1])
}

fn same_values(a: &[f64], b: &[f64]) -> bool {
    let sorted = |xs: &[f64]| {
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        v
    };
    sorted(a) == sorted(b)
}

#[test]
#[ignore = "needs chromium (scripts/test-tools installs it)"]
fn pages_render_and_tables_sort_in_headless_chromium() {
    assert!(
        Path::new(CHROMIUM).exists(),
        "{CHROMIUM} is not installed; scripts/test-tools installs it"
    );
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
    // One page of every other kind, whatever its name, with the start of its heading.
    let first = |dir: &str, nested: bool| -> String {
        let mut names: Vec<String> = walkdir::WalkDir::new(site.join(dir))
            .min_depth(if nested { 2 } else { 1 })
            .max_depth(if nested { 2 } else { 1 })
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                e.path()
                    .strip_prefix(&site)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned()
            })
            .filter(|p| p.ends_with(".html") && !p.ends_with("index.html"))
            .collect();
        names.sort();
        names
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("no page in {dir}"))
    };
    let (series, series_metric) = (first("series", false), first("series", true));
    let (metric, matrix) = (first("metrics", false), first("matrix", false));
    let pages: [(&str, Option<&str>, String); 15] = [
        (
            "index.html",
            None,
            "What does it cost a system call to be watched or filtered?".into(),
        ),
        ("runs/index.html", Some(SORT_COLUMN), "All runs".into()),
        ("kernels/6.8/index.html", None, "Linux 6.8".into()),
        ("arch/x86_64/index.html", None, "x86_64".into()),
        (run_page.as_str(), None, format!("Run {}", rec.id)),
        (
            "changes/index.html",
            None,
            "Changes between kernel versions".into(),
        ),
        (series.as_str(), None, "Series".into()),
        (series_metric.as_str(), None, String::new()),
        (metric.as_str(), None, String::new()),
        (matrix.as_str(), None, String::new()),
        ("metrics/index.html", None, String::new()),
        ("kernels/index.html", None, String::new()),
        ("unplaced.html", None, "Unplaced runs".into()),
        ("methodology.html", None, String::new()),
        ("submit.html", None, String::new()),
    ];
    let list: Vec<(&str, Option<&str>)> = pages.iter().map(|(p, s, _)| (*p, *s)).collect();
    let harness = HARNESS
        .replace("CANARY", CANARY)
        .replace("PAGE_LIST", &serde_json::to_string(&list).unwrap());
    let harness_path = site.join("browser-harness.html");
    std::fs::write(&harness_path, harness).unwrap();

    let dump = dump_dom(&harness_path, tmp.path());
    let found = results(&dump.dom);

    // No script error (nor any other message) on any page; the canary shows the log works.
    let console: Vec<&str> = dump
        .stderr
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .collect();
    assert!(
        console.iter().any(|l| l.contains(CANARY)),
        "console messages do not reach the log, so errors could not be seen:\n{}",
        dump.stderr
    );
    let others: Vec<&&str> = console.iter().filter(|l| !l.contains(CANARY)).collect();
    assert!(others.is_empty(), "console messages: {others:#?}");

    for (page, _, h1) in &pages {
        let f = &found["pages"][page];
        assert!(f.is_object(), "{page} was not inspected: {found}");
        assert!(f.get("error").is_none(), "{page}: {}", f["error"]);
        // The run page's heading carries its badges after the title.
        let got = f["h1"].as_str().unwrap_or_default();
        assert!(got.starts_with(h1.as_str()), "{page}: {got}");
        assert_eq!(f["footer"], true, "{page}: incomplete DOM");
        assert_eq!(f["header_border"], "solid", "{page}: style.css not applied");
    }
    // At 400 px no page scrolls sideways, and chart text is at least 11 CSS px.
    for (page, _, _) in &pages {
        let n = &found["narrow"][page];
        assert!(n.get("error").is_none(), "{page} at 400 px: {}", n["error"]);
        let (sw, iw) = (n["scroll_width"].as_f64(), n["inner_width"].as_f64());
        assert!(
            sw.is_some() && iw.is_some() && sw <= iw,
            "{page} scrolls sideways at 400 px: {n}"
        );
        if let Some(s) = n["chart_scale"].as_f64() {
            assert!(s >= 0.999, "{page}: chart text scaled to {s} at 400 px");
        }
    }
    // The architecture page's trends, and the run page's depth sweep.
    let arch = &found["pages"]["arch/x86_64/index.html"];
    let mut charts = arch["charts"].as_array().expect("charts").clone();
    assert!(!charts.is_empty(), "no chart on the architecture page");
    let sweep = found["pages"][run_page.as_str()]["charts"]
        .as_array()
        .expect("charts")
        .clone();
    assert_eq!(sweep.len(), 1, "no depth sweep on the run page");
    charts.extend(sweep);
    for c in &charts {
        assert!(
            c["width"].as_f64().unwrap() > 300.0,
            "chart not laid out: {c}"
        );
        let markers = c["markers"].as_u64().unwrap();
        assert!(markers > 0, "chart without markers: {c}");
        assert_eq!(c["drawn"].as_u64(), Some(markers), "markers not drawn: {c}");
    }

    // Clicking the header sorts ascending, clicking again descending, keeping every row.
    let sort = &found["sort"];
    assert!(sort.get("error").is_none(), "{}", sort["error"]);
    let before = numbers(&sort["before"]);
    assert!(before.len() > 10, "too few rows to tell: {before:?}");
    assert!(
        !ascending(&before),
        "the table was sorted before the click, so a sort could not be seen"
    );
    assert_eq!(sort["first"]["order"], "ascending");
    let first = numbers(&sort["first"]["values"]);
    assert!(ascending(&first), "not sorted ascending: {first:?}");
    assert!(same_values(&before, &first), "rows changed while sorting");
    assert_eq!(sort["second"]["order"], "descending");
    let mut second = numbers(&sort["second"]["values"]);
    second.reverse();
    assert!(ascending(&second), "not sorted descending: {second:?}");
    assert!(same_values(&before, &second), "rows changed while sorting");
}
