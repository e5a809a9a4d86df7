//! The checks of a record's summary, results, estimates and expectations.

use super::*;

pub(super) fn summary(c: &mut Checker, r: &RunRecord) {
    let s = &r.summary;
    c.count("summary.rounds", Some(s.rounds), COUNT_MAX);
    if let Some(d) = s.duration_s {
        if !d.is_finite() || d < 0.0 {
            c.push(
                "summary.duration_s",
                "must be a finite, non-negative number",
            );
        } else {
            c.range(
                "summary.duration_s",
                Some(d),
                0.0,
                false,
                DURATION_MAX_S,
                " s",
            );
        }
    }
    for (i, t) in r.summary.targets.iter().enumerate() {
        // Formatted only for a problem.
        let p = || format!("summary.targets[{i}] ({})", t.id);
        if !(t.target_ns.is_finite() && t.target_ns > 0.0) {
            c.push(
                format!("{}.target_ns", p()),
                "must be a finite, positive number",
            );
        }
        match t.half_width_ns {
            Some(h) if !(h.is_finite() && h >= 0.0) => c.push(
                format!("{}.half_width_ns", p()),
                "must be a finite, non-negative number",
            ),
            h if t.met != h.is_some_and(|h| h <= t.target_ns) => c.push(
                format!("{}.met", p()),
                "must say whether half_width_ns is at most target_ns",
            ),
            _ => {}
        }
    }
    if let Some(inst) = &r.summary.instances {
        c.count("summary.instances.count", Some(inst.count), COUNT_MAX);
        if inst.count == 0 {
            c.push("summary.instances.count", "must be at least 1");
        }
        c.range(
            "summary.instances.renewing_s",
            Some(inst.renewing_s),
            0.0,
            false,
            DURATION_MAX_S,
            " s",
        );
        for (i, k) in inst.components.iter().enumerate() {
            let p = || format!("summary.instances.components[{i}] ({})", k.id);
            if !r
                .summary
                .targets
                .iter()
                .any(|t| t.id == k.id && t.quantity == k.quantity)
            {
                c.push(p(), "names no quantity of summary.targets");
            }
            if k.instances == 0 || k.instances > inst.count {
                c.push(
                    format!("{}.instances", p()),
                    format!("must be 1 to summary.instances.count ({})", inst.count),
                );
            }
            if (k.instances > 1) != k.between_ns.is_some() {
                c.push(
                    format!("{}.between_ns", p()),
                    "is present exactly when there is more than one instance",
                );
            }
            for (name, v) in [("within_ns", k.within_ns), ("between_ns", k.between_ns)] {
                if v.is_some_and(|v| !(v.is_finite() && v >= 0.0)) {
                    c.push(
                        format!("{}.{name}", p()),
                        "must be a finite, non-negative number",
                    );
                }
            }
        }
    }
    let targets = &r.summary.targets;
    if !targets.is_empty() && r.summary.target_reached != targets.iter().all(|t| t.met) {
        c.push(
            "summary.target_reached",
            "must say whether every target in summary.targets was met",
        );
    }
    c.range(
        "summary.worst_ci_pct",
        s.worst_ci_pct,
        0.0,
        false,
        1e6,
        " %",
    );
    if let Some(w) = &s.worst_ci_id {
        if r.result(w).is_none() {
            c.push(
                "summary.worst_ci_id",
                format!("{} names no result of this record", quoted(w)),
            );
        }
    }
    c.text("summary.ci_method", &s.ci_method);
}

pub(super) fn results(c: &mut Checker, r: &RunRecord) {
    // An imported fragment may quote only a run's estimates (no scenario lines): still a
    // record. Anything else without results is not.
    let fragment = r.source.kind == SourceKind::Import && !r.estimates.is_empty();
    if r.results.is_empty() && !fragment {
        c.push("results", "the record has no results");
    }
    c.entries("results", r.results.len());
    // Each id's first result.
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(r.results.len());
    for (i, res) in r.results.iter().enumerate() {
        first.entry(res.id.as_str()).or_insert(i);
    }
    for (i, res) in r.results.iter().enumerate() {
        let p = Entry {
            list: "results",
            i,
            id: &res.id,
            sub: "",
        };
        if res.id.trim().is_empty() {
            c.push(format!("results[{i}].id"), "is empty");
        } else {
            c.ident(Lazy(|| format!("results[{i}].id")), &res.id);
        }
        if first.get(res.id.as_str()) != Some(&i) {
            c.push(format!("{p}.id"), "appears twice");
        }
        c.ident(Lazy(|| format!("{p}.family")), &res.family);
        c.text(Lazy(|| format!("{p}.description")), &res.description);
        c.opt_text(Lazy(|| format!("{p}.reason")), &res.reason);
        match res.status {
            Status::Measured => {
                match res.median_ns {
                    None => c.push(format!("{p}.median_ns"), "a measured result needs a median"),
                    Some(m) if m.is_finite() && (0.0..TIME_MIN_NS).contains(&m) => c.push(
                        format!("{p}.median_ns"),
                        format!(
                            "{} ns is shorter than a CPU cycle: not a measured time (at least \
                             {TIME_MIN_NS} ns)",
                            num(m)
                        ),
                    ),
                    Some(_) => {}
                }
                if res.samples.unwrap_or(0) == 0 {
                    c.push(
                        format!("{p}.samples"),
                        "a measured result needs samples ≥ 1",
                    );
                }
            }
            Status::Skipped | Status::Failed => {
                if res.reason.as_deref().unwrap_or("").trim().is_empty() {
                    c.push(
                        format!("{p}.reason"),
                        "a skipped or failed result must say why",
                    );
                }
            }
        }
        c.count(Lazy(|| format!("{p}.samples")), res.samples, COUNT_MAX);
        c.count(
            Lazy(|| format!("{p}.iters_per_sample")),
            res.iters_per_sample,
            ITERS_MAX,
        );
        let samples = res.samples.unwrap_or(0);
        for (name, v) in [("outliers", res.outliers), ("preempted", res.preempted)] {
            if let Some(v) = v {
                if v > samples {
                    c.push(
                        format!("{p}.{name}"),
                        format!("{v} is more than the {samples} samples"),
                    );
                }
            }
        }
        c.time(Lazy(|| format!("{p}.median_ns")), res.median_ns);
        c.time(Lazy(|| format!("{p}.ci_low_ns")), res.ci_low_ns);
        c.time(Lazy(|| format!("{p}.ci_high_ns")), res.ci_high_ns);
        c.time(Lazy(|| format!("{p}.mad_ns")), res.mad_ns);
        c.time(Lazy(|| format!("{p}.min_ns")), res.min_ns);
        c.time(Lazy(|| format!("{p}.p90_ns")), res.p90_ns);
        c.interval(&p, res.median_ns, res.ci_low_ns, res.ci_high_ns);
        if let Some(o) = &res.overhead {
            overhead(c, p, o, &first);
        }
        if let Some(t) = &res.throughput_mops {
            throughput(c, p, t);
        }
        if let Some(v) = &res.verification {
            c.text(Lazy(|| format!("{p}.verification.what")), &v.what);
        }
        c.entries(Lazy(|| format!("{p}.params")), res.params.len());
        if !res.params.is_empty() {
            c.text_map(&format_args!("{p}.params"), &res.params);
        }
    }
}

/// A result's overhead over its baseline, which must be a result of the same record.
fn overhead(c: &mut Checker, p: Entry, o: &crate::Overhead, first: &HashMap<&str, usize>) {
    let q = Entry {
        sub: ".overhead",
        ..p
    };
    if !first.contains_key(o.vs.as_str()) {
        c.push(
            format!("{q}.vs"),
            format!("{} names no result of this record", quoted(&o.vs)),
        );
    }
    c.diff(Lazy(|| format!("{q}.median_ns")), Some(o.median_ns));
    c.diff(Lazy(|| format!("{q}.ci_low_ns")), o.ci_low_ns);
    c.diff(Lazy(|| format!("{q}.ci_high_ns")), o.ci_high_ns);
    c.diff(Lazy(|| format!("{q}.pct")), Some(o.pct));
    c.diff(Lazy(|| format!("{q}.pct_ci_low")), o.pct_ci_low);
    c.diff(Lazy(|| format!("{q}.pct_ci_high")), o.pct_ci_high);
    c.count(Lazy(|| format!("{q}.samples")), Some(o.samples), COUNT_MAX);
    c.interval(&q, Some(o.median_ns), o.ci_low_ns, o.ci_high_ns);
    c.interval(
        Lazy(|| format!("{q}.pct")),
        Some(o.pct),
        o.pct_ci_low,
        o.pct_ci_high,
    );
}

/// A result's throughput, stated or derived.
fn throughput(c: &mut Checker, p: Entry, t: &crate::Throughput) {
    let q = Entry {
        sub: ".throughput_mops",
        ..p
    };
    c.range(
        Lazy(|| format!("{q}.median")),
        Some(t.median),
        0.0,
        false,
        1e6,
        "",
    );
    c.range(
        Lazy(|| format!("{q}.ci_low")),
        t.ci_low,
        0.0,
        false,
        1e6,
        "",
    );
    c.range(
        Lazy(|| format!("{q}.ci_high")),
        t.ci_high,
        0.0,
        false,
        1e6,
        "",
    );
    c.range(
        Lazy(|| format!("{q}.stddev")),
        t.stddev,
        0.0,
        false,
        1e6,
        "",
    );
    c.interval(&q, Some(t.median), t.ci_low, t.ci_high);
}

pub(super) fn estimates_and_expectations(c: &mut Checker, r: &RunRecord) {
    c.entries("estimates", r.estimates.len());
    for (i, e) in r.estimates.iter().enumerate() {
        let p = Entry {
            list: "estimates",
            i,
            id: &e.id,
            sub: "",
        };
        c.ident(Lazy(|| format!("estimates[{i}].id")), &e.id);
        c.text(Lazy(|| format!("{p}.label")), &e.label);
        c.text(Lazy(|| format!("{p}.formula")), &e.formula);
        c.diff(Lazy(|| format!("{p}.median_ns")), Some(e.median_ns));
        c.diff(Lazy(|| format!("{p}.ci_low_ns")), e.ci_low_ns);
        c.diff(Lazy(|| format!("{p}.ci_high_ns")), e.ci_high_ns);
        c.count(Lazy(|| format!("{p}.samples")), Some(e.samples), COUNT_MAX);
        c.interval(&p, Some(e.median_ns), e.ci_low_ns, e.ci_high_ns);
    }
    c.entries("expectations", r.expectations.len());
    for (i, e) in r.expectations.iter().enumerate() {
        let p = Entry {
            list: "expectations",
            i,
            id: &e.id,
            sub: "",
        };
        c.ident(Lazy(|| format!("expectations[{i}].id")), &e.id);
        c.text(Lazy(|| format!("{p}.label")), &e.label);
        c.diff(Lazy(|| format!("{p}.lhs_ns")), Some(e.lhs_ns));
        c.diff(Lazy(|| format!("{p}.rhs_ns")), Some(e.rhs_ns));
        c.diff(Lazy(|| format!("{p}.diff_median_ns")), e.diff_median_ns);
        c.diff(Lazy(|| format!("{p}.diff_ci_low_ns")), e.diff_ci_low_ns);
        c.diff(Lazy(|| format!("{p}.diff_ci_high_ns")), e.diff_ci_high_ns);
        c.range(
            Lazy(|| format!("{p}.tolerance_ns")),
            Some(e.tolerance_ns),
            0.0,
            false,
            TIME_MAX_NS,
            " ns",
        );
        c.range(
            Lazy(|| format!("{p}.systematic_ns")),
            e.systematic_ns,
            0.0,
            false,
            TIME_MAX_NS,
            " ns",
        );
        c.interval(&p, e.diff_median_ns, e.diff_ci_low_ns, e.diff_ci_high_ns);
    }
}
