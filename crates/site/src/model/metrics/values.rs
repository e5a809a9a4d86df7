//! Every metric value of one run, as read from its record or from the summary cache.

use super::*;

/// Values and spellings as a run's keys are met.
#[derive(Default)]
pub(super) struct Builder {
    pub(super) ids: Vec<u32>,
    pub(super) vals: Vec<Packed>,
    pub(super) calls: Vec<u32>,
}

impl Builder {
    pub(super) fn push(&mut self, key: Option<u32>, v: Val) {
        if let Some(id) = key {
            if v.finite() && !self.ids.contains(&id) {
                self.ids.push(id);
                self.vals.push(Packed::of(v));
            }
        }
    }

    pub(super) fn finish(self) -> (Values, Vec<u32>) {
        (
            Values {
                ids: self.ids.into(),
                vals: self.vals.into(),
            },
            self.calls,
        )
    }
}

/// A [`Val`] in 24 bytes: NaN stands for an absent bound (real bounds are never NaN).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Packed([f64; 3]);

impl Packed {
    pub(super) fn of(v: Val) -> Packed {
        Packed([v.median, v.lo.unwrap_or(f64::NAN), v.hi.unwrap_or(f64::NAN)])
    }
    pub(super) fn val(self) -> Val {
        let some = |x: f64| (!x.is_nan()).then_some(x);
        Val {
            median: self.0[0],
            lo: some(self.0[1]),
            hi: some(self.0[2]),
        }
    }
}

/// Every metric value of one run. In the record's order while the run pages are written, then
/// renumbered and sorted by metric id.
#[derive(Debug, Clone, Default)]
pub struct Values {
    pub(super) ids: Box<[u32]>,
    pub(super) vals: Box<[Packed]>,
}

impl Values {
    /// Reads every measured scenario's median and overhead and every estimate of `r`, interning
    /// their keys in `reg`. Numbers that are not finite are left out.
    pub fn read(r: &RunRecord, reg: &mut Registry) -> Values {
        Values::read_spelled(r, reg, None).0
    }

    /// As [`Values::read`], and with `sp` the spelling of each key met, in order (what
    /// [`Values::replay`] needs to intern exactly what reading the record did).
    pub fn read_spelled(
        r: &RunRecord,
        reg: &mut Registry,
        sp: Option<&mut Spellings>,
    ) -> (Values, Vec<u32>) {
        let mut calls: Vec<Call> = Vec::with_capacity(2 * r.results.len() + r.estimates.len());
        for x in &r.results {
            if x.status != Status::Measured {
                continue;
            }
            let call = |kind, vs, v| Call {
                kind,
                id: &x.id,
                vs,
                family: &x.family,
                desc: &x.description,
                v,
            };
            if let Some(m) = x.median_ns {
                let v = Val {
                    median: m,
                    lo: x.ci_low_ns,
                    hi: x.ci_high_ns,
                };
                calls.push(call(Kind::Median, "", v));
            }
            if let Some(o) = &x.overhead {
                let v = Val {
                    median: o.median_ns,
                    lo: o.ci_low_ns,
                    hi: o.ci_high_ns,
                };
                calls.push(call(Kind::Overhead, &o.vs, v));
            }
        }
        for e in &r.estimates {
            calls.push(Call {
                kind: Kind::Estimate,
                id: &e.id,
                vs: "",
                family: "estimate",
                desc: &e.label,
                v: Val {
                    median: e.median_ns,
                    lo: e.ci_low_ns,
                    hi: e.ci_high_ns,
                },
            });
        }
        let mut b = Builder::default();
        let Some(sp) = sp else {
            for c in &calls {
                b.push(reg.intern(c.kind, c.id, c.vs, c.family, c.desc), c.v);
            }
            return b.finish();
        };
        for c in &calls {
            let k = reg.intern(c.kind, c.id, c.vs, c.family, c.desc);
            b.calls
                .push(sp.note(k, c.kind, c.id, c.vs, c.family, c.desc));
            b.push(k, c.v);
        }
        b.finish()
    }

    /// The values of a run read before, from the spellings it met (`calls`, indices into
    /// `table`) and its values (`(index into calls, [median, lo, hi])`, NaN for an absent
    /// bound), interning in `reg` and noting in `sp` exactly what [`Values::read_spelled`] did.
    /// `None` if an index is out of range.
    ///
    /// `known` is the caller's memo over `table` (one per `reg` and `sp`): a spelling once
    /// interned and noted gives the same ids again, and looking them up by their texts was most
    /// of a rebuild's second pass.
    pub fn replay(
        calls: &[u32],
        table: &[Spelling],
        vals: &[(u32, [f64; 3])],
        reg: &mut Registry,
        sp: &mut Spellings,
        known: &mut Vec<Option<(u32, u32)>>,
    ) -> Option<(Values, Vec<u32>)> {
        // Checked before anything is interned: a bad entry leaves no trace in `reg`.
        let in_order = vals.windows(2).all(|w| w[0].0 < w[1].0);
        let calls_ok = calls.iter().all(|&c| (c as usize) < table.len());
        if !in_order || !calls_ok || vals.last().is_some_and(|v| v.0 as usize >= calls.len()) {
            return None;
        }
        let mut b = Builder::default();
        let mut next = vals.iter().peekable();
        if known.len() < table.len() {
            known.resize(table.len(), None);
        }
        for (i, &c) in calls.iter().enumerate() {
            let (k, spelled) = match known.get(c as usize).copied().flatten() {
                Some((k, spelled)) => (Some(k), spelled),
                None => {
                    let s = table.get(c as usize)?;
                    let k = reg.intern(s.kind, &s.id, &s.vs, &s.family, &s.description);
                    let spelled = sp.note(k, s.kind, &s.id, &s.vs, &s.family, &s.description);
                    // A key past MAX_METRICS is not shared: its spelling is noted each time.
                    if let (Some(k), Some(slot)) = (k, known.get_mut(c as usize)) {
                        *slot = Some((k, spelled));
                    }
                    (k, spelled)
                }
            };
            b.calls.push(spelled);
            if let Some(&&(at, v)) = next.peek() {
                if at as usize == i {
                    next.next();
                    b.push(k, Packed(v).val());
                }
            }
        }
        Some(b.finish())
    }

    /// For the summary cache: each value as `(index into calls, [median, lo, hi])`, where
    /// `calls` are the spellings the run met and `key_of` gives a spelling's metric id (the
    /// first call of each id carries its value).
    pub fn by_call(
        &self,
        calls: &[u32],
        key_of: impl Fn(u32) -> Option<u32>,
    ) -> Vec<(u32, [f64; 3])> {
        let mut out = Vec::with_capacity(self.vals.len());
        let mut given = vec![false; self.vals.len()];
        for (i, &c) in calls.iter().enumerate() {
            let Some(j) = key_of(c).and_then(|id| self.ids.binary_search(&id).ok()) else {
                continue;
            };
            if !given[j] {
                given[j] = true;
                out.push((i as u32, self.vals[j].0));
            }
        }
        out
    }

    /// Renumbers with a worker's map from [`Registry::merge`] and sorts by the new ids.
    pub fn renumber(&mut self, map: &[u32]) {
        let mut pairs: Vec<(u32, Packed)> = (self.ids.iter().zip(self.vals.iter()))
            .filter_map(|(&i, &v)| {
                map.get(i as usize)
                    .copied()
                    .filter(|&n| n != u32::MAX)
                    .map(|n| (n, v))
            })
            .collect();
        pairs.sort_by_key(|p| p.0);
        self.ids = pairs.iter().map(|p| p.0).collect();
        self.vals = pairs.iter().map(|p| p.1).collect();
    }

    /// The value of metric `id` (after [`Values::renumber`]).
    pub fn get(&self, id: u32) -> Option<Val> {
        let at = self.ids.binary_search(&id).ok()?;
        self.vals.get(at).map(|v| v.val())
    }

    /// The value of metric `id` in any order (while the run pages are written).
    pub fn find(&self, id: u32) -> Option<Val> {
        self.ids
            .iter()
            .position(|&x| x == id)
            .map(|i| self.vals[i].val())
    }

    pub fn iter(&self) -> impl Iterator<Item = (u32, Val)> + '_ {
        self.ids
            .iter()
            .zip(self.vals.iter())
            .map(|(&i, v)| (i, v.val()))
    }

    pub fn len(&self) -> usize {
        self.vals.len()
    }

    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }
}
