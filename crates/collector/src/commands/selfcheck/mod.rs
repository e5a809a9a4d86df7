//! `syscost selfcheck`: evidence about syscost's own measurements, as a command anyone can rerun.
//!
//! 1. Method comparison: the kernel's sequential method and syscost's interleaved method,
//!    alternately, N times each, on the kernel benchmark's five scenarios with the same budget:
//!    wall time, spread of the headline estimates across runs, verdict counts.
//! 2. Precision versus budget: the default suite at several budgets, with the CI half-widths
//!    reached for the headline estimates.
//! 3. Harness overhead (`null`) and, when `perf` is installed, `native` getppid against
//!    `perf bench syscall basic` on the same machine.
//!
//! With `--suite`, only the repeatability of the default run instead ([`suite`]).
//!
//! Each measurement is a separate `syscost run --json` process, so one run cannot disturb the
//! next. Output is Markdown, ready for the README.

mod calibration;
mod suite;

use crate::cli::SelfcheckArgs;
use crate::error::Error;
use crate::stats;
use std::fmt::Write as _;
use std::io::Read as _;
use std::process::{Command, Stdio};
use std::time::Instant;
use syscost_record::{RunRecord, Verdict};

const KERNEL_FIVE: &str = "native,seccomp.bitmap.1,seccomp.bitmap.2,seccomp.full.3,seccomp.full.4";

/// Runs this executable's `run --json` with `args`; the record and the wall time (until the
/// process exits).
pub(crate) fn run_json(args: &[String]) -> Result<(RunRecord, f64), Error> {
    let exe = std::env::current_exe().map_err(Error::SelfExe)?;
    let t0 = Instant::now();
    let mut child = Command::new(exe)
        .arg("run")
        .arg("--json")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(Error::Spawn)?;
    // Stderr in a thread of its own, so neither pipe can fill up and block the run.
    let mut err = child.stderr.take();
    let errors = std::thread::spawn(move || {
        let mut text = Vec::new();
        if let Some(e) = err.as_mut() {
            let _ = e.read_to_end(&mut text);
        }
        text
    });
    let mut stdout = Vec::new();
    if let Some(mut o) = child.stdout.take() {
        o.read_to_end(&mut stdout).map_err(Error::Spawn)?;
    }
    child.wait().map_err(Error::Spawn)?;
    let wall = t0.elapsed().as_secs_f64();
    let record = serde_json::from_slice(&stdout).map_err(|error| Error::NoRecord {
        args: args.join(" "),
        error,
        stderr: String::from_utf8_lossy(&errors.join().unwrap_or_default())
            .trim()
            .to_string(),
    })?;
    Ok((record, wall))
}

fn estimate(r: &RunRecord, id: &str) -> Option<f64> {
    r.estimate(id).map(|e| e.median_ns)
}

/// The kernel's "1 bitmapped ≈ 2 bitmapped" difference: bitmap.1 − bitmap.2 (via their totals).
fn bitmap_diff(r: &RunRecord) -> Option<f64> {
    Some(estimate(r, "total.bitmap.1")? - estimate(r, "total.bitmap.2")?)
}

fn half_width(r: &RunRecord, id: &str) -> Option<f64> {
    let e = r.estimate(id)?;
    Some((e.ci_high_ns? - e.ci_low_ns?) / 2.0)
}

fn overhead_half_width(r: &RunRecord, id: &str) -> Option<f64> {
    let o = r.result(id)?.overhead.as_ref()?;
    Some((o.ci_high_ns? - o.ci_low_ns?) / 2.0)
}

/// "k of n" targets met.
pub(crate) fn targets_met(r: &RunRecord) -> String {
    let t = &r.summary.targets;
    format!("{} of {}", t.iter().filter(|t| t.met).count(), t.len())
}

/// "median (min–max, sd)" of values across runs.
/// min – max of values, or "—".
pub(crate) fn range(v: &[f64], digits: usize) -> String {
    if v.is_empty() {
        return "—".into();
    }
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{min:.digits$} – {max:.digits$}")
}

pub(crate) fn spread(v: &[f64]) -> String {
    if v.is_empty() {
        return "—".into();
    }
    let med = stats::median(v);
    let min = v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let sd = if v.len() > 1 {
        (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
    } else {
        0.0
    };
    format!("{med:.1} ({min:.1} – {max:.1}, sd {sd:.2})")
}

/// The machine a run was on, for the sentence above a table: "Linux 6.8.0 x86_64, its CPU,
/// 2 logical CPUs, its hypervisor".
pub(crate) fn machine(r: &RunRecord) -> String {
    let c = &r.environment.comparability;
    format!(
        "Linux {} {}, {}, {}, {}",
        c.kernel_release,
        c.arch,
        c.cpu.model_name.as_deref().unwrap_or("unknown CPU"),
        c.cpu
            .logical_cpus
            .map_or("an unknown number of logical CPUs".into(), |n| format!(
                "{n} logical CPUs"
            )),
        c.virtualization
            .hypervisor
            .as_deref()
            .unwrap_or(&c.virtualization.kind)
    )
}

/// Where a verdict is counted in a `[pass, fail, inconclusive, skip]` row.
pub(crate) fn verdict_index(v: Verdict) -> usize {
    match v {
        Verdict::Pass => 0,
        Verdict::Fail => 1,
        Verdict::Inconclusive => 2,
        Verdict::Skip => 3,
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| format!("{x:.2}"))
}

#[derive(Default)]
struct MethodStats {
    wall: Vec<f64>,
    entry: Vec<f64>,
    per_filter: Vec<f64>,
    bitmap_diff: Vec<f64>,
    verdicts: [usize; 4], // pass, fail, inconclusive, skip
    bitmap_fails: usize,
}

impl MethodStats {
    fn add(&mut self, r: &RunRecord, wall: f64) {
        self.wall.push(wall);
        self.entry.extend(estimate(r, "entry"));
        self.per_filter.extend(estimate(r, "per_filter.last2"));
        self.bitmap_diff.extend(bitmap_diff(r));
        for e in &r.expectations {
            self.verdicts[verdict_index(e.verdict)] += 1;
            if e.id == "bitmap1_approx_bitmap2" && e.verdict == Verdict::Fail {
                self.bitmap_fails += 1;
            }
        }
    }
}

pub fn run(a: &SelfcheckArgs) -> Result<i32, Error> {
    let text = if a.suite {
        suite::report(a.runs, a.budget, &a.records)?
    } else {
        report(a)?
    };
    crate::report::stdout::print(&text).map_err(Error::Stdout)?;
    Ok(0)
}

fn report(a: &SelfcheckArgs) -> Result<String, Error> {
    let mut out = String::new();
    methods(&mut out, a)?;
    let last = precision(&mut out, a)?;
    harness(&mut out, last.as_ref())?;
    Ok(out)
}

/// The kernel's sequential method against syscost's, alternating runs of each.
fn methods(out: &mut String, a: &SelfcheckArgs) -> Result<(), Error> {
    let budget = format!("{}", a.budget);
    let mut seq = MethodStats::default();
    let mut inter = MethodStats::default();
    let mut inter_full = MethodStats::default();
    let mut env_line = String::new();
    for i in 0..a.runs {
        eprintln!("selfcheck: method comparison, run {} of {}", i + 1, a.runs);
        let (r, wall) = run_json(&[
            "--method".into(),
            "sequential".into(),
            "--budget".into(),
            budget.clone(),
        ])?;
        if env_line.is_empty() {
            env_line = machine(&r);
        }
        seq.add(&r, wall);
        let (r, wall) = run_json(&[
            "--budget".into(),
            budget.clone(),
            "--only".into(),
            KERNEL_FIVE.into(),
        ])?;
        inter.add(&r, wall);
        // The same, forced to use the whole budget: spreads at equal time.
        let (r, wall) = run_json(&[
            "--budget".into(),
            budget.clone(),
            "--target-ci".into(),
            "0.001".into(),
            "--only".into(),
            KERNEL_FIVE.into(),
        ])?;
        inter_full.add(&r, wall);
    }
    let _ = writeln!(out, "### Kernel method vs syscost method\n");
    let _ = writeln!(
        out,
        "{} alternating runs of each, `--budget {budget}`, the kernel benchmark's five \
         scenarios, on {env_line}. syscost stops once its targets are met (its default \
         `--target-ci 1`), or uses the whole budget (`--target-ci 0.001`). Estimates in ns: median across runs \
         (min – max, sd).\n",
        a.runs
    );
    let _ = writeln!(
        out,
        "| method | wall time s | entry | per-filter (last 2 diff) | bitmap 1 − 2 | verdicts pass / fail / inconclusive / skip | runs failing \"1 bitmapped ≈ 2 bitmapped\" |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for (name, m) in [
        ("sequential (kernel)", &seq),
        ("interleaved (syscost, stops at its targets)", &inter),
        ("interleaved (syscost, whole budget)", &inter_full),
    ] {
        let v = m.verdicts;
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} / {} / {} / {} | {} of {} |",
            spread(&m.wall),
            spread(&m.entry),
            spread(&m.per_filter),
            spread(&m.bitmap_diff),
            v[0],
            v[1],
            v[2],
            v[3],
            m.bitmap_fails,
            a.runs
        );
    }
    Ok(())
}

/// The default suite at each budget of `a.budgets`: its intervals; the last run's record.
fn precision(out: &mut String, a: &SelfcheckArgs) -> Result<Option<RunRecord>, Error> {
    let _ = writeln!(out, "\n### Precision versus budget\n");
    let _ = writeln!(
        out,
        "The default suite (`syscost run --budget B`); 95% CI half-widths in ns.\n"
    );
    let _ = writeln!(
        out,
        "| budget s | wall s | rounds | entry | per-filter (last 2) | depth slope | sud.allow overhead | targets met |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    let mut last = None;
    for b in &a.budgets {
        eprintln!("selfcheck: precision at --budget {b}");
        let (r, wall) = match run_json(&["--budget".into(), format!("{b}")]) {
            // Too short for this machine to complete a round of the whole suite: a row that
            // says so, not the end of the selfcheck.
            Err(Error::NoRecord { stderr, .. }) if stderr.contains("before the first round") => {
                let _ = writeln!(
                    out,
                    "| {b} | — | 0 | no round completed within the budget | | | | |"
                );
                continue;
            }
            other => other?,
        };
        let _ = writeln!(
            out,
            "| {b} | {wall:.1} | {} | ±{} | ±{} | ±{} | ±{} | {} |",
            r.summary.rounds,
            opt(half_width(&r, "entry")),
            opt(half_width(&r, "per_filter.last2")),
            opt(half_width(&r, "depth.per_filter")),
            opt(overhead_half_width(&r, "sud.allow")),
            targets_met(&r)
        );
        last = Some(r);
    }
    Ok(last)
}

/// The harness's own cost (from `last`, the last precision run) and syscost's `native`
/// against `perf bench syscall basic`.
fn harness(out: &mut String, last: Option<&RunRecord>) -> Result<(), Error> {
    let _ = writeln!(out, "\n### Harness overhead and `perf bench syscall`\n");
    if let Some(r) = last {
        let m = |id| r.result(id).and_then(|x| x.median_ns);
        match (m("null"), m("native")) {
            (Some(null), Some(native)) => {
                let _ = writeln!(
                    out,
                    "The timed loop without the syscall (`null`) costs {null:.3} ns per \
                     iteration, {:.2} % of `native` getpid ({native:.1} ns).\n",
                    null / native * 100.0
                );
            }
            _ => {
                let _ = writeln!(
                    out,
                    "The timed loop without the syscall (`null`) and `native` were not both \
                     measured in the last precision run (a larger budget gives them rounds).\n"
                );
            }
        }
    }
    let (pr, _) = run_json(&[
        "--budget".into(),
        "5".into(),
        "--syscall".into(),
        "getppid".into(),
        "--only".into(),
        "native".into(),
    ])?;
    let ours = pr.result("native").and_then(|x| x.median_ns);
    match perf_basic() {
        Some(perf_ns) => {
            let _ = writeln!(
                out,
                "getppid: syscost `native` {} ns (95% CI {} – {}) vs `perf bench syscall basic` \
                 {perf_ns:.1} ns per call (one run of 10,000,000 calls through the libc wrapper).",
                opt(ours),
                opt(pr.result("native").and_then(|x| x.ci_low_ns)),
                opt(pr.result("native").and_then(|x| x.ci_high_ns)),
            );
        }
        None => {
            let _ = writeln!(
                out,
                "getppid: syscost `native` {} ns; `perf` is not installed, so there is no \
                 `perf bench syscall basic` figure to compare with.",
                opt(ours)
            );
        }
    }
    Ok(())
}

/// ns per call from `perf bench syscall basic`, if perf is installed and works.
fn perf_basic() -> Option<f64> {
    let out = Command::new("perf")
        .args(["bench", "syscall", "basic"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().find_map(|l| {
        let l = l.trim();
        let v = l.strip_suffix("usecs/op")?.trim();
        v.parse::<f64>().ok().map(|us| us * 1000.0)
    })
}
