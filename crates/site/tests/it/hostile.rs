//! The hostile-input corpus (`tests/hostile/` at the repository root) fed to `syscost-site check`
//! and `syscost-site build`, plus what cannot be committed (a 100 MB file, symbolic links, a FIFO,
//! odd file names), generated into a temporary directory. Every file must get a clear message
//! naming it; nothing may panic, hang or read a huge file whole; nothing from a record may
//! become markup; and the rest of the site must still be built (or, with `--strict`, nothing).

use crate::common::*;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;
use syscost_record::{with_id, RunRecord};
use syscost_testkit::peak::Ran;

/// Generous ceiling for a child's peak RSS: the data set holds a 100 MB file, so a process that
/// read it whole would exceed this; a normal build of this data set needs a small fraction.
const RSS_LIMIT_KB: i64 = 64 * 1024;
/// No command may take longer than this (a hang, not a slow machine: they take about a second).
const TIMEOUT: Duration = Duration::from_secs(120);
const HUGE_BYTES: usize = 100 * 1024 * 1024;
/// Where the data set holds the file of [`HUGE_BYTES`].
const HUGE: &str = "runs/x86_64/6.8.0/huge.json";

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/hostile")
}

/// One file of the data set and what must become of it.
#[derive(Debug, Clone)]
struct Case {
    /// The corpus file (`fill-id/…`, `raw/…`), or what was generated.
    file: String,
    /// Path under the data directory.
    rel: String,
    /// `check` must report a problem for this file.
    check_problem: bool,
    /// `build` must publish it (otherwise leave it out with a message).
    published: bool,
    /// The message (check's, or build's when left out) must contain this.
    needle: String,
}

/// Runs `syscost-site` with a deadline; output in files, peak RSS of exactly that command.
fn run_bounded(args: &[&OsStr], scratch: &Path) -> Ran {
    crate::peak::run_measured(Path::new(bin()), args, scratch, TIMEOUT)
}

fn manifest() -> Vec<(String, bool, bool, String)> {
    let text = std::fs::read_to_string(corpus().join("records.tsv")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "records.tsv: bad line {l:?}");
            let problem = match f[1] {
                "problem" => true,
                "ok" => false,
                o => panic!("records.tsv: check outcome {o:?}"),
            };
            let published = match f[2] {
                "published" => true,
                "left-out" => false,
                o => panic!("records.tsv: build outcome {o:?}"),
            };
            (f[0].to_string(), problem, published, f[3].to_string())
        })
        .collect()
}

/// Lays the committed corpus out as a data directory: `raw/` files byte for byte under
/// `runs/x86_64/6.8.0/`, `fill-id/` records with their true content id at their canonical path
/// (so that only what the file is about can be wrong with them).
fn lay_out_corpus(data: &Path) -> Vec<Case> {
    let listed = manifest();
    let mut on_disk: Vec<String> = Vec::new();
    for sub in ["raw", "fill-id"] {
        for e in std::fs::read_dir(corpus().join("records").join(sub)).unwrap() {
            on_disk.push(format!(
                "{sub}/{}",
                e.unwrap().file_name().to_string_lossy()
            ));
        }
    }
    on_disk.sort();
    let mut names: Vec<String> = listed.iter().map(|c| c.0.clone()).collect();
    names.sort();
    assert_eq!(
        on_disk, names,
        "every corpus file is listed in records.tsv, and only those"
    );

    let mut cases = Vec::new();
    for (file, check_problem, published, needle) in listed {
        let src = corpus().join("records").join(&file);
        let rel = if let Some(name) = file.strip_prefix("raw/") {
            let rel = format!("runs/x86_64/6.8.0/{name}");
            std::fs::create_dir_all(data.join("runs/x86_64/6.8.0")).unwrap();
            std::fs::copy(&src, data.join(&rel)).unwrap();
            rel
        } else {
            let r: RunRecord = serde_json::from_slice(&std::fs::read(&src).unwrap())
                .unwrap_or_else(|e| panic!("{file}: fill-id records must parse: {e}"));
            // Written as syscost writes today: the current schema, in its file form.
            let r = with_id(RunRecord {
                schema: syscost_record::SCHEMA_VERSION,
                ..r
            });
            save(data, &r);
            r.canonical_path()
        };
        cases.push(Case {
            file,
            rel,
            check_problem,
            published,
            needle,
        });
    }
    cases
}

/// What cannot be committed: made here, each with its expected outcome.
fn add_generated(data: &Path, outside: &Path, cases: &mut Vec<Case>) {
    use std::os::unix::fs::symlink;
    let runs = data.join("runs");
    let case = |rel: &str, needle: &str| Case {
        file: rel.to_string(),
        rel: rel.to_string(),
        check_problem: true,
        published: false,
        needle: needle.to_string(),
    };

    // 100 MB that would parse as a record: it must be refused by its size, not read whole.
    let huge = data.join(HUGE);
    {
        use std::io::Write;
        let mut f = std::io::BufWriter::new(std::fs::File::create(&huge).unwrap());
        f.write_all(b"{\"schema\": 1, \"notes\": [\"").unwrap();
        let chunk = vec![b'A'; 1 << 20];
        for _ in 0..HUGE_BYTES >> 20 {
            f.write_all(&chunk).unwrap();
        }
        f.write_all(b"\"]}").unwrap();
    }
    cases.push(case(HUGE, "a record may be at most 1 MiB"));

    // The published markup record again under another name.
    let markup = cases
        .iter()
        .find(|c| c.file == "fill-id/markup-in-every-string.json")
        .map(|c| c.rel.clone())
        .unwrap();
    std::fs::copy(data.join(&markup), runs.join("x86_64/6.8.0/copy.json")).unwrap();
    let mut dup = case("runs/x86_64/6.8.0/copy.json", "duplicate");
    dup.check_problem = true;
    cases.push(dup);

    // Symbolic links: a loop, one to a file outside data/, one to a directory outside.
    symlink("..", runs.join("loop")).unwrap();
    cases.push(case("runs/loop", "symbolic link"));
    let outside_record = outside.join("runs/x86_64/6.8.0/elsewhere.json");
    std::fs::create_dir_all(outside_record.parent().unwrap()).unwrap();
    std::fs::write(&outside_record, synth_bytes(&base_record(77))).unwrap();
    symlink(&outside_record, runs.join("x86_64/6.8.0/link.json")).unwrap();
    cases.push(case("runs/x86_64/6.8.0/link.json", "symbolic link"));
    symlink(outside.join("runs"), runs.join("outside")).unwrap();
    cases.push(case("runs/outside", "symbolic link"));

    // A FIFO named like a record: opening it for reading would block forever.
    let fifo = runs.join("x86_64/6.8.0/fifo.json");
    syscost_testkit::sys::mkfifo(&fifo, 0o644).unwrap();
    cases.push(case("runs/x86_64/6.8.0/fifo.json", "not a regular file"));

    // A file name that is not UTF-8.
    let name = OsStr::from_bytes(b"bad-\xff\xfe.json");
    std::fs::write(runs.join("x86_64").join(name), b"{}").unwrap();
    cases.push(case("runs/x86_64/bad-", "not valid UTF-8"));

    // An edited copy of a good record, keeping its id and sorting before it: it must be
    // refused for its hash, and must not push the good record out as its "duplicate".
    let good = base_record(101);
    let mut shadow = good.clone();
    shadow.results[0].median_ns = shadow.results[0].median_ns.map(|m| m + 1.0);
    std::fs::write(runs.join("x86_64/0-shadow.json"), synth_bytes(&shadow)).unwrap();
    cases.push(case(
        "runs/x86_64/0-shadow.json",
        "does not match the content hash",
    ));

    // A file name with a line break and a CI annotation: must not forge a line of output.
    let forged = "x\n::error file=README.md::forged annotation\n.json";
    std::fs::write(runs.join("x86_64").join(forged), b"{}").unwrap();
    cases.push(case("runs/x86_64/x\\n::error", "no \"schema\" field"));
}

fn synth_bytes(r: &RunRecord) -> Vec<u8> {
    syscost_synth::to_file_bytes(r)
}

struct Fixture {
    dir: PathBuf,
    data: PathBuf,
    cases: Vec<Case>,
    good: Vec<String>,
    check: Ran,
    build: Ran,
    strict: Ran,
}

impl Fixture {
    fn site(&self) -> PathBuf {
        self.dir.join("site")
    }
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = fixture_dir("site-hostile");
        let data = dir.join("data");
        let outside = dir.join("outside");
        let scratch = dir.join("scratch");
        std::fs::create_dir_all(&scratch).unwrap();
        let mut cases = lay_out_corpus(&data);
        // Ordinary records that must still make it into the site.
        let mut good = Vec::new();
        for seed in [101, 102, 103] {
            good.push(
                save(&data, &base_record(seed))
                    .strip_prefix(&data)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
        add_generated(&data, &outside, &mut cases);
        let d = data.as_os_str();
        let check = run_bounded(&[OsStr::new("check"), d], &scratch);
        let site = dir.join("site");
        let build = run_bounded(
            &[
                OsStr::new("build"),
                OsStr::new("--data"),
                d,
                OsStr::new("--out"),
                site.as_os_str(),
                OsStr::new("--base-url"),
                OsStr::new("https://example.org/syscost/"),
            ],
            &scratch,
        );
        let strict_out = dir.join("strict-site");
        let strict = run_bounded(
            &[
                OsStr::new("build"),
                OsStr::new("--strict"),
                OsStr::new("--data"),
                d,
                OsStr::new("--out"),
                strict_out.as_os_str(),
            ],
            &scratch,
        );
        // The 100 MB file has served: it is not kept for the rest of the run, nor after it.
        std::fs::remove_file(data.join(HUGE)).unwrap();
        Fixture {
            dir,
            data,
            cases,
            good,
            check,
            build,
            strict,
        }
    })
}

/// The lines of `stderr` about the file at `rel` (messages are `DATA/REL: message`).
fn lines_about<'a>(stderr: &'a str, data: &Path, rel: &str) -> Vec<&'a str> {
    let prefix = format!("{}/{rel}", data.display());
    stderr
        .lines()
        .filter(|l| l.trim_start().starts_with(&prefix))
        .collect()
}

#[test]
fn check_names_every_hostile_file_and_why() {
    let f = fixture();
    assert_eq!(f.check.code, Some(1), "{}", f.check.stderr);
    let mut missing = Vec::new();
    for c in &f.cases {
        let lines = lines_about(&f.check.stderr, &f.data, &c.rel);
        if c.check_problem {
            if !lines.iter().any(|l| l.contains(&c.needle)) {
                missing.push(format!("{}: want {:?}, got {lines:?}", c.rel, c.needle));
            }
        } else if !lines.is_empty() {
            missing.push(format!("{}: want no problem, got {lines:?}", c.rel));
        }
    }
    for g in &f.good {
        assert!(lines_about(&f.check.stderr, &f.data, g).is_empty(), "{g}");
    }
    assert!(missing.is_empty(), "check:\n{}", missing.join("\n"));
}

#[test]
fn output_lines_cannot_be_forged_by_names_or_contents() {
    // Every line of output starts with the data directory or is the summary: a file name or a
    // record string with a line break or a terminal escape cannot start a line of its own.
    let f = fixture();
    for (what, out) in [
        ("check", &f.check.stderr),
        ("build", &f.build.stderr),
        ("strict", &f.strict.stderr),
    ] {
        for l in out.lines() {
            assert!(!l.starts_with("::"), "{what} printed a forged line: {l:?}");
            assert!(
                !l.contains('\u{1b}'),
                "{what} printed a terminal escape: {l:?}"
            );
        }
    }
}

#[test]
fn nothing_is_read_whole_or_hangs() {
    let f = fixture();
    for (what, r) in [
        ("check", &f.check),
        ("build", &f.build),
        ("strict", &f.strict),
    ] {
        eprintln!("{what}: peak RSS {} KB", r.max_rss_kb);
        assert!(
            r.max_rss_kb < RSS_LIMIT_KB,
            "{what}: peak RSS {} KB with a {} MB file present",
            r.max_rss_kb,
            HUGE_BYTES >> 20
        );
    }
}

#[test]
fn default_build_leaves_out_each_bad_file_and_builds_the_rest() {
    let f = fixture();
    assert_eq!(f.build.code, Some(0), "{}", f.build.stderr);
    let site = f.site();
    assert!(site.join("index.html").is_file());
    let mut wrong = Vec::new();
    for c in &f.cases {
        let page = shown_on(&site, &id_of(&c.rel));
        let lines = lines_about(&f.build.stderr, &f.data, &c.rel);
        if c.published {
            if page.is_none() {
                wrong.push(format!("{}: not published ({lines:?})", c.rel));
            }
        } else if page.is_some() {
            wrong.push(format!("{}: published but must be left out", c.rel));
        } else if !lines.iter().any(|l| l.contains(&c.needle)) {
            wrong.push(format!("{}: want {:?}, got {lines:?}", c.rel, c.needle));
        }
    }
    for g in &f.good {
        assert!(site.join(page_of(&site, &id_of(g))).is_file(), "{g}");
    }
    assert!(wrong.is_empty(), "build:\n{}", wrong.join("\n"));
    assert!(f.build.stderr.contains("left out of the site"));
    assert!(f.build.stdout.contains("left out"));
}

#[test]
fn strict_build_fails_and_writes_nothing() {
    let f = fixture();
    assert_eq!(f.strict.code, Some(1), "{}", f.strict.stderr);
    assert!(f.strict.stderr.contains("nothing written"));
    let leftovers: Vec<_> = std::fs::read_dir(&f.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("strict"))
        .collect();
    assert!(leftovers.is_empty(), "strict build left {leftovers:?}");
}

#[test]
fn nothing_lands_outside_the_output_directory() {
    let f = fixture();
    let mut top: Vec<String> = std::fs::read_dir(&f.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    // Beside the site only its summary cache, named after `--out`, never after a record.
    assert_eq!(
        top,
        [".site.summaries", "data", "outside", "scratch", "site"]
    );
    for e in walkdir::WalkDir::new(f.site()) {
        let e = e.unwrap();
        assert!(!e.path_is_symlink(), "{}", e.path().display());
    }
    // The traversal record is refused (its arch is no architecture name); nothing is written
    // under a name with a `..` or an empty component.
    let files = files(&f.site());
    assert!(files.iter().all(|k| !k.contains("tmp/escaped")));
    assert!(files
        .iter()
        .all(|k| !k.split('/').any(|c| c == ".." || c.is_empty())));
}

/// Pieces of the payloads that must never reach a page unescaped.
const RAW: &[&str] = &[
    "<script>alert(",
    "<img src=x",
    "]]></title></desc><!--",
    "60481729", // {{7777*7777}} evaluated
];

#[test]
fn nothing_from_a_record_becomes_markup() {
    let f = fixture();
    let mut bad = Vec::new();
    for path in &files(&f.site()) {
        let ext = path.rsplit('.').next().unwrap_or("");
        if !matches!(ext, "html" | "xml" | "svg" | "csv") {
            continue;
        }
        let bytes = std::fs::read(f.site().join(path)).unwrap();
        let text = String::from_utf8(bytes).unwrap_or_else(|_| panic!("{path} is not UTF-8"));
        if ext == "csv" {
            // Data, not markup: only characters that break CSV readers are out of place.
            if let Some(c) = text
                .chars()
                .find(|&c| c.is_control() && !matches!(c, '\n' | '\r' | '\t'))
            {
                bad.push(format!("{path}: control character U+{:04X}", c as u32));
            }
            continue;
        }
        for raw in RAW {
            if text.contains(raw) {
                bad.push(format!("{path}: contains {raw:?}"));
            }
        }
        let lower = text.to_ascii_lowercase();
        for attr in [
            "href=\"javascript:",
            "src=\"javascript:",
            "href='javascript:",
        ] {
            if lower.contains(attr) {
                bad.push(format!("{path}: {attr}"));
            }
        }
        // XML 1.0 (the feed, and HTML parsers) refuse C0 controls, U+FFFE and U+FFFF.
        if let Some(c) = text.chars().find(|&c| {
            ((c as u32) < 0x20 && !matches!(c, '\n' | '\r' | '\t'))
                || matches!(c, '\u{fffe}' | '\u{ffff}')
        }) {
            bad.push(format!("{path}: control character U+{:04X}", c as u32));
        }
        // Issue 42: a directional override or isolate from a record reorders the page's text
        // after it (3,712 of them reached one build's pages raw).
        if let Some(c) = text
            .chars()
            .find(|c| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'))
        {
            bad.push(format!("{path}: directional control U+{:04X}", c as u32));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The run page of the corpus file `file` and the page of its machine and settings, as one
/// text: what a run shares with its machine's other runs (the tool, the incidental facts, the
/// skip reasons) is on the page it links to.
fn run_pages_of(f: &Fixture, file: &str) -> String {
    let c = f
        .cases
        .iter()
        .find(|c| c.file == file)
        .unwrap_or_else(|| panic!("no case {file}"));
    let page = std::fs::read_to_string(f.site().join(page_of(&f.site(), &id_of(&c.rel)))).unwrap();
    let env = std::fs::read_to_string(f.site().join(env_of(&page))).unwrap();
    page + &env
}

#[test]
fn record_strings_reach_the_run_page_as_text() {
    // The check above is only meaningful if the payloads were rendered: find them, escaped.
    let f = fixture();
    let page = run_pages_of(f, "fill-id/markup-in-every-string.json");
    let mut absent = Vec::new();
    // The CPU vendor, command line, kernel configuration, scenario parameters, estimate labels
    // and what a verification counted are not on run pages (they are in the raw record).
    for field in [
        "tool", "url", "note", "cpu", "hyp", "mitval", "otherkey", "otherval", "reason",
        "explabel", "note0", "note1",
    ] {
        let escaped = format!("&lt;script&gt;alert(&quot;{field}&quot;)&lt;&#x2f;script&gt;");
        let escaped2 = format!("&lt;script&gt;alert(&quot;{field}&quot;)&lt;/script&gt;");
        if !page.contains(&escaped) && !page.contains(&escaped2) {
            absent.push(field);
        }
    }
    assert!(
        absent.is_empty(),
        "fields not shown on the run page: {absent:?}"
    );
    // The javascript: URL is shown, but as text, never as a link.
    assert!(page.contains("javascript:alert(document.cookie)"));
    // Directional controls are on their run's page, shown escaped.
    let page = run_pages_of(f, "fill-id/control-and-bidi-characters.json");
    for shown in [
        "CPU \\u{202e}evil\\u{202c}",
        "isolates \\u{2066}LRI \\u{2067}RLI \\u{2068}FSI\\u{2069} \\u{202a}LRE \\u{202b}RLE \\u{202d}LRO\\u{202c}",
    ] {
        assert!(page.contains(shown), "{shown:?} not on the run page");
    }
    // The feed carries escaped text and stays well-formed enough to have its closing tag.
    let feed = std::fs::read_to_string(f.site().join("feed.xml")).unwrap();
    assert!(feed.trim_end().ends_with("</feed>"));
}

#[test]
fn long_strings_do_not_blow_up_pages() {
    let f = fixture();
    // Every file name stays within what file systems accept.
    for path in &files(&f.site()) {
        for part in path.split('/') {
            assert!(part.len() <= 200, "{path}");
        }
    }
    let sizes: BTreeMap<String, usize> = files(&f.site())
        .into_iter()
        .filter(|p| p.ends_with(".html"))
        .map(|p| {
            let n = std::fs::metadata(f.site().join(&p)).unwrap().len() as usize;
            (p, n)
        })
        .collect();
    // No index page repeats the 20 KB CPU model or the 5,000-digit kernel per run beyond reason.
    for (p, n) in &sizes {
        assert!(*n < 4 << 20, "{p} is {n} bytes");
    }
}

/// `syscost-site ARGS` as the unprivileged user `nobody` (a copy of the binary in `dir`, which
/// that user can reach): as root every directory is readable, so an unreadable data directory
/// is only one for someone else.
fn as_nobody(dir: &Path, args: &[&OsStr]) -> std::process::Output {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    let exe = dir.join("syscost-site");
    if !exe.exists() {
        std::fs::copy(bin(), &exe).unwrap();
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut cmd = std::process::Command::new(&exe);
    cmd.args(args);
    if syscost_testkit::sys::is_root() {
        cmd.uid(65534).gid(65534);
    }
    cmd.output().unwrap()
}

#[test]
fn a_bad_data_path_is_an_error_and_the_published_site_stays() {
    // Issue 42: `build --strict --data <missing | loop | file>` exited 0 ("building a site with
    // no runs") and replaced a published site of 43 runs with an empty one.
    use std::os::unix::fs::{symlink, PermissionsExt};
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let data = t.join("data");
    for seed in [201, 202, 203] {
        save(&data, &base_record(seed));
    }
    let site = t.join("pub");
    let o = build_site(&data, &site);
    assert!(o.status.success(), "{}", stderr(&o));
    let published = tree(&site);
    assert!(stdout(&o).contains("3 runs"), "{}", stdout(&o));

    let missing = t.join("missing");
    let looped = t.join("loop");
    symlink("loop", &looped).unwrap();
    let dangling = t.join("dangling");
    symlink("nowhere", &dangling).unwrap();
    let file = t.join("file.json");
    std::fs::write(&file, b"{}").unwrap();
    let under_file = file.join("data");
    let unreadable = t.join("unreadable");
    std::fs::create_dir_all(unreadable.join("runs")).unwrap();
    std::fs::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o000)).unwrap();
    let cases: [(&Path, &str); 6] = [
        (&missing, "does not exist"),
        (&looped, "cannot be read: Too many levels of symbolic links"),
        (&dangling, "does not exist"),
        (&file, "is not a directory"),
        (&under_file, "cannot be read: Not a directory"),
        (&unreadable, "cannot be read: Permission denied"),
    ];
    let out = site.as_os_str();
    for (path, why) in cases {
        let d = path.as_os_str();
        let mut runs: Vec<(String, std::process::Output)> = Vec::new();
        for strict in [false, true] {
            let mut args = vec![OsStr::new("build"), OsStr::new("--data"), d];
            args.extend([OsStr::new("--out"), out]);
            if strict {
                args.push(OsStr::new("--strict"));
            }
            runs.push((format!("build strict={strict}"), as_nobody(t, &args)));
        }
        runs.push(("check".into(), as_nobody(t, &[OsStr::new("check"), d])));
        runs.push(("migrate".into(), as_nobody(t, &[OsStr::new("migrate"), d])));
        for (what, o) in runs {
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(2), "{what} {}: {err}", path.display());
            assert!(
                err.contains(&format!("{}: {why}", path.display())),
                "{what} {}: want {why:?}: {err}",
                path.display()
            );
            assert!(o.stdout.is_empty(), "{what}");
        }
        assert_eq!(
            tree(&site),
            published,
            "{}: the site changed",
            path.display()
        );
    }
    std::fs::set_permissions(&unreadable, std::fs::Permissions::from_mode(0o755)).unwrap();

    // A data directory with no run in it: the site of runs stays unless asked.
    let empty = t.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for strict in [false, true] {
        let mut args = vec!["build", "--data", empty.to_str().unwrap()];
        args.extend(["--out", site.to_str().unwrap()]);
        if strict {
            args.push("--strict");
        }
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("has no usable run record, and") && err.contains("is a site of 3 run(s)"),
            "{err}"
        );
        assert!(err.contains("--allow-empty"), "{err}");
        assert_eq!(tree(&site), published, "the site changed");
    }
    let leftovers: Vec<String> = std::fs::read_dir(t)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("build"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // Asked for: replaced; and an empty site may be rebuilt empty without asking.
    for allow in [true, false] {
        let mut args = vec!["build", "--data", empty.to_str().unwrap()];
        args.extend(["--out", site.to_str().unwrap()]);
        if allow {
            args.push("--allow-empty");
        }
        let o = run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains(": 0 runs"), "{}", stdout(&o));
    }
    // A first build from an empty data directory needs no flag either.
    let o = build_site(&empty, &t.join("fresh"));
    assert!(o.status.success(), "{}", stderr(&o));
}
