//! The output directory, replaced as a whole: pages are written into a sibling staging
//! directory that is renamed into place only when the build succeeded, so a failed or
//! interrupted build never leaves a half-written site behind.
//!
//! Rebuilds are incremental: the site carries a manifest ([`MANIFEST`]) of every file with a
//! hash of its content or, for a rendered page, of what it is rendered from: its template and
//! the whole context handed to it ([`Key::of_context`]), so no input can be left out of the
//! key. A file whose hash is the one the previous build recorded is not written again but
//! linked from the previous site into the staging directory (a hard link: the same file,
//! untouched), and a page whose context is unchanged is not even rendered.

use foldhash::HashMap;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Present in every generated site; only a directory carrying it is ever deleted or replaced.
pub const MARKER: &str = ".syscost-site";

/// Every file of the site with the hash it was written under: `path TAB hash` lines, sorted,
/// and a last line with a hash of the others ([`CHECKSUM`]): a manifest that was cut short or
/// edited is not used (the rebuild writes every file).
pub const MANIFEST: &str = ".syscost-manifest";

const CHECKSUM: &str = "/checksum/";

/// The manifest line of how many runs the site shows (`/runs/ TAB N`): a build that would
/// replace a site of runs with one of none is refused unless asked for.
const RUNS: &str = "/runs/";

/// Where the summary cache of the site at `out` is kept (`site::cache`): beside it, not in it,
/// since it is not part of what is published.
pub fn summaries_path(out: &Path) -> PathBuf {
    sibling(out, "summaries")
}

/// A 128-bit hash of some bytes, for telling whether a file or a page's inputs changed between
/// two builds. Not a security boundary (the site is rebuilt from data anyone can read): XXH3's
/// 128-bit form, which hashes at memory speed (every record file is hashed on every build).
/// Another version of the hash would give other keys; then every file is written once more.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Key(u64, u64);

impl Key {
    pub fn of(parts: &[&[u8]]) -> Key {
        let mut h = Streamed::default();
        for p in parts {
            // Each part's length first: ("ab", "c") and ("a", "bc") are different inputs.
            h.update(&(p.len() as u64).to_le_bytes());
            h.update(p);
        }
        h.key()
    }

    /// The key of a page rendered by this `program` (whose templates are compiled in) from
    /// `template` with the context `ctx`: a hash of the context as serialised, so whatever the
    /// page is made from is in its key. `None` when the context cannot be serialised as JSON
    /// (a map with keys that are not strings): such a page is rendered on every build.
    pub fn of_context<T: serde::Serialize + ?Sized>(
        program: &[u8; 16],
        template: &str,
        ctx: &T,
    ) -> Option<Key> {
        let mut h = Streamed::default();
        for part in [&program[..], template.as_bytes()] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        serde_json::to_writer(&mut h, ctx).ok()?;
        Some(h.key())
    }

    pub fn bytes(&self) -> [u8; 16] {
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&self.0.to_le_bytes());
        b[8..].copy_from_slice(&self.1.to_le_bytes());
        b
    }

    /// What this program is: a hash of its executable, so a page rendered by another build of
    /// syscost-site (other templates, other code) is never taken for one of this build. When the
    /// executable cannot be read, a key no earlier build can have.
    pub fn of_program() -> Key {
        use std::io::Read;
        let exe = std::env::current_exe().and_then(fs::File::open);
        let mut h = Streamed::default();
        // Streamed: the executable can be larger than everything else the build holds.
        let read = exe.and_then(|mut f| {
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = f.read(&mut buf)?;
                if n == 0 {
                    return Ok(());
                }
                h.update(&buf[..n]);
            }
        });
        if read.is_ok() {
            return h.key();
        }
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Key::of(&[&t.to_le_bytes(), &std::process::id().to_le_bytes()])
    }

    fn text(&self, kind: char) -> String {
        format!("{kind}{:016x}{:016x}", self.0, self.1)
    }
}

/// A [`Key`] of bytes given piece by piece (what a streamed file is hashed with).
#[derive(Default)]
pub struct Streamed(xxhash_rust::xxh3::Xxh3Default);

impl std::io::Write for Streamed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Streamed {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub fn key(&self) -> Key {
        let h = self.0.digest128();
        Key((h >> 64) as u64, h as u64)
    }
}

fn manifest_checksum(body: &str) -> String {
    format!("{CHECKSUM}\t{}\n", Key::of(&[body.as_bytes()]).text('m'))
}

/// What can go wrong with the output directory; every variant names the path.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("--out {} must name a directory", .0.display())]
    NotADirectoryName(PathBuf),
    #[error("--out {}: {}", .0.display(), .1)]
    Inspect(PathBuf, #[source] std::io::Error),
    #[error(
        "refusing to replace {}: it exists, is not empty and was not made by syscost-site (no \
         {MARKER} file); choose another --out",
        .0.display()
    )]
    NotOurs(PathBuf),
    #[error(
        "refusing to delete {}: it was not made by syscost-site (no {MARKER} file)",
        .0.display()
    )]
    WontDelete(PathBuf),
    #[error("cannot remove {}: {}", .0.display(), .1)]
    Remove(PathBuf, #[source] std::io::Error),
    #[error("cannot create {}: {}", .0.display(), .1)]
    CreateDir(PathBuf, #[source] std::io::Error),
    #[error("cannot write {}: {}", .0.display(), .1)]
    Write(PathBuf, #[source] std::io::Error),
    #[error("cannot move the old {} aside: {}", .0.display(), .1)]
    MoveAside(PathBuf, #[source] std::io::Error),
    #[error("cannot move the new site to {}: {}", .0.display(), .1)]
    MoveIn(PathBuf, #[source] std::io::Error),
}

/// For `map_err`: the io error at `path` as the `variant` of [`OutputError`].
fn at(
    variant: fn(PathBuf, std::io::Error) -> OutputError,
    path: &Path,
) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |e| variant(path.to_path_buf(), e)
}

/// Shared by the rendering threads: writes take `&self`.
pub struct Staging {
    out: PathBuf,
    tmp: PathBuf,
    old: PathBuf,
    dirs: Mutex<BTreeSet<PathBuf>>,
    stats: Mutex<Stats>,
    /// The previous build's manifest: path → hash text.
    prev: HashMap<String, String>,
    /// This build's manifest.
    manifest: Mutex<Vec<(String, String)>>,
    /// There was no site at `out` (nothing, or an empty directory).
    was_empty: bool,
}

#[derive(Debug, Default, Clone)]
pub struct Stats {
    pub files: u64,
    pub bytes: u64,
    pub largest_page: u64,
    pub largest_page_path: String,
    /// Files written by this build (the rest are the previous build's, unchanged).
    pub written: u64,
    /// Pages whose inputs were unchanged, so they were not rendered.
    pub not_rendered: u64,
}

/// Reads the previous build's manifest (nothing if there is none, or it is not ours).
fn read_manifest(out: &Path) -> HashMap<String, String> {
    if !out.join(MARKER).is_file() {
        return HashMap::default();
    }
    let Ok(text) = fs::read_to_string(out.join(MANIFEST)) else {
        return HashMap::default();
    };
    let body = match text.rfind(CHECKSUM) {
        Some(i) if text[i..] == manifest_checksum(&text[..i]) => &text[..i],
        _ => return HashMap::default(),
    };
    body.lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(p, h)| (p.to_string(), h.to_string()))
        .collect()
}

fn sibling(out: &Path, suffix: &str) -> PathBuf {
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "site".to_string());
    out.with_file_name(format!(".{name}.{suffix}"))
}

/// Removes a directory only if it is one of ours.
fn remove_ours(dir: &Path) -> Result<(), OutputError> {
    if !dir.exists() {
        return Ok(());
    }
    if !dir.join(MARKER).is_file() {
        return Err(OutputError::WontDelete(dir.to_path_buf()));
    }
    fs::remove_dir_all(dir).map_err(at(OutputError::Remove, dir))
}

impl Staging {
    pub fn new(out: &Path) -> Result<Staging, OutputError> {
        if out.as_os_str().is_empty() || out.file_name().is_none() {
            return Err(OutputError::NotADirectoryName(out.to_path_buf()));
        }
        let mut was_empty = true;
        if out.exists() {
            was_empty = fs::read_dir(out)
                .map_err(at(OutputError::Inspect, out))?
                .next()
                .is_none();
            if !was_empty && !out.join(MARKER).is_file() {
                return Err(OutputError::NotOurs(out.to_path_buf()));
            }
        }
        let tmp = sibling(out, "tmp-build");
        let old = sibling(out, "old-build");
        remove_ours(&tmp)?;
        fs::create_dir_all(&tmp).map_err(at(OutputError::CreateDir, &tmp))?;
        let s = Staging {
            out: out.to_path_buf(),
            tmp,
            old,
            dirs: Mutex::new(BTreeSet::new()),
            stats: Mutex::new(Stats::default()),
            prev: read_manifest(out),
            manifest: Mutex::new(Vec::new()),
            was_empty,
        };
        s.write(
            MARKER,
            b"Generated by syscost-site; the whole directory is replaced on rebuild.\n",
        )?;
        Ok(s)
    }

    /// Writes `rel` (a `/`-separated path under the site root), or links the previous
    /// build's file when it has the same content.
    pub fn write(&self, rel: &str, bytes: &[u8]) -> Result<(), OutputError> {
        let hash = Key::of(&[bytes]).text('c');
        self.mkdir_for(rel)?;
        if !self.link_previous(rel, &hash) {
            let path = self.tmp.join(rel);
            fs::write(&path, bytes).map_err(at(OutputError::Write, &path))?;
            self.count_written();
        }
        self.record(rel, hash, bytes.len() as u64);
        Ok(())
    }

    /// Links the previous build's `rel` into place if it was rendered from the context whose
    /// key is `key`; true if it was (the caller need not render it). Otherwise the caller
    /// renders the page and passes it to [`Staging::write_keyed`] with the same key.
    pub fn reuse(&self, rel: &str, key: Key) -> Result<bool, OutputError> {
        let hash = key.text('i');
        self.mkdir_for(rel)?;
        if !self.link_previous(rel, &hash) {
            return Ok(false);
        }
        let len = fs::metadata(self.tmp.join(rel)).map_or(0, |m| m.len());
        self.record(rel, hash, len);
        if let Ok(mut st) = self.stats.lock() {
            st.not_rendered += 1;
        }
        Ok(true)
    }

    /// Writes a page rendered from the context whose key is `key` (see [`Staging::reuse`]).
    pub fn write_keyed(&self, rel: &str, key: Key, bytes: &[u8]) -> Result<(), OutputError> {
        self.mkdir_for(rel)?;
        let path = self.tmp.join(rel);
        fs::write(&path, bytes).map_err(at(OutputError::Write, &path))?;
        self.count_written();
        self.record(rel, key.text('i'), bytes.len() as u64);
        Ok(())
    }

    /// Hard-links the previous build's `rel` into the staging directory when the manifest has
    /// it under `hash`; false if not (or if linking fails: then the file is written anew).
    fn link_previous(&self, rel: &str, hash: &str) -> bool {
        self.prev.get(rel).is_some_and(|h| h == hash)
            && fs::hard_link(self.out.join(rel), self.tmp.join(rel)).is_ok()
    }

    fn count_written(&self) {
        if let Ok(mut st) = self.stats.lock() {
            st.written += 1;
        }
    }

    fn record(&self, rel: &str, hash: String, len: u64) {
        if let Ok(mut m) = self.manifest.lock() {
            m.push((rel.to_string(), hash));
        }
        if let Ok(mut st) = self.stats.lock() {
            st.files += 1;
            st.bytes += len;
            // Ties go to the smaller path so the report does not depend on thread timing.
            if rel.ends_with(".html")
                && (len > st.largest_page
                    || (len == st.largest_page && rel < st.largest_page_path.as_str()))
            {
                st.largest_page = len;
                st.largest_page_path = rel.to_string();
            }
        }
    }

    fn mkdir_for(&self, rel: &str) -> Result<(), OutputError> {
        let path = self.tmp.join(rel);
        if let Some(parent) = path.parent() {
            let known = self
                .dirs
                .lock()
                .map(|d| d.contains(parent))
                .unwrap_or(false);
            if !known {
                // create_dir_all is idempotent, so two threads racing here is harmless.
                fs::create_dir_all(parent).map_err(at(OutputError::CreateDir, parent))?;
                if let Ok(mut d) = self.dirs.lock() {
                    d.insert(parent.to_path_buf());
                }
            }
        }
        Ok(())
    }

    /// Writes `rel` by streaming: `fill` writes into a buffered file, so an export that grows
    /// with the number of runs is never held in memory whole.
    pub fn write_with(
        &self,
        rel: &str,
        fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> Result<(), OutputError> {
        use std::io::Write;
        /// Counts and hashes what passes through.
        struct Counting<W> {
            inner: W,
            n: u64,
            h: Streamed,
        }
        impl<W: Write> Write for Counting<W> {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                let k = self.inner.write(buf)?;
                self.n += k as u64;
                self.h.update(&buf[..k]);
                Ok(k)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                self.inner.flush()
            }
        }
        let path = self.tmp.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(at(OutputError::CreateDir, parent))?;
        }
        let file = fs::File::create(&path).map_err(at(OutputError::Write, &path))?;
        let mut w = Counting {
            inner: std::io::BufWriter::with_capacity(1 << 16, file),
            n: 0,
            h: Streamed::default(),
        };
        fill(&mut w).map_err(at(OutputError::Write, &path))?;
        w.flush().map_err(at(OutputError::Write, &path))?;
        let hash = w.h.key().text('s');
        drop(w);
        // An export is streamed (it grows with the runs, so it is never held whole): when it
        // comes out as it was, the previous build's file takes the place of the new one.
        let same = self.prev.get(rel).is_some_and(|h| *h == hash)
            && fs::remove_file(&path).is_ok()
            && self.link_previous(rel, &hash);
        if !same {
            if !path.exists() {
                return Err(OutputError::Write(
                    path,
                    std::io::Error::other("the previous build's copy could not be linked"),
                ));
            }
            self.count_written();
        }
        let n = fs::metadata(&path).map_or(0, |m| m.len());
        self.record(rel, hash, n);
        Ok(())
    }

    /// How many runs the site this build replaces shows: 0 when there is none, `None` for a
    /// site whose manifest does not say (made by an earlier syscost-site, or damaged).
    pub fn previous_runs(&self) -> Option<usize> {
        if self.was_empty {
            return Some(0);
        }
        self.prev.get(RUNS).and_then(|n| n.parse().ok())
    }

    pub fn stats(&self) -> Stats {
        self.stats.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// Puts the staged site of `runs` runs in place of the old one, with its manifest.
    pub fn commit(self, runs: usize) -> Result<Stats, OutputError> {
        let stats = self.stats();
        let mut m = self.manifest.lock().map(|m| m.clone()).unwrap_or_default();
        m.push((RUNS.to_string(), runs.to_string()));
        m.sort();
        let mut text: String = m.iter().map(|(p, h)| format!("{p}\t{h}\n")).collect();
        text += &manifest_checksum(&text);
        let path = self.tmp.join(MANIFEST);
        fs::write(&path, text).map_err(at(OutputError::Write, &path))?;
        remove_ours(&self.old)?;
        if self.out.exists() {
            fs::rename(&self.out, &self.old).map_err(at(OutputError::MoveAside, &self.out))?;
        }
        fs::rename(&self.tmp, &self.out).map_err(at(OutputError::MoveIn, &self.out))?;
        if self.old.exists() {
            // The old copy is either ours (marker) or was empty when we started.
            fs::remove_dir_all(&self.old).map_err(at(OutputError::Remove, &self.old))?;
        }
        Ok(stats)
    }

    /// Drops the staged files (a failed or `--strict` build).
    pub fn discard(self) {
        let _ = fs::remove_dir_all(&self.tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page's context as a page writer might build it: `note` stands for an input nobody
    /// thought of listing.
    #[derive(serde::Serialize)]
    struct Page<'a> {
        title: &'a str,
        runs: Vec<u32>,
        note: Option<&'a str>,
    }

    /// One build that writes `page` at `index.html` unless the previous build rendered it from
    /// the same context; true if it was rendered.
    fn build(out: &Path, page: &Page) -> bool {
        let s = Staging::new(out).unwrap();
        let key = Key::of_context(&[7; 16], "page.html", page).unwrap();
        let rendered = !s.reuse("index.html", key).unwrap();
        if rendered {
            let html = format!("<h1>{}</h1>{:?}{:?}", page.title, page.runs, page.note);
            s.write_keyed("index.html", key, html.as_bytes()).unwrap();
        }
        s.commit(page.runs.len()).unwrap();
        rendered
    }

    fn inode(p: &Path) -> u64 {
        use std::os::unix::fs::MetadataExt;
        fs::metadata(p).unwrap().ino()
    }

    /// Whatever is in a page's context is in its key: the same context is neither rendered
    /// nor written again; any field changed, however deep, renders and writes it again.
    #[test]
    fn a_page_is_made_again_exactly_when_its_context_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        let page = |note| Page {
            title: "runs",
            runs: vec![1, 2, 3],
            note,
        };
        assert!(build(&out, &page(None)));
        let first = inode(&out.join("index.html"));
        assert!(
            !build(&out, &page(None)),
            "unchanged context rendered again"
        );
        assert_eq!(
            inode(&out.join("index.html")),
            first,
            "unchanged page rewritten"
        );
        assert!(build(&out, &page(Some("a new input"))));
        let second = inode(&out.join("index.html"));
        assert_ne!(second, first);
        let text = fs::read_to_string(out.join("index.html")).unwrap();
        assert!(text.contains("a new input"), "{text}");
        let mut other = page(Some("a new input"));
        other.runs[2] = 4;
        assert!(
            build(&out, &other),
            "a changed list element is an input too"
        );
        // Another template with the same context is another page.
        let a = Key::of_context(&[7; 16], "a.html", &other).unwrap();
        let b = Key::of_context(&[7; 16], "b.html", &other).unwrap();
        assert_ne!(a, b);
        // And another program (other code, other templates) another key.
        assert_ne!(a, Key::of_context(&[8; 16], "a.html", &other).unwrap());
    }
}
