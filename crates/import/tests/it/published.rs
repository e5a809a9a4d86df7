//! The thirteen published logs in data/ (verbatim copies in `fixtures/published`): every number
//! each prints is in its records. The expected numbers are read here from the log text with
//! simple patterns of their own (a few string splits per line kind), not with the importer's
//! code, and compared in the order the log prints them. What the logs print from other tools
//! (libMicro in chartre's, UnixBench in yifei's) is not imported and is said so in the
//! records' notes by the import script.

use crate::*;
use syscost_record::{EstimateOrigin, Verdict};

fn published(name: &str) -> String {
    format!("published/{name}")
}

/// The log as a reader sees it: quoted-printable soft breaks joined and the two escapes these
/// logs use decoded, the runner's `# ` prefixes and indentation removed.
fn lines(name: &str) -> Vec<String> {
    let raw = String::from_utf8(std::fs::read(path(&published(name))).unwrap()).unwrap();
    let text = if raw.contains("=C2=B1") || raw.contains("=3D") {
        raw.replace("=\n", "")
            .replace("=C2=B1", "±")
            .replace("=3D", "=")
    } else {
        raw
    };
    text.lines()
        .map(|l| {
            let mut t = l.trim();
            while let Some(rest) = t.strip_prefix('#') {
                t = rest.trim();
            }
            t.to_string()
        })
        .collect()
}

fn import_published(name: &str) -> Vec<RunRecord> {
    import(&published(name))
}

/// The number just before `suffix` at the end of `t` (`"getpid native: 867 ns"`, " ns").
fn before(t: &str, suffix: &str) -> Option<String> {
    let body = t.strip_suffix(suffix)?;
    let n = body.rsplit([' ', ':', '(', '+']).next()?;
    (!n.is_empty()
        && n.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ','))
    .then(|| n.replace(',', ""))
}

fn f(s: &str) -> f64 {
    s.parse().unwrap()
}

/// seccomp_benchmark: scenarios, timed loops, loop sizes, estimates (a wrapped-around value read
/// as the signed number it stands for), sysctls and expectation operands.
fn check_seccomp(name: &str, records: usize) {
    let rs = import_published(name);
    assert_eq!(rs.len(), records, "{name}");
    let log = lines(name);
    let scenario: Vec<f64> = log
        .iter()
        .filter(|t| t.starts_with("getpid "))
        .filter_map(|t| before(t, " ns"))
        .map(|s| f(&s))
        .collect();
    let got: Vec<f64> = rs
        .iter()
        .flat_map(|r| r.results.iter().map(|x| x.median_ns.unwrap()))
        .collect();
    assert_eq!(got, scenario, "{name}: scenarios");
    let timed: Vec<String> = log
        .iter()
        .filter_map(|t| t.split_once(" = ").map(|(_, r)| r))
        .filter_map(|r| r.split_once(" (").map(|(n, _)| n.to_string()))
        .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let got: Vec<String> = rs
        .iter()
        .flat_map(|r| r.results.iter().map(|x| x.params["timed loop ns"].clone()))
        .collect();
    assert_eq!(got, timed, "{name}: timed loops");
    let loops: Vec<u64> = log
        .iter()
        .filter_map(|t| t.strip_prefix("Benchmarking "))
        .map(|t| t.split(' ').next().unwrap().parse().unwrap())
        .collect();
    for (r, n) in rs.iter().filter(|r| !r.results.is_empty()).zip(&loops) {
        assert!(r.results.iter().all(|x| x.iters_per_sample == Some(*n)));
    }
    let printed: Vec<f64> = log
        .iter()
        .filter(|t| t.starts_with("Estimated "))
        .filter_map(|t| before(t, " ns"))
        .map(|s| {
            let v: u64 = s.parse().unwrap();
            // A wrapped-around negative difference: read back as signed.
            if v > i64::MAX as u64 {
                v as i64 as f64
            } else {
                v as f64
            }
        })
        .collect();
    let got: Vec<f64> = rs
        .iter()
        .flat_map(|r| {
            r.estimates
                .iter()
                .filter(|e| e.origin != Some(EstimateOrigin::Recomputed))
                .map(|e| e.median_ns)
        })
        .collect();
    assert_eq!(got, printed, "{name}: estimates");
    for (key, field) in [
        ("net.core.bpf_jit_enable = ", "enable"),
        ("net.core.bpf_jit_harden = ", "harden"),
    ] {
        let values: Vec<&str> = log.iter().filter_map(|t| t.strip_prefix(key)).collect();
        let got: Vec<&str> = rs
            .iter()
            .filter_map(|r| {
                let c = &r.environment.comparability;
                if field == "enable" {
                    c.bpf_jit_enable.as_deref()
                } else {
                    c.bpf_jit_harden.as_deref()
                }
            })
            .collect();
        assert_eq!(got, values, "{name}: {key}");
    }
    let operands: Vec<(f64, f64)> = log
        .iter()
        .filter(|t| t.contains(" ≤ ") || t.contains(" ≈ "))
        .filter_map(|t| {
            let inner = t.rsplit_once(" (")?.1.split_once("):")?.0;
            let v: Vec<&str> = inner.split(' ').collect();
            Some((f(v[0]), f(v[2])))
        })
        .collect();
    let got: Vec<(f64, f64)> = rs
        .iter()
        .flat_map(|r| r.expectations.iter().map(|e| (e.lhs_ns, e.rhs_ns)))
        .collect();
    assert_eq!(got, operands, "{name}: expectations");
}

/// sud_benchmark: loop size, both averages, the overhead in % and ns, the counts, the call.
fn check_sud(name: &str) {
    let rs = import_published(name);
    assert_eq!(rs.len(), 1, "{name}");
    let r = &rs[0];
    let log = lines(name);
    let avgs: Vec<f64> = log
        .iter()
        .filter(|t| t.starts_with("Avg syscall time "))
        .filter_map(|t| before(t, "ns."))
        .map(|s| f(&s))
        .collect();
    assert_eq!([median(r, "native"), median(r, "sud.allow")], avgs[..]);
    let iters: u64 = log
        .iter()
        .find_map(|t| t.strip_prefix("test iterations = "))
        .unwrap()
        .parse()
        .unwrap();
    let allow = r.result("sud.allow").unwrap();
    assert_eq!(allow.iters_per_sample, Some(iters));
    let over = log
        .iter()
        .find_map(|t| t.strip_prefix("Interception overhead: "))
        .unwrap();
    let (pct, ns) = over.split_once("% (+").unwrap();
    let o = allow.overhead.as_ref().unwrap();
    assert_eq!(
        (o.pct, o.median_ns),
        (f(pct), f(ns.trim_end_matches("ns).")))
    );
    let counts = log
        .iter()
        .find_map(|t| t.strip_prefix("trapped_call_count "))
        .unwrap();
    let (trapped, native) = counts.split_once(", native_call_count ").unwrap();
    assert_eq!(allow.params["trapped_call_count"], trapped);
    assert_eq!(
        allow.params["native_call_count"],
        native.trim_end_matches('.')
    );
    let caught = log.iter().find_map(|t| t.strip_prefix("Caught ")).unwrap();
    assert_eq!(allow.params["caught"], caught);
    assert_eq!(r.summary.duration_s, None, "{name}: never printed");
}

/// One BPF bench row as printed: total M/s, ±, and for a scaling row CPUs and M/s per CPU.
#[derive(Debug, PartialEq)]
struct BpfRow {
    bench: String,
    mops: f64,
    sd: f64,
    cpus: Option<String>,
    per_cpu: Option<f64>,
}

fn check_bpf(name: &str, records: usize) {
    let rs = import_published(name);
    assert_eq!(rs.len(), records, "{name}");
    let mut want: Vec<BpfRow> = Vec::new();
    for t in lines(name) {
        let Some((head, rest)) = t.split_once(':') else {
            continue;
        };
        let Some((x, rest)) = rest.split_once(" ± ") else {
            continue;
        };
        let Some((y, tail)) = rest.split_once("M/s") else {
            continue;
        };
        let head = head.trim().trim_start_matches("-->").trim();
        let (bench, cpus) = match head.split_once('(') {
            Some((b, c)) => (
                b.trim(),
                Some(c.trim().trim_end_matches(" cpus)").to_string()),
            ),
            None => (head, None),
        };
        if bench.contains(' ') {
            continue; // prose: "Jiri's result: from 3.565 ± 0.047M/s ..."
        }
        let per_cpu = tail
            .trim()
            .strip_prefix('(')
            .and_then(|s| s.trim().strip_suffix("M/s/cpu)"))
            .map(f);
        want.push(BpfRow {
            bench: format!("trig-{bench}"),
            mops: f(x.trim()),
            sd: f(y.trim()),
            cpus,
            per_cpu,
        });
    }
    let mut got: Vec<BpfRow> = rs
        .iter()
        .flat_map(|r| {
            r.results.iter().map(|x| {
                let t = x.throughput_mops.as_ref().unwrap();
                BpfRow {
                    bench: x.params["bench"].clone(),
                    mops: t.median,
                    sd: t.stddev.unwrap(),
                    cpus: x.params.get("cpus").cloned(),
                    per_cpu: x.params.get("M/s per cpu").map(|s| f(s)),
                }
            })
        })
        .collect();
    // A scaling table's records are per CPU count, so its rows come out grouped by count.
    let key = |r: &BpfRow| (r.cpus.clone(), r.bench.clone(), (r.mops * 1000.0) as i64);
    want.sort_by_key(key);
    got.sort_by_key(key);
    assert_eq!(got, want, "{name}");
    for r in &rs {
        assert_eq!(r.summary.duration_s, None, "{name}: never printed");
        for x in &r.results {
            let t = x.throughput_mops.as_ref().unwrap();
            let n: f64 = x.params.get("cpus").map_or(1.0, |c| f(c));
            assert_close(x.median_ns.unwrap(), 1000.0 * n / t.median);
        }
    }
}

/// perf bench syscall: calls, total time, usecs/op (as ns), ops/sec (as M/s).
fn check_perf(name: &str) {
    let rs = import_published(name);
    let log = lines(name);
    let calls: Vec<u64> = log
        .iter()
        .filter_map(|t| t.strip_prefix("Executed "))
        .map(|t| {
            t.split(' ')
                .next()
                .unwrap()
                .replace(',', "")
                .parse()
                .unwrap()
        })
        .collect();
    let total: Vec<String> = log
        .iter()
        .filter_map(|t| t.strip_prefix("Total time: "))
        .map(|t| t.trim_end_matches(" [sec]").to_string())
        .collect();
    let usecs: Vec<f64> = log
        .iter()
        .filter_map(|t| before(t, " usecs/op"))
        .map(|s| f(&s))
        .collect();
    let ops: Vec<f64> = log
        .iter()
        .filter_map(|t| before(t, " ops/sec"))
        .map(|s| f(&s))
        .collect();
    assert_eq!(rs.len(), calls.len(), "{name}");
    for (i, r) in rs.iter().enumerate() {
        let x = &r.results[0];
        assert_eq!(r.results.len(), 1);
        assert_eq!(x.iters_per_sample, Some(calls[i]), "{name} run {i}");
        assert_eq!(f(&x.params["total time s"]), f(&total[i]));
        assert_eq!(r.summary.duration_s, Some(f(&total[i])));
        assert_close(x.median_ns.unwrap(), usecs[i] * 1000.0);
        assert_close(x.throughput_mops.as_ref().unwrap().median, ops[i] / 1e6);
    }
}

#[test]
fn andrii_bpf_trig_2020() {
    check_bpf("andrii-20200508-x86_64-bpf-trig-qp.log", 1);
}

#[test]
fn chartre_perf_pti() {
    check_perf("chartre-20201118-5.10-rc4-x86_64-perf-syscall-pti.log");
    let rs = import_published("chartre-20201118-5.10-rc4-x86_64-perf-syscall-pti.log");
    // The author's heading for each run says which boot it was.
    let heading = |r: &RunRecord| {
        r.environment.incidental.other["log heading (the text introducing the run)"].clone()
    };
    assert_eq!(
        heading(&rs[0]),
        "system running 5.10-rc4 booted with nopti:"
    );
    assert_eq!(heading(&rs[1]), "same system booted with pti:");
}

#[test]
fn kees_seccomp_bitmap_v1() {
    let name = "kees-20200923-x86-seccomp-bitmap-v1.log";
    check_seccomp(name, 1);
    let r = &import_published(name)[0];
    // The samples came from the command line, shown with its prompt.
    assert_eq!(
        r.environment.incidental.other["command (from the shell prompt)"],
        "sudo ./seccomp_benchmark 30344920"
    );
    assert!(r
        .expectations
        .iter()
        .all(|e| e.kernel_verdict == Verdict::Pass));
}

#[test]
fn krisman_sud_ryzen() {
    let name = "krisman-20201117-x86_64-sud-ryzen.log";
    check_sud(name);
    let r = &import_published(name)[0];
    // root@olga: the host only as a hash.
    assert_eq!(
        r.environment.incidental.machine_hash.as_deref(),
        Some(syscost_record::machine_hash("olga").as_str())
    );
    assert!(!serde_json::to_string(r).unwrap().contains("olga"));
}

#[test]
fn liaochang_uprobe_scaling() {
    check_bpf(
        "liaochang-2025-arm64-kunpeng916-bpf-uprobe-scaling-qp.log",
        14,
    );
}

#[test]
fn lkp_5_11_seccomp() {
    check_seccomp("lkp-20210209-5.11.0-rc5-x86_64-seccomp-qp.log", 1);
}

#[test]
fn lkp_5_11_sud() {
    let name = "lkp-20210209-5.11.0-rc5-x86_64-sud-qp.log";
    check_sud(name);
    let imp = try_import(&published(name), ImportFormat::Auto).unwrap();
    // The runner printed "Caught sys_ff00" before the run: kept, not a run of its own.
    assert!(imp.warnings.is_empty(), "{:?}", imp.warnings);
    let r = &imp.records[0];
    assert!(has_note(r, "comes before the run's first line"));
    let other = &r.environment.incidental.other;
    assert_eq!(other["kselftest result"], "ok");
    assert_eq!(other["kselftest test number"], "2");
}

#[test]
fn lkp_5_12_seccomp() {
    check_seccomp("lkp-20210329-5.12.0-rc4-x86_64-seccomp-wrapped.log", 1);
}

#[test]
fn lkp_5_12_sud() {
    check_sud("lkp-20210329-5.12.0-rc4-x86_64-sud.log");
}

#[test]
fn menglong_bpf_trig_6_17() {
    check_bpf("menglong-20250817-x86_64-bpf-trig-kprobe-multi-all.log", 2);
}

#[test]
fn tiezhu_perf_execve_all() {
    check_perf("tiezhu-20220929-loongarch64-perf-syscall-execve-all.log");
}

#[test]
fn tmricht_perf_fork() {
    check_perf("tmricht-20250304-s390-perf-syscall-fork.log");
}

#[test]
fn yifei_seccomp_two_filters_and_a_fragment() {
    let name = "yifei-20200921-x86_64-kvm-seccomp-2filter-cover.log";
    check_seccomp(name, 3);
    let rs = import_published(name);
    // The estimates-only fragment is a record of its own, its wrapped value decoded.
    let frag = &rs[2];
    assert!(frag.results.is_empty());
    assert_eq!(estimate(frag, "per_filter.bitmap_diff"), -6.0);
    assert_eq!(
        frag.estimates[2].origin,
        Some(syscost_record::EstimateOrigin::Decoded)
    );
    assert!(has_note(frag, "A fragment"));
}

#[test]
fn lkp_runner_wrapping_is_not_the_2024_generation() {
    for name in [
        "lkp-20210209-5.11.0-rc5-x86_64-seccomp-qp.log",
        "lkp-20210329-5.12.0-rc4-x86_64-seccomp-wrapped.log",
    ] {
        let r = &import_published(name)[0];
        let other = &r.environment.incidental.other;
        assert_eq!(
            other["output generation"], "plain text, bitmap/full scenarios (late 2020 to 2023)",
            "{name}"
        );
        assert!(!has_note(r, "KTAP Totals"), "{name}: {:?}", r.notes);
        assert!(!has_note(r, "Incomplete"), "{name}: {:?}", r.notes);
        assert!(has_note(r, "come before their"), "{name}");
        assert_eq!(other["kselftest test number"], "2");
        // The benchmark stopped after the negative estimate; the rest are computed from its
        // scenario lines, and marked so.
        assert!(r
            .estimates
            .iter()
            .skip(1)
            .all(|e| e.origin.is_some() && e.origin != Some(EstimateOrigin::Printed)));
    }
    let r = &import_published("lkp-20210209-5.11.0-rc5-x86_64-seccomp-qp.log")[0];
    // 843 − 867 − (771 − 843) = 48: the kernel's entry formula on the printed scenarios.
    assert_eq!(estimate(r, "entry"), 48.0);
    assert_eq!(
        r.estimate("entry").unwrap().origin,
        Some(EstimateOrigin::Recomputed)
    );
    assert_eq!(
        r.estimate("total.bitmap.1").unwrap().origin,
        Some(EstimateOrigin::Decoded)
    );
}

#[test]
fn the_tolerance_follows_what_the_benchmark_printed_not_the_runner_prefixes() {
    // Seed 000 (plain text, 1 % rule) as the kselftest runner would wrap it.
    let text = std::fs::read_to_string(path(SEED_000)).unwrap();
    let start = text.find("Current BPF sysctl settings:").unwrap();
    let end = text.find("(755 ≈ 752): ✔️").unwrap() + "(755 ≈ 752): ✔️".len();
    let mut wrapped = String::from(
        "TAP version 13\n1..2\n# timeout set to 120\n# selftests: seccomp: seccomp_benchmark\n",
    );
    for l in text[start..end].lines() {
        wrapped.push_str(&format!("# {l}\n"));
    }
    wrapped.push_str("ok 2 selftests: seccomp: seccomp_benchmark\n");
    let r = &import_bytes(
        wrapped.as_bytes(),
        "wrapped",
        ImportFormat::Auto,
        &Provenance::default(),
    )
    .unwrap()
    .records[0];
    let total = r.expectations.last().unwrap();
    assert_close(total.tolerance_ns, 7.52);
    assert!(
        has_note(r, "max(1 % of the smaller, 2 ns)"),
        "{:?}",
        r.notes
    );
    assert_eq!(
        r.environment.incidental.other["output generation"],
        "plain text, bitmap/full scenarios (late 2020 to 2023)"
    );
    assert_eq!(r.environment.incidental.other["kselftest timeout s"], "120");
    assert!(!has_note(r, "KTAP Totals"));
    // The 2024 KTAP output without its "Pinned to CPU" line: KTAP, but still the 1 % rule
    // (the log's own verdicts then decide, as they contradict it for 377 ≈ 371).
    let ktap = std::fs::read_to_string(path("seccomp-ktap.txt")).unwrap();
    let unpinned = ktap.replace("# # Pinned to CPU 3 of 4\n", "");
    let r = &import_bytes(
        unpinned.as_bytes(),
        "unpinned",
        ImportFormat::Auto,
        &Provenance::default(),
    )
    .unwrap()
    .records[0];
    assert_eq!(
        r.environment.incidental.other["output generation"],
        "KTAP, before CPU pinning (early 2024)"
    );
    assert_eq!(r.settings.cpu, None);
    assert!(
        has_note(r, "fit the 10 % rule, not the 1 %"),
        "{:?}",
        r.notes
    );
}

#[test]
fn rows_the_author_marked_are_results() {
    let r = one("bpf-bench-marked.txt");
    let nop = r.result("bpf.uprobe").unwrap();
    assert_eq!(nop.throughput_mops.as_ref().unwrap().median, 3.246);
    assert_eq!(nop.params["marked in the log"], "-->");
    let ret = r.result("bpf.uretprobe").unwrap();
    assert_eq!(ret.throughput_mops.as_ref().unwrap().median, 1.96);
    assert!(!r
        .result("bpf.ufunc")
        .unwrap()
        .params
        .contains_key("marked in the log"));
    assert!(has_note(&r, "The author marked some rows"));
}

#[test]
fn an_unreadable_scaling_table_cites_its_closest_lines() {
    let text = "I ran the script.\n\nuprobe-nop      ( 1 cpus):    0.907 M/s\nuprobe-nop      ( 2 cpus):    1.676 M/s\n";
    let e = import_bytes(
        text.as_bytes(),
        "bad.log",
        ImportFormat::Auto,
        &Provenance::default(),
    )
    .unwrap_err();
    let Error::NoResult {
        place: syscost_import::Place::Closest(near),
        ..
    } = &e
    else {
        panic!("{e:?}");
    };
    assert_eq!(near.iter().map(|h| h.line).collect::<Vec<_>>(), [3, 4]);
    let msg = e.to_string();
    assert!(msg.contains("line 3: \"uprobe-nop"), "{msg}");
    assert!(!msg.contains("line 1"), "{msg}");
}

fn stated<'a>(
    kernel: Option<&'a str>,
    arch: Option<&'a str>,
    machine: Option<&'a str>,
    date: Option<&'a str>,
) -> Provenance<'a> {
    Provenance {
        stated: syscost_import::StatedFacts {
            kernel,
            arch,
            machine,
            date,
            stated_in: Some("the report"),
        },
        ..Provenance::default()
    }
}

fn import_stated(name: &str, prov: &Provenance) -> Result<Vec<RunRecord>, Error> {
    let bytes = std::fs::read(path(name)).unwrap();
    import_bytes(&bytes, name, ImportFormat::Auto, prov).map(|i| i.records)
}

#[test]
fn stated_facts_fill_what_the_log_does_not_print_and_are_marked() {
    let name = published("lkp-20210329-5.12.0-rc4-x86_64-sud.log");
    let prov = stated(
        Some("5.12.0-rc4-00224-gd7b0df213372"),
        Some("x86_64"),
        Some("4 threads Intel(R) Core(TM) i5-6500 CPU @ 3.20GHz with 32G memory"),
        Some("2021-03-26"),
    );
    let r = &import_stated(&name, &prov).unwrap()[0];
    let c = &r.environment.comparability;
    assert_eq!(c.kernel_release, "5.12.0-rc4-00224-gd7b0df213372");
    assert_eq!(c.arch, "x86_64");
    assert_eq!(
        c.cpu.model_name, None,
        "a description is not a cpuinfo model name"
    );
    assert_eq!(r.source.date.as_deref(), Some("2021-03-26"));
    let s = r.source.stated.as_ref().unwrap();
    let k = s.kernel.as_ref().unwrap();
    assert_eq!(
        (k.release.as_str(), k.approximate),
        (c.kernel_release.as_str(), false)
    );
    assert_eq!(s.arch.as_deref(), Some("x86_64"));
    assert_eq!(s.stated_in.as_deref(), Some("the report"));
    assert!(s.machine.as_deref().unwrap().contains("i5-6500"));
    assert!(has_note(r, "Stated by the source, not printed in the log"));
    assert!(!has_note(r, "Neither the log nor its source"));
    assert_eq!(
        r.canonical_path().split('/').nth(2),
        Some(c.kernel_release.as_str())
    );
}

#[test]
fn an_approximate_kernel_is_stated_but_never_the_release() {
    let name = published("andrii-20200508-x86_64-bpf-trig-qp.log");
    let r = &import_stated(&name, &stated(Some("~5.7-rc"), Some("x86_64"), None, None)).unwrap()[0];
    assert_eq!(r.environment.comparability.kernel_release, "unknown");
    let k = r.source.stated.as_ref().unwrap().kernel.as_ref().unwrap();
    assert_eq!((k.release.as_str(), k.approximate), ("5.7-rc", true));
    assert!(has_note(r, "only approximately (around 5.7-rc"));
}

#[test]
fn a_stated_fact_never_overrides_the_log() {
    // seccomp-ktap.txt prints `uname -a` on its line 8: 6.8.0-45-generic, x86_64.
    let e = import_stated("seccomp-ktap.txt", &stated(Some("6.9"), None, None, None)).unwrap_err();
    assert!(matches!(e, Error::Conflict { line: 8, .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "seccomp-ktap.txt line 8: the log prints the kernel release \"6.8.0-45-generic\", but \
         --kernel states \"6.9\"; a stated fact never overrides the log — correct --kernel or \
         leave it out"
    );
    let e = import_stated(
        "seccomp-ktap.txt",
        &stated(None, Some("aarch64"), None, None),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("\"x86_64\"") && e.contains("--arch states \"aarch64\""),
        "{e}"
    );
    // Agreeing statements are fine, and the log's value stands.
    let r = &import_stated(
        "seccomp-ktap.txt",
        &stated(Some("~6.8"), Some("x86_64"), None, None),
    )
    .unwrap()[0];
    assert_eq!(
        r.environment.comparability.kernel_release,
        "6.8.0-45-generic"
    );
}

/// One row of scripts/published.tsv.
struct Row {
    dir: String,
    file: String,
    fields: Vec<String>,
}

fn table() -> Vec<Row> {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/published.tsv"),
    )
    .unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let v: Vec<String> = l.split('\t').map(str::to_string).collect();
            assert_eq!(v.len(), 9, "{l}");
            Row {
                dir: v[0].clone(),
                file: v[1].clone(),
                fields: v[2..].to_vec(),
            }
        })
        .collect()
}

/// data/ holds exactly what importing the published logs with their stated facts gives, byte
/// for byte as the command saves it (`syscost_record::to_file_json`). `scripts/import-published
/// --check` checks the same through the command itself.
#[test]
fn data_is_exactly_the_published_logs_imported() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
    let mut expected = Vec::new();
    for row in table() {
        let name = match row.dir.as_str() {
            "logs" => published(&row.file),
            "seeds" => format!("seeds/{}", row.file),
            d => panic!("unknown dir {d}"),
        };
        let opt = |i: usize| Some(row.fields[i].as_str()).filter(|s| *s != "-");
        let prov = Provenance {
            source: opt(0),
            note: opt(6),
            stated: syscost_import::StatedFacts {
                kernel: opt(1),
                arch: opt(2),
                machine: opt(3),
                date: opt(4),
                stated_in: opt(5),
            },
        };
        prov.stated.check().unwrap();
        for r in import_stated(&name, &prov).unwrap() {
            let file = data.join(r.canonical_path());
            let saved = std::fs::read_to_string(&file)
                .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let text = syscost_record::to_file_json(&r);
            assert!(
                saved == text,
                "{} differs from its re-import",
                file.display()
            );
            expected.push(r.canonical_path());
        }
    }
    // ... and no other imported record.
    let mut found = Vec::new();
    let mut stack = vec![data.join("runs")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let r: RunRecord =
                    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
                if r.source.kind == syscost_record::SourceKind::Import {
                    found.push(r.canonical_path());
                }
            }
        }
    }
    expected.sort();
    found.sort();
    assert_eq!(found, expected);
}
