//! End-to-end tests of `syscost run` / `syscost list`: real scenarios, small budgets, assertions
//! on ratios and on the record — never on absolute times.

use crate::common;

use common::*;
use std::os::unix::fs::OpenOptionsExt;
use std::process::{Command, Stdio};
use syscost::engine::driver::MIN_ROUNDS;
use syscost_record::{validate, Status, StopReason, Verdict};
use syscost_testkit::sys;

const CORE: &str = "null,native,native.personality,seccomp.bitmap.*,seccomp.full.*,seccomp.depth.*,seccomp.profile.*,sud.*";

/// The core suite, with a budget that bought every comparison group its warm-up rounds (those
/// its intervals are made from): 6 s, doubled while the record says a group had fewer. A
/// loaded machine gives fewer rounds a second — at a load of 13, 6 s once gave the kernel's
/// group 7 and the SUD groups 1, and 12 s every group 10 or more. Every run, whatever rounds it
/// got, is valid and keeps its budget.
fn core_suite_with_warm_groups() -> (syscost_record::RunRecord, f64) {
    let mut budget = 6.0_f64;
    loop {
        let (r, out) = run_json(&["--budget", &budget.to_string(), "--only", CORE]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(validate(&r).is_empty(), "{:?}", validate(&r));
        assert_budget_kept(&r, budget);
        let cold: Vec<(&str, u64)> = r
            .summary
            .groups
            .iter()
            .filter(|g| g.rounds < MIN_ROUNDS as u64)
            .map(|g| (g.id.as_str(), g.rounds))
            .collect();
        if cold.is_empty() {
            return (r, budget);
        }
        eprintln!("{budget} s left groups short of their warm-up rounds: {cold:?}");
        assert!(
            budget < 24.0,
            "{budget} s left groups short of their {MIN_ROUNDS} warm-up rounds: {cold:?}; \
             1-minute load {:?} — too busy a machine to test intervals",
            r.environment.incidental.loadavg_end
        );
        budget *= 2.0;
    }
}

#[test]
fn core_suite_measures_every_scenario_with_intervals() {
    let _m = measuring();
    let (r, budget) = core_suite_with_warm_groups();
    for id in [
        "null",
        "native",
        "seccomp.bitmap.1",
        "seccomp.bitmap.2",
        "seccomp.full.3",
        "seccomp.full.4",
        "seccomp.depth.1",
        "seccomp.depth.32",
        "seccomp.profile.cached",
        "seccomp.profile.argcheck",
        "sud.allow",
        "sud.block",
    ] {
        assert_measured(&r, id);
    }
    // The harness loop is a small fraction of a syscall; the deepest stack costs the most.
    // Tests run the debug build, whose loop is unoptimised: null 7.5-8.4 ns against native
    // 94-99 ns here (11 runs, 8 of them two at a time), 11-13x, where the release build's
    // loop is under 1 ns. A factor of 10 failed twice: in a CI run, and in 1 of 6 runs of the
    // whole test binary here.
    let m = |id| result(&r, id).median_ns.unwrap();
    let (null, native) = (result(&r, "null"), result(&r, "native"));
    assert!(
        m("null") * 5.0 < m("native"),
        "the harness loop is not a small fraction of a syscall:\n{null:?}\n{native:?}\nload {:?} / {:?}",
        r.environment.incidental.loadavg_start,
        r.environment.incidental.loadavg_end
    );
    assert!(m("seccomp.depth.32") > m("seccomp.depth.1"));
    assert!(m("sud.block") > 3.0 * m("sud.allow"));
    // Paired overheads carry their baseline and CI.
    let argcheck = result(&r, "seccomp.profile.argcheck")
        .overhead
        .as_ref()
        .unwrap();
    assert_eq!(argcheck.vs, "native.personality");
    let full4 = result(&r, "seccomp.full.4").overhead.as_ref().unwrap();
    assert_eq!(full4.vs, "native");
    assert!(
        full4.ci_low_ns.unwrap() > 0.0,
        "4 filters cost nothing? {full4:?}"
    );
    // SUD BLOCK really trapped every call; ALLOW trapped none.
    let v = result(&r, "sud.block").verification.as_ref().unwrap();
    assert!(v.expected > 0 && v.observed == v.expected, "{v:?}");
    let v = result(&r, "sud.allow").verification.as_ref().unwrap();
    assert_eq!((v.expected, v.observed), (0, 0));
    // The kernel's estimates and its seven expectations, in its order.
    for id in [
        "total.bitmap.1",
        "entry",
        "per_filter.last2",
        "per_filter.div4",
        "depth.per_filter",
        "depth.entry",
    ] {
        assert!(r.estimate(id).is_some(), "estimate {id} missing");
    }
    let slope = r.estimate("depth.per_filter").unwrap();
    assert!(slope.median_ns > 0.0 && slope.ci_low_ns.unwrap() > 0.0);
    let ids: Vec<&str> = r.expectations.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "native_le_bitmap1",
            "native_le_filter1",
            "per_filter_approx",
            "bitmap1_approx_bitmap2",
            "entry_approx_bitmap1",
            "entry_approx_bitmap2",
            "total_approx_full4"
        ]
    );
    // Every reported difference has a target, measured by a group that holds its inputs.
    let groups = &r.summary.groups;
    assert!(groups.iter().any(|g| g.id == "kernel"), "{groups:?}");
    for id in ["entry", "per_filter.last2", "depth.per_filter"] {
        let t = r.summary.targets.iter().find(|t| t.id == id).unwrap();
        assert!(t.half_width_ns.is_some() && t.target_ns >= 0.5, "{t:?}");
    }
    let sud = r
        .summary
        .targets
        .iter()
        .find(|t| t.id == "sud.allow")
        .unwrap();
    let g = groups.iter().find(|g| g.id == sud.group).unwrap();
    assert_eq!(g.members, ["native", "sud.allow"]);
    // Rounds of all groups add up (their time, to no more than the run: assert_budget_kept).
    let sum: u64 = groups.iter().map(|g| g.rounds).sum();
    assert_eq!(sum, r.summary.rounds);
    // Environment and settings are recorded.
    let env = &r.environment.comparability;
    assert_eq!(env.arch, std::env::consts::ARCH);
    assert!(
        !env.mitigations.is_empty()
            || !std::path::Path::new("/sys/devices/system/cpu/vulnerabilities").exists()
    );
    assert_eq!(r.settings.syscall, "getpid");
    assert_eq!(r.settings.budget_s, Some(budget));
}

#[test]
fn bitmap_expectations_do_not_fail_on_noise() {
    let _m = measuring();
    // The kernel tool's bitmap comparisons fail from drift alone on VMs; ours must say pass or
    // inconclusive when the cache works.
    for _ in 0..2 {
        let (r, _) = run_json(&[
            "--budget",
            "4",
            "--only",
            "native,seccomp.bitmap.*,seccomp.full.*",
        ]);
        for id in [
            "bitmap1_approx_bitmap2",
            "entry_approx_bitmap1",
            "native_le_bitmap1",
        ] {
            let e = r.expectations.iter().find(|e| e.id == id).unwrap();
            assert_ne!(e.verdict, Verdict::Fail, "{e:?}");
        }
    }
}

#[test]
fn tiny_budgets_are_respected_and_loose_targets_stop_early() {
    let _m = measuring();
    for budget in ["0.5", "1.5"] {
        let b: f64 = budget.parse().unwrap();
        let out = syscost(&["run", "--json", "--budget", budget, "--only", CORE]);
        let err = String::from_utf8_lossy(&out.stderr);
        // Setting up and calibrating 21 scenarios may take all of a tiny budget on a loaded
        // machine (all of 1.5 s in one of six runs at a load of 12): then no round completes,
        // and that is a usage error, not an empty record.
        if out.status.code() == Some(2) {
            assert!(err.contains("spent before the first round"), "{err}");
            assert!(out.stdout.is_empty());
            continue;
        }
        let r: syscost_record::RunRecord = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("no record ({e}): {err}"));
        assert_budget_kept(&r, b);
        // The budget stopped it — unless every target was met first, which a quiet machine
        // can do within 1.5 s (3 of 32 runs here; one: 599 rounds, sud.allow's overhead ±0.94 ns
        // for a target of ±0.95).
        match r.summary.stop_reason {
            StopReason::Budget => {}
            StopReason::Target => assert!(
                r.summary.target_reached && r.summary.targets.iter().all(|t| t.met),
                "stopped for its targets, but not all were met: {:?}",
                r.summary.targets
            ),
            other => panic!("stopped for {other:?} within a budget of {budget} s"),
        }
        // Whatever was measured says how precise it is; nothing claims a CI it does not have.
        assert!(validate(&r).is_empty(), "{:?}", validate(&r));
    }
    let budget = 30.0;
    let (r, _) = run_json(&[
        "--budget",
        &budget.to_string(),
        "--target-ci",
        "25",
        "--only",
        "native,sud.allow",
    ]);
    assert_eq!(r.summary.stop_reason, StopReason::Target);
    assert!(r.summary.target_reached);
    // The target is on what is reported: sud.allow's overhead, within 25 % of native. The
    // record keeps a median and its interval to two significant digits of the half-width (the
    // targets as judged): its figures differ from the judged ones by less than a tenth of
    // their half-width — which a loaded machine makes wide.
    let t = &r.summary.targets;
    assert_eq!(t.len(), 1, "{t:?}");
    assert_eq!((t[0].id.as_str(), t[0].met), ("sud.allow", true));
    assert!(t[0].half_width_ns.unwrap() <= t[0].target_ns, "{t:?}");
    let half = |lo: Option<f64>, hi: Option<f64>| (hi.unwrap() - lo.unwrap()) / 2.0;
    let x = result(&r, "native");
    let (native, native_half) = (x.median_ns.unwrap(), half(x.ci_low_ns, x.ci_high_ns));
    // The asked width is rounded too, to the grid of two significant digits of the smaller of
    // the two widths (`precision`): half a step of that grid is its rounding.
    let digits = |w: f64| w.log10().floor() - 1.0;
    let grid = 10f64.powf(digits(t[0].half_width_ns.unwrap()).min(digits(t[0].target_ns)));
    assert!(
        t[0].target_ns + grid / 2.0 >= 0.25 * (native - native_half / 10.0),
        "{t:?}, native {native} ± {native_half}"
    );
    let o = result(&r, "sud.allow").overhead.clone().unwrap();
    let o_half = half(o.ci_low_ns, o.ci_high_ns);
    assert!(
        (o_half - t[0].half_width_ns.unwrap()).abs() <= o_half / 10.0,
        "{t:?}, overhead ± {o_half}"
    );
    // Early: well before the budget (0.5 s of its 30 at a load of 11).
    assert!(
        r.summary.duration_s.unwrap() < budget / 2.0,
        "took {:?} s of {budget}",
        r.summary.duration_s
    );
}

#[test]
fn bad_arguments_are_usage_errors() {
    let cases: &[(&[&str], &str)] = &[
        (&["run", "--budget", "0"], "--budget must be a positive"),
        (&["run", "--budget", "-3"], "--budget must be a positive"),
        (&["run", "--budget", "NaN"], "--budget must be a positive"),
        (
            &["run", "--target-ci", "0"],
            "--target-ci must be a positive",
        ),
        (
            &["run", "--only", "seccomp.nope"],
            "'seccomp.nope' matches no scenario",
        ),
        (&["run", "--skip", "bogus*"], "'bogus*' matches no scenario"),
        (
            &["run", "--syscall", "frobnicate"],
            "invalid value 'frobnicate' for '--syscall",
        ),
        (&["run", "--cpu", "4096"], "--cpu 4096 is not available"),
        (&["list", "--only", "zzz"], "'zzz' matches no scenario"),
        // Issue 17: these measured nothing and exited 0, or measured everything.
        (
            &["run", "--budget", "1e-9"],
            "too short to measure anything",
        ),
        (&["run", "--only", ""], "--only has an empty pattern"),
        (&["run", "--only", "native,"], "--only has an empty pattern"),
        (&["run", "--skip", ""], "--skip has an empty pattern"),
        (&["list", "--only", ""], "--only has an empty pattern"),
        // Issue 42: accepted, measured and saved, then refused by `syscost-site check`.
        (
            &["run", "--target-ci", "100.5"],
            "--target-ci: 100.5 % is out of range: must be above 0 % and at most 100 %",
        ),
        (
            &["run", "--target-ci", "1e9"],
            "--target-ci: 1000000000 % is out of range",
        ),
        (
            &["run", "--method", "sequential", "--budget", "86401"],
            "--budget 86401 s is more than a day",
        ),
        // A guest's run is checked before its kernel is booted.
        (
            &[
                "lab",
                "--kernel",
                "/nonexistent",
                "--",
                "--target-ci",
                "200",
            ],
            "--target-ci: 200 % is out of range",
        ),
    ];
    for (args, msg) in cases {
        let out = syscost(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?} printed to stdout");
    }
}

#[test]
fn output_file_and_save_dir_hold_the_same_canonical_record() {
    let _m = measuring();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.json");
    let data = dir.path().join("data");
    let out = syscost(&[
        "run",
        "--budget",
        "1",
        "--only",
        "native",
        "-o",
        file.to_str().unwrap(),
        "--save",
        data.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The table went to stdout, the record to the files.
    assert!(String::from_utf8_lossy(&out.stdout).contains("native"));
    let text = std::fs::read_to_string(&file).unwrap();
    let r: syscost_record::RunRecord = serde_json::from_str(&text).unwrap();
    assert_eq!(r.id, syscost_record::content_id(&r));
    let saved = data.join(r.canonical_path());
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), text);
    let parts: Vec<_> = r.canonical_path().split('/').map(String::from).collect();
    assert_eq!(parts[0], "runs");
    assert_eq!(parts[1], std::env::consts::ARCH);
    // Nothing else was left behind (no temp files).
    let n = walk_files(&data);
    assert_eq!(n, 1);
}

fn walk_files(p: &std::path::Path) -> usize {
    std::fs::read_dir(p)
        .unwrap()
        .flatten()
        .map(|e| {
            if e.file_type().unwrap().is_dir() {
                walk_files(&e.path())
            } else {
                1
            }
        })
        .sum()
}

/// A kernel without seccomp or SUD, simulated faithfully: the collector runs under a seccomp
/// filter that makes `seccomp()` fail with ENOSYS and the SUD prctl with EINVAL — exactly what
/// such kernels return.
#[test]
fn missing_kernel_features_are_skipped_with_reasons() {
    let _m = measuring();
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule,
    };
    let arch = std::env::consts::ARCH.try_into().unwrap();
    let nosys = SeccompFilter::new(
        [(libc::SYS_seccomp, vec![])].into_iter().collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::ENOSYS as u32),
        arch,
    )
    .unwrap();
    let no_sud = SeccompFilter::new(
        [(
            libc::SYS_prctl,
            vec![SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Dword,
                SeccompCmpOp::Eq,
                59,
            )
            .unwrap()])
            .unwrap()],
        )]
        .into_iter()
        .collect(),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EINVAL as u32),
        arch,
    )
    .unwrap();
    let p1: BpfProgram = no_sud.try_into().unwrap();
    let p2: BpfProgram = nosys.try_into().unwrap();
    let mut cmd = Command::new(bin());
    cmd.args(["run", "--json", "--budget", "2", "--only", CORE]);
    sys::apply_filters_before_exec(&mut cmd, vec![p1, p2]);
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: syscost_record::RunRecord = serde_json::from_slice(&out.stdout).unwrap();
    assert_measured(&r, "native");
    for x in &r.results {
        if x.family == "seccomp" {
            assert_eq!(x.status, Status::Skipped, "{}", x.id);
            assert!(x.reason.as_deref().unwrap().contains("seccomp"), "{x:?}");
        }
        if x.family == "sud" {
            assert_eq!(x.status, Status::Skipped, "{}", x.id);
            assert!(
                x.reason
                    .as_deref()
                    .unwrap()
                    .contains("Syscall User Dispatch"),
                "{x:?}"
            );
        }
    }
    // No seccomp numbers means no estimates or verdicts — not invented ones.
    assert!(r.estimates.is_empty());
    assert!(r.expectations.is_empty());
}

/// The scenarios of a run that is hurt: `sud.block` is the one hurt, and keeps the run in its
/// rounds until the budget. With `mix` (five trapped syscalls, ~5 µs an operation) its
/// overhead's CI stays wider than the 0.5 ns floor of a target for the whole budget (±2.6–3.6
/// ns after 4 s in four runs), where the other scenarios meet that target within a second on a
/// quiet machine — and a run that has stopped cannot be hurt.
const HURT: &str = "native,seccomp.bitmap.1,sud.allow,sud.block";

/// The worker hurt: named after its scenario (`/proc/PID/comm`).
const VICTIM: &str = "sud.block";

/// Long enough that a worker hurt once sampling has begun is noticed well before the end (a
/// silence within the 2 s sample timeout of the deadline is the budget's doing, not a hang).
const HURT_BUDGET: f64 = 8.0;

fn comm(pid: u32) -> Option<String> {
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .ok()
        .map(|s| s.trim_end().to_string())
}

/// Runs a collector and applies `signal` to the `sud.block` worker once it samples. A run
/// renews its workers (instances): one hurt just before its instance ends is retired with it,
/// asked for nothing, and the next instance's worker is hurt in turn, until the run notices.
/// Returns the record and every worker hurt.
fn run_and_hurt_a_worker(only: &str, signal: libc::c_int) -> (syscost_record::RunRecord, Vec<u32>) {
    let mut child = Command::new(bin())
        // The smallest target (its 0.5 ns floor), which `only` must keep out of reach.
        .args([
            "run",
            "--json",
            "--budget",
            &HURT_BUDGET.to_string(),
            "--syscall",
            "mix",
            "--target-ci",
            "0.0001",
            "--only",
            only,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Read while it runs: a record larger than the pipe would otherwise block it.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stdout, &mut b).map(|_| b)
    });
    let err = std::thread::spawn(move || {
        let mut b = Vec::new();
        std::io::Read::read_to_end(&mut stderr, &mut b).map(|_| b)
    });
    let mut hurt: Vec<u32> = Vec::new();
    let status = loop {
        let mut fresh = None;
        let mut ended = None;
        assert!(
            wait_until(60.0, || {
                if let Ok(Some(s)) = child.try_wait() {
                    ended = Some(s);
                    return true;
                }
                fresh = children(pid).into_iter().find(|&w| {
                    !hurt.contains(&w)
                        && comm(w).as_deref() == Some(VICTIM)
                        && voluntary_switches(w) >= 8
                });
                fresh.is_some()
            }),
            "the run neither ended nor sampled {VICTIM}"
        );
        if let Some(s) = ended {
            break s;
        }
        let victim = fresh.expect("a worker to hurt");
        // A process we just found; it may have ended since.
        let _ = sys::kill(victim, signal);
        hurt.push(victim);
    };
    let stdout = out.join().unwrap().unwrap();
    let stderr = err.join().unwrap().unwrap();
    assert!(!hurt.is_empty(), "{VICTIM} never sampled");
    let r: syscost_record::RunRecord = serde_json::from_slice(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&stderr)));
    assert_eq!(
        status.code(),
        Some(1),
        "a failed scenario must make the exit code 1"
    );
    (r, hurt)
}

/// Exactly one scenario failed, and its reason says `why`.
fn the_one_failure(r: &syscost_record::RunRecord, why: &str) {
    let failed: Vec<_> = r
        .results
        .iter()
        .filter(|x| x.status == Status::Failed)
        .collect();
    assert_eq!(failed.len(), 1, "{:?}", r.results);
    let reason = failed[0].reason.as_deref().unwrap_or_default();
    assert!(reason.contains(why), "{:?}", failed[0]);
}

#[test]
fn a_killed_worker_is_recorded_and_the_run_continues() {
    let _m = measuring();
    let (r, hurt) = run_and_hurt_a_worker(HURT, libc::SIGKILL);
    the_one_failure(&r, "signal 9");
    assert!(hurt.iter().all(|&v| !alive(v)));
    for x in r.results.iter().filter(|x| x.status != Status::Failed) {
        assert_measured(&r, &x.id);
    }
}

#[test]
fn a_hung_worker_is_killed_and_recorded() {
    let _m = measuring();
    // SIGSTOP freezes the worker mid-run: to the parent it is a hang.
    let (r, hurt) = run_and_hurt_a_worker(HURT, libc::SIGSTOP);
    the_one_failure(&r, "hung");
    assert!(
        wait_until(5.0, || hurt.iter().all(|&v| !alive(v))),
        "hung worker left behind"
    );
    assert_budget_kept(&r, HURT_BUDGET);
}

#[test]
fn sigint_and_sigterm_stop_cleanly_without_output_or_orphans() {
    let _m = measuring();
    for sig in [libc::SIGINT, libc::SIGTERM] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("never.json");
        let child = Command::new(bin())
            .args([
                "run",
                "--budget",
                "20",
                "--syscall",
                "mix",
                "--target-ci",
                "0.0001",
                "--only",
                CORE,
                "-o",
            ])
            .arg(&file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        assert!(wait_until(60.0, || children(pid).len() >= 10));
        let workers = children(pid);
        assert!(
            wait_until_sampling(&workers, 10),
            "the run never reached its rounds"
        );
        // Our own child, not yet waited for.
        sys::kill(pid, sig).unwrap();
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(130), "signal {sig}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("interrupted") && err.contains("no record was written"),
            "{err}"
        );
        assert!(
            !file.exists(),
            "a record was written despite the interruption"
        );
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "temp file left"
        );
        // Gone when the command returns, not some time after.
        for w in workers {
            assert!(!alive(w), "worker {w} outlived the collector");
        }
    }
}

#[test]
fn list_tells_what_can_run_here() {
    let out = syscost(&["list", "--only", CORE]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for id in [
        "native",
        "seccomp.bitmap.1",
        "seccomp.profile.argcheck",
        "sud.block",
    ] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{id} ")))
            .unwrap();
        assert!(line.contains(" yes "), "{line}");
    }
}

#[test]
fn mix_probe_counts_five_syscalls_per_operation() {
    let _m = measuring();
    let (r, _) = run_json(&[
        "--budget",
        "3",
        "--syscall",
        "mix",
        "--only",
        "native,seccomp.depth.1,seccomp.depth.4,seccomp.depth.32",
    ]);
    assert_eq!(r.settings.syscall, "mix");
    assert_eq!(r.settings.syscalls_per_op, Some(5));
    assert_measured(&r, "native");
    let m = |id| result(&r, id).median_ns.unwrap();
    // Five syscalls per operation, each paying every filter: deeper is dearer.
    assert!(m("seccomp.depth.32") > m("seccomp.depth.4"));
    assert!(m("seccomp.depth.4") > m("native"));
}

#[test]
fn an_unwritable_destination_is_refused_before_measuring() {
    // Issue 17: `-o /nonexistent/x.json` measured for the whole budget, then lost the record.
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("file");
    std::fs::write(&file, b"").unwrap();
    let missing = tmp.path().join("no/such/dir/x.json");
    let under_a_file = file.join("data");
    // Issue 42: a 300-byte name was found only when the record was written, after the budget.
    let too_long = tmp.path().join(format!("{}.json", "x".repeat(295)));
    // A loop of links, and a link to a directory: nothing to write to, found before measuring.
    let looped = tmp.path().join("loop1");
    std::os::unix::fs::symlink("loop2", &looped).unwrap();
    std::os::unix::fs::symlink("loop1", tmp.path().join("loop2")).unwrap();
    let to_dir = tmp.path().join("to-dir");
    std::os::unix::fs::symlink(tmp.path(), &to_dir).unwrap();
    let cases: [(&[&str], &std::path::Path); 6] = [
        (&["-o"], &missing),
        (&["-o"], tmp.path()),
        (&["--save"], &under_a_file),
        (&["-o"], &too_long),
        (&["-o"], &looped),
        (&["-o"], &to_dir),
    ];
    for (flag, path) in cases {
        let start = std::time::Instant::now();
        let out = Command::new(bin())
            .args(["run", "--budget", "60", "--only", "native"])
            .args(flag)
            .arg(path)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{flag:?} {}: {err}",
            path.display()
        );
        assert!(err.contains("nothing was measured"), "{err}");
        assert!(err.contains(&path.display().to_string()), "{err}");
        // Refused at once, not after the 60 s budget.
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "{err}"
        );
    }
    // Nothing was made or replaced by the refusals.
    assert!(std::fs::symlink_metadata(&to_dir).unwrap().is_symlink());
    assert!(std::fs::symlink_metadata(&looped).unwrap().is_symlink());
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 4);
}

/// `syscost run --budget 1 --only native -o PATH`.
fn run_to(path: &std::path::Path) -> std::process::Output {
    Command::new(bin())
        .args(["run", "--budget", "1", "--only", "native", "-o"])
        .arg(path)
        .stdout(Stdio::null())
        .output()
        .unwrap()
}

/// Puts `/dev/null` back (a character device 1:3, mode 0666) if a run replaced it, so that a
/// regression fails this test without breaking the machine.
struct DevNullGuard;

fn is_dev_null(m: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    m.file_type().is_char_device() && m.rdev() == libc::makedev(1, 3)
}

impl Drop for DevNullGuard {
    fn drop(&mut self) {
        let ok = std::fs::symlink_metadata("/dev/null").is_ok_and(|m| is_dev_null(&m));
        if !ok {
            let _ = std::fs::remove_file("/dev/null");
            let _ = sys::make_null_device(std::path::Path::new("/dev/null"));
        }
    }
}

#[test]
fn output_goes_into_devices_and_fifos_and_through_links_replacing_only_files() {
    // Issue 42: `-o` left a regular file in place of a character device, a FIFO or a symbolic
    // link; as root, `-o /dev/null` turned the system's /dev/null into a file.
    use std::os::unix::fs::FileTypeExt;
    let _m = measuring();
    let tmp = tempfile::tempdir().unwrap();
    let record_in = |bytes: &[u8], what: &str| {
        let r: syscost_record::RunRecord = serde_json::from_slice(bytes)
            .unwrap_or_else(|e| panic!("{what}: no record ({e}): {:?}", bytes.len()));
        assert!(validate(&r).is_empty(), "{what}: {:?}", validate(&r));
    };

    // A link: the file it points to is replaced, in its own directory; the link stays.
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let target = elsewhere.join("r.json");
    std::fs::write(&target, b"old").unwrap();
    let link = tmp.path().join("link.json");
    std::os::unix::fs::symlink("elsewhere/r.json", &link).unwrap();
    let out = run_to(&link);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    record_in(&std::fs::read(&target).unwrap(), "the link's target");
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        1,
        "a temporary file left"
    );

    // A FIFO: written into, read by whoever holds its other end, and still a FIFO.
    let fifo = tmp.path().join("fifo");
    sys::mkfifo(&fifo, 0o600).unwrap();
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).unwrap())
    };
    let out = run_to(&fifo);
    // Whatever happened, the reader is let go: a writer that opens and closes ends its read.
    drop(
        std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo),
    );
    let read = reader.join().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    record_in(&read, "the FIFO");
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());

    // A character device: written into, never replaced. First one of this test's own (root
    // may make it), then the system's /dev/null, which a guard puts back should it be lost.
    if sys::is_root() {
        let null = tmp.path().join("null");
        sys::make_null_device(&null).unwrap();
        let out = run_to(&null);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(is_dev_null(&std::fs::symlink_metadata(&null).unwrap()));
    }
    let _guard = DevNullGuard;
    let out = run_to(std::path::Path::new("/dev/null"));
    let still = std::fs::symlink_metadata("/dev/null").is_ok_and(|m| is_dev_null(&m));
    assert!(still, "/dev/null is no longer the null device");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("record written to /dev/null"), "{err}");
}

/// The state letter of a process (`R`, `S`, `T`, `Z`, …), if it exists.
fn state(pid: u32) -> Option<char> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    s.rsplit_once(')')?.1.trim_start().chars().next()
}

/// Starts `syscost run -o <dir>/r.json` and removes `dir` while the run measures. The run is
/// stopped (SIGSTOP) while the directory goes, and only a run stopped before its record
/// exists counts: a quiet machine may meet the target and finish before the test sees its
/// workers, so such a try is started again. The ordering is checked, not hoped for.
fn run_losing_its_destination(
    dir: &std::path::Path,
    rescue: &std::path::Path,
) -> std::process::Output {
    for _ in 0..5 {
        std::fs::create_dir_all(dir).unwrap();
        let child = Command::new(bin())
            // The smallest target; a run that still ends before it is stopped is tried again.
            .args([
                "run",
                "--budget",
                "3",
                "--syscall",
                "mix",
                "--target-ci",
                "0.0001",
                "--only",
                "native",
                "-o",
            ])
            .arg(dir.join("r.json"))
            .env("TMPDIR", rescue)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        // Workers are forked after the destination is checked. Polled without a pause: a
        // run that stops early has workers for a few milliseconds only.
        let end = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while children(pid).is_empty() && alive(pid) && std::time::Instant::now() < end {
            std::thread::yield_now();
        }
        let seen = !children(pid).is_empty();
        // Our own child, which is not reaped before `wait_with_output`.
        sys::kill(pid, libc::SIGSTOP).unwrap();
        let stopped = wait_until(10.0, || matches!(state(pid), Some('T') | Some('Z') | None));
        let in_time = seen && stopped && state(pid) == Some('T') && !dir.join("r.json").exists();
        if in_time {
            // Any write from here on fails: the file or its rename has no directory.
            std::fs::remove_dir_all(dir).unwrap();
        }
        sys::kill(pid, libc::SIGCONT).unwrap();
        let out = child.wait_with_output().unwrap();
        if in_time {
            return out;
        }
        let _ = std::fs::remove_dir_all(dir);
        for e in std::fs::read_dir(rescue).unwrap().flatten() {
            std::fs::remove_file(e.path()).unwrap();
        }
    }
    panic!("five runs in a row ended before their destination could be removed");
}

#[test]
fn a_record_that_cannot_be_written_at_the_end_is_saved_elsewhere() {
    let _m = measuring();
    // The destination was writable when the run began and is gone when it ends.
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("out");
    let rescue = tmp.path().join("tmp");
    std::fs::create_dir_all(&rescue).unwrap();
    let out = run_losing_its_destination(&dir, &rescue);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write the record"), "{err}");
    let saved: Vec<_> = std::fs::read_dir(&rescue)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    assert!(
        err.contains(&format!("saved in {} instead", saved[0].display())),
        "{err}"
    );
    let r: syscost_record::RunRecord =
        serde_json::from_slice(&std::fs::read(&saved[0]).unwrap()).unwrap();
    assert!(validate(&r).is_empty(), "{:?}", validate(&r));
    assert_measured(&r, "native");

    // Standard output full, nowhere else asked for: the record goes to the same place.
    let rescue2 = tmp.path().join("tmp2");
    std::fs::create_dir_all(&rescue2).unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let out = Command::new(bin())
        .args(["run", "--json", "--budget", "2", "--only", "native"])
        .env("TMPDIR", &rescue2)
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot write to standard output"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(std::fs::read_dir(&rescue2).unwrap().count(), 1, "{err}");
}
