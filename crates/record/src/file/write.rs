//! The file form of schemas 3 and 4 written straight from the record, without making its rows.
//!
//! Written by hand for validation, which writes every record it checks once more: the
//! file form, compared with the file, and beside it schema 3's form, which the content id
//! covers. Each value is formatted once, into the file form; schema 3's is then made from it
//! and the few places where the two differ ([`Patches`]). Through serde, a row struct was made
//! for each list element; writing every value into both texts as it was formatted cost a third
//! of a record's validation. The serde route (`Serialize for RunRecord`, through the row types)
//! stays for generic serialisers (pretty printing, `serde_json::Value`); a test holds the two
//! to the same bytes on every record of `data/` and on variants that reach every branch.
//!
//! What serde decides stays serde's: strings that need escaping are escaped and numbers spelled
//! by serde_json (`CompactFormatter`), and the parts that are not lists of rows (`source`,
//! `settings`, `environment`) are serialised by their derives.

use super::{dictionary, in_force};
use crate::precision::derived_throughput;
use crate::{
    Estimate, Expectation, GroupSummary, Overhead, RunRecord, ScenarioResult, Target, Throughput,
    Verification,
};
use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter};
use std::cell::Cell;
use std::collections::BTreeMap;

/// Writes the file form of schema `form` (3 or later) into `out`, with `id` in place of the
/// record's id; with `three`, the form its content id covers beside it (schema 3's, the id
/// blank), each value formatted once for both.
pub(crate) fn record(
    r: &RunRecord,
    id: &str,
    form: u32,
    out: &mut Vec<u8>,
    three: Option<&mut Vec<u8>>,
) {
    let Some(three) = three else {
        return Writer {
            out,
            form,
            patches: None,
        }
        .record(r, id);
    };
    let mut p = Patches::default();
    Writer {
        out: &mut *out,
        form,
        patches: Some(&mut p),
    }
    .record(r, id);
    p.apply(out, three);
}

/// Schema 3's form differs from 4's only where 4 refers to a text or map of its own part of
/// the dictionary (3 spells it out), writes a row's own id as `0` (3 writes the id) and a
/// whole number without `.0`.
struct Writer<'a> {
    out: &'a mut Vec<u8>,
    form: u32,
    /// Where schema 3's form differs, when it is wanted.
    patches: Option<&'a mut Patches>,
}

/// Schema 3's form as the differences from the file form: the bytes `from..to` of the file
/// form are `spelled[s..e]` in schema 3's, in the order they are written; `s` is
/// [`POINT_ZERO`] where schema 3's form has `.0` after a whole number, most of them.
#[derive(Default)]
struct Patches {
    spelled: Vec<u8>,
    at: Vec<(usize, usize, usize, usize)>,
}

impl Patches {
    /// Schema 3's form from the file form `four`, into `three`.
    fn apply(&self, four: &[u8], three: &mut Vec<u8>) {
        // At most two bytes more a patch than the texts spelled out.
        three.reserve(four.len() + self.spelled.len() + 2 * self.at.len());
        let mut done = 0;
        for &(from, to, s, e) in &self.at {
            three.extend_from_slice(&four[done..from]);
            if s == POINT_ZERO {
                // Most patches: two bytes copied as a constant, not by a call to `memcpy`.
                three.extend_from_slice(b".0");
            } else {
                three.extend_from_slice(&self.spelled[s..e]);
            }
            done = to;
        }
        three.extend_from_slice(&four[done..]);
    }

    /// At `pos` of the file form, schema 3's has `.0` too (after a whole number).
    fn point_zero(&mut self, pos: usize) {
        self.at.push((pos, pos, POINT_ZERO, 0));
    }
}

/// The `s` of a patch that inserts `.0`.
const POINT_ZERO: usize = usize::MAX;

/// A row of the file form: `[`, its fields written in order and separated by commas, `]`.
macro_rules! row {
    ($w:ident => $($field:expr),+ $(,)?) => {{
        $w.byte(b'[');
        let mut first = true;
        $(
            if !std::mem::take(&mut first) {
                $w.byte(b',');
            }
            $field;
        )+
        $w.byte(b']');
    }};
}

/// `s` quoted and escaped as serde_json writes it.
fn quote(out: &mut Vec<u8>, s: &str) {
    // Most texts need no escape: copied as they are. Checked without stopping at the first
    // byte that needs one, so the check is vectorised.
    let plain = s
        .bytes()
        .fold(true, |ok, b| ok & (b >= 0x20) & (b != b'"') & (b != b'\\'));
    if plain {
        out.reserve(s.len() + 2);
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
    } else {
        // Writing into memory cannot fail.
        let _ = serde_json::to_writer(out, s);
    }
}

/// A whole number that schema 4 writes without `.0` (`23500`, not `23500.0`): below 2^53 every
/// whole f64 is an exact i64; -0 keeps its sign as a float.
fn is_whole(v: f64) -> bool {
    // The cast truncates toward zero (no call to `trunc`, which baseline x86-64 lacks).
    v.abs() < 9.0e15 && (v as i64) as f64 == v && !(v == 0.0 && v.is_sign_negative())
}

impl Writer<'_> {
    fn raw(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
    }

    fn byte(&mut self, b: u8) {
        self.out.push(b);
    }

    fn str(&mut self, s: &str) {
        quote(self.out, s);
    }

    fn u64(&mut self, v: u64) {
        let _ = CompactFormatter.write_u64(&mut *self.out, v);
    }

    fn bool(&mut self, v: bool) {
        self.raw(if v { b"true" } else { b"false" });
    }

    /// As serde_json writes an `f64`: `null` when not finite; from schema 4 a whole number
    /// without `.0`, which schema 3's form has.
    fn f64(&mut self, v: f64) {
        if !v.is_finite() {
            self.raw(b"null");
        } else if self.form >= 4 && is_whole(v) {
            let _ = CompactFormatter.write_i64(&mut *self.out, v as i64);
            if let Some(p) = self.patches.as_deref_mut() {
                p.point_zero(self.out.len());
            }
        } else {
            let _ = CompactFormatter.write_f64(&mut *self.out, v);
        }
    }

    fn opt_f64(&mut self, v: Option<f64>) {
        self.opt(v.as_ref(), |w, v| w.f64(*v));
    }

    fn opt_u64(&mut self, v: Option<u64>) {
        self.opt(v.as_ref(), |w, v| w.u64(*v));
    }

    /// A unit enum by its serde name, or any small value as serde writes it.
    fn serde<T: Serialize + ?Sized>(&mut self, v: &T) {
        let _ = serde_json::to_writer(&mut *self.out, v);
    }

    /// Writes with `four` into the form being written and with `three` into schema 3's.
    fn differs(&mut self, four: impl FnOnce(&mut Writer), three: impl FnOnce(&mut Writer)) {
        let from = self.out.len();
        let patches = self.patches.take();
        four(&mut Writer {
            out: self.out,
            form: self.form,
            patches: None,
        });
        if let Some(p) = patches {
            let s = p.spelled.len();
            three(&mut Writer {
                out: &mut p.spelled,
                form: 3,
                patches: None,
            });
            p.at.push((from, self.out.len(), s, p.spelled.len()));
            self.patches = Some(p);
        }
    }

    /// A text of a row: its index in the dictionary of this form, or the text.
    fn text(&mut self, s: &str) {
        let d = dictionary();
        match d.text_ix.get(s).copied() {
            Some(i) if (i as usize) >= d.schema3.0 && (i as usize) < in_force(self.form).0 => {
                self.differs(|w| w.u64(u64::from(i)), |w| w.str(s));
            }
            Some(i) if (i as usize) < in_force(self.form).0 => self.u64(u64::from(i)),
            _ => self.str(s),
        }
    }

    /// A scenario's parameters: `null` when there are none, the index of the same map in the
    /// dictionary, or the map with its values as texts.
    fn params(&mut self, p: &BTreeMap<String, String>) {
        if p.is_empty() {
            return self.raw(b"null");
        }
        let d = dictionary();
        match d.params_ix.get(p).copied() {
            Some(i) if (i as usize) >= d.schema3.1 && (i as usize) < in_force(self.form).1 => {
                self.differs(|w| w.u64(u64::from(i)), |w| w.params(p));
            }
            Some(i) if (i as usize) < in_force(self.form).1 => self.u64(u64::from(i)),
            _ => {
                self.byte(b'{');
                for (k, (key, v)) in p.iter().enumerate() {
                    if k > 0 {
                        self.byte(b',');
                    }
                    self.str(key);
                    self.byte(b':');
                    self.text(v);
                }
                self.byte(b'}');
            }
        }
    }

    /// A scenario id that is often the row's own (a target's group, a group's member): from
    /// schema 4 `0` when it is.
    fn name(&mut self, name: &str, own: &str) {
        if self.form >= 4 && name == own {
            self.differs(|w| w.byte(b'0'), |w| w.str(own));
        } else {
            self.str(name);
        }
    }

    /// A part that is an object of its own, as its derive serialises it (from schema 4 with
    /// whole numbers as [`Writer::f64`] writes them).
    fn part<T: Serialize>(&mut self, v: &T) {
        if self.form < 4 {
            return self.serde(v);
        }
        let start = self.out.len();
        let pos = Cell::new(start);
        let mut whole = Vec::new();
        let counted = Counted {
            out: &mut *self.out,
            pos: &pos,
        };
        let formatter = Whole {
            pos: &pos,
            at: &mut whole,
        };
        let _ = v.serialize(&mut serde_json::Serializer::with_formatter(
            counted, formatter,
        ));
        if let Some(p) = self.patches.as_deref_mut() {
            // The same text, with `.0` after each whole number.
            for end in whole {
                p.point_zero(end);
            }
        }
    }

    /// The elements of a list, separated by commas.
    fn list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.byte(b',');
            }
            each(self, x);
        }
    }

    fn record(&mut self, r: &RunRecord, id: &str) {
        let form = self.form;
        self.differs(
            |w| {
                w.raw(b"{\"schema\":");
                w.u64(u64::from(form));
                w.raw(b",\"id\":");
                w.str(id);
            },
            |w| w.raw(br#"{"schema":3,"id":"""#),
        );
        self.raw(b",\"source\":");
        self.part(&r.source);
        self.raw(b",\"settings\":");
        self.part(&r.settings);
        self.raw(b",\"environment\":");
        self.part(&r.environment);
        self.summary(r);
        self.raw(b",\"results\":[");
        self.list(&r.results, |w, x| w.result(x));
        self.raw(b"],\"estimates\":[");
        self.list(&r.estimates, |w, x| w.estimate(x));
        self.raw(b"],\"expectations\":[");
        self.list(&r.expectations, |w, x| w.expectation(x));
        self.byte(b']');
        if !r.notes.is_empty() {
            self.raw(b",\"notes\":");
            self.serde(&r.notes);
        }
        self.byte(b'}');
    }

    fn summary(&mut self, r: &RunRecord) {
        let m = &r.summary;
        self.raw(b",\"summary\":{\"rounds\":");
        self.u64(m.rounds);
        if let Some(d) = m.duration_s {
            self.raw(b",\"duration_s\":");
            self.f64(d);
        }
        self.raw(b",\"stop_reason\":");
        self.serde(&m.stop_reason);
        self.raw(b",\"target_reached\":");
        self.bool(m.target_reached);
        if let Some(p) = m.worst_ci_pct {
            self.raw(b",\"worst_ci_pct\":");
            self.f64(p);
        }
        if let Some(id) = &m.worst_ci_id {
            self.raw(b",\"worst_ci_id\":");
            self.str(id);
        }
        self.raw(b",\"ci_method\":");
        self.str(&m.ci_method);
        if !m.targets.is_empty() {
            self.raw(b",\"targets\":[");
            self.list(&m.targets, |w, x| w.target(x));
            self.byte(b']');
        }
        if !m.groups.is_empty() {
            self.raw(b",\"groups\":[");
            self.list(&m.groups, |w, x| w.group(x));
            self.byte(b']');
        }
        if let Some(i) = &m.instances {
            self.raw(b",\"instances\":");
            self.part(i);
        }
        self.byte(b'}');
    }

    /// A value that may be absent: `null` when it is.
    fn opt<T: ?Sized>(&mut self, v: Option<&T>, write: impl FnOnce(&mut Self, &T)) {
        match v {
            Some(v) => write(self, v),
            None => self.raw(b"null"),
        }
    }

    /// id, family, description, status, reason, stats, overhead, throughput, verification,
    /// params.
    fn result(&mut self, r: &ScenarioResult) {
        row!(self =>
            self.str(&r.id),
            self.text(&r.family),
            self.text(&r.description),
            self.serde(&r.status),
            self.opt(r.reason.as_deref(), Self::text),
            self.stats(r),
            self.opt(r.overhead.as_ref(), Self::overhead),
            self.opt(r.throughput_mops.as_ref(), |w, t| w.throughput(r, t)),
            self.opt(r.verification.as_ref(), Self::verification),
            self.params(&r.params),
        );
    }

    /// median, ci_low, ci_high, samples, iters_per_sample, mad, min, p90, outliers, preempted,
    /// retaken; `null` when it has none of them.
    fn stats(&mut self, r: &ScenarioResult) {
        let floats = [
            r.median_ns,
            r.ci_low_ns,
            r.ci_high_ns,
            r.mad_ns,
            r.min_ns,
            r.p90_ns,
        ];
        let counts = [
            r.samples,
            r.iters_per_sample,
            r.outliers,
            r.preempted,
            r.retaken,
        ];
        if floats.iter().all(Option::is_none) && counts.iter().all(Option::is_none) {
            return self.raw(b"null");
        }
        row!(self =>
            self.opt_f64(r.median_ns),
            self.opt_f64(r.ci_low_ns),
            self.opt_f64(r.ci_high_ns),
            self.opt_u64(r.samples),
            self.opt_u64(r.iters_per_sample),
            self.opt_f64(r.mad_ns),
            self.opt_f64(r.min_ns),
            self.opt_f64(r.p90_ns),
            self.opt_u64(r.outliers),
            self.opt_u64(r.preempted),
            self.opt_u64(r.retaken),
        );
    }

    /// vs, median, ci_low, ci_high, samples, pct, pct_ci_low, pct_ci_high.
    fn overhead(&mut self, o: &Overhead) {
        row!(self =>
            self.str(&o.vs),
            self.f64(o.median_ns),
            self.opt_f64(o.ci_low_ns),
            self.opt_f64(o.ci_high_ns),
            self.u64(o.samples),
            self.f64(o.pct),
            self.opt_f64(o.pct_ci_low),
            self.opt_f64(o.pct_ci_high),
        );
    }

    /// `0` when it is derived from the median, else median, ci_low, ci_high, stddev.
    fn throughput(&mut self, r: &ScenarioResult, t: &Throughput) {
        if derived_throughput(r.median_ns, r.ci_low_ns, r.ci_high_ns).as_ref() == Some(t) {
            return self.byte(b'0');
        }
        row!(self =>
            self.f64(t.median),
            self.opt_f64(t.ci_low),
            self.opt_f64(t.ci_high),
            self.opt_f64(t.stddev),
        );
    }

    /// what, expected, observed.
    fn verification(&mut self, v: &Verification) {
        row!(self => self.text(&v.what), self.u64(v.expected), self.u64(v.observed));
    }

    /// id, label, formula, median, ci_low, ci_high, samples, origin.
    fn estimate(&mut self, e: &Estimate) {
        row!(self =>
            self.str(&e.id),
            self.text(&e.label),
            self.text(&e.formula),
            self.f64(e.median_ns),
            self.opt_f64(e.ci_low_ns),
            self.opt_f64(e.ci_high_ns),
            self.u64(e.samples),
            self.serde(&e.origin),
        );
    }

    /// id, label, relation, lhs, rhs, diff median, diff ci_low, diff ci_high, tolerance,
    /// systematic, verdict, kernel verdict.
    fn expectation(&mut self, e: &Expectation) {
        row!(self =>
            self.str(&e.id),
            self.text(&e.label),
            self.serde(&e.relation),
            self.f64(e.lhs_ns),
            self.f64(e.rhs_ns),
            self.opt_f64(e.diff_median_ns),
            self.opt_f64(e.diff_ci_low_ns),
            self.opt_f64(e.diff_ci_high_ns),
            self.f64(e.tolerance_ns),
            self.opt_f64(e.systematic_ns),
            self.serde(&e.verdict),
            self.serde(&e.kernel_verdict),
        );
    }

    /// quantity, id, median, half-width, target, met, group.
    fn target(&mut self, t: &Target) {
        row!(self =>
            self.serde(&t.quantity),
            self.str(&t.id),
            self.f64(t.median_ns),
            self.opt_f64(t.half_width_ns),
            self.f64(t.target_ns),
            self.bool(t.met),
            self.name(&t.group, &t.id),
        );
    }

    /// id, members, rounds, duration.
    fn group(&mut self, g: &GroupSummary) {
        row!(self =>
            self.str(&g.id),
            {
                self.byte(b'[');
                self.list(&g.members, |w, x| w.name(x, &g.id));
                self.byte(b']');
            },
            self.u64(g.rounds),
            self.f64(g.duration_s),
        );
    }
}

/// A writer that keeps the length written so far where [`Whole`] reads it.
struct Counted<'a> {
    out: &'a mut Vec<u8>,
    pos: &'a Cell<usize>,
}

impl std::io::Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.extend_from_slice(buf);
        self.pos.set(self.out.len());
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Compact JSON in which a whole number is written without `.0`, where it ends kept.
struct Whole<'a> {
    pos: &'a Cell<usize>,
    at: &'a mut Vec<usize>,
}

impl Formatter for Whole<'_> {
    fn write_f64<W: ?Sized + std::io::Write>(&mut self, w: &mut W, v: f64) -> std::io::Result<()> {
        if is_whole(v) {
            CompactFormatter.write_i64(w, v as i64)?;
            self.at.push(self.pos.get());
            Ok(())
        } else {
            CompactFormatter.write_f64(w, v)
        }
    }
}
