//! The summary cache: what the index pages need from each record (its [`RunInfo`] and the
//! spellings of the metric keys it met), kept between builds beside the site and keyed by this
//! program and the record's bytes. A rebuild reads each record's bytes to hash them, but does
//! not parse, validate or summarise a record it has seen: only records that were valid and in
//! their file form are cached, and the key says both the bytes and the program are the same.
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

const MAGIC: &[u8] = b"syscost-site summaries 2\n";

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
    #[serde(deserialize_with = "values::unpack")]
    pub values: Vec<(u32, [f64; 3])>,
}

/// The same, as written (field order is the format).
#[derive(Serialize)]
struct HitRef<'a> {
    key: [u8; 16],
    info: &'a RunInfo,
    calls: &'a [u32],
    #[serde(serialize_with = "values::pack")]
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

    /// It has no entries (there was no previous build, or it could not be trusted).
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// Looks at the entry of `key` without taking it.
    pub fn peek<R>(&self, key: &Key, f: impl FnOnce(&RunInfo) -> R) -> Option<R> {
        let slot = self.hits.get(&key.bytes())?.lock().ok()?;
        slot.as_ref().map(|h| f(&h.info))
    }

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

/// A run's values in a few bytes each. Most of a cache entry is its ~117 values, three
/// numbers each; a record gives its numbers rounded to the digits their intervals justify, so
/// almost every one is `n / 10^k` for a small whole `n`, written as a varint of `n` with `k`
/// and the sign (3 bytes for `1234.5` instead of 8). The check is that the division gives the
/// very same `f64` back, so reading does exactly what writing checked; any other value is
/// written as its eight bytes. Less to write and hash in a build, less to read in a rebuild
/// (the cache was 3.3 KB a run).
mod values {
    use serde::{Deserialize, Deserializer, Serializer};

    const POW10: [f64; 10] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
    /// The `k` of a value written as its bits.
    const AS_BITS: u64 = 15;
    /// Below 2^53 every whole `f64` is exact as a `u64`.
    const EXACT: f64 = 9_007_199_254_740_992.0;

    fn varint(out: &mut Vec<u8>, mut x: u64) {
        while x >= 0x80 {
            out.push(x as u8 | 0x80);
            x >>= 7;
        }
        out.push(x as u8);
    }

    fn read_varint(b: &mut &[u8]) -> Option<u64> {
        let mut x = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = b.split_first()?;
            *b = rest;
            x |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(x);
            }
        }
        None
    }

    /// `(n << 5) | (sign << 4) | k`, or [`AS_BITS`] and the value's bits.
    pub(super) fn put(out: &mut Vec<u8>, v: f64) {
        let a = v.abs();
        for (k, p) in POW10.iter().enumerate() {
            let s = a * p;
            if s >= EXACT {
                break;
            }
            // `as u64` truncates (`trunc` is a library call on baseline x86-64).
            let n = s as u64;
            if n as f64 == s && s / p == a {
                let sign = u64::from(v.is_sign_negative());
                return varint(out, n << 5 | sign << 4 | k as u64);
            }
        }
        varint(out, AS_BITS);
        out.extend_from_slice(&v.to_bits().to_le_bytes());
    }

    pub(super) fn get(b: &mut &[u8]) -> Option<f64> {
        let x = read_varint(b)?;
        let k = (x & 15) as usize;
        if k as u64 == AS_BITS {
            let (bits, rest) = b.split_first_chunk::<8>()?;
            *b = rest;
            return Some(f64::from_bits(u64::from_le_bytes(*bits)));
        }
        // Writing never gives a whole part of 2^53 or more (it would not be exact).
        let n = x >> 5;
        if n >= 1 << 53 {
            return None;
        }
        let a = n as f64 / POW10.get(k)?;
        Some(if x & 16 != 0 { -a } else { a })
    }

    pub(super) fn pack<S: Serializer>(v: &[(u32, [f64; 3])], s: S) -> Result<S::Ok, S::Error> {
        let mut out = Vec::with_capacity(v.len() * 12);
        for (i, vals) in v {
            varint(&mut out, u64::from(*i));
            for &x in vals {
                put(&mut out, x);
            }
        }
        s.serialize_bytes(&out)
    }

    pub(super) fn unpack<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<(u32, [f64; 3])>, D::Error> {
        use serde::de::Error;
        thread_local! {
            static SCRATCH: std::cell::Cell<Vec<(u32, [f64; 3])>> = const { std::cell::Cell::new(Vec::new()) };
        }
        let mut b: &[u8] = Deserialize::deserialize(d)?;
        // Decoded into a vector the thread keeps, then copied at its exact length: the count is
        // not written, and 100,000 entries each allocated with room to spare held 90 MB more.
        let mut out = SCRATCH.take();
        out.clear();
        while !b.is_empty() {
            let one = (|| {
                let i = u32::try_from(read_varint(&mut b)?).ok()?;
                Some((i, [get(&mut b)?, get(&mut b)?, get(&mut b)?]))
            })();
            match one {
                Some(v) => out.push(v),
                None => {
                    SCRATCH.set(out);
                    return Err(D::Error::custom("damaged values"));
                }
            }
        }
        let exact = out.to_vec();
        SCRATCH.set(out);
        Ok(exact)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn round_trip(v: f64) -> (f64, usize) {
            let mut out = Vec::new();
            put(&mut out, v);
            let mut b = &out[..];
            let got = get(&mut b).expect("a value written is read back");
            assert!(b.is_empty(), "{v}: {} bytes left", b.len());
            (got, out.len())
        }

        #[test]
        fn every_value_comes_back_bit_for_bit() {
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            let mut values = vec![
                0.0,
                -0.0,
                1.0,
                -1.5,
                0.1,
                0.3,
                1234.5,
                1e-9,
                123_456_789.123,
                9_007_199_254_740_993.0,
                1e300,
                f64::MIN_POSITIVE,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                f64::MAX,
            ];
            for _ in 0..100_000 {
                // Decimals as records spell them, and arbitrary bit patterns.
                let digits = (next() % 10_000_000) as f64 / POW10[(next() % 10) as usize];
                values.push(if next() % 2 == 0 { digits } else { -digits });
                // Its neighbours, which scale to the same whole number but are not it.
                values.push(f64::from_bits(digits.to_bits() + 1));
                values.push(f64::from_bits(digits.to_bits().saturating_sub(1)));
                values.push(f64::from_bits(next()));
            }
            for v in values {
                let (got, _) = round_trip(v);
                assert_eq!(got.to_bits(), v.to_bits(), "{v:e}");
            }
        }

        #[test]
        fn a_decimal_as_records_give_it_takes_a_few_bytes() {
            assert_eq!(round_trip(1234.5).1, 3);
            assert_eq!(round_trip(0.25).1, 2);
            assert_eq!(round_trip(-17.0).1, 2);
            // Not a short decimal: its bits.
            assert_eq!(round_trip(std::f64::consts::PI).1, 9);
        }

        #[test]
        fn damage_is_an_error_not_a_wrong_value() {
            // A varint cut short, a decimal with k past the table, a value's bits cut short,
            // a whole part of 2^53 (no value is written so).
            let mut big = Vec::new();
            super::varint(&mut big, (1u64 << 53) << 5);
            for bad in [&[0x80u8][..], &[0x0a], &[0x0f, 1, 2, 3], &big] {
                assert_eq!(get(&mut &bad[..]), None, "{bad:?}");
            }
        }
    }
}
