//! The headline metrics: a few of the general ones, with names of their own.

use super::{Kind, MetricKey};
use syscost_record::EstimateId;

/// A headline metric: one of the general ones, with a name of its own.
#[derive(Debug, Clone, Copy)]
pub struct Headline {
    /// File-name slug, stable across builds.
    pub slug: &'static str,
    pub label: &'static str,
    /// Short column header.
    pub short: &'static str,
    pub kind: Kind,
    pub id: &'static str,
    pub vs: &'static str,
}

impl Headline {
    pub fn key(&self) -> MetricKey {
        MetricKey {
            kind: self.kind,
            id: self.id.to_string(),
            vs: self.vs.to_string(),
        }
    }
}

const fn est(
    slug: &'static str,
    label: &'static str,
    short: &'static str,
    id: EstimateId,
) -> Headline {
    Headline {
        slug,
        label,
        short,
        kind: Kind::Estimate,
        id: id.id(),
        vs: "",
    }
}

const fn ovh(
    slug: &'static str,
    label: &'static str,
    short: &'static str,
    id: &'static str,
    vs: &'static str,
) -> Headline {
    Headline {
        slug,
        label,
        short,
        kind: Kind::Overhead,
        id,
        vs,
    }
}

/// The headline metrics, in display order. Overheads are over `native` except the uprobes',
/// which are over the probed user function's own call (`bpf.ufunc`).
pub const METRICS: &[Headline] = &[
    est(
        "seccomp-entry",
        "seccomp entry cost (kernel formula)",
        "entry",
        EstimateId::Entry,
    ),
    est(
        "seccomp-entry-fit",
        "seccomp entry cost (depth fit)",
        "entry (fit)",
        EstimateId::DepthEntry,
    ),
    est(
        "seccomp-per-filter",
        "seccomp per-filter cost (last 2 diff)",
        "per filter",
        EstimateId::PerFilterLast2,
    ),
    est(
        "seccomp-per-filter-fit",
        "seccomp per-filter cost (depth fit)",
        "per filter (fit)",
        EstimateId::DepthPerFilter,
    ),
    ovh(
        "sud-allow",
        "SUD on, selector ALLOW: overhead",
        "SUD allow",
        "sud.allow",
        "native",
    ),
    ovh(
        "sud-block",
        "SUD on, selector BLOCK (SIGSYS round trip): overhead",
        "SUD block",
        "sud.block",
        "native",
    ),
    ovh(
        "bpf-tp",
        "BPF tracepoint: overhead",
        "BPF tp",
        "bpf.tp",
        "native",
    ),
    ovh(
        "bpf-rawtp",
        "BPF raw tracepoint: overhead",
        "BPF raw_tp",
        "bpf.rawtp",
        "native",
    ),
    ovh(
        "bpf-kprobe",
        "BPF kprobe: overhead",
        "BPF kprobe",
        "bpf.kprobe",
        "native",
    ),
    ovh(
        "bpf-kretprobe",
        "BPF kretprobe: overhead",
        "BPF kretprobe",
        "bpf.kretprobe",
        "native",
    ),
    ovh(
        "bpf-kprobe-multi",
        "BPF kprobe.multi: overhead",
        "BPF kprobe.multi",
        "bpf.kprobe_multi",
        "native",
    ),
    ovh(
        "bpf-fentry",
        "BPF fentry: overhead",
        "BPF fentry",
        "bpf.fentry",
        "native",
    ),
    ovh(
        "bpf-fexit",
        "BPF fexit: overhead",
        "BPF fexit",
        "bpf.fexit",
        "native",
    ),
    ovh(
        "bpf-fmodret",
        "BPF fmod_ret: overhead",
        "BPF fmod_ret",
        "bpf.fmodret",
        "native",
    ),
    ovh(
        "bpf-uprobe",
        "BPF uprobe: overhead over the probed function's call",
        "BPF uprobe",
        "bpf.uprobe",
        "bpf.ufunc",
    ),
    ovh(
        "bpf-uretprobe",
        "BPF uretprobe: overhead over the probed function's call",
        "BPF uretprobe",
        "bpf.uretprobe",
        "bpf.ufunc",
    ),
];

/// Headline metrics shown as columns in run lists (a subset, to keep tables readable).
pub const KEY_COLUMNS: &[usize] = &[0, 2, 4, 5, 7];

/// The headline metric a key is, if any.
pub fn headline_of(k: &MetricKey) -> Option<&'static Headline> {
    METRICS
        .iter()
        .find(|h| h.kind == k.kind && h.id == k.id && h.vs == k.vs)
}
