//! Helpers shared by the integration tests: running the binary, hand-made records, walking a
//! generated site.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use syscost_record::{with_id, RunRecord, SourceKind};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_syscost-site")
}

pub fn run(args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .output()
        .expect("run syscost-site")
}

/// `syscost-site build --data DATA --out OUT`.
pub fn build_site(data: &std::path::Path, out: &std::path::Path) -> Output {
    Command::new(bin())
        .arg("build")
        .arg("--data")
        .arg(data)
        .arg("--out")
        .arg(out)
        .output()
        .expect("run syscost-site")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// An empty directory for a fixture that a file's tests share for the whole run of this test
/// binary (built once, kept in a static). It is under the target's scratch directory, not the
/// system's temporary one: a static is never dropped, so a `TempDir` held there stays behind
/// after every run. Its name carries this process's id, so that two runs at once (nextest runs
/// each test in a process of its own) never share one; the directories of runs that have
/// ended are removed first.
pub fn fixture_dir(name: &str) -> PathBuf {
    let parent = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fixtures");
    std::fs::create_dir_all(&parent).unwrap();
    let me = std::process::id();
    for e in std::fs::read_dir(&parent).unwrap().flatten() {
        let pid = e.file_name().to_str().and_then(|n| {
            let (fixture, pid) = n.rsplit_once('.')?;
            (fixture == name).then(|| pid.parse::<u32>().ok())?
        });
        if pid.is_some_and(|p| p == me || !Path::new(&format!("/proc/{p}")).exists()) {
            // Another run may be removing it at the same time.
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
    let dir = parent.join(format!("{name}.{me}"));
    std::fs::create_dir(&dir).unwrap();
    dir
}

/// A realistic, valid, non-synthetic record to start hand-made fixtures from.
pub fn base_record(seed: u64) -> RunRecord {
    let mut r = syscost_synth::generate(1, seed).next().expect("one record");
    r.source.kind = SourceKind::Collected;
    r.source.tool = "syscost 0.1.0".to_string();
    r.source.note = None;
    r.notes.clear();
    with_id(r)
}

/// `r` as `syscost lab` leaves a run under QEMU's TCG: emulated, marked in its comparability
/// key and its lab facts.
pub fn emulated(r: RunRecord) -> RunRecord {
    edited(r, |r| {
        r.environment.comparability.virtualization.kind = syscost_record::VIRT_QEMU_TCG.into();
        r.environment.comparability.virtualization.hypervisor = Some("QEMU TCG".into());
        r.environment.lab = Some(syscost_record::Lab {
            qemu: "QEMU emulator version 7.2.22".into(),
            accelerator: syscost_record::Accelerator::Tcg,
            machine: "pc".into(),
            cpu_model: "max".into(),
            vcpus: 2,
            memory_mib: 1024,
            kernel_sha256: "0".repeat(64),
            kernel_config_sha256: None,
            kvm_fallback: None,
            boot_s: Some(12.0),
            icount: None,
            seed: None,
            kernel_package: None,
        });
    })
}

/// `r` as `syscost lab --count instructions` leaves it: emulated under TCG, its clock counting
/// instructions, the emulator in its key.
pub fn counted(r: RunRecord) -> RunRecord {
    edited(emulated(r), |r| {
        let c = &mut r.environment.comparability;
        c.clock = Some(syscost_record::Clock::Instructions);
        c.emulator = Some(syscost_record::Emulator {
            name: "QEMU".into(),
            version: "7.2.22".into(),
            cpu_model: "max".into(),
        });
        let lab = r.environment.lab.as_mut().expect("lab facts");
        lab.vcpus = 1;
        lab.icount = Some("shift=0,sleep=off".into());
        lab.seed = Some(1);
    })
}

/// Applies `f`, then recomputes the id so the record stays self-consistent.
pub fn edited(mut r: RunRecord, f: impl FnOnce(&mut RunRecord)) -> RunRecord {
    f(&mut r);
    with_id(r)
}

/// Saves a record where `check` wants it; returns the path.
pub fn save(dir: &Path, r: &RunRecord) -> PathBuf {
    let p = dir.join(r.canonical_path());
    save_at(&p, r);
    p
}

pub fn save_at(p: &Path, r: &RunRecord) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, syscost_synth::to_file_bytes(r)).unwrap();
}

/// Every file under `dir`, as sorted relative paths.
pub fn files(dir: &Path) -> Vec<String> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            e.path()
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect()
}

/// Every file under `dir`, relative path → bytes (for small trees: the test process's own
/// memory counts in the peak RSS the hostile tests measure of their children).
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    files(dir)
        .into_iter()
        .map(|rel| {
            let bytes = std::fs::read(dir.join(&rel)).unwrap();
            (rel, bytes)
        })
        .collect()
}

/// Every page of a site with its text, read one at a time.
pub fn html_pages(site: &Path) -> impl Iterator<Item = (String, String)> + '_ {
    files(site)
        .into_iter()
        .filter(|p| p.ends_with(".html"))
        .map(move |p| {
            let b = std::fs::read(site.join(&p)).unwrap();
            (p, String::from_utf8(b).expect("pages are UTF-8"))
        })
}

fn unescape_attr(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#x2f;", "/")
        .replace("&amp;", "&")
}

/// Every `href="…"` and `src="…"` value in a page.
pub fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["href=\"", "src=\""] {
        for part in html.split(attr).skip(1) {
            if let Some(end) = part.find('"') {
                out.push(unescape_attr(&part[..end]));
            }
        }
    }
    out
}

/// Resolves a relative link from the page at `page` (site-relative); `None` if it leaves the site.
pub fn resolve(page: &str, link: &str) -> Option<String> {
    let target = link.split(['#', '?']).next().unwrap_or("");
    if target.is_empty() {
        return Some(page.to_string());
    }
    let mut parts: Vec<&str> = page.split('/').collect();
    parts.pop();
    for seg in target.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// Checks every internal link of every page, and the anchor it names; returns the broken ones.
pub fn broken_links(site: &Path) -> Vec<String> {
    let files: std::collections::BTreeSet<String> = files(site).into_iter().collect();
    let pages: std::collections::BTreeMap<String, String> = html_pages(site).collect();
    let mut broken = Vec::new();
    for (page, html) in &pages {
        for l in links(html) {
            if l.starts_with("https://") || l.starts_with("http://") || l.starts_with("mailto:") {
                continue;
            }
            if l.starts_with('/') || l.contains("://") {
                broken.push(format!("{page}: absolute link {l}"));
                continue;
            }
            let anchor = l.split_once('#').map(|(_, a)| a).filter(|a| !a.is_empty());
            match resolve(page, &l) {
                Some(t) if files.contains(&t) => {
                    if let (Some(a), Some(target)) = (anchor, pages.get(&t)) {
                        if !target.contains(&format!("id=\"{a}\"")) {
                            broken.push(format!("{page}: {l} → no id=\"{a}\" in {t}"));
                        }
                    }
                }
                Some(t) => broken.push(format!("{page}: {l} → {t} does not exist")),
                None => broken.push(format!("{page}: {l} leaves the site")),
            }
        }
    }
    broken
}

/// The site path of the machine-and-settings page a run page links to.
pub fn env_of(run_page: &str) -> String {
    let at = run_page
        .find("env/")
        .expect("a link to the machine and settings page");
    let end = at + run_page[at..].find('"').expect("the end of the link");
    run_page[at..end].to_string()
}

/// The site path of the page that shows run `id` (its section or its page, `id="<id>"`): the
/// page of its series' runs on its kernel version, or its own.
pub fn page_of(site: &Path, id: &str) -> String {
    shown_on(site, id).unwrap_or_else(|| panic!("run {id} is shown on no page"))
}

/// The page that shows run `id`, if one does; it is never shown on two.
pub fn shown_on(site: &Path, id: &str) -> Option<String> {
    let anchor = format!("id=\"{id}\"");
    let found: Vec<String> = html_pages(site)
        .filter(|(p, h)| p.starts_with("runs/") && h.contains(&anchor))
        .map(|(p, _)| p)
        .collect();
    assert!(found.len() <= 1, "run {id} is shown on one page: {found:?}");
    found.into_iter().next()
}

/// The id of the record at a canonical path (`runs/<arch>/<kernel>/<id>.json`).
pub fn id_of(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.strip_suffix(".json").unwrap_or(name).to_string()
}

/// What a page of runs says of run `id` alone: its section (the tables have a column of it).
pub fn run_section(html: &str, id: &str) -> String {
    let start = [
        format!("<section aria-labelledby=\"{id}\">"),
        format!("<h1 id=\"{id}\">"),
    ]
    .iter()
    .find_map(|m| html.find(m.as_str()))
    .unwrap_or_else(|| panic!("no section of run {id}"));
    let rest = &html[start..];
    let end = ["</section>", "<h2 id=\"results\">"]
        .iter()
        .filter_map(|m| rest.find(m))
        .min()
        .unwrap_or(rest.len());
    rest[..end].to_string()
}
