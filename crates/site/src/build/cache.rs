//! The summary cache: what the index pages need from each record (its [`RunInfo`] and the
//! spellings of the metric keys it met), kept between builds beside the site and keyed by this
//! program and the record's bytes. A rebuild still reads and parses each record (its run page is
//! made from it) but does not validate or summarise one it has seen: only records that were
//! valid and in their file form are cached, and the key says both the bytes and the program are
//! the same.
//!
//! It does not depend on the site: any build of the same program writes the same entry for the
//! same bytes. The file is one stream — a magic line, the program, length-prefixed postcard
//! frames (the spellings, then one per record), an empty frame and a hash of all that came
//! before — written to a temporary name and renamed into place. A file that is cut short, has
//! another program's key or the wrong hash is not used at all: the build reads every record.

use crate::build::staging::{Key, Streamed};
use crate::model::metrics::{Registry, Spelling, MAX_METRICS};
use crate::model::summary::RunInfo;
use foldhash::HashMap;
use serde::{Deserialize, Serialize};
use std::fs;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::sync::Mutex;

const MAGIC: &[u8] = b"syscost-site summaries 3\n";

/// A frame larger than this is taken for damage (a real one is a few KB).
const MAX_FRAME: u32 = 64 << 20;

/// One record's entry, as read.
#[derive(Deserialize)]
pub struct Hit {
    key: [u8; 16],
    pub info: RunInfo,
    /// The spellings met, as indices into the file's table.
    pub calls: Vec<u32>,
    /// `(index into calls, [median, lo, hi])`.
    pub values: Vec<(u32, [f64; 3])>,
}

/// The same, as written (field order is the format).
#[derive(Serialize)]
struct HitRef<'a> {
    key: [u8; 16],
    info: &'a RunInfo,
    calls: &'a [u32],
    values: Vec<(u32, [f64; 3])>,
}

/// The previous build's entries; each is taken once.
#[derive(Default)]
pub struct Cache {
    pub spellings: Vec<Spelling>,
    hits: HashMap<[u8; 16], Mutex<Option<Hit>>>,
}

impl Cache {
    /// Reads the cache at `path` written by the program `program`; empty if there is none or
    /// it cannot be trusted.
    pub fn read(path: &Path, program: &[u8; 16]) -> Cache {
        read(path, program).unwrap_or_default()
    }

    /// Takes the entry of `key` (each is taken once).
    pub fn take(&self, key: &Key) -> Option<Hit> {
        self.hits.get(&key.bytes())?.lock().ok()?.take()
    }
}

/// A reader that hashes what it reads.
struct Hashing<R> {
    inner: R,
    h: Streamed,
}

impl<R: Read> Hashing<R> {
    fn exact(&mut self, buf: &mut [u8]) -> Option<()> {
        self.inner.read_exact(buf).ok()?;
        self.h.update(buf);
        Some(())
    }

    fn frame(&mut self, buf: &mut Vec<u8>) -> Option<usize> {
        let mut len = [0u8; 4];
        self.exact(&mut len)?;
        let len = u32::from_le_bytes(len);
        if len > MAX_FRAME {
            return None;
        }
        buf.resize(len as usize, 0);
        self.exact(buf)?;
        Some(len as usize)
    }
}

fn read(path: &Path, program: &[u8; 16]) -> Option<Cache> {
    let file = fs::File::open(path).ok()?;
    let mut r = Hashing {
        inner: BufReader::with_capacity(1 << 16, file),
        h: Streamed::default(),
    };
    let mut head = vec![0u8; MAGIC.len() + 16];
    r.exact(&mut head)?;
    if head[..MAGIC.len()] != *MAGIC || head[MAGIC.len()..] != program[..] {
        return None;
    }
    let mut buf = Vec::new();
    r.frame(&mut buf)?;
    let spellings: Vec<Spelling> = postcard::from_bytes(&buf).ok()?;
    let mut hits = HashMap::default();
    while r.frame(&mut buf)? > 0 {
        let hit: Hit = postcard::from_bytes(&buf).ok()?;
        hits.insert(hit.key, Mutex::new(Some(hit)));
    }
    let want = r.h.key().bytes();
    let mut sum = [0u8; 16];
    r.inner.read_exact(&mut sum).ok()?;
    let mut rest = [0u8; 1];
    let at_end = matches!(r.inner.read(&mut rest), Ok(0));
    (sum == want && at_end).then_some(Cache { spellings, hits })
}

/// What the build knows of each run, for the next build's cache.
pub struct Entries<'a> {
    pub infos: &'a [RunInfo],
    /// Per run: its key (none for a record not in its file form: it is read again, to be
    /// warned about again) and its spellings (indices into `spellings`).
    pub keys: &'a [Option<Key>],
    pub calls: &'a [std::sync::Arc<[u32]>],
    pub spellings: &'a [Spelling],
    pub reg: &'a Registry,
}

/// The cache for the next build, written under a temporary name while the index pages are
/// made: [`Written::commit`] puts it in place once the build is known to succeed; dropped
/// before that, it is removed. A build whose metric keys reached [`MAX_METRICS`] writes none
/// (committing removes the previous one): past it, which keys are followed depends on the
/// other records, and a cached run could not intern what its record would.
pub struct Written {
    path: std::path::PathBuf,
    tmp: Option<std::path::PathBuf>,
}

impl Written {
    pub fn commit(mut self) -> std::io::Result<()> {
        match self.tmp.take() {
            Some(tmp) => fs::rename(&tmp, &self.path).inspect_err(|_| {
                let _ = fs::remove_file(&tmp);
            }),
            None => match fs::remove_file(&self.path) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(err),
                _ => Ok(()),
            },
        }
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        if let Some(tmp) = &self.tmp {
            let _ = fs::remove_file(tmp);
        }
    }
}

/// Writes the cache for the next build to a temporary name beside `path` (see [`Written`]).
pub fn write(path: &Path, program: &[u8; 16], e: &Entries) -> std::io::Result<Written> {
    let mut written = Written {
        path: path.to_path_buf(),
        tmp: None,
    };
    if e.reg.len() >= MAX_METRICS {
        return Ok(written);
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let result = (|| {
        let mut w = BufWriter::with_capacity(1 << 16, fs::File::create(&tmp)?);
        let mut h = Streamed::default();
        let mut put = |w: &mut BufWriter<fs::File>, bytes: &[u8]| {
            h.update(bytes);
            w.write_all(bytes)
        };
        put(&mut w, MAGIC)?;
        put(&mut w, program)?;
        let frame = |bytes: Vec<u8>| -> std::io::Result<Vec<u8>> {
            let len = u32::try_from(bytes.len())
                .ok()
                .filter(|&l| l <= MAX_FRAME)
                .ok_or_else(|| std::io::Error::other("summary too large"))?;
            let mut out = len.to_le_bytes().to_vec();
            out.extend_from_slice(&bytes);
            Ok(out)
        };
        let enc = |x: Result<Vec<u8>, postcard::Error>| x.map_err(std::io::Error::other);
        put(&mut w, &frame(enc(postcard::to_stdvec(e.spellings))?)?)?;
        // Each spelling's metric id in this build's registry, once.
        let ids: Vec<Option<u32>> = e
            .spellings
            .iter()
            .map(|s| e.reg.find(s.kind, &s.id, &s.vs))
            .collect();
        let key_of = |c: u32| ids.get(c as usize).copied().flatten();
        for ((info, key), calls) in e.infos.iter().zip(e.keys).zip(e.calls) {
            let Some(key) = key else { continue };
            let hit = HitRef {
                key: key.bytes(),
                info,
                calls,
                values: info.values.by_call(calls, key_of),
            };
            put(&mut w, &frame(enc(postcard::to_stdvec(&hit))?)?)?;
        }
        put(&mut w, &0u32.to_le_bytes())?;
        w.write_all(&h.key().bytes())?;
        w.flush()?;
        Ok(())
    })();
    match result {
        Ok(()) => {
            written.tmp = Some(tmp);
            Ok(written)
        }
        Err(err) => {
            let _ = fs::remove_file(&tmp);
            Err(err)
        }
    }
}
