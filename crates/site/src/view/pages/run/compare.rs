//! A run next to the earlier runs of its series it is compared with: which, and what moved.

use super::*;

/// The runs a run page compares with, all of its own series (metric ids of the same registry):
/// the nearest earlier kernel version's run (the same machine's when there is one), and the
/// same machine's previous run on this version.
#[derive(Default)]
pub struct Comparisons<'a> {
    pub prev_version: Option<&'a RunInfo>,
    pub same_version: Option<&'a RunInfo>,
}

/// The earlier runs, each with what it is.
pub(super) fn earlier<'a>(info: &RunInfo, cmp: &Comparisons<'a>) -> Vec<(&'a RunInfo, String)> {
    let mut out = Vec::new();
    if let Some(p) = cmp.prev_version {
        let what = format!(
            "Nearest earlier version, {}: {}",
            p.kbase,
            if p.machine.is_some() && p.machine == info.machine {
                "this machine's latest run"
            } else {
                "the latest run (none of this machine's)"
            }
        );
        out.push((p, what));
    }
    if let Some(p) = cmp.same_version {
        let what = format!(
            "This machine's previous run on {}{}",
            info.kbase,
            if p.kernel.release == info.kernel.release {
                ", same build"
            } else {
                ", another build"
            }
        );
        out.push((p, what));
    }
    out
}

/// Compares this run's value `t` of a metric with the earlier run's `p`: counts it in `tally`
/// (higher, lower, neither) and keeps it, labelled, when `syscost compare` would call it a
/// change (its default margin; one instruction for `counted` runs).
pub(super) fn compare_one(
    p: Option<Val>,
    t: Option<Val>,
    counted: bool,
    label: &dyn Fn() -> String,
    tally: &mut ([usize; 3], Vec<Moved>),
) {
    let (Some(p), Some(t)) = (p, t) else {
        return;
    };
    let diff = difference(p.median, p.ci(), t.median, t.ci());
    let margin = if counted {
        syscost_stats::count_margin()
    } else {
        syscost_stats::time_margin(p.median, syscost_stats::DEFAULT_MARGIN_PCT)
    };
    let outcome = diff.delta_interval.map(|(low, high)| {
        syscost_stats::outcome(
            syscost_stats::Value {
                median: diff.delta,
                low,
                high,
            },
            margin,
        )
    });
    let class = match outcome {
        Some(syscost_stats::Outcome::Higher) => "up",
        Some(syscost_stats::Outcome::Lower) => "down",
        _ => {
            tally.0[2] += 1;
            return;
        }
    };
    tally.0[usize::from(class == "down")] += 1;
    tally.1.push(Moved {
        id: label(),
        // In the series' unit: an instruction-count run's moves read "+7.01 ns" before.
        delta: format::difference_in(&diff, if counted { "instructions" } else { "ns" }),
        class,
    });
}

/// A run's values indexed by metric id: the comparisons look up every metric of a run in
/// itself and in each earlier run, and its values are in the record's order.
pub(super) fn by_metric(v: &Values) -> Vec<Option<Val>> {
    let end = v.iter().map(|(m, _)| m as usize + 1).max().unwrap_or(0);
    let mut t = vec![None; end];
    // The first of a metric's values, as a search would find it.
    for (m, x) in v.iter() {
        t[m as usize].get_or_insert(x);
    }
    t
}

/// Why a run is compared with no other, or nothing when it is.
pub(super) fn no_compare(info: &RunInfo, placed: bool, none_earlier: bool) -> &'static str {
    match (placed, &info.machine) {
        (false, _) => "Runs that are not placed on the kernel-version axis are not compared.",
        (true, _) if !none_earlier => "",
        (true, _) if info.kernel.is_approximate() => "Its source states the kernel only approximately, so this run is compared with no other (it could be on the same release as its neighbours, or another).",
        (true, Some(_)) => "This is the first run of this series on this and earlier kernel versions.",
        (true, None) => "No earlier kernel version of this series has a run, and the record carries no machine identity to link it with earlier runs on this version.",
    }
}

/// The head of each comparison with an earlier run: which run, and what moved.
pub(super) fn compare_heads(
    earlier: &[(&RunInfo, String)],
    tallies: Vec<([usize; 3], Vec<Moved>)>,
    info: &RunInfo,
    here: &str,
    root: &str,
) -> Vec<CompareHead> {
    let links = &Links;
    earlier
        .iter()
        .zip(tallies)
        .map(|((p, what), (t, moved))| CompareHead {
            what: what.clone(),
            // A run on the same page is linked as its section.
            href: match (links.run(p), here.split_once('#')) {
                (h, Some((here, _))) if h.split_once('#').is_some_and(|(page, _)| page == here) => {
                    format!("#{}", p.id)
                }
                (h, _) => format!("{root}{h}"),
            },
            id: p.id.clone(),
            // The day; the time of day is on its page.
            date: p
                .date
                .as_deref()
                .map(|d| d.get(..10).unwrap_or(d).to_string())
                .unwrap_or_default(),
            // Its build, unless that is the version already named or this run's own.
            kernel: if p.kernel.release == p.kbase || p.kernel.release == info.kernel.release {
                String::new()
            } else {
                p.kernel.release.clone()
            },
            quality: quality_badge(p),
            counts: format!("{} higher, {} lower, {} unresolved", t[0], t[1], t[2]),
            moved,
        })
        .collect()
}
