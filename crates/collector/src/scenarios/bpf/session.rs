//! One loaded program in a worker: the checks before loading, the load, a trial attach, and the
//! sample — attach, timed loop, detach, count — that both BPF scenario kinds build on.

use super::host;
use super::kind::{kernel_function, trampoline_targets, watched_syscall, Kind};
use super::object::{BpfError, Config, HitsError, Link, Loaded, Target};
use super::ufunc;
use crate::harness::{Batch, Probe, Syscall};
use crate::scenarios::{RunError, SetupError};
use crate::sys::affinity::{others, pin_to_cpu, pinned_cpu};

const EPERM: i32 = libc::EPERM;
const ENOTSUPP: i32 = 524;

/// What the fmod_ret program makes the worker's syscall return.
pub const FMODRET_RETURN: i64 = -(libc::EINVAL as i64);

/// The loop a sample times.
enum Driver {
    /// The shared probe loop, exactly as `native` runs it.
    Probe(Probe),
    /// The probe syscall, expected to return `expected` (fmod_ret rewrites it).
    Syscall {
        /// With its buffer for `sysinfo`'s argument (unused when fmod_ret skips the body).
        call: crate::sys::syscall::Call,
        expected: isize,
    },
    /// Calls of the probed user function.
    Ufunc,
}

impl Driver {
    fn run(&mut self, iters: u64) -> Batch {
        match self {
            Driver::Probe(p) => p.run(iters, false),
            Driver::Syscall { call, expected } => {
                ufunc::timed_syscall(call.issue(), *expected, iters)
            }
            Driver::Ufunc => ufunc::timed_calls(iters),
        }
    }
}

pub struct Session {
    loaded: Loaded,
    /// What [`Loaded::load`] was given, to load the program afresh when the kernel cannot
    /// re-attach it.
    load_args: (Kind, Config, Vec<String>),
    /// The program is loaded afresh for every sample: this kernel refuses to attach a
    /// trampoline program a second time (Linux < 5.13 lets a TRACING program attach once).
    pub reload_each: bool,
    target: Target,
    driver: Driver,
    /// The link of a program that stays attached (uprobes; see the module comment).
    kept: Option<Link>,
    /// Attach + detach time of the last sample, ns (outside its timed region).
    pub untimed_ns: Option<u64>,
    /// How long the last detach took, ns: the time the next sample should wait before it
    /// attaches again (it would otherwise wait for that detach).
    pub settle_ns: Option<u64>,
    /// The thread that detaches, started at the first sample (kept programs need none).
    detacher: Option<Detacher>,
    /// A detach handed to the detacher and not yet collected.
    detaching: bool,
    /// Where the detacher runs: a CPU of the run other than the measurement's, when there is
    /// one.
    detach_cpu: Option<u32>,
}

/// Why a sample could not be taken: the scenario ends with this reason.
#[derive(Debug, thiserror::Error)]
pub enum SampleError {
    #[error("attaching the BPF program failed: {}", .0.with_log())]
    Attach(BpfError),
    #[error("loading the BPF program afresh (this kernel cannot re-attach it) failed: {}", .0.with_log())]
    Reload(BpfError),
    #[error(transparent)]
    Hits(#[from] HitsError),
    #[error("the program still ran for the worker's calls {0} ms after it was detached")]
    StillAttached(u64),
}

impl From<SampleError> for RunError {
    fn from(e: SampleError) -> RunError {
        RunError::failed(e)
    }
}

/// A link moved to the detaching thread: dropping it only closes descriptors, which any thread
/// may do.
struct SendLink(Link);

/// A thread of the worker that detaches its links: the unregister takes effect at once, and
/// the wait for RCU grace periods that follows (~70 ms for a tracepoint) then no longer stalls
/// the run. It runs on another CPU of the run when there is one, at real-time priority when the
/// process may (it is root or has CAP_BPF, so usually it may): handed a link, it runs at once
/// instead of waiting for its turn behind whatever else that CPU runs.
struct Detacher {
    links: std::sync::mpsc::Sender<SendLink>,
    /// How long each detach took, ns.
    done: std::sync::mpsc::Receiver<u64>,
}

impl Detacher {
    fn start(cpu: Option<u32>) -> Detacher {
        let (links, inbox) = std::sync::mpsc::channel::<SendLink>();
        let (outbox, done) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            if let Some(cpu) = cpu {
                let _ = pin_to_cpu(cpu);
            }
            crate::sys::affinity::realtime_priority();
            for link in inbox {
                let t0 = crate::harness::clock::now_ns();
                drop(link.0);
                if outbox
                    .send(crate::harness::clock::now_ns().saturating_sub(t0))
                    .is_err()
                {
                    break;
                }
            }
        });
        Detacher { links, done }
    }
}

/// How long a detached program may go on running for the worker's calls before the sample
/// fails: the unregister is the first thing a detach does.
const UNREGISTER_TIMEOUT_NS: u64 = 2_000_000_000;

fn unsupported(s: String) -> SetupError {
    SetupError::Unsupported(s)
}

/// Checks that need no loading: privileges, kernel version, the kernel features the attach
/// type rests on. Mounts tracefs privately for tracepoints when it is missing.
fn preflight(kind: Kind, syscall: Syscall) -> Result<(), SetupError> {
    host::check_privileges()?;
    let min = kind.min_kernel();
    if let Some(v) = host::kernel_version() {
        if v < min {
            return Err(unsupported(format!(
                "kernel too old: {} programs need Linux ≥ {}.{}, this is {}.{}",
                kind.name(),
                min.0,
                min.1,
                v.0,
                v.1
            )));
        }
    }
    match kind {
        Kind::Tp => {
            host::ensure_tracefs()?;
            let (name, _) = watched_syscall(syscall);
            let id = std::path::Path::new(host::tracefs_dir())
                .join(format!("events/syscalls/sys_enter_{name}/id"));
            if !id.exists() {
                return Err(unsupported(format!(
                    "tracefs has no tracepoint syscalls/sys_enter_{name} ({} is absent: \
                     CONFIG_FTRACE_SYSCALLS is off)",
                    id.display()
                )));
            }
        }
        Kind::Kprobe | Kind::Kretprobe => host::check_kprobes()?,
        Kind::KprobeMulti => host::check_fprobe()?,
        Kind::Fentry | Kind::Fexit => {
            host::check_btf()?;
            host::check_direct_calls()?;
        }
        Kind::Fmodret => {
            host::check_btf()?;
            host::check_direct_calls()?;
            host::check_error_injection()?;
        }
        Kind::Uprobe | Kind::Uretprobe => host::check_uprobes()?,
        Kind::RawTp => {}
    }
    if kind == Kind::Fmodret && syscall == Syscall::Mix {
        return Err(unsupported(
            "fmod_ret makes the watched syscall fail, and the mix probe's close(dup(fd)) \
             cannot run on a failed dup: use a single --syscall (e.g. getpgid, as the kernel \
             benchmark)"
                .into(),
        ));
    }
    Ok(())
}

/// A load refusal, as a skip with its cause when the host (not syscost) is the reason.
fn load_error(kind: Kind, e: BpfError) -> SetupError {
    match e.errno {
        Some(EPERM) if !e.verifier_log => {
            let lockdown = host::lockdown()
                .map(|m| format!("; kernel lockdown is '{m}'"))
                .unwrap_or_default();
            unsupported(format!(
                "the kernel refused to load the {} program with EPERM and an empty verifier log, \
                 although this process is privileged: likely a lockdown, an LSM (SELinux, BPF \
                 LSM) or a sandbox policy refusing this program type{lockdown}; run on a host \
                 that allows BPF tracing programs ({e})",
                kind.name()
            ))
        }
        Some(libc::EINVAL) if kind == Kind::Fmodret && e.log.contains("is not modifiable") => {
            unsupported(not_modifiable(&e))
        }
        Some(
            libc::EINVAL | libc::EOPNOTSUPP | ENOTSUPP | libc::E2BIG | libc::ESRCH | libc::ENOENT,
        ) => {
            let hint = if kind == Kind::Fmodret {
                " (fmod_ret needs a target that allows error injection: \
                 CONFIG_FUNCTION_ERROR_INJECTION)"
            } else {
                ""
            };
            unsupported(format!(
                "this kernel does not accept the {} program{hint}: {}",
                kind.name(),
                e.with_log()
            ))
        }
        _ => SetupError::Failed(e.with_log()),
    }
}

/// Why the verifier called the fmod_ret target "not modifiable": it is on neither the
/// error-injection list nor a security hook. For an argument-less syscall the kernel's BTF may
/// name its code only `__do_sys_<name>`, which is never on the list (the wrapper is).
fn not_modifiable(e: &BpfError) -> String {
    let func = e
        .log
        .split_whitespace()
        .find(|w| w.ends_with("()"))
        .map(|w| w.trim_end_matches("()").to_string());
    let named = func.clone().unwrap_or_else(|| "its target".into());
    let hint = match func.as_deref().and_then(|f| f.strip_prefix("__do_sys_")) {
        Some(name) => format!(
            "; the kernel's BTF names {name}'s code only {named} (the syscall wrapper {} that \
             is on the list is absent from it: argument-less syscalls), so --syscall getpgid, \
             the kernel benchmark's probe, whose wrapper {} is in the BTF, may allow it",
            kernel_function(name),
            kernel_function("getpgid")
        ),
        None => String::new(),
    };
    format!(
        "the kernel refused the fmod_ret program: {named} is not modifiable (fmod_ret attaches \
         only to functions on the kernel's error-injection list, or to security_* hooks){hint} \
         [{}]",
        e.with_log()
    )
}

fn attach_error(kind: Kind, e: BpfError) -> SetupError {
    use crate::machine::kconfig::enabled;
    let kprobe = matches!(kind, Kind::Kprobe | Kind::Kretprobe);
    match e.errno {
        // A function's first instruction is an ftrace site where the kernel is built with
        // DYNAMIC_FTRACE (riscv64's patchable entry); a kprobe there needs KPROBES_ON_FTRACE,
        // without which register_kprobe answers EINVAL.
        Some(libc::EINVAL)
            if kprobe
                && enabled("CONFIG_DYNAMIC_FTRACE") == Some(true)
                && enabled("CONFIG_KPROBES_ON_FTRACE") == Some(false) =>
        {
            unsupported(format!(
                "the kernel refused a {} on the function's entry, an ftrace site, with EINVAL: \
                 that needs CONFIG_KPROBES_ON_FTRACE, which this kernel does not set ({} does \
                 not offer it): {e}",
                kind.name(),
                std::env::consts::ARCH
            ))
        }
        Some(libc::ENOENT) => unsupported(format!(
            "the {} attach point does not exist on this kernel: {e}",
            kind.name()
        )),
        Some(libc::EOPNOTSUPP | ENOTSUPP | libc::EINVAL) => unsupported(format!(
            "this kernel does not support attaching {} here: {e}",
            kind.name()
        )),
        Some(libc::EPERM | libc::EACCES) => unsupported(format!(
            "attaching the {} program was refused although this process is privileged: likely \
             a lockdown, an LSM or a sandbox policy: {e}",
            kind.name()
        )),
        _ => SetupError::Failed(e.with_log()),
    }
}

impl Session {
    /// In the worker: checks, loads the one program, and proves it counts exactly one hit
    /// for one call while attached and none once detached. `cpus`: the CPUs of the run (the
    /// worker itself is pinned to one of them).
    pub fn open(kind: Kind, syscall: Syscall, cpus: &[u32]) -> Result<Session, SetupError> {
        Session::open_counting(kind, syscall, cpus, std::process::id())
    }

    /// As [`Session::open`], with the program counting the calls of process `tgid` (tests use
    /// another process to prove that a program that does not count fails).
    pub fn open_counting(
        kind: Kind,
        syscall: Syscall,
        cpus: &[u32],
        tgid: u32,
    ) -> Result<Session, SetupError> {
        preflight(kind, syscall)?;
        let (name, nr) = watched_syscall(syscall);
        let cfg = Config {
            tgid,
            nr,
            ret: FMODRET_RETURN,
        };
        let func = kernel_function(name);
        let trampoline = if kind.is_trampoline() {
            trampoline_targets(name)
        } else {
            Vec::new()
        };
        let loaded = Loaded::load(kind, cfg, &trampoline).map_err(|e| load_error(kind, e))?;
        let load_args = (kind, cfg, trampoline);
        let target = match kind {
            Kind::Tp => Target::Tracepoint(format!("sys_enter_{name}")),
            Kind::RawTp => Target::RawTracepoint("sys_enter"),
            Kind::Kprobe | Kind::Kretprobe => Target::Kprobe {
                func: func.clone(),
                ret: kind == Kind::Kretprobe,
            },
            Kind::KprobeMulti => Target::KprobeMulti(func.clone()),
            Kind::Fentry | Kind::Fexit | Kind::Fmodret => Target::Trampoline,
            Kind::Uprobe | Kind::Uretprobe => {
                let (path, offset) =
                    ufunc::locate(ufunc::ufunc_addr()).map_err(SetupError::failed)?;
                Target::Uprobe {
                    path,
                    offset,
                    pid: std::process::id() as i32,
                    ret: kind == Kind::Uretprobe,
                }
            }
        };
        let driver = if kind.is_user() {
            Driver::Ufunc
        } else if kind == Kind::Fmodret {
            Driver::Syscall {
                call: crate::sys::syscall::Call::new(nr).ok_or_else(|| {
                    SetupError::Failed(format!("syscall {nr} is not one of the probe's queries"))
                })?,
                expected: FMODRET_RETURN as isize,
            }
        } else {
            Driver::Probe(Probe::new(syscall)?)
        };
        let mut s = Session {
            loaded,
            load_args,
            reload_each: false,
            target,
            driver,
            kept: None,
            untimed_ns: None,
            settle_ns: None,
            detacher: None,
            detaching: false,
            detach_cpu: pinned_cpu().and_then(|c| others(cpus, c).first().copied()),
        };
        let link = s.attach().map_err(|e| attach_error(kind, e))?;
        let trial = s.count(|s| s.driver.run(1)).map_err(SetupError::failed)?;
        drop(link);
        let after = s.count(|s| s.driver.run(1)).map_err(SetupError::failed)?;
        if trial.1 != 1 || trial.0.bad != 0 {
            return Err(SetupError::Failed(format!(
                "the {} program was attached but counted {} hit(s) for 1 call ({} unexpected \
                 return values)",
                kind.name(),
                trial.1,
                trial.0.bad
            )));
        }
        if after.1 != 0 {
            return Err(SetupError::Failed(format!(
                "the {} program still counted {} hit(s) after it was detached",
                kind.name(),
                after.1
            )));
        }
        if kind.is_user() {
            s.kept = Some(s.attach().map_err(|e| attach_error(kind, e))?);
        }
        Ok(s)
    }

    /// Replaces the loaded program by a fresh load of the same one.
    fn reload(&mut self) -> Result<(), SampleError> {
        let (kind, cfg, targets) = &self.load_args;
        self.loaded = Loaded::load(*kind, *cfg, targets).map_err(SampleError::Reload)?;
        Ok(())
    }

    pub fn attach(&self) -> Result<Link, BpfError> {
        self.loaded.attach(&self.target)
    }

    /// Makes every later attach fail, as an attach point that vanished mid-run would.
    #[cfg(test)]
    pub fn break_attach_point(&mut self) {
        self.target = Target::RawTracepoint("syscost_no_such_tracepoint");
    }

    /// Hits the program counts for `calls` calls of the timed loop, now.
    #[cfg(test)]
    pub fn hits_now(&mut self, calls: u64) -> u64 {
        self.count(|s| s.driver.run(calls))
            .map_or(u64::MAX, |x| x.1)
    }

    /// Runs `f` and returns its result with the hits it caused.
    fn count<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> Result<(T, u64), HitsError> {
        let before = self.loaded.hits()?;
        let t = f(self);
        let after = self.loaded.hits()?;
        Ok((t, after.wrapping_sub(before)))
    }

    /// The timed loop alone, without attaching (sizes the samples: the program adds a few
    /// percent, and each attach + detach would cost a grace period).
    pub fn unattached(&mut self, iters: u64) -> Batch {
        self.driver.run(iters)
    }

    /// One measured sample: one untimed call proves the previous detach took effect, then
    /// attach, time `iters` operations, and detach — the program exists only while this worker
    /// is being measured. The detacher unregisters it; the sample is answered only once a call
    /// of the worker no longer hits it, so no other scenario can ever run with it attached (the
    /// grace periods that follow go on in the background). `verified` carries the hits; a hit
    /// while detached counts as a bad operation. Programs kept attached (uprobes) are only
    /// counted.
    pub fn sample(&mut self, iters: u64) -> Result<Batch, SampleError> {
        if self.kept.is_some() {
            let (b, hits) = self.count(|s| s.driver.run(iters))?;
            return Ok(Batch {
                verified: Some(hits),
                ..b
            });
        }
        // Where the clock counts instructions (one vCPU, idle time free) the detach is made
        // here, waited for: a detaching thread would preempt the loop's CPU and the grace
        // periods it waits for cost nothing; the driver waits for what follows them.
        if self.detacher.is_none() && !crate::harness::clock::counts_instructions() {
            self.detacher = Some(Detacher::start(self.detach_cpu));
        }
        // The previous sample's detach must be complete before this attach; a call made now
        // must not hit (the program was detached while the other scenarios ran).
        let detach_ns = if std::mem::take(&mut self.detaching) {
            self.detacher.as_ref().and_then(|d| d.done.recv().ok())
        } else {
            None
        };
        self.settle_ns = detach_ns;
        let (_, stray) = self.count(|s| s.driver.run(1))?;
        if self.reload_each {
            self.reload()?;
        }
        // Where the clock counts instructions, an attach cycle that waited with the CPU idle
        // (grace periods) counted idle time, not instructions: it is not reported.
        let counting = crate::harness::clock::counts_instructions();
        let idle_before = counting.then(crate::harness::clock::idle_mark).flatten();
        let mut t_attach = crate::harness::clock::now_ns();
        let link = match self.attach() {
            Ok(l) => l,
            // A trampoline program that attached once and was detached: kernels before 5.13
            // answer ENOENT (its target was released with the first link). Load it afresh,
            // now and for every later sample (untimed, like the attach itself).
            Err(e) if e.errno == Some(libc::ENOENT) && self.load_args.0.is_trampoline() => {
                self.reload_each = true;
                self.reload()?;
                t_attach = crate::harness::clock::now_ns();
                self.attach().map_err(SampleError::Attach)?
            }
            Err(e) => return Err(SampleError::Attach(e)),
        };
        let attach_ns = crate::harness::clock::now_ns().saturating_sub(t_attach);
        let timed = self.count(|s| s.driver.run(iters));
        let t_detach = crate::harness::clock::now_ns();
        let handed = match &self.detacher {
            Some(d) => d.links.send(SendLink(link)).map_err(|e| e.0),
            None => Err(SendLink(link)),
        };
        let mut waited = None;
        match handed {
            Ok(()) => self.detaching = true,
            // No detacher (instruction counts), or it is gone (only a panic could end it):
            // detach here, waiting.
            Err(link) => {
                drop(link.0);
                waited = Some(crate::harness::clock::now_ns().saturating_sub(t_detach));
            }
        }
        // Answer only once the program no longer runs: a call of ours that does not hit
        // proves it is out of the tracepoint's list, for every process.
        let unregistered = loop {
            let (_, hits) = self.count(|s| s.driver.run(1))?;
            if hits == 0 {
                break true;
            }
            if crate::harness::clock::now_ns().saturating_sub(t_detach) > UNREGISTER_TIMEOUT_NS {
                break false;
            }
        };
        if !unregistered {
            return Err(SampleError::StillAttached(
                UNREGISTER_TIMEOUT_NS / 1_000_000,
            ));
        }
        // One attach + one detach: this sample's attach and the previous sample's detach (or
        // this one's, made here).
        let idled = counting
            && (idle_before.is_none() || idle_before != crate::harness::clock::idle_mark());
        self.untimed_ns = detach_ns
            .or(waited)
            .map(|d| attach_ns + d)
            .filter(|_| !idled);
        let (mut b, hits) = timed?;
        b.verified = Some(hits);
        b.bad += stray;
        Ok(b)
    }
}
