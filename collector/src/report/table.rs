//! The human-readable report: one table per family, then estimates and expectations.

use std::fmt::Write;
use syscost_record::{RunRecord, Status, StopReason, Verdict};

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

/// Renders the record as the table printed by `syscost run`.
pub fn render(r: &RunRecord) -> String {
    let mut out = String::new();
    let env = &r.environment.comparability;
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
    let reached = match s.stop_reason {
        StopReason::Target => "target reached".to_string(),
        StopReason::Complete => "one timing per scenario".to_string(),
        _ => format!(
            "budget spent before the ±{}% target",
            r.settings.target_ci_pct.unwrap_or(0.0)
        ),
    };
    let worst = match (&s.worst_ci_pct, &s.worst_ci_id) {
        (Some(p), Some(id)) => format!("; widest CI ±{p:.2}% ({id})"),
        _ => String::new(),
    };
    let intervals = if s.stop_reason == StopReason::Complete {
        "single timings, no CIs"
    } else {
        "95% CIs"
    };
    let _ = writeln!(
        out,
        "{} rounds in {} ({reached}{worst}); {intervals}, ns per operation; n = samples\n",
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
    for fam in families {
        let _ = writeln!(out, "{fam}");
        let _ = writeln!(
            out,
            "  {:<28} {:>10} {:>10} {:>5} {:>12} {:>10} {:>9}  vs",
            "scenario", "ns/op", "±CI", "n", "overhead ns", "±CI", "overhead"
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
                        res.reason.as_deref().unwrap_or("")
                    );
                }
            }
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
