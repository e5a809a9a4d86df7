//! `syscost lab` and `syscost lab-matrix` end to end: real kernels booted in QEMU (TCG).
//! They need QEMU and the lab cache (scripts/test-tools, scripts/lab-kernels x86_64:5.10
//! aarch64:6.12; and the static debug builds the guests run, `cargo build -p syscost --target
//! x86_64-unknown-linux-musl --target aarch64-unknown-linux-musl`), so they are ignored
//! by default; CI runs them. The cache is found as `syscost lab` finds it.

use crate::common::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};
use syscost_record::{Accelerator, KernelExpectation, RunRecord, Status, Verdict, VIRT_QEMU_TCG};

const NEEDS: &str = "needs qemu-system-x86 (scripts/test-tools) and the 5.10 kernel \
                     (scripts/lab-kernels x86_64:5.10)";

/// A guest runs alone: an emulated kernel on a busy host fails its own boot-time checks, and a
/// TCG guest keeps a host CPU busy for minutes, which broke the timing tests beside it on a
/// 2-CPU machine (a measured result with too few samples for an interval, a hung worker's
/// sample cut by the budget instead).
fn one_guest() -> std::sync::RwLockWriteGuard<'static, ()> {
    alone()
}

fn cache() -> PathBuf {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("SYSCOST_LAB_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("syscost")))
        .or_else(|| var("HOME").map(|h| h.join(".cache/syscost")))
        .expect("HOME is set")
}

/// The cached kernel of `arch` whose release starts with `version.` (image, config).
fn kernel(arch: &str, version: &str) -> (PathBuf, PathBuf) {
    let dir = cache().join("kernels").join(arch);
    let found = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} ({NEEDS})", dir.display()))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .find(|r| r.starts_with(&format!("{version}.")))
        .unwrap_or_else(|| panic!("no {arch} {version} kernel in {} ({NEEDS})", dir.display()));
    let d = dir.join(&found);
    (
        d.join(format!("vmlinuz-{found}")),
        d.join(format!("config-{found}")),
    )
}

/// Processes whose command line mentions `needle` (a QEMU left behind would).
fn processes_mentioning(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Ok(cmd) = std::fs::read(format!("/proc/{pid}/cmdline")) {
            if String::from_utf8_lossy(&cmd).contains(needle) {
                out.push(pid);
            }
        }
    }
    out
}

/// A copy of the 5.10 image named as a kernel build leaves it (no config beside it), in a
/// directory whose path no other process names.
fn bzimage(tmp: &Path) -> (PathBuf, PathBuf) {
    let (image, config) = kernel("x86_64", "5.10");
    let path = tmp.join("arch/x86/boot/bzImage");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::copy(image, &path).unwrap();
    (path, config)
}

fn lab(args: &[&str]) -> std::process::Output {
    let mut all = vec!["lab"];
    all.extend_from_slice(args);
    Command::new(bin()).args(all).output().unwrap()
}

#[test]
#[ignore = "needs qemu-system-x86 (scripts/test-tools), the 5.10 kernel (scripts/lab-kernels x86_64:5.10) and the static build (cargo build -p syscost --target x86_64-unknown-linux-musl)"]
fn a_bzimage_given_by_path_is_measured_and_marked_emulated() {
    let _g = one_guest();
    let tmp = tempfile::tempdir().unwrap();
    let (image, config) = bzimage(tmp.path());
    let o = lab(&[
        "--kernel",
        image.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
        "--accel",
        "tcg",
        "--json",
        "--",
        // Setup may take half the budget: under TCG on a loaded host 3 s was once too little
        // for these workers to answer, and the skips then gave that reason instead.
        "--budget",
        "12",
        "--only",
        "sud.*,seccomp.user_notif.sync_wake,seccomp.errno",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    let r: RunRecord = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("no record ({e}), status {:?}:\n{err}", o.status));
    assert_eq!(o.status.code(), Some(0), "{err}");
    let c = &r.environment.comparability;
    assert!(
        c.kernel_release.starts_with("5.10."),
        "{}",
        c.kernel_release
    );
    assert_eq!(c.virtualization.kind, VIRT_QEMU_TCG);
    assert!(r.is_emulated());
    let l = r.environment.lab.as_ref().expect("lab facts");
    assert_eq!(l.accelerator, Accelerator::Tcg);
    assert_eq!((l.vcpus, l.machine.as_str()), (2, "pc"));
    assert!(l.qemu.starts_with("QEMU emulator version"), "{}", l.qemu);
    assert!(l.kernel_config_sha256.is_some() && l.boot_s.is_some());
    // The config reached the guest's probe at /boot/config-<release>.
    assert_eq!(
        c.kernel_config.get("CONFIG_SECCOMP").map(String::as_str),
        Some("y")
    );
    assert!(err.contains("TCG"), "{err}");
    // What the kernel cannot do is skipped with its version; what it can is measured.
    for id in ["sud.allow", "sud.block", "seccomp.user_notif.sync_wake"] {
        let x = result(&r, id);
        assert_eq!(x.status, Status::Skipped, "{id}: {:?}", x.reason);
    }
    for (id, why) in [
        ("sud.allow", "5.11, this is 5.10"),
        ("seccomp.user_notif.sync_wake", "6.6, this is 5.10"),
    ] {
        let reason = result(&r, id).reason.as_deref().unwrap_or_default();
        assert!(reason.contains(why), "{id}: {reason}");
    }
    assert_eq!(result(&r, "seccomp.errno").status, Status::Measured);
    // The record came back whole: its id is its content, and it keeps the record's rules.
    assert_eq!(syscost_record::with_id(r.clone()).id, r.id);
    assert!(
        syscost_record::validate(&r).is_empty(),
        "{:?}",
        syscost_record::validate(&r)
    );
}

/// Runs `syscost lab` expected to fail: (exit code, stderr, seconds), and checks that no QEMU
/// it started is left.
fn failing_lab(tmp: &Path, extra: &[&str], limit: Duration) -> (Option<i32>, String, f64) {
    let (image, _) = bzimage(tmp);
    let mut args = vec!["--kernel", image.to_str().unwrap(), "--accel", "tcg"];
    args.extend_from_slice(extra);
    args.extend(["--", "--budget", "2", "--only", "native"]);
    let t0 = Instant::now();
    let o = lab(&args);
    let took = t0.elapsed();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(took < limit, "took {took:?}:\n{err}");
    let left = processes_mentioning(&tmp.to_string_lossy());
    assert!(left.is_empty(), "left running: {left:?}\n{err}");
    (o.status.code(), err, took.as_secs_f64())
}

#[test]
#[ignore = "needs qemu-system-x86 (scripts/test-tools), the 5.10 kernel (scripts/lab-kernels x86_64:5.10) and the static build (cargo build -p syscost --target x86_64-unknown-linux-musl)"]
fn a_kernel_that_panics_is_reported_with_its_console() {
    let _g = one_guest();
    let tmp = tempfile::tempdir().unwrap();
    // No init: the kernel panics once it has nothing to run.
    let (code, err, _) = failing_lab(
        tmp.path(),
        &["--append", "rdinit=/no-such-init"],
        Duration::from_secs(300),
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("the kernel panicked"), "{err}");
    assert!(err.contains("Kernel panic - not syncing"), "{err}");
    assert!(!err.contains("record written"), "{err}");
}

#[test]
#[ignore = "needs qemu-system-x86 (scripts/test-tools), the 5.10 kernel (scripts/lab-kernels x86_64:5.10) and the static build (cargo build -p syscost --target x86_64-unknown-linux-musl)"]
fn a_kernel_that_does_not_reach_init_in_time_is_stopped() {
    let _g = one_guest();
    let tmp = tempfile::tempdir().unwrap();
    // Under TCG the kernel needs ~10 s to start init: 3 s is a hang to the lab.
    let (code, err, took) = failing_lab(
        tmp.path(),
        &["--boot-timeout", "3"],
        Duration::from_secs(60),
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("did not start init") || err.contains("printed nothing"),
        "{err}"
    );
    assert!(err.contains("QEMU was stopped"), "{err}");
    assert!(took >= 3.0, "{took}");
}

#[test]
#[ignore = "needs qemu-system-x86 and -arm (scripts/test-tools), the kernels (scripts/lab-kernels x86_64:5.10 aarch64:6.12) and the static builds (cargo build -p syscost --target x86_64-unknown-linux-musl --target aarch64-unknown-linux-musl)"]
fn the_matrix_of_5_10_x86_64_and_6_12_arm64_has_no_findings() {
    let _g = one_guest();
    let tmp = tempfile::tempdir().unwrap();
    let md = tmp.path().join("matrix.md");
    let o = Command::new(bin())
        .args([
            "lab-matrix",
            "--accel",
            "tcg",
            "--kernels",
            "x86_64:5.10,aarch64:6.12",
            "--budget",
            CI_BUDGET,
            "--markdown",
            md.to_str().unwrap(),
            "--",
        ])
        .args(CI_RUN_ARGS)
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{table}\n{err}");
    assert_eq!(std::fs::read_to_string(&md).unwrap(), table);
    let row = |id: &str| {
        table
            .lines()
            .find(|l| l.starts_with(&format!("| `{id}` |")))
            .unwrap_or_else(|| panic!("no row {id}:\n{table}"))
            .to_string()
    };
    assert_eq!(
        row("sud.block"),
        "| `sud.block` | skip: < 5.11 | skip: no GENERIC_ENTRY |"
    );
    assert_eq!(
        row("seccomp.user_notif.sync_wake"),
        "| `seccomp.user_notif.sync_wake` | skip: < 6.6 | measured |"
    );
    assert_eq!(row("bpf.fentry"), "| `bpf.fentry` | measured | measured |");
    assert_eq!(row("bpf.kprobe"), "| `bpf.kprobe` | measured | measured |");
}

/// What CI's matrix runs: a budget the two guests fit in, and the attach costs left out (their
/// setups — thousands of stacked filters — and one attach per sample need several times the
/// budget under TCG; the full matrix, scripts/lab-matrix, runs them).
pub const CI_BUDGET: &str = "40";
pub const CI_RUN_ARGS: &[&str] = &["--skip", "attach.*"];

/// One boot of `image` counting instructions, `syscost run RUN_ARGS` inside: its record, the
/// boot required to succeed.
fn counting(image: &Path, run_args: &[&str]) -> RunRecord {
    let mut args = vec![
        "--kernel",
        image.to_str().unwrap(),
        "--count",
        "instructions",
        "--json",
        "--",
    ];
    args.extend_from_slice(run_args);
    let o = lab(&args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    let r: RunRecord = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("no record ({e}), status {:?}:\n{err}", o.status));
    assert_eq!(o.status.code(), Some(0), "{err}");
    r
}

/// A kernel booted twice with a clock that counts instructions gives the same median, to half
/// an instruction, for every scenario, overhead and estimate: the guest's randomness and clock
/// are seeded, and on its one vCPU nothing depends on another CPU (the cross-CPU round trips
/// skip, naming their one-CPU twins). The numbers are instructions, labelled so.
#[test]
#[ignore = "needs qemu-system-x86 (scripts/test-tools), the 5.10 kernel (scripts/lab-kernels x86_64:5.10) and the static build (cargo build -p syscost --target x86_64-unknown-linux-musl)"]
fn two_boots_counting_instructions_give_the_same_medians() {
    let _g = one_guest();
    let (image, _) = kernel("x86_64", "5.10");
    let run_args: Vec<&str> = ["--budget", CI_BUDGET]
        .into_iter()
        .chain(CI_RUN_ARGS.iter().copied())
        .collect();
    let boot = || counting(&image, &run_args);
    let (a, b) = (boot(), boot());
    for r in [&a, &b] {
        assert!(r.counts_instructions() && r.is_emulated());
        let l = r.environment.lab.as_ref().expect("lab facts");
        assert_eq!(
            (l.vcpus, l.icount.as_deref()),
            (1, Some("shift=0,sleep=off"))
        );
        let e = r
            .environment
            .comparability
            .emulator
            .as_ref()
            .expect("emulator");
        assert_eq!((e.name.as_str(), e.cpu_model.as_str()), ("QEMU", "max"));
        assert!(
            syscost_record::validate(r).is_empty(),
            "{:?}",
            syscost_record::validate(r)
        );
        for id in ["seccomp.user_notif", "ptrace.syscall"] {
            let reason = result(r, id).reason.as_deref().unwrap_or_default();
            assert!(reason.starts_with("needs a second CPU"), "{id}: {reason}");
        }
    }
    let mut compared = 0;
    let mut differ = Vec::new();
    let mut same = |what: String, x: Option<f64>, y: Option<f64>| {
        compared += 1;
        match (x, y) {
            (Some(x), Some(y)) if (x - y).abs() <= 0.5 => {}
            (None, None) => {}
            _ => differ.push(format!("{what}: {x:?} and {y:?}")),
        }
    };
    for x in &a.results {
        let y = result(&b, &x.id);
        assert_eq!(
            x.status, y.status,
            "{}: {:?} / {:?}",
            x.id, x.reason, y.reason
        );
        same(format!("{} median", x.id), x.median_ns, y.median_ns);
        same(
            format!("{} overhead", x.id),
            x.overhead.as_ref().map(|o| o.median_ns),
            y.overhead.as_ref().map(|o| o.median_ns),
        );
    }
    for x in &a.estimates {
        let y = b.estimate(&x.id).expect("the same estimates");
        same(
            format!("estimate {}", x.id),
            Some(x.median_ns),
            Some(y.median_ns),
        );
    }
    assert!(
        differ.is_empty(),
        "{} of {compared} differ:\n{}",
        differ.len(),
        differ.join("\n")
    );
    // The paths themselves, in instructions: 5.10 has no seccomp action cache, so a second
    // constant filter costs a filter run more than one; getpid is a few hundred.
    let native = result(&a, "native").median_ns.unwrap();
    assert!((100.0..2000.0).contains(&native), "{native}");
    let overhead = |id: &str| result(&a, id).overhead.as_ref().unwrap().median_ns;
    assert!(
        overhead("seccomp.bitmap.2") > overhead("seccomp.bitmap.1") + 10.0,
        "{} vs {}",
        overhead("seccomp.bitmap.2"),
        overhead("seccomp.bitmap.1")
    );
}

/// Under the instruction-counting clock an attach cycle that waits for grace periods idles the
/// CPU, and the clock counts the idle time: such cycles are not reported as instructions. A
/// tracepoint's detach waits on 5.10; a raw tracepoint's does not, and is counted.
#[test]
#[ignore = "needs qemu-system-x86 (scripts/test-tools), the 5.10 kernel (scripts/lab-kernels x86_64:5.10) and the static build (cargo build -p syscost --target x86_64-unknown-linux-musl)"]
fn attach_cycles_that_wait_idle_are_no_instruction_counts() {
    let _g = one_guest();
    let (image, _) = kernel("x86_64", "5.10");
    let r = counting(&image, &["--budget", "10", "--only", "bpf.tp,bpf.rawtp"]);
    let tp = result(&r, "attach.bpf.tp");
    assert_eq!(tp.status, Status::Skipped, "{:?}", tp.median_ns);
    let why = tp.reason.as_deref().unwrap_or_default();
    assert!(why.starts_with("not an instruction count"), "{why}");
    let raw = result(&r, "attach.bpf.rawtp");
    assert_eq!(raw.status, Status::Measured, "{:?}", raw.reason);
    // Tens of thousands of instructions, where a wait would read as millions of nanoseconds.
    let n = raw.median_ns.unwrap_or_default();
    assert!((1_000.0..1_000_000.0).contains(&n), "{n}");
    assert_eq!(result(&r, "bpf.tp").status, Status::Measured);
}

/// One boot of a riscv64 or ppc64le kernel counting instructions, on a few scenarios whose code
/// differs per architecture: the inline syscall, seccomp's audit arch, SIGSYS registers (seccomp
/// TRAP, SUD), ptrace's, and a BPF attach through a perf event's ioctls.
fn counts_on(arch: &str, version: &str) -> RunRecord {
    let (image, _) = kernel(arch, version);
    let r = counting(
        &image,
        &[
            "--budget",
            "30",
            "--only",
            "native,seccomp.bitmap.*,seccomp.full.*,seccomp.trap,sud.*,ptrace.sysemu,bpf.tp,bpf.rawtp",
        ],
    );
    assert!(r.counts_instructions() && r.is_emulated());
    assert_eq!(r.environment.comparability.arch, arch);
    for x in &r.results {
        assert_ne!(x.status, Status::Failed, "{}: {:?}", x.id, x.reason);
    }
    for id in ["seccomp.bitmap.1", "seccomp.trap", "bpf.rawtp", "bpf.tp"] {
        assert_eq!(result(&r, id).status, Status::Measured, "{id}");
    }
    let native = result(&r, "native").median_ns.unwrap();
    assert!((100.0..5000.0).contains(&native), "{native}");
    // The action cache (Linux ≥ 5.11) serves the second constant filter: the kernel
    // benchmark's "1 bitmapped ≈ 2 bitmapped", judged on its interval, must not fail. A fixed
    // bound on the difference would not do: the timebase reads whole ticks (riscv64: one per
    // 100 instructions), and two builds of the collector read 165.4 and 176.8 on one kernel.
    let overhead = |id: &str| result(&r, id).overhead.as_ref().unwrap().median_ns;
    let (one, two) = (overhead("seccomp.bitmap.1"), overhead("seccomp.bitmap.2"));
    assert!(one > 10.0, "{one}");
    let cached = r
        .expectations
        .iter()
        .find(|e| e.id == KernelExpectation::Bitmap1ApproxBitmap2.id())
        .expect("the kernel's expectations");
    assert!(
        matches!(cached.verdict, Verdict::Pass | Verdict::Inconclusive),
        "{:?}: {one} vs {two}",
        cached.verdict
    );
    r
}

#[test]
#[ignore = "needs qemu-system-misc and gcc-riscv64-linux-gnu (scripts/test-tools), the riscv64 6.12 kernel (scripts/lab-kernels riscv64:6.12) and the static build (scripts/lab-guests dev)"]
fn a_riscv64_kernel_counts_instructions() {
    let _g = one_guest();
    let r = counts_on("riscv64", "6.12");
    // riscv64 has used the generic entry code since 6.1: SUD works; PTRACE_SYSEMU too.
    for id in ["sud.allow", "sud.block", "ptrace.sysemu"] {
        assert_eq!(result(&r, id).status, Status::Measured, "{id}");
    }
    let e = r.environment.comparability.emulator.as_ref().unwrap();
    assert_eq!(e.cpu_model, "rv64");
}

#[test]
#[ignore = "needs qemu-system-ppc and gcc-powerpc64le-linux-gnu (scripts/test-tools), the ppc64le 6.1 kernel (scripts/lab-kernels ppc64le:6.1) and the static build (scripts/lab-guests dev)"]
fn a_ppc64le_kernel_counts_instructions() {
    let _g = one_guest();
    let r = counts_on("ppc64le", "6.1");
    // ppc64 6.1 has no generic entry code, so no SUD; its PTRACE_SYSEMU has its own number.
    for id in ["sud.allow", "sud.block"] {
        let reason = result(&r, id).reason.as_deref().unwrap_or_default();
        assert!(reason.contains("CONFIG_GENERIC_ENTRY"), "{id}: {reason}");
    }
    assert_eq!(result(&r, "ptrace.sysemu").status, Status::Measured);
    let e = r.environment.comparability.emulator.as_ref().unwrap();
    assert_eq!(e.cpu_model, "POWER9");
}

/// ppc64 uses the generic entry code from 7.0: SUD works there. Its SIGSYS handler returns
/// through its own rt_sigreturn, which must find the signal frame where the kernel's trampoline
/// would (7.2 read it 128 bytes low and looped on SIGSEGV until the budget ran out).
#[test]
#[ignore = "needs qemu-system-ppc and gcc-powerpc64le-linux-gnu (scripts/test-tools), the ppc64le 7.2 kernel (scripts/lab-kernels ppc64le:7.2) and the static build (scripts/lab-guests dev)"]
fn a_ppc64le_generic_entry_kernel_dispatches_syscalls() {
    let _g = one_guest();
    let (image, _) = kernel("ppc64le", "7.2");
    let r = counting(&image, &["--budget", "20", "--only", "native,sud.*"]);
    for id in ["sud.allow", "sud.block"] {
        let x = result(&r, id);
        assert_eq!(x.status, Status::Measured, "{id}: {:?}", x.reason);
    }
    // A SIGSYS round trip is a signal delivery and return, far longer than the filter check.
    let overhead = |id: &str| result(&r, id).overhead.as_ref().unwrap().median_ns;
    assert!(
        overhead("sud.block") > 4.0 * overhead("sud.allow"),
        "{} vs {}",
        overhead("sud.block"),
        overhead("sud.allow")
    );
}
