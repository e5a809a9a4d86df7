//! The numbers the site follows over kernel versions: every measured scenario (its median, and
//! its overhead over its baseline when it has one) and every estimate of every record, read
//! into a compact per-run store; the headline metrics are a few of them with names of their
//! own. Ids are the stable ones of docs/ids.md.

mod values;
pub use values::Values;

mod headline;
mod points;

pub use headline::*;
pub use points::*;

use foldhash::HashMap;
use std::cmp::Ordering;
use syscost_record::{RunRecord, Status};

/// Which number of a scenario or estimate a metric is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Kind {
    /// `results[id].median_ns`: what one operation costs in that scenario.
    Median,
    /// `results[id].overhead`: paired cost over the baseline `vs`.
    Overhead,
    /// `estimates[id]`.
    Estimate,
}

/// One metric: a kind of number of one scenario or estimate id (and, for overheads, the
/// baseline it is taken against: overheads over different baselines are different metrics).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MetricKey {
    pub kind: Kind,
    pub id: String,
    /// The baseline of an overhead; empty otherwise.
    pub vs: String,
}

impl MetricKey {
    pub fn median(id: &str) -> MetricKey {
        MetricKey {
            kind: Kind::Median,
            id: id.to_string(),
            vs: String::new(),
        }
    }
    pub fn overhead(id: &str, vs: &str) -> MetricKey {
        MetricKey {
            kind: Kind::Overhead,
            id: id.to_string(),
            vs: vs.to_string(),
        }
    }
    pub fn estimate(id: &str) -> MetricKey {
        MetricKey {
            kind: Kind::Estimate,
            id: id.to_string(),
            vs: String::new(),
        }
    }

    /// How the metric is named on pages: `seccomp.depth.4`, `seccomp.depth.4 − native`,
    /// `estimate entry`.
    pub fn label(&self) -> String {
        match self.kind {
            Kind::Median => self.id.clone(),
            Kind::Overhead => format!("{} − {}", self.id, self.vs),
            Kind::Estimate => format!("estimate {}", self.id),
        }
    }

    /// An A/A copy of a scenario (`<id>.replica.<n>`, docs/ids.md): it measures what its
    /// original does, in a process of its own.
    pub fn is_replica(&self) -> bool {
        self.id.contains(".replica.")
    }

    /// Where in the record the number is.
    pub fn source(&self) -> String {
        match self.kind {
            Kind::Median => format!("results: {} (median_ns)", self.id),
            Kind::Overhead => format!("results: {} (overhead vs {})", self.id, self.vs),
            Kind::Estimate => format!("estimates: {}", self.id),
        }
    }

    /// File-name slug of the metric's page (headline metrics have names of their own).
    pub fn slug(&self) -> String {
        if let Some(h) = headline_of(self) {
            return h.slug.to_string();
        }
        crate::model::slug::slug(&match self.kind {
            Kind::Median => format!("r-{}", self.id),
            Kind::Overhead => format!("o-{}--{}", self.id, self.vs),
            Kind::Estimate => format!("e-{}", self.id),
        })
    }
}

/// Display order of families; unknown ones come last, by name.
fn family_rank(f: &str) -> usize {
    [
        "baseline",
        "seccomp",
        "sud",
        "bpf",
        "intercept",
        "attach",
        "estimate",
    ]
    .iter()
    .position(|x| *x == f)
    .unwrap_or(7)
}

/// Text order with runs of digits compared as numbers: `depth.2 < depth.16`.
pub fn natural_cmp(a: &str, b: &str) -> Ordering {
    let (mut x, mut y) = (a.as_bytes(), b.as_bytes());
    loop {
        match (x.first(), y.first()) {
            (None, None) => return a.cmp(b),
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(c), Some(d)) if c.is_ascii_digit() && d.is_ascii_digit() => {
                let n = x.iter().take_while(|c| c.is_ascii_digit()).count();
                let m = y.iter().take_while(|c| c.is_ascii_digit()).count();
                let (p, q) = (&x[..n], &y[..m]);
                let strip = |s: &[u8]| {
                    let z = s.iter().take_while(|c| **c == b'0').count();
                    s[z.min(s.len().saturating_sub(1))..].to_vec()
                };
                let (p2, q2) = (strip(p), strip(q));
                let o = p2.len().cmp(&q2.len()).then_with(|| p2.cmp(&q2));
                if o != Ordering::Equal {
                    return o;
                }
                x = &x[n..];
                y = &y[m..];
            }
            (Some(c), Some(d)) => {
                if c != d {
                    return c.cmp(d);
                }
                x = &x[1..];
                y = &y[1..];
            }
        }
    }
}

/// What the site knows about a metric besides its key, merged over all records the same way
/// whatever order they come in: the smallest family, and the description most records give
/// (the smallest among the most common). The most common, not the smallest: `native` of the
/// mix probe ("close(dup(fd)), getpid(), …") sorted before the getpid that nearly every run
/// measures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetricMeta {
    /// The scenario's family (`seccomp`, `bpf`, ...), `estimate` for estimates.
    pub family: String,
    /// The record's description of the scenario, or the estimate's label.
    pub description: String,
    /// Every description met, with how many times.
    seen: Vec<(String, u64)>,
}

impl MetricMeta {
    fn merge(&mut self, family: &str, description: &str) {
        self.merge_n(family, description, 1);
    }

    fn merge_n(&mut self, family: &str, description: &str, n: u64) {
        if !family.is_empty() && (self.family.is_empty() || family < self.family.as_str()) {
            self.family = family.to_string();
        }
        if description.is_empty() {
            return;
        }
        match self.seen.iter_mut().find(|(d, _)| d == description) {
            Some(e) => e.1 += n,
            None => self.seen.push((description.to_string(), n)),
        }
        let best = self
            .seen
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
            .map(|(d, _)| d.clone());
        self.description = best.unwrap_or_default();
    }

    /// Another worker's meeting of the same metric.
    fn absorb(&mut self, other: &MetricMeta) {
        if other.seen.is_empty() {
            self.merge_n(&other.family, "", 0);
        }
        for (d, n) in &other.seen {
            self.merge_n(&other.family, d, *n);
        }
    }
}

/// Interned metric keys. During the second pass each worker has its own (ids in the order it
/// meets them); [`Registry::merge`] then makes one, sorted for display, and says how to renumber.
#[derive(Debug, Default)]
pub struct Registry {
    keys: Vec<(MetricKey, MetricMeta)>,
    /// Scenario or estimate id → the (kind, vs, index) of its keys: lookups by `&str`, no
    /// allocation once a key is known.
    by_id: HashMap<String, Vec<(Kind, String, u32)>>,
}

/// Metric ids beyond this many are not followed (a hostile data set could invent millions).
pub const MAX_METRICS: usize = 20_000;

impl Registry {
    fn intern(&mut self, kind: Kind, id: &str, vs: &str, family: &str, desc: &str) -> Option<u32> {
        if let Some(v) = self.by_id.get(id) {
            if let Some(&(_, _, i)) = v.iter().find(|(k, s, _)| *k == kind && s == vs) {
                self.keys[i as usize].1.merge(family, desc);
                return Some(i);
            }
        }
        if self.keys.len() >= MAX_METRICS {
            return None;
        }
        let i = self.keys.len() as u32;
        let key = MetricKey {
            kind,
            id: id.to_string(),
            vs: vs.to_string(),
        };
        let mut meta = MetricMeta::default();
        meta.merge(family, desc);
        self.keys.push((key, meta));
        self.by_id
            .entry(id.to_string())
            .or_default()
            .push((kind, vs.to_string(), i));
        Some(i)
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    pub fn key(&self, i: u32) -> &MetricKey {
        &self.keys[i as usize].0
    }

    pub fn meta(&self, i: u32) -> &MetricMeta {
        &self.keys[i as usize].1
    }

    pub fn find(&self, kind: Kind, id: &str, vs: &str) -> Option<u32> {
        self.by_id
            .get(id)?
            .iter()
            .find(|(k, s, _)| *k == kind && s == vs)
            .map(|x| x.2)
    }

    pub fn find_key(&self, k: &MetricKey) -> Option<u32> {
        self.find(k.kind, &k.id, &k.vs)
    }

    /// Every metric id in display order (the order of a merged registry).
    pub fn ids(&self) -> impl Iterator<Item = u32> {
        0..self.keys.len() as u32
    }

    /// One registry from the workers' own, in display order (family, id with numbers compared
    /// as numbers, kind, baseline), and for each worker the map from its ids to the new ones.
    pub fn merge(parts: Vec<Registry>) -> (Registry, Vec<Vec<u32>>) {
        let mut all: HashMap<MetricKey, MetricMeta> = HashMap::default();
        for p in &parts {
            for (k, m) in &p.keys {
                all.entry(k.clone()).or_default().absorb(m);
            }
        }
        let mut keys: Vec<(MetricKey, MetricMeta)> = all.into_iter().collect();
        keys.sort_by(|(a, ma), (b, mb)| {
            family_rank(&ma.family)
                .cmp(&family_rank(&mb.family))
                .then_with(|| ma.family.cmp(&mb.family))
                .then_with(|| natural_cmp(&a.id, &b.id))
                .then_with(|| a.kind.cmp(&b.kind))
                .then_with(|| a.vs.cmp(&b.vs))
        });
        keys.truncate(MAX_METRICS);
        let mut merged = Registry::default();
        for (k, m) in keys {
            if let Some(i) = merged.intern(k.kind, &k.id, &k.vs, &m.family, &m.description) {
                merged.keys[i as usize].1 = m;
            }
        }
        let maps = parts
            .iter()
            .map(|p| {
                p.keys
                    .iter()
                    .map(|(k, _)| merged.find_key(k).unwrap_or(u32::MAX))
                    .collect()
            })
            .collect();
        (merged, maps)
    }
}

/// One run's value of one metric, in ns per operation. `lo`/`hi` are its confidence interval,
/// absent for single-sample (imported) numbers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Val {
    pub median: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

impl Val {
    pub fn ci(&self) -> Option<(f64, f64)> {
        match (self.lo, self.hi) {
            (Some(l), Some(h)) => Some((l, h)),
            _ => None,
        }
    }

    fn finite(&self) -> bool {
        self.median.is_finite()
            && self.lo.is_none_or(f64::is_finite)
            && self.hi.is_none_or(f64::is_finite)
    }
}

/// How a record met a metric key: the key and the texts its [`MetricMeta`] merges. The summary
/// cache keeps each run's spellings, so that a run read from it interns exactly what its
/// record would (the smallest text wins, so a removed run's text must leave with it).
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Spelling {
    pub kind: Kind,
    pub id: String,
    pub vs: String,
    pub family: String,
    pub description: String,
}

/// The spellings one worker met, numbered in the order met.
#[derive(Debug, Default)]
pub struct Spellings {
    pub list: Vec<Spelling>,
    /// Registry id → the spellings of that key (almost always one).
    by_key: Vec<Vec<u32>>,
    /// Each spelling's registry id, as `list`.
    keys: Vec<Option<u32>>,
}

/// A metric key met in a record, with its value.
struct Call<'a> {
    kind: Kind,
    id: &'a str,
    vs: &'a str,
    family: &'a str,
    desc: &'a str,
    v: Val,
}

impl Spellings {
    fn note(
        &mut self,
        key: Option<u32>,
        kind: Kind,
        id: &str,
        vs: &str,
        family: &str,
        description: &str,
    ) -> u32 {
        let add = |sp: &mut Spellings| {
            sp.list.push(Spelling {
                kind,
                id: id.to_string(),
                vs: vs.to_string(),
                family: family.to_string(),
                description: description.to_string(),
            });
            sp.keys.push(key);
            (sp.list.len() - 1) as u32
        };
        // A key past MAX_METRICS has no registry id: its spelling is not shared.
        let Some(k) = key.map(|k| k as usize) else {
            return add(self);
        };
        if self.by_key.len() <= k {
            self.by_key.resize_with(k + 1, Vec::new);
        }
        let list = &self.list;
        let known = self.by_key[k].iter().copied().find(|&s| {
            let s = &list[s as usize];
            s.family == family && s.description == description
        });
        known.unwrap_or_else(|| {
            let s = add(self);
            self.by_key[k].push(s);
            s
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The description shown is the one most records give, whatever the order they come in
    /// and however the workers split them.
    #[test]
    fn the_most_common_description_wins_in_any_order() {
        let mix = "close(dup(fd)), getpid(), getuid(), umask(022)";
        let one = "getpid()";
        let mut a = MetricMeta::default();
        for d in [mix, one, one] {
            a.merge("baseline", d);
        }
        assert_eq!(a.description, one);
        let mut b = MetricMeta::default();
        b.merge("baseline", one);
        let mut c = MetricMeta::default();
        c.merge("baseline", mix);
        c.merge("baseline", one);
        let mut m = MetricMeta::default();
        m.absorb(&c);
        m.absorb(&b);
        assert_eq!(m.description, one);
        // A tie: the smaller text, in either order.
        let (mut x, mut y) = (MetricMeta::default(), MetricMeta::default());
        x.merge("f", "b");
        x.merge("f", "a");
        y.merge("f", "a");
        y.merge("f", "b");
        assert_eq!((x.description.as_str(), y.description.as_str()), ("a", "a"));
    }

    fn val(m: f64, ci: Option<(f64, f64)>) -> Val {
        Val {
            median: m,
            lo: ci.map(|c| c.0),
            hi: ci.map(|c| c.1),
        }
    }

    #[test]
    fn single_run_keeps_its_ci_or_has_none() {
        let p = aggregate(&[val(5.0, Some((4.0, 6.0)))]).unwrap();
        assert_eq!((p.interval, p.kind), (Some((4.0, 6.0)), IntervalKind::Ci));
        let p = aggregate(&[val(5.0, None)]).unwrap();
        assert_eq!((p.interval, p.kind), (None, IntervalKind::None));
    }

    #[test]
    fn several_runs_span_all_bounds() {
        let p = aggregate(&[
            val(5.0, Some((4.0, 6.0))),
            val(9.0, None),
            val(7.0, Some((6.5, 7.5))),
        ])
        .unwrap();
        assert_eq!(p.n, 3);
        assert_eq!(p.median, 7.0);
        assert_eq!(p.interval, Some((4.0, 9.0)));
        assert_eq!(p.kind, IntervalKind::Span);
        let p = aggregate(&[val(2.0, None), val(4.0, None)]).unwrap();
        assert_eq!(p.median, 3.0);
        assert_eq!(p.interval, Some((2.0, 4.0)));
        assert!(aggregate(&[]).is_none());
    }

    #[test]
    fn low_quality_runs_only_count_when_there_is_nothing_else() {
        let good = val(10.0, Some((9.0, 11.0)));
        let bad = val(50.0, Some((40.0, 60.0)));
        let p = usable_point(&[(good, false), (bad, true)]).unwrap();
        assert_eq!((p.n, p.median, p.low), (1, 10.0, false));
        let p = usable_point(&[(bad, true)]).unwrap();
        assert_eq!((p.n, p.median, p.low), (1, 50.0, true));
    }

    #[test]
    fn slugs_are_unique_and_safe() {
        let mut seen = std::collections::BTreeSet::new();
        for m in METRICS {
            assert!(seen.insert(m.slug));
            assert!(m.slug.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
            assert_eq!(m.key().slug(), m.slug);
        }
        for &k in KEY_COLUMNS {
            assert!(k < METRICS.len());
        }
        assert_eq!(
            MetricKey::median("seccomp.depth.4").slug(),
            "r-seccomp.depth.4"
        );
        assert_eq!(
            MetricKey::overhead("bpf.uprobe", "native").slug(),
            "o-bpf.uprobe--native"
        );
        assert_ne!(MetricKey::median("A").slug(), MetricKey::median("a").slug());
    }

    #[test]
    fn natural_order_compares_numbers_as_numbers() {
        let mut v = vec![
            "depth.16", "depth.2", "depth.1", "depth.32", "depth.4", "bitmap.1",
        ];
        v.sort_by(|a, b| natural_cmp(a, b));
        assert_eq!(
            v,
            ["bitmap.1", "depth.1", "depth.2", "depth.4", "depth.16", "depth.32"]
        );
        assert_eq!(natural_cmp("a01", "a1"), Ordering::Less);
        assert_eq!(natural_cmp("a1", "a1"), Ordering::Equal);
    }

    #[test]
    fn registries_merge_into_one_order_whatever_order_workers_met_keys() {
        let rec = syscost_synth::generate(1, 5).next().unwrap();
        let mut a = Registry::default();
        let va = Values::read(&rec, &mut a);
        let mut b = Registry::default();
        // Worker b met an estimate first.
        b.intern(Kind::Estimate, "entry", "", "estimate", "x");
        let vb = Values::read(&rec, &mut b);
        let (m, maps) = Registry::merge(vec![a, b]);
        let (mut va, mut vb) = (va, vb);
        va.renumber(&maps[0]);
        vb.renumber(&maps[1]);
        assert_eq!(va.iter().collect::<Vec<_>>(), vb.iter().collect::<Vec<_>>());
        // Display order: baselines first, estimates last, depths by number.
        let labels: Vec<String> = m.ids().map(|i| m.key(i).label()).collect();
        assert_eq!(labels[0], "native");
        assert!(labels.last().unwrap().starts_with("estimate "));
        let pos = |s: &str| labels.iter().position(|l| l == s).unwrap();
        assert!(pos("seccomp.depth.2") < pos("seccomp.depth.16"));
        let native = m.find(Kind::Median, "native", "").unwrap();
        assert!(va.get(native).is_some());
    }
}
