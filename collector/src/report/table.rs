//! The human-readable report: one table per family, then estimates and expectations.

use std::fmt::Write;
use syscost_record::{Clock, RunRecord, Status, StopReason, Verdict};

fn num(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.1}")
    } else if v.abs() >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn half(lo: Option<f64>, hi: Option<f64>) -> String {
    match (lo, hi) {
        (Some(l), Some(h)) => format!("±{}", num((h - l) / 2.0)),
        _ => "(no CI)".into(),
    }
}

fn verdict(v: Verdict) -> &'static str {
    match v {
        Verdict::Pass => "pass",
        Verdict::Fail => "FAIL",
        Verdict::Inconclusive => "inconclusive",
        Verdict::Skip => "skip",
    }
}

/// Targets not met the table lists (the record lists them all).
const MISSED_SHOWN: usize = 10;

/// Widest reason a skipped or failed scenario's line shows.
const REASON_WIDTH: usize = 64;

/// A reason cut to one short line: its first clause (up to `:`, `;` or a parenthesis), cut
/// again at a comma or a word boundary when still longer than `width`.
pub fn short_reason(reason: &str, width: usize) -> String {
    let first = reason
        .split([':', ';', '('])
        .next()
        .unwrap_or(reason)
        .trim_end();
    if first.chars().count() <= width {
        return if first.len() < reason.len() {
            format!("{first} …")
        } else {
            first.to_string()
        };
    }
    let head: String = first.chars().take(width).collect();
    let at = head
        .rfind(',')
        .filter(|&i| i > width / 2)
        .or_else(|| head.rfind(' '))
        .unwrap_or(head.len());
    format!("{} …", head[..at].trim_end())
}

/// Renders the record as the table printed by `syscost run`.
pub fn render(r: &RunRecord) -> String {
    let mut out = String::new();
    let env = &r.environment.comparability;
    // The unit of every number: ns, or instructions when the clock counted them.
    let (unit, per_op, took) = match env.clock() {
        Clock::Time => ("ns", "ns per operation", ""),
        Clock::Instructions => (
            "instr",
            "instructions per operation (emulated: path length, not time)",
            " of the guest's clock, 10⁹ instructions a second",
        ),
    };
    let cpu = env.cpu.model_name.as_deref().unwrap_or("unknown CPU");
    let virt = match &env.virtualization.hypervisor {
        Some(h) => format!("{} ({h})", env.virtualization.kind),
        None => env.virtualization.kind.clone(),
    };
    let _ = writeln!(
        out,
        "{} — probe {} on Linux {} {}, {cpu}, {virt}, CPU {}",
        r.source.tool,
        r.settings.syscall,
        env.kernel_release,
        env.arch,
        r.settings.cpu.map_or("?".into(), |c| c.to_string()),
    );
    let s = &r.summary;
    let met = s.targets.iter().filter(|t| t.met).count();
    let targets = format!(
        "{met} of {} targets met (±{}% CI)",
        s.targets.len(),
        r.settings.target_ci_pct.unwrap_or(0.0)
    );
    let reached = match s.stop_reason {
        StopReason::Target => format!("stopped early: {targets}"),
        StopReason::Complete => "one timing per scenario".to_string(),
        _ if s.targets.is_empty() => "budget spent".to_string(),
        _ => format!("budget spent: {targets}"),
    };
    let intervals = if s.stop_reason == StopReason::Complete {
        "single timings, no CIs"
    } else {
        "95% CIs"
    };
    let _ = writeln!(
        out,
        "{} rounds in {}{took} ({reached}); {intervals}, {per_op}; n = samples\n",
        s.rounds,
        s.duration_s
            .map_or("an unknown time".to_string(), |d| format!("{d:.1} s"))
    );
    let mut families: Vec<&str> = Vec::new();
    for res in &r.results {
        if !families.contains(&res.family.as_str()) {
            families.push(&res.family);
        }
    }
    let mut cut = 0;
    for fam in families {
        let _ = writeln!(out, "{fam}");
        let _ = writeln!(
            out,
            "  {:<28} {:>10} {:>10} {:>5} {:>12} {:>10} {:>9}  vs",
            "scenario",
            format!("{unit}/op"),
            "±CI",
            "n",
            format!("overhead {unit}"),
            "±CI",
            "overhead"
        );
        for res in r.results.iter().filter(|x| x.family == fam) {
            match res.status {
                Status::Measured => {
                    let (m, ci) = (
                        res.median_ns.map(num).unwrap_or_default(),
                        half(res.ci_low_ns, res.ci_high_ns),
                    );
                    let n = res.samples.map(|n| n.to_string()).unwrap_or_default();
                    let (o, oci, pct, vs) = match &res.overhead {
                        Some(o) => (
                            format!("{:+.2}", o.median_ns),
                            half(o.ci_low_ns, o.ci_high_ns),
                            format!("{:+.1}%", o.pct),
                            if o.vs == "native" {
                                String::new()
                            } else {
                                o.vs.clone()
                            },
                        ),
                        None => Default::default(),
                    };
                    let _ = writeln!(
                        out,
                        "  {:<28} {m:>10} {ci:>10} {n:>5} {o:>12} {oci:>10} {pct:>9}  {vs}",
                        res.id
                    );
                }
                Status::Skipped | Status::Failed => {
                    let tag = if res.status == Status::Skipped {
                        "skipped"
                    } else {
                        "FAILED"
                    };
                    let _ = writeln!(
                        out,
                        "  {:<28} {tag}: {}",
                        res.id,
                        short_reason(res.reason.as_deref().unwrap_or(""), REASON_WIDTH)
                    );
                    cut += 1;
                }
            }
        }
        let _ = writeln!(out);
    }
    if cut > 0 {
        let _ = writeln!(
            out,
            "(reasons shortened: the record and `syscost list` give them in full)\n"
        );
    }
    // The targets not met, furthest from theirs first; the record has them all.
    let mut missed: Vec<_> = s.targets.iter().filter(|t| !t.met).collect();
    let ratio =
        |t: &syscost_record::Target| t.half_width_ns.map_or(f64::INFINITY, |h| h / t.target_ns);
    missed.sort_by(|a, b| ratio(b).total_cmp(&ratio(a)));
    if !missed.is_empty() {
        let _ = writeln!(
            out,
            "targets not met (95% CI half-width, {unit}; furthest first{})",
            if missed.len() > MISSED_SHOWN {
                format!(", {MISSED_SHOWN} of {}", missed.len())
            } else {
                String::new()
            }
        );
        for t in missed.into_iter().take(MISSED_SHOWN) {
            let half = t
                .half_width_ns
                .map_or("no CI".into(), |h| format!("±{}", num(h)));
            let _ = writeln!(
                out,
                "  {:<44} {half:>12}  target ±{}",
                crate::analysis::record::label(t),
                num(t.target_ns)
            );
        }
        let _ = writeln!(out);
    }
    if !r.estimates.is_empty() {
        let _ = writeln!(out, "estimates");
        for e in &r.estimates {
            let _ = writeln!(
                out,
                "  {:<20} {:>8} {:>9} {:>5}  {}",
                e.id,
                num(e.median_ns),
                half(e.ci_low_ns, e.ci_high_ns),
                e.samples,
                e.label
            );
        }
        let _ = writeln!(out);
    }
    if !r.expectations.is_empty() {
        let _ = writeln!(
            out,
            "expectations (interval rule; kernel's own rule on the medians in brackets)"
        );
        for x in &r.expectations {
            let diff = match (x.diff_median_ns, x.diff_ci_low_ns, x.diff_ci_high_ns) {
                (Some(m), Some(l), Some(h)) => {
                    format!("diff {} [{}, {}]", num(m), num(l), num(h))
                }
                (Some(m), ..) => format!("diff {}", num(m)),
                _ => String::new(),
            };
            let sys = x
                .systematic_ns
                .map(|b| format!(", A/A bias ±{}", num(b)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:<13} [{:<4}] {:<52} {diff}, tolerance ±{}{sys}",
                verdict(x.verdict),
                verdict(x.kernel_verdict),
                x.label,
                num(x.tolerance_ns)
            );
        }
        let _ = writeln!(out);
    }
    for n in &r.notes {
        let _ = writeln!(out, "note: {n}");
    }
    if !r.notes.is_empty() {
        let _ = writeln!(out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_become_one_short_line() {
        let long = "the kernel refused to load the fentry program with EPERM and an empty \
                    verifier log, although this process is privileged: likely a lockdown, an \
                    LSM (SELinux, BPF LSM) or a sandbox policy refusing this program type";
        let s = short_reason(long, REASON_WIDTH);
        assert_eq!(
            s,
            "the kernel refused to load the fentry program with EPERM and an …"
        );
        assert!(s.chars().count() <= REASON_WIDTH + 2);
        assert_eq!(
            short_reason("this kernel has no kprobes: CONFIG_KPROBES is not set", 64),
            "this kernel has no kprobes …"
        );
        assert_eq!(short_reason("not privileged", 64), "not privileged");
        assert_eq!(
            short_reason("a, b, c, d, e, f, g, h, i, j, k", 20),
            "a, b, c, d, e, f, g …"
        );
    }
}
