//! SECCOMP_RET_USER_NOTIF: each probe call blocks while a supervisor receives the notification
//! on the listener fd and answers it — with a value (the call is emulated, as container runtimes
//! do for `mount` or `mknod`) or with SECCOMP_USER_NOTIF_FLAG_CONTINUE (the kernel then runs the
//! call). The supervisor is a thread of the worker started *before* the filter is attached, so
//! it is not filtered itself; it runs on another CPU when there is one (see [`placement`]).
//!
//! `.sync_wake` sets SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP on the listener (Linux ≥ 6.6): each side
//! then wakes the other on its own CPU when the woken task may run there (WF_CURRENT_CPU). Its
//! supervisor may run on any CPU of the run, so the flag can do what it is for — turn the
//! cross-CPU round trip into one on the loop's CPU — and the difference to
//! `seccomp.user_notif` is what the flag saves.
//!
//! [`placement`]: super::placement

use super::{action_filter, install, placement, Call, FAMILY};
use crate::harness::{Batch, Probe, Syscall};
use crate::machine::kconfig;
use crate::scenarios::{RunError, Scenario, SetupError};
use crate::sys::affinity::{pin_to_cpus, pinned_cpu};
use crate::sys::seccomp;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};

#[derive(Default)]
struct Counters {
    /// Notifications for a probe syscall, counted before the answer is sent (so the target
    /// cannot return before its call is counted).
    answered: AtomicU64,
    /// Notifications for anything else (answered with ENOSYS; there should be none).
    other: AtomicU64,
    /// Answers the kernel refused (the target was gone).
    send_errors: AtomicU64,
}

/// First kernel with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP.
const SYNC_WAKE_SINCE: (u32, u32) = (6, 6);
const SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: u64 = 1;

pub struct Notif {
    cont: bool,
    /// Supervisor forced onto the loop's CPU (the `.same_cpu` variant).
    same_cpu: bool,
    /// Synchronous wake-ups on the listener, supervisor free to follow (`.sync_wake`).
    sync_wake: bool,
    syscall: Syscall,
    cpus: Vec<u32>,
    probe: Option<Probe>,
    counters: Arc<Counters>,
}

impl Notif {
    pub fn new(syscall: Syscall, cont: bool, same_cpu: bool, cpus: Vec<u32>) -> Notif {
        Notif {
            cont,
            same_cpu,
            sync_wake: false,
            syscall,
            cpus,
            probe: None,
            counters: Arc::new(Counters::default()),
        }
    }

    /// `seccomp.user_notif.sync_wake`: answered with a value, the listener woken synchronously.
    pub fn sync_wake(syscall: Syscall, cpus: Vec<u32>) -> Notif {
        Notif {
            sync_wake: true,
            ..Notif::new(syscall, false, false, cpus)
        }
    }

    fn per_op(&self) -> u64 {
        self.syscall.nrs().len() as u64
    }

    /// Where the supervisor thread may run: all CPUs of the run (`.sync_wake`), or one.
    fn supervisor_cpus(&self, loop_cpu: u32) -> Vec<u32> {
        if self.sync_wake {
            self.cpus.clone()
        } else {
            vec![placement::interceptor_cpu(
                &self.cpus,
                loop_cpu,
                self.same_cpu,
            )]
        }
    }
}

/// Restricts the calling (supervisor) thread to `cpus`.
fn place_supervisor(cpus: &[u32]) -> Result<(), SetupError> {
    match cpus {
        [cpu] => placement::pin("supervisor", *cpu).map_err(SetupError::failed),
        _ => pin_to_cpus(cpus).map_err(|e| {
            SetupError::Failed(format!(
                "cannot let the supervisor run on CPUs {cpus:?}: {e}"
            ))
        }),
    }
}

/// Sets SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP on a listener; Unsupported with the kernel's version
/// when it is older than the flag.
fn set_sync_wake(fd: i32) -> Result<(), SetupError> {
    let Err(err) = seccomp::notif_set_flags(fd, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) else {
        return Ok(());
    };
    let version = kconfig::running_version();
    match (err.raw_os_error(), version) {
        (Some(libc::EINVAL), Some(v)) if v < SYNC_WAKE_SINCE => {
            Err(SetupError::Unsupported(format!(
                "SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP needs Linux ≥ {}.{}, this is {}.{} \
                 (SECCOMP_IOCTL_NOTIF_SET_FLAGS answered EINVAL)",
                SYNC_WAKE_SINCE.0, SYNC_WAKE_SINCE.1, v.0, v.1
            )))
        }
        _ => Err(SetupError::Failed(format!(
            "SECCOMP_IOCTL_NOTIF_SET_FLAGS(SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP) failed: {err}"
        ))),
    }
}

/// The supervisor: receive, count, answer — until the listener breaks.
fn supervise(fd: i32, nrs: Vec<libc::c_long>, value: i64, cont: bool, c: &Counters) {
    loop {
        let req = match seccomp::notif_recv(fd) {
            Ok(req) => req,
            Err(e) => match e.raw_os_error() {
                Some(libc::EINTR) | Some(libc::ENOENT) => continue,
                _ => return,
            },
        };
        let ours = nrs.contains(&(req.data.nr as libc::c_long));
        let mut resp = libc::seccomp_notif_resp {
            id: req.id,
            val: 0,
            error: 0,
            flags: 0,
        };
        if !ours {
            resp.error = -libc::ENOSYS;
            c.other.fetch_add(1, Ordering::SeqCst);
        } else {
            if cont {
                resp.flags = libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32;
            } else {
                resp.val = value;
            }
            c.answered.fetch_add(1, Ordering::SeqCst);
        }
        if seccomp::notif_send(fd, &resp).is_err() {
            c.send_errors.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl Scenario for Notif {
    fn preemption_is_noise(&self) -> bool {
        // Its interceptor wakes on the worker's CPU (or may): being preempted is its path.
        false
    }
    fn id(&self) -> String {
        let base = if self.cont {
            "seccomp.user_notif_continue"
        } else {
            "seccomp.user_notif"
        };
        if self.same_cpu {
            format!("{base}.same_cpu")
        } else if self.sync_wake {
            format!("{base}.sync_wake")
        } else {
            base.into()
        }
    }
    fn family(&self) -> &'static str {
        FAMILY
    }
    fn description(&self) -> String {
        let s = self.syscall.describe();
        if self.cont {
            format!("{s} under SECCOMP_RET_USER_NOTIF; the supervisor answers CONTINUE and the kernel runs the call")
        } else if self.sync_wake {
            format!("{s} under SECCOMP_RET_USER_NOTIF with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP; the supervisor answers with the result")
        } else {
            format!("{s} under SECCOMP_RET_USER_NOTIF; the supervisor answers with the result")
        }
    }
    fn params(&self) -> BTreeMap<String, String> {
        let mut p = BTreeMap::new();
        p.insert(
            "action".into(),
            format!("{:#010x}", libc::SECCOMP_RET_USER_NOTIF),
        );
        p.insert(
            "supervisor".into(),
            "thread of the worker process, blocking in SECCOMP_IOCTL_NOTIF_RECV".into(),
        );
        p.insert(
            "supervisor_cpu".into(),
            if self.sync_wake {
                "any CPU of the run (not pinned): a synchronous wake-up brings it to the loop's"
            } else {
                placement::describe(&self.cpus, self.same_cpu)
            }
            .into(),
        );
        if self.sync_wake {
            p.insert(
                "listener_flags".into(),
                "SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (Linux ≥ 6.6)".into(),
            );
        }
        p.insert(
            "answer".into(),
            if self.cont { "continue" } else { "value" }.into(),
        );
        p
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        if !(self.cont || self.same_cpu || self.sync_wake) {
            if let Some(why) =
                placement::needs_second_cpu(&self.cpus, "supervisor", "seccomp.user_notif.same_cpu")
            {
                return Err(SetupError::Unsupported(why));
            }
        }
        let nrs = self.syscall.nrs();
        let mut call = if self.cont {
            None
        } else {
            Some(Call::of(self.syscall, "seccomp.user_notif")?)
        };
        let value = call.as_mut().map_or(0, Call::native_result);
        super::filter::require_action("user_notif")?;
        // The probe is prepared before the filter: its own setup calls would be notified.
        let probe = Probe::new(self.syscall)?;
        let loop_cpu = pinned_cpu()
            .ok_or_else(|| SetupError::Failed("the worker is not pinned to one CPU".into()))?;
        let (fd_tx, fd_rx) = mpsc::channel::<i32>();
        let (pin_tx, pin_rx) = mpsc::channel::<Result<(), SetupError>>();
        let sup_cpus = self.supervisor_cpus(loop_cpu);
        let counters = Arc::clone(&self.counters);
        let cont = self.cont;
        let sup_nrs = nrs.clone();
        std::thread::Builder::new()
            .name("notif-supervisor".into())
            .spawn(move || {
                let _ = pin_tx.send(place_supervisor(&sup_cpus));
                if let Ok(fd) = fd_rx.recv() {
                    supervise(fd, sup_nrs, value, cont, &counters);
                }
            })
            .map_err(|e| SetupError::Failed(format!("cannot start the supervisor thread: {e}")))?;
        pin_rx
            .recv()
            .map_err(|_| SetupError::Failed("the supervisor thread died".into()))??;
        let fd = install(
            &action_filter(&nrs, libc::SECCOMP_RET_USER_NOTIF),
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
        )?;
        if self.sync_wake {
            set_sync_wake(fd as i32)?;
        }
        fd_tx
            .send(fd as i32)
            .map_err(|_| SetupError::Failed("the supervisor thread died".into()))?;
        self.probe = Some(probe);
        let b = self.run(16).map_err(SetupError::failed)?;
        if b.bad != 0 || b.verified != Some(16 * self.per_op()) {
            // What the caller sees, from one more (notified) call: the answer sent was `value`.
            let seen = match call.as_mut() {
                Some(c) if b.bad != 0 => format!(
                    " (answered {value}, the call returned {})",
                    c.native_result()
                ),
                _ => String::new(),
            };
            return Err(SetupError::Failed(format!(
                "16 notified operations: {} wrong results, {} answered notifications{seen}",
                b.bad,
                b.verified.unwrap_or(0)
            )));
        }
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let p = self.probe.as_mut().ok_or(RunError::NotSetUp)?;
        let before = self.counters.answered.load(Ordering::SeqCst);
        let mut b = p.run(iters, false);
        b.verified = Some(self.counters.answered.load(Ordering::SeqCst) - before);
        Ok(b)
    }
    fn verification(&self) -> Option<&'static str> {
        Some("notifications answered by the supervisor")
    }
    fn expected_verified(&self, iters: u64) -> u64 {
        iters * self.per_op()
    }
    fn sample_timeout(&self) -> Option<std::time::Duration> {
        Some(super::INTERCEPTOR_TIMEOUT)
    }
}
