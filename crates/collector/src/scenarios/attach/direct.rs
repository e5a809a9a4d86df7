//! Attach cost timed inside a throwaway child around the seccomp() call itself: one filter of a
//! given size (cacheable or not), with TSYNC across N threads, or the k-th filter of a chain.
//!
//! For the chain, the worker attaches the first k−1 filters to itself at setup, so each child
//! inherits them through fork and only the k-th attach is timed. The verification reads
//! `Seccomp_filters` in /proc after the timed call: the child (every thread, for TSYNC) must
//! show exactly one filter more than it inherited.

use super::limit::{self, LimitError};
use super::programs::Size;
use super::{errno_name, AttachError, FAMILY};
use crate::harness::{clock, Batch};
use crate::scenarios::seccomp::Filter;
use crate::scenarios::{RunError, Scenario, SetupError};
use crate::sys::process::{self, Exit};
use crate::sys::seccomp::{self as filter, filters_in, Insn};
use crate::sys::shared::{Shared, Slots};
use std::collections::BTreeMap;
use std::sync::{Arc, Barrier};

const W_ELAPSED: usize = 0;
const W_OK: usize = 1;
const W_VERIFIED: usize = 2;
const W_ERRNO: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Plain { size: Size, cacheable: bool },
    Tsync { threads: usize },
    Stack { depth: Depth },
}

/// How deep the chain is when the timed filter is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// The k-th filter.
    Fixed(u64),
    /// The last filter the kernel accepts (measured by [`limit::probe`]).
    Last,
}

impl Depth {
    fn name(self) -> String {
        match self {
            Depth::Fixed(k) => k.to_string(),
            Depth::Last => "max".into(),
        }
    }

    /// k, measuring the limit when needed.
    fn resolve(self) -> Result<u64, &'static LimitError> {
        match self {
            Depth::Fixed(k) => Ok(k),
            Depth::Last => limit::probe().as_ref().map(|l| l.accepted),
        }
    }
}

pub struct Direct {
    kind: Kind,
    prog: Vec<Insn>,
    /// Filters the child inherits (the worker's own, plus the chain for `Stack`).
    inherited: u64,
    shm: Option<Shared<Slots>>,
}

impl Direct {
    fn new(kind: Kind) -> Direct {
        Direct {
            kind,
            prog: Vec::new(),
            inherited: 0,
            shm: None,
        }
    }
    pub fn plain(size: Size, cacheable: bool) -> Direct {
        Direct::new(Kind::Plain { size, cacheable })
    }
    pub fn tsync(threads: usize) -> Direct {
        Direct::new(Kind::Tsync { threads })
    }
    pub fn stack(depth: Depth) -> Direct {
        Direct::new(Kind::Stack { depth })
    }

    fn threads(&self) -> usize {
        match self.kind {
            Kind::Tsync { threads } => threads.max(1),
            _ => 1,
        }
    }

    fn flags(&self) -> libc::c_ulong {
        match self.kind {
            Kind::Tsync { .. } => libc::SECCOMP_FILTER_FLAG_TSYNC,
            _ => 0,
        }
    }

    fn size(&self) -> Size {
        match self.kind {
            Kind::Plain { size, .. } => size,
            _ => Size::Two,
        }
    }

    fn cacheable(&self) -> bool {
        match self.kind {
            Kind::Plain { cacheable, .. } => cacheable,
            _ => true,
        }
    }

    /// The throwaway child: park the extra threads, time the attach, check /proc.
    fn child(shm: &Slots, prog: &[Insn], flags: libc::c_ulong, threads: usize, expect: u64) -> i32 {
        let barrier = Arc::new(Barrier::new(threads));
        for _ in 1..threads {
            let b = Arc::clone(&barrier);
            let spawned = std::thread::Builder::new().spawn(move || {
                b.wait();
                // The child's exit_group ends it.
                crate::sys::query::pause_forever()
            });
            if spawned.is_err() {
                return 3;
            }
        }
        barrier.wait();
        let t0 = clock::now_ns();
        let r = filter::attach(prog, flags);
        let t1 = clock::now_ns();
        shm.set(W_ELAPSED, t1.saturating_sub(t0));
        match r {
            Ok(0) => shm.set(W_OK, 1),
            // TSYNC names the thread it could not synchronise.
            Ok(tid) => {
                shm.set(W_ERRNO, tid as u64);
                return 0;
            }
            Err(e) => {
                shm.set(W_ERRNO, e.errno() as u64);
                return 0;
            }
        }
        let all_have_it = if threads == 1 {
            filters_in("/proc/self/status") == Some(expect)
        } else {
            let tasks: Vec<_> = std::fs::read_dir("/proc/self/task")
                .map(|d| d.flatten().map(|e| e.path()).collect())
                .unwrap_or_default();
            tasks.len() == threads
                && tasks
                    .iter()
                    .all(|t| filters_in(&t.join("status").to_string_lossy()) == Some(expect))
        };
        shm.set(W_VERIFIED, all_have_it as u64);
        0
    }

    /// One attach in a fresh child: (elapsed ns, verified), or why it failed.
    fn once(&self) -> Result<(u64, bool), AttachError> {
        let shm = self.shm.as_ref().ok_or(AttachError::NotSetUp)?;
        shm.clear();
        let (prog, flags, threads, expect) =
            (&self.prog, self.flags(), self.threads(), self.inherited + 1);
        let mut child = process::fork(|| Self::child(shm, prog, flags, threads, expect))
            .map_err(AttachError::Fork)?;
        match child.wait().map_err(AttachError::Wait)? {
            Exit::Code(0) => {}
            other => return Err(AttachError::Child(other)),
        }
        if shm.get(W_OK) != 1 {
            let e = shm.get(W_ERRNO);
            return Err(
                if self.flags() & libc::SECCOMP_FILTER_FLAG_TSYNC != 0 && e > 4096 {
                    AttachError::Tsync(e)
                } else {
                    AttachError::Refused(e as i32)
                },
            );
        }
        Ok((shm.get(W_ELAPSED), shm.get(W_VERIFIED) == 1))
    }

    /// Attaches the chain's first k−1 filters to the worker itself.
    fn build_chain(&self, depth: u64) -> Result<(), SetupError> {
        let prog = Filter::ConstAllow.program().map_err(SetupError::failed)?;
        for j in 1..depth {
            if let Err(e) = filter::attach(&prog, 0) {
                return Err(SetupError::Unsupported(format!(
                    "the kernel refused the chain's filter {j} of {} with {} (after {} \
                     inherited filter(s)): this depth is past the limit here",
                    depth - 1,
                    errno_name(e.errno()),
                    self.inherited
                )));
            }
        }
        Ok(())
    }
}

impl Scenario for Direct {
    fn id(&self) -> String {
        match self.kind {
            Kind::Plain {
                size,
                cacheable: true,
            } => format!("attach.seccomp.{}", size.name()),
            Kind::Plain {
                size,
                cacheable: false,
            } => format!("attach.seccomp_nocache.{}", size.name()),
            Kind::Tsync { threads } => format!("attach.tsync.{threads}"),
            Kind::Stack { depth } => format!("attach.stack.{}", depth.name()),
        }
    }
    fn family(&self) -> &'static str {
        FAMILY
    }
    fn description(&self) -> String {
        match self.kind {
            Kind::Plain { size, cacheable } => format!(
                "seccomp() attaching one {}-instruction filter ({}), timed in a fresh child",
                size.instructions(),
                if cacheable {
                    "cacheable: the kernel builds its action cache"
                } else {
                    "uncacheable: the cache builder gives up at once"
                }
            ),
            Kind::Tsync { threads } => format!(
                "seccomp() with SECCOMP_FILTER_FLAG_TSYNC, 2-instruction filter, {threads} thread(s)"
            ),
            Kind::Stack {
                depth: Depth::Fixed(k),
            } => format!(
                "seccomp() attaching 2-instruction filter number {k} onto a chain of {}",
                k - 1
            ),
            Kind::Stack { depth: Depth::Last } => {
                "seccomp() attaching the last 2-instruction filter the kernel accepts in one chain"
                    .into()
            }
        }
    }
    fn baseline(&self) -> Option<String> {
        match self.kind {
            // The paired difference of the twins is the cache-building cost.
            Kind::Plain {
                size: size @ (Size::I64 | Size::Max),
                cacheable: true,
            } => Some(format!("attach.seccomp_nocache.{}", size.name())),
            Kind::Plain { .. } => None,
            Kind::Tsync { .. } | Kind::Stack { .. } => Some("attach.seccomp.2".into()),
        }
    }
    fn params(&self) -> BTreeMap<String, String> {
        let mut p = BTreeMap::new();
        p.insert("instructions".into(), self.size().instructions());
        p.insert("cacheable".into(), self.cacheable().to_string());
        p.insert(
            "warm_up".into(),
            super::warm_up_param(super::warm_up(Some(self.size()))),
        );
        p.insert(
            "timed".into(),
            "the seccomp() call, in a freshly forked child".into(),
        );
        if let Kind::Tsync { threads } = self.kind {
            p.insert("threads".into(), threads.to_string());
            p.insert("flags".into(), "SECCOMP_FILTER_FLAG_TSYNC".into());
        }
        if let Kind::Stack { depth } = self.kind {
            match depth.resolve() {
                Ok(k) => p.insert("filters_before".into(), (k - 1).to_string()),
                Err(e) => p.insert("filters_before".into(), format!("unknown ({e})")),
            };
            match limit::probe() {
                Ok(l) => {
                    p.insert("limit_accepted_filters".into(), l.accepted.to_string());
                    p.insert("refused_at_filter".into(), (l.accepted + 1).to_string());
                    if l.accepted > 0 {
                        // total = len + Σ(previous len + 4) ≤ 32768: what one filter counted.
                        p.insert(
                            "implied_insns_per_filter".into(),
                            format!("{:.2}", 32768.0 / l.accepted as f64),
                        );
                    }
                    p.insert("refused_errno".into(), errno_name(l.errno));
                    p.insert("limit_inherited_filters".into(), l.inherited.to_string());
                }
                Err(e) => {
                    p.insert("limit_probe".into(), format!("failed: {e}"));
                }
            }
        }
        p
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        filter::no_new_privs().map_err(SetupError::failed)?;
        self.prog = self.size().program(self.cacheable())?;
        self.inherited = filters_in("/proc/self/status").ok_or_else(|| {
            SetupError::Unsupported(
                "/proc/self/status has no Seccomp_filters line (needs Linux ≥ 5.9): attaches \
                 cannot be verified"
                    .into(),
            )
        })?;
        if let Kind::Stack { depth } = self.kind {
            let k = depth
                .resolve()
                .map_err(|e| SetupError::Failed(format!("cannot find the chain's limit: {e}")))?;
            self.build_chain(k)?;
            self.inherited = filters_in("/proc/self/status").unwrap_or(0);
        }
        self.shm =
            Some(Shared::new().map_err(|e| SetupError::Failed(format!("mmap failed: {e}")))?);
        match self.once() {
            Ok((_, true)) => Ok(()),
            Ok((_, false)) => Err(SetupError::Failed(
                "the attach succeeded but /proc does not show the filter on every thread".into(),
            )),
            Err(e @ AttachError::Refused(libc::EINVAL)) if self.flags() != 0 => {
                Err(SetupError::Unsupported(format!(
                    "{e}: this kernel does not take SECCOMP_FILTER_FLAG_TSYNC"
                )))
            }
            Err(e) => Err(SetupError::failed(e)),
        }
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let warm = super::warm_up(Some(self.size()));
        let mut b = Batch {
            iters,
            elapsed_ns: 0,
            bad: 0,
            verified: Some(0),
        };
        for _ in 0..iters {
            // Untimed twin first: the timed attach then meets warm kernel caches (see the
            // module documentation of `attach`).
            if warm {
                let _ = self.once();
            }
            let (ns, ok) = self.once()?;
            b.elapsed_ns += ns;
            if ok {
                b.verified = b.verified.map(|v| v + 1);
            }
        }
        Ok(b)
    }
    fn verification(&self) -> Option<&'static str> {
        Some("attaches confirmed by Seccomp_filters in /proc (every thread)")
    }
    fn fixed_iters(&self) -> Option<u64> {
        Some(1)
    }
    fn sample_timeout(&self) -> Option<std::time::Duration> {
        Some(super::SAMPLE_TIMEOUT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attach_that_does_not_show_in_proc_is_not_verified() {
        for mut d in [Direct::plain(Size::Two, true), Direct::tsync(3)] {
            d.setup().unwrap();
            let (ns, ok) = d.once().unwrap();
            assert!(ok && ns > 0, "{}", d.id());
            // Expect one filter more than the kernel really shows: the check must fail.
            d.inherited += 1;
            assert!(!d.once().unwrap().1, "{}", d.id());
            assert_eq!(d.run(3).unwrap().verified, Some(0));
        }
    }

    #[test]
    fn a_refused_filter_is_an_error_not_a_sample() {
        let mut d = Direct::plain(Size::Two, true);
        d.setup().unwrap();
        d.prog.clear(); // an empty program: the kernel answers EINVAL
        let e = d.once().unwrap_err().to_string();
        assert!(e.contains("EINVAL"), "{e}");
        // In a run, the refusal ends the scenario with its reason.
        let e = d.run(2).unwrap_err().to_string();
        assert!(
            e.starts_with("the kernel refused the filter: EINVAL"),
            "{e}"
        );
    }
}
