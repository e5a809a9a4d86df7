//! The human-readable report: one table per family, then estimates and expectations; and the
//! table of `syscost compare`.

use super::units::{self, Unit};
use crate::compare::{self, Comparison};
use std::fmt::Write;
use syscost_record::{Clock, Overhead, RunRecord, Status, StopReason, Verdict};

/// A value and its interval's half-width as two cells, in the unit that fits.
fn cells(v: f64, lo: Option<f64>, hi: Option<f64>, unit: Unit, sign: bool) -> (String, String) {
    let half = match (lo, hi) {
        (Some(l), Some(h)) => Some((h - l) / 2.0),
        _ => None,
    };
    units::with_half(v, half, unit, sign)
}

/// An overhead in percent of its baseline, where that means something: the rule of
/// `compare::relative` (the baseline at least 1 ns or 1 instruction, known to ±10 %, the ratio
/// within ±1000 %). A µs-scale interception path over a 200 ns call is better read in µs.
fn overhead_pct(r: &RunRecord, o: &Overhead) -> Option<f64> {
    let base = r.result(&o.vs)?;
    let b = compare::Value {
        median: base.median_ns?,
        low: base.ci_low_ns.or(base.median_ns)?,
        high: base.ci_high_ns.or(base.median_ns)?,
    };
    let d = compare::Value {
        median: o.median_ns,
        low: o.median_ns,
        high: o.median_ns,
    };
    let floor = match r.environment.comparability.clock() {
        Clock::Time => compare::MARGIN_FLOOR_NS,
        Clock::Instructions => compare::COUNT_STEP,
    };
    compare::relative(b, d, floor).map(|_| o.pct)
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
    // The unit of every number: ns, or instructions when the clock counted them.
    let unit = Unit::of(r.environment.comparability.clock());
    header(&mut out, r);
    results(&mut out, r, unit);
    missed_targets(&mut out, r, unit);
    estimates(&mut out, r, unit);
    expectations(&mut out, r, unit);
    for n in &r.notes {
        let _ = writeln!(out, "note: {n}");
    }
    if !r.notes.is_empty() {
        let _ = writeln!(out);
    }
    trim_lines(&out)
}

/// Where and how the run measured: the probe, the kernel, the machine, rounds and budget.
fn header(out: &mut String, r: &RunRecord) {
    let env = &r.environment.comparability;
    let (per_op, took) = match env.clock() {
        Clock::Time => ("per operation", ""),
        Clock::Instructions => (
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
}

/// Every scenario by family: measured ones with their interval and overhead, the others with
/// their (shortened) reason.
fn results(out: &mut String, r: &RunRecord, unit: Unit) {
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
            "  {:<28} {:>12} {:>11} {:>5} {:>12} {:>11} {:>9}  vs",
            "scenario", "median", "±CI", "n", "overhead", "±CI", "%"
        );
        for res in r.results.iter().filter(|x| x.family == fam) {
            match res.status {
                Status::Measured => {
                    let (m, ci) = match res.median_ns {
                        Some(m) => cells(m, res.ci_low_ns, res.ci_high_ns, unit, false),
                        None => Default::default(),
                    };
                    let n = res.samples.map(|n| n.to_string()).unwrap_or_default();
                    let (o, oci, pct, vs) = match &res.overhead {
                        Some(o) => {
                            let (v, ci) = cells(o.median_ns, o.ci_low_ns, o.ci_high_ns, unit, true);
                            (
                                v,
                                ci,
                                overhead_pct(r, o).map(units::pct).unwrap_or_default(),
                                if o.vs == "native" {
                                    String::new()
                                } else {
                                    o.vs.clone()
                                },
                            )
                        }
                        None => Default::default(),
                    };
                    let _ = writeln!(
                        out,
                        "  {:<28} {m:>12} {ci:>11} {n:>5} {o:>12} {oci:>11} {pct:>9}  {vs}",
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
}

/// The targets not met, furthest from theirs first; the record has them all.
fn missed_targets(out: &mut String, r: &RunRecord, unit: Unit) {
    let s = &r.summary;
    let mut missed: Vec<_> = s.targets.iter().filter(|t| !t.met).collect();
    let ratio =
        |t: &syscost_record::Target| t.half_width_ns.map_or(f64::INFINITY, |h| h / t.target_ns);
    missed.sort_by(|a, b| ratio(b).total_cmp(&ratio(a)));
    if !missed.is_empty() {
        let _ = writeln!(
            out,
            "targets not met (95% CI half-width; furthest first{})",
            if missed.len() > MISSED_SHOWN {
                format!(", {MISSED_SHOWN} of {}", missed.len())
            } else {
                String::new()
            }
        );
        for t in missed.into_iter().take(MISSED_SHOWN) {
            let half = t
                .half_width_ns
                .map_or("no CI".into(), |h| format!("±{}", units::value(h, unit)));
            let _ = writeln!(
                out,
                "  {:<44} {half:>12}  target ±{}",
                crate::analysis::record::label(t),
                units::value(t.target_ns, unit)
            );
        }
        let _ = writeln!(out);
    }
}

fn estimates(out: &mut String, r: &RunRecord, unit: Unit) {
    if !r.estimates.is_empty() {
        let _ = writeln!(out, "estimates");
        for e in &r.estimates {
            let (v, ci) = cells(e.median_ns, e.ci_low_ns, e.ci_high_ns, unit, false);
            let _ = writeln!(
                out,
                "  {:<20} {v:>12} {ci:>11} {:>5}  {}",
                e.id, e.samples, e.label
            );
        }
        let _ = writeln!(out);
    }
}

fn expectations(out: &mut String, r: &RunRecord, unit: Unit) {
    if !r.expectations.is_empty() {
        let _ = writeln!(
            out,
            "expectations (interval rule; kernel's own rule on the medians in brackets)"
        );
        for x in &r.expectations {
            let diff = match (x.diff_median_ns, x.diff_ci_low_ns, x.diff_ci_high_ns) {
                (Some(m), Some(l), Some(h)) => {
                    let (v, ci) = cells(m, Some(l), Some(h), unit, true);
                    format!("diff {v} {ci}")
                }
                (Some(m), ..) => format!("diff {}", units::signed(m, unit)),
                _ => String::new(),
            };
            let sys = x
                .systematic_ns
                .map(|b| format!(", A/A bias ±{}", units::value(b, unit)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "  {:<13} [{:<4}] {:<52} {diff}, tolerance ±{}{sys}",
                verdict(x.verdict),
                verdict(x.kernel_verdict),
                x.label,
                units::value(x.tolerance_ns, unit)
            );
        }
        let _ = writeln!(out);
    }
}

fn trim_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for l in s.lines() {
        out.push_str(l.trim_end());
        out.push('\n');
    }
    out
}

/// Quantity names wider than this are cut in the compare table (the JSON has them whole).
const QUANTITY_WIDTH: usize = 40;

fn side(r: &compare::RecordRef) -> String {
    let file = r
        .file
        .as_deref()
        .map(|f| format!(", {f}"))
        .unwrap_or_default();
    if r.pooled.is_empty() {
        format!("{} (Linux {} {}{file})", r.id, r.kernel_release, r.arch)
    } else {
        format!(
            "{} runs pooled: {} (Linux {} {}{file})",
            r.pooled.len(),
            r.pooled.join(", "),
            r.kernel_release,
            r.arch
        )
    }
}

/// Renders a comparison as `syscost compare` prints it.
pub fn render_comparison(c: &Comparison) -> String {
    let mut out = String::new();
    let unit = if c.unit == Clock::Instructions.unit() {
        Unit::Instructions
    } else {
        Unit::Time
    };
    let _ = writeln!(out, "base {}", side(&c.base));
    let _ = writeln!(out, "new  {}", side(&c.new));
    for k in &c.incomparable {
        let _ = writeln!(
            out,
            "warning: not comparable, compared with --force: {} differs (base: {}; new: {})",
            k.part, k.base, k.new
        );
    }
    let margin = match unit {
        Unit::Time => format!(
            "±{}% of the base value, at least {}",
            c.margin_pct,
            units::value(compare::MARGIN_FLOOR_NS, unit)
        ),
        Unit::Instructions => "±1 instruction (exclusive: one instruction is a change)".to_string(),
    };
    let _ = writeln!(
        out,
        "NEW − BASE with its {:.0}% interval ({}); no change: the interval within {margin}\n",
        c.confidence * 100.0,
        if c.base.pooled.is_empty() && c.new.pooled.is_empty() {
            "the records as independent estimates"
        } else {
            "each side pooled over its runs, Welch's t"
        }
    );
    let _ = writeln!(
        out,
        "  {:<12} {:<w$} {:>14} {:>14} {:>14} {:>13} {:>8}",
        "verdict",
        "quantity",
        "base",
        "new",
        "NEW − BASE",
        "±",
        "%",
        w = QUANTITY_WIDTH
    );
    for r in &c.rows {
        let name = r.name();
        let name = if name.chars().count() > QUANTITY_WIDTH {
            let cut: String = name.chars().take(QUANTITY_WIDTH - 1).collect();
            format!("{cut}…")
        } else {
            name
        };
        let b = units::value(r.base.median, unit);
        let n = units::value(r.new.median, unit);
        let (d, h) = units::with_half(r.diff.median, Some(r.diff.half_width()), unit, true);
        let rel = r
            .relative_pct
            .map(|p| units::pct(p.median))
            .unwrap_or_default();
        let warn = r
            .warning
            .as_deref()
            .map(|w| format!("  warning: {w}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "  {:<12} {name:<w$} {b:>14} {n:>14} {d:>14} {h:>13} {rel:>8}{warn}",
            r.verdict.word(),
            w = QUANTITY_WIDTH
        );
    }
    let count =
        |f: &dyn Fn(compare::Verdict) -> bool| c.rows.iter().filter(|r| f(r.verdict)).count();
    let _ = writeln!(
        out,
        "\n{} shared quantities: {} changed, {} no change, {} inconclusive",
        c.rows.len(),
        count(&|v| v.is_change()),
        count(&|v| v == compare::Verdict::NoChange),
        count(&|v| v == compare::Verdict::Inconclusive),
    );
    if !c.only_base.is_empty() || !c.only_new.is_empty() {
        let _ = writeln!(
            out,
            "only in base: {}; only in new: {}",
            list_or_none(&c.only_base),
            list_or_none(&c.only_new)
        );
    }
    if c.without_interval > 0 {
        let _ = writeln!(
            out,
            "{} number(s) without an interval in either record were not judged",
            c.without_interval
        );
    }
    trim_lines(&out)
}

fn list_or_none(v: &[String]) -> String {
    if v.is_empty() {
        "none".to_string()
    } else {
        v.join(", ")
    }
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
