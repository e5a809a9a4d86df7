//! The rules every record must meet, whoever wrote it: every number has a range, every
//! identifier a grammar, every text a length. The collector checks its own output with them
//! before writing, the importer each record it makes, the site generator every submission.
//! The limits are documented in docs/record-format.md ("Rules").

mod results;
use results::*;

mod environment;
use environment::*;

use crate::format::{is_arch, is_hex, is_ident, is_kernel_release, parse_date};
use crate::{content_id, is_readable_schema, RunRecord, SourceKind, Status, SCHEMA_VERSION};
use std::collections::{BTreeMap, HashMap};
use std::fmt;

/// One thing wrong with a record: the field (a JSON path) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

/// Largest time per operation, ns (1000 s).
pub const TIME_MAX_NS: f64 = 1e12;
/// Smallest time of a measured result, ns: a hundredth of a nanosecond is shorter than any CPU
/// cycle, so a smaller median is not a measurement.
pub const TIME_MIN_NS: f64 = 0.01;
/// Longest budget, s: `syscost run` refuses more than a day.
pub const BUDGET_MAX_S: f64 = 86_400.0;
/// Longest run, s (a week: a day's budget, or a long published benchmark session).
pub const DURATION_MAX_S: f64 = 7.0 * 86_400.0;
/// Longest sample, ms (a minute; syscost's are 0.25 ms).
pub const SAMPLE_MAX_MS: f64 = 60_000.0;
/// Highest load average accepted (far above any machine's).
pub const LOADAVG_MAX: f64 = 1e6;
/// Most samples, rounds or paired rounds behind one number.
pub const COUNT_MAX: u64 = 1_000_000_000;
/// Most operations per sample.
pub const ITERS_MAX: u64 = 1_000_000_000_000;
/// Highest CPU number (the kernel's NR_CPUS is at most 8192).
pub const CPU_MAX: u32 = 8191;
/// Most syscalls per operation (5 for `mix`).
pub const SYSCALLS_PER_OP_MAX: u32 = 1000;
/// Longest free text (a description, a reason, a note, the kernel command line), bytes.
pub const TEXT_MAX: usize = 4096;
/// Most entries of any list or map in a record.
pub const ENTRIES_MAX: usize = 2000;
/// How far a date may lie after the clock of the check: the skew between two machines' clocks.
pub const CLOCK_SKEW_S: i64 = 3600;
/// Earliest date a Linux run can have: the first Linux release (0.01, 1991-09-17).
pub const DATE_MIN: i64 = 685_065_600;

/// A field's name, made only when a problem is found: most fields of most records have none,
/// and naming each (`results[12] (seccomp.full.3).ci_low_ns`) was most of the validation's
/// cost.
trait Field {
    fn name(self) -> String;
}

impl Field for &str {
    fn name(self) -> String {
        self.to_string()
    }
}

impl Field for &String {
    fn name(self) -> String {
        self.clone()
    }
}

struct Lazy<F>(F);

/// The name of an entry of a list (`results[3] (native)`, with `sub` after it), formatted only
/// when a problem is found: a valid record is checked without formatting a name.
#[derive(Clone, Copy)]
struct Entry<'a> {
    list: &'static str,
    i: usize,
    id: &'a str,
    sub: &'static str,
}

impl fmt::Display for Entry<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}[{}] ({}){}",
            self.list,
            self.i,
            short(self.id),
            self.sub
        )
    }
}

impl Field for &Entry<'_> {
    fn name(self) -> String {
        self.to_string()
    }
}

impl<F: FnOnce() -> String> Field for Lazy<F> {
    fn name(self) -> String {
        (self.0)()
    }
}

struct Checker {
    problems: Vec<Problem>,
}

impl Checker {
    fn push(&mut self, field: impl Into<String>, message: impl Into<String>) {
        self.problems.push(Problem {
            field: field.into(),
            message: message.into(),
        });
    }

    /// A time: finite and not negative.
    fn time(&mut self, field: impl Field, v: Option<f64>) {
        if let Some(v) = v {
            if !v.is_finite() {
                self.push(field.name(), format!("{} is not a finite number", num(v)));
            } else if v < 0.0 {
                self.push(field.name(), format!("{} is a negative time", num(v)));
            } else if v > TIME_MAX_NS {
                self.push(
                    field.name(),
                    format!("{} ns is more than 1000 s per operation", num(v)),
                );
            }
        }
    }

    /// A difference: finite, may be negative.
    fn diff(&mut self, field: impl Field, v: Option<f64>) {
        if let Some(v) = v {
            if !v.is_finite() {
                self.push(field.name(), format!("{} is not a finite number", num(v)));
            } else if v.abs() > TIME_MAX_NS {
                self.push(field.name(), format!("{} ns is implausibly large", num(v)));
            }
        }
    }

    /// A number in `[lo, hi]` (`lo_open`: strictly above `lo`), in `unit`.
    fn range(
        &mut self,
        field: impl Field,
        v: Option<f64>,
        lo: f64,
        lo_open: bool,
        hi: f64,
        unit: &str,
    ) {
        let Some(v) = v else { return };
        let low = if lo_open { v <= lo } else { v < lo };
        if !v.is_finite() {
            self.push(field.name(), format!("{} is not a finite number", num(v)));
        } else if low || v > hi {
            let open = if lo_open { "above" } else { "at least" };
            self.push(
                field.name(),
                format!(
                    "{}{unit} is out of range: must be {open} {}{unit} and at most {}{unit}",
                    num(v),
                    num(lo),
                    num(hi)
                ),
            );
        }
    }

    /// A count of at most `max`.
    fn count(&mut self, field: impl Field, v: Option<u64>, max: u64) {
        if let Some(v) = v {
            if v > max {
                self.push(field.name(), format!("{v} is out of range: at most {max}"));
            }
        }
    }

    /// An identifier (`[A-Za-z0-9._+-]`, 1 to 100 characters).
    fn ident(&mut self, field: impl Field, s: &str) {
        if !is_ident(s) {
            self.push(
                field.name(),
                format!(
                    "{} is not an identifier: 1 to {} characters of A-Z a-z 0-9 . _ + -",
                    quoted(s),
                    crate::format::IDENT_MAX
                ),
            );
        }
    }

    /// Free text of at most [`TEXT_MAX`] bytes.
    fn text(&mut self, field: impl Field, s: &str) {
        if s.len() > TEXT_MAX {
            self.push(
                field.name(),
                format!("is {} bytes long; text may be at most {TEXT_MAX}", s.len()),
            );
        }
    }

    fn opt_text(&mut self, field: impl Field, s: &Option<String>) {
        if let Some(s) = s {
            self.text(field, s);
        }
    }

    /// A list or map of at most [`ENTRIES_MAX`] entries.
    fn entries(&mut self, field: impl Field, n: usize) {
        if n > ENTRIES_MAX {
            self.push(
                field.name(),
                format!("has {n} entries; at most {ENTRIES_MAX} are accepted"),
            );
        }
    }

    /// A map of free-text keys and values.
    /// `field` is formatted only for a problem.
    fn text_map(&mut self, field: &dyn fmt::Display, m: &BTreeMap<String, String>) {
        self.entries(Lazy(|| field.to_string()), m.len());
        for (k, v) in m {
            self.text(Lazy(|| format!("{field} key")), k);
            self.text(Lazy(|| format!("{field}.{}", short(k))), v);
        }
    }

    /// A date no earlier than Linux and no later than `now`.
    fn date(&mut self, field: impl Field, s: &str, now: i64) {
        match parse_date(s) {
            None => self.push(
                field.name(),
                format!(
                    "{} is not an RFC 3339 date (2021-02-07) or UTC time (2021-02-07T10:00:00Z)",
                    quoted(s)
                ),
            ),
            Some(t) if t < DATE_MIN => self.push(
                field.name(),
                format!("{} is before the first Linux release", quoted(s)),
            ),
            Some(t) if t > now + CLOCK_SKEW_S => self.push(
                field.name(),
                format!(
                    "{} is in the future (later than the time of this check)",
                    quoted(s)
                ),
            ),
            Some(_) => {}
        }
    }

    /// median inside [low, high], low ≤ high.
    fn interval(
        &mut self,
        field: impl Field,
        median: Option<f64>,
        low: Option<f64>,
        high: Option<f64>,
    ) {
        match (median, low, high) {
            (Some(m), Some(l), Some(h)) if m.is_finite() && l.is_finite() && h.is_finite() => {
                if l > h {
                    self.push(field.name(), format!("CI low {l} is above CI high {h}"));
                } else if m < l || m > h {
                    self.push(
                        field.name(),
                        format!("median {m} lies outside its CI [{l}, {h}]"),
                    );
                }
            }
            (_, Some(_), None) | (_, None, Some(_)) => {
                self.push(field.name(), "a CI needs both ci_low and ci_high")
            }
            _ => {}
        }
    }
}

/// A number for a message: as written when short, in exponent form when it would take more
/// than a few digits (1e308, not 309 of them).
fn num(v: f64) -> String {
    let a = v.abs();
    if a != 0.0 && !(1e-4..1e15).contains(&a) {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

/// A string for a message: quoted, escaped, and cut short.
fn quoted(s: &str) -> String {
    format!("{:?}", short(s))
}

fn short(s: &str) -> String {
    if s.chars().count() <= 40 {
        s.to_string()
    } else {
        let mut out: String = s.chars().take(40).collect();
        out.push('…');
        out
    }
}

/// Seconds since the epoch, now.
fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Every problem found, empty when the record is acceptable. Dates are judged against the
/// clock: a record may not be dated later than the check (give or take [`CLOCK_SKEW_S`]).
pub fn validate(r: &RunRecord) -> Vec<Problem> {
    validate_at(r, unix_now())
}

/// [`validate`] with the time of the check given (seconds since 1970-01-01T00:00:00Z).
pub fn validate_at(r: &RunRecord, now: i64) -> Vec<Problem> {
    checks(r, now, &|| content_id(r))
}

/// [`validate`] of a record whose canonical JSON ([`crate::canonical_json`]) is at hand: the
/// content id is taken from it rather than serialising the record again.
pub fn validate_canonical(r: &RunRecord, canonical: &str) -> Vec<Problem> {
    checks(r, unix_now(), &|| crate::content_id_of_json(r, canonical))
}

/// [`validate`] and [`crate::is_file_form`] of a record read from `bytes`: whether the file is
/// in its schema's form, compared as the record is serialised, and every problem. In that form
/// up to schema 3, the file is the text the content id covers (spliced); from schema 4 the id
/// is of schema 3's form, hashed as it is serialised from the rows the file form was compared
/// with. Either way no copy of the text is made.
pub fn validate_file(r: &RunRecord, bytes: &[u8]) -> (Vec<Problem>, bool) {
    if crate::content_id::id_form(r.schema) != r.schema {
        let (in_form, id) = crate::content_id::file_form_and_id(r, bytes);
        return (checks(r, unix_now(), &|| id.clone()), in_form);
    }
    let in_form = crate::is_file_form(r, bytes);
    let canonical = (in_form && r.schema >= 2 && crate::content_id::id_form(r.schema) == r.schema)
        .then(|| bytes.strip_suffix(b"\n"))
        .flatten()
        .and_then(|b| std::str::from_utf8(b).ok());
    let problems = match canonical {
        Some(text) => validate_canonical(r, text),
        None => validate(r),
    };
    (problems, in_form)
}

fn checks(r: &RunRecord, now: i64, id: &dyn Fn() -> String) -> Vec<Problem> {
    let mut c = Checker {
        problems: Vec::new(),
    };
    if !is_readable_schema(u64::from(r.schema)) {
        c.push(
            "schema",
            format!(
                "schema version {} is not supported (this build reads {} to {SCHEMA_VERSION})",
                r.schema,
                crate::OLDEST_SCHEMA
            ),
        );
        return c.problems;
    }
    let expected = id();
    if r.id != expected {
        c.push(
            "id",
            format!(
                "id {:?} does not match the content hash {expected:?} (was the file edited?)",
                short(&r.id)
            ),
        );
    }
    source(&mut c, r, now);
    settings(&mut c, &r.settings);
    environment(&mut c, r);
    summary(&mut c, r);
    results(&mut c, r);
    estimates_and_expectations(&mut c, r);
    c.entries("notes", r.notes.len());
    for (i, n) in r.notes.iter().enumerate() {
        c.text(Lazy(|| format!("notes[{i}]")), n);
    }
    c.problems
}

fn source(c: &mut Checker, r: &RunRecord, now: i64) {
    let s = &r.source;
    c.text("source.tool", &s.tool);
    if s.tool.trim().is_empty() {
        c.push("source.tool", "is empty");
    }
    if let Some(commit) = &s.commit {
        let hash = commit.strip_suffix("-dirty").unwrap_or(commit);
        if !is_hex(hash, 4, 64) {
            c.push(
                "source.commit",
                format!(
                    "{} is not a git commit (hex digits, optionally -dirty)",
                    quoted(commit)
                ),
            );
        }
    }
    if let Some(f) = &s.format {
        c.ident("source.format", f);
    }
    c.opt_text("source.url", &s.url);
    c.opt_text("source.note", &s.note);
    if let Some(h) = &s.text_sha256 {
        if !is_hex(h, 64, 64) {
            c.push(
                "source.text_sha256",
                "must be 64 lower-case hex digits (a SHA-256)",
            );
        }
    }
    if let Some(d) = &s.date {
        c.date("source.date", d, now);
    }
    if let Some(st) = &s.stated {
        c.opt_text("source.stated.stated_in", &st.stated_in);
        c.opt_text("source.stated.machine", &st.machine);
        if let Some(a) = &st.arch {
            if !is_arch(a) {
                c.push("source.stated.arch", arch_message(a));
            }
        }
        if let Some(d) = &st.date {
            c.date("source.stated.date", d, now);
        }
        if let Some(k) = &st.kernel {
            if k.release.trim().is_empty() {
                c.push("source.stated.kernel.release", "is empty");
            } else if !is_kernel_release(&k.release) {
                c.push("source.stated.kernel.release", release_message(&k.release));
            }
            if k.approximate && k.release == r.environment.comparability.kernel_release {
                c.push(
                    "environment.comparability.kernel_release",
                    "an approximate stated kernel must not be recorded as the kernel release",
                );
            }
        }
    }
}

fn arch_message(a: &str) -> String {
    if a.trim().is_empty() {
        return "is empty".to_string();
    }
    format!(
        "{} is not an architecture name as uname -m prints it (a lower-case letter, then \
         lower-case letters, digits and _, at most {} characters: x86_64, aarch64)",
        quoted(a),
        crate::format::ARCH_MAX
    )
}

fn release_message(k: &str) -> String {
    if k.trim().is_empty() {
        return "is empty".to_string();
    }
    if crate::format::is_release_shaped(k) && crate::format::is_site_file_name(k) {
        return format!(
            "{} is named like one of the site's own pages (it would become runs/<arch>/{}, \
             beside the site's index.html and page-N.html); a real uname never prints that",
            quoted(k),
            short(k)
        );
    }
    format!(
        "{} is not a kernel release as uname -r prints it (at most {} characters of A-Z a-z \
         0-9 . _ + -, beginning with a letter or digit, no \"..\")",
        quoted(k),
        crate::format::KERNEL_RELEASE_MAX
    )
}

/// The rules of a record's settings alone: what `syscost run` checks its options against
/// before it measures, so that a record it writes is one `check` accepts.
pub fn validate_settings(s: &crate::Settings) -> Vec<Problem> {
    let mut c = Checker {
        problems: Vec::new(),
    };
    settings(&mut c, s);
    c.problems
}

fn settings(c: &mut Checker, s: &crate::Settings) {
    c.range(
        "settings.budget_s",
        s.budget_s,
        0.0,
        true,
        BUDGET_MAX_S,
        " s",
    );
    c.range(
        "settings.target_ci_pct",
        s.target_ci_pct,
        0.0,
        true,
        100.0,
        " %",
    );
    c.range(
        "settings.sample_ms",
        s.sample_ms,
        0.0,
        true,
        SAMPLE_MAX_MS,
        " ms",
    );
    if !(s.confidence >= 0.5 && s.confidence < 1.0) {
        c.push(
            "settings.confidence",
            format!(
                "{} must be between 0 and 1 (at least 0.5, below 1)",
                s.confidence
            ),
        );
    }
    c.ident("settings.syscall", &s.syscall);
    match s.syscalls_per_op {
        Some(0) => c.push("settings.syscalls_per_op", "must be at least 1"),
        Some(n) if n > SYSCALLS_PER_OP_MAX => c.push(
            "settings.syscalls_per_op",
            format!("{n} is out of range: at most {SYSCALLS_PER_OP_MAX}"),
        ),
        None if s.operation.is_none() => c.push(
            "settings.operation",
            "without syscalls_per_op the record must say what an operation is",
        ),
        _ => {}
    }
    c.opt_text("settings.operation", &s.operation);
    if let Some(cpu) = s.cpu {
        if cpu > CPU_MAX {
            c.push(
                "settings.cpu",
                format!("{cpu} is out of range: at most {CPU_MAX}"),
            );
        }
    }
    for (name, list) in [("settings.only", &s.only), ("settings.skip", &s.skip)] {
        c.entries(name, list.len());
        for (i, p) in list.iter().enumerate() {
            // Ids and globs of ids.
            let glob = p.replace(['*', '?'], "x");
            if !is_ident(&glob) {
                c.push(
                    format!("{name}[{i}]"),
                    format!("{} is not a scenario id or glob", quoted(p)),
                );
            }
        }
    }
}
