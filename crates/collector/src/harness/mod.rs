//! The probe: what is timed. A batch is `iters` iterations of one operation (a syscall, or
//! UnixBench's five-syscall mix) issued with the raw instruction, inlined into a monomorphised
//! loop — no libc wrapper, no function pointer, no `dyn` in the hot path (each of those adds a
//! mispredicted return or indirect call that is not syscall cost).

pub mod clock;

use crate::sys::syscall::{self, Query, SysinfoBuf};
use std::fmt;
use std::os::fd::{AsRawFd, OwnedFd};

/// One timed batch, as the worker reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Batch {
    /// Operations issued.
    pub iters: u64,
    /// Wall time of the whole batch (CLOCK_MONOTONIC_RAW), nanoseconds.
    pub elapsed_ns: u64,
    /// Operations whose return value was not the expected one.
    pub bad: u64,
    /// Interceptions counted by the scenario (handler calls, BPF hits), if it counts any.
    pub verified: Option<u64>,
}

/// The probe syscall chosen with `--syscall`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syscall {
    Getpid,
    Getppid,
    Getpgid,
    Getuid,
    Gettid,
    Sysinfo,
    /// `personality(0xffffffff)`: queries the persona; the argument-checked call of the profile.
    PersonalityQuery,
    /// UnixBench "syscall": `close(dup(fd))`, `getpid`, `getuid`, `umask(022)` — five syscalls.
    Mix,
}

impl Syscall {
    pub fn name(self) -> &'static str {
        match self {
            Syscall::Getpid => "getpid",
            Syscall::Getppid => "getppid",
            Syscall::Getpgid => "getpgid",
            Syscall::Getuid => "getuid",
            Syscall::Gettid => "gettid",
            Syscall::Sysinfo => "sysinfo",
            Syscall::PersonalityQuery => "personality",
            Syscall::Mix => "mix",
        }
    }

    /// Syscalls issued per operation.
    pub fn syscalls_per_op(self) -> u32 {
        match self {
            Syscall::Mix => 5,
            _ => 1,
        }
    }

    /// The syscall number, for single-syscall probes.
    pub fn nr(self) -> Option<libc::c_long> {
        Some(match self {
            Syscall::Getpid => libc::SYS_getpid,
            Syscall::Getppid => libc::SYS_getppid,
            Syscall::Getpgid => libc::SYS_getpgid,
            Syscall::Getuid => libc::SYS_getuid,
            Syscall::Gettid => libc::SYS_gettid,
            Syscall::Sysinfo => libc::SYS_sysinfo,
            Syscall::PersonalityQuery => libc::SYS_personality,
            Syscall::Mix => return None,
        })
    }

    /// Every syscall number the operation issues (what a filter must let through).
    pub fn nrs(self) -> Vec<libc::c_long> {
        match self.nr() {
            Some(nr) => vec![nr],
            None => vec![
                libc::SYS_dup,
                libc::SYS_close,
                libc::SYS_getpid,
                libc::SYS_getuid,
                libc::SYS_umask,
            ],
        }
    }

    /// How the operation reads in a table ("getpid()", ...).
    pub fn describe(self) -> &'static str {
        match self {
            Syscall::Getpid => "getpid()",
            Syscall::Getppid => "getppid()",
            Syscall::Getpgid => "getpgid(0)",
            Syscall::Getuid => "getuid()",
            Syscall::Gettid => "gettid()",
            Syscall::Sysinfo => "sysinfo(&info)",
            Syscall::PersonalityQuery => "personality(0xffffffff)",
            Syscall::Mix => "close(dup(fd)), getpid(), getuid(), umask(022)",
        }
    }
}

impl fmt::Display for Syscall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A probe ready to run in this process: the syscall plus the values its calls must return here.
/// Built in the worker (after fork), because pid/tid differ per process.
#[derive(Debug)]
pub struct Probe {
    pub syscall: Syscall,
    /// Expected return of the single syscall (pid, uid, ...), or of `getpid` in the mix.
    expected: i64,
    /// `getuid` result, for the mix.
    uid: i64,
    /// An open descriptor for `dup` in the mix (-1 otherwise), owned by `devnull`.
    fd: i32,
    _devnull: Option<OwnedFd>,
    /// `sysinfo` output buffer lives in the probe so the loop does not allocate.
    info: SysinfoBuf,
}

/// Why a probe cannot be prepared.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("cannot open /dev/null for the mix probe: {0}")]
    DevNull(std::io::Error),
}

impl Probe {
    /// Prepares the probe for this process: computes the expected return values.
    pub fn new(syscall: Syscall) -> Result<Probe, ProbeError> {
        // Plain queries without side effects.
        let expected = match syscall {
            Syscall::Getpid | Syscall::Mix => Query::GETPID.libc_call(),
            Syscall::Getppid => Query::GETPPID.libc_call(),
            Syscall::Getpgid => syscall::getpgid0() as i64,
            Syscall::Getuid => Query::GETUID.libc_call(),
            Syscall::Gettid => Query::GETTID.libc_call(),
            Syscall::Sysinfo => 0,
            Syscall::PersonalityQuery => syscall::personality_query() as i64,
        };
        let mut devnull = None;
        if syscall == Syscall::Mix {
            // Read-only, close-on-exec (std's default); it lives as long as the worker.
            let f = std::fs::File::open("/dev/null").map_err(ProbeError::DevNull)?;
            devnull = Some(OwnedFd::from(f));
            // The mix sets umask(022) every iteration; start from 022 so every call returns it.
            syscall::umask(0o022);
        }
        let uid = Query::GETUID.libc_call();
        Ok(Probe {
            syscall,
            expected,
            uid,
            fd: devnull.as_ref().map_or(-1, |f| f.as_raw_fd()),
            _devnull: devnull,
            info: SysinfoBuf::new(),
        })
    }

    /// Times `iters` operations. `null` runs the same loop with the syscall replaced by an empty
    /// asm block that yields the expected value: the harness cost, measured rather than assumed.
    pub fn run(&mut self, iters: u64, null: bool) -> Batch {
        match (null, self.syscall) {
            (true, _) => self.timed(iters, |p| syscall::opaque(p.expected) == p.expected),
            (false, Syscall::Mix) => self.timed(iters, Probe::mix_once),
            (false, Syscall::Sysinfo) => self.timed(iters, |p| syscall::sysinfo(&mut p.info) == 0),
            (false, Syscall::Getpgid) => {
                self.timed(iters, |p| syscall::getpgid0() as i64 == p.expected)
            }
            (false, Syscall::PersonalityQuery) => {
                self.timed(iters, |p| syscall::personality_query() as i64 == p.expected)
            }
            (false, s) => {
                // Argument-less queries (getpid, getppid, getuid, gettid).
                let q = s.nr().and_then(Query::new).unwrap_or(Query::GETPID);
                self.timed(iters, move |p| q.call() as i64 == p.expected)
            }
        }
    }

    #[inline(always)]
    fn mix_once(p: &mut Probe) -> bool {
        // dup/close of our own /dev/null descriptor; the rest are queries or umask.
        let closed = syscall::dup_close(p.fd);
        let pid = Query::GETPID.call() as i64;
        let uid = Query::GETUID.call() as i64;
        let old = syscall::umask(0o022);
        closed == 0 && pid == p.expected && uid == p.uid && old == 0o022
    }

    /// The timed loop. `op` is a closure type, so each probe gets its own monomorphised,
    /// fully inlined loop.
    #[inline(always)]
    fn timed<F: FnMut(&mut Probe) -> bool>(&mut self, iters: u64, mut op: F) -> Batch {
        let mut bad = 0u64;
        let t0 = clock::now_ns();
        for _ in 0..iters {
            if !op(self) {
                bad += 1;
            }
        }
        let t1 = clock::now_ns();
        Batch {
            iters,
            elapsed_ns: t1.saturating_sub(t0),
            bad,
            verified: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_probe_returns_what_it_should() {
        use Syscall::*;
        for s in [
            Getpid,
            Getppid,
            Getpgid,
            Getuid,
            Gettid,
            Sysinfo,
            PersonalityQuery,
            Mix,
        ] {
            let mut p = Probe::new(s).unwrap();
            let b = p.run(1000, false);
            assert_eq!(b.iters, 1000);
            assert_eq!(b.bad, 0, "{s}: unexpected return values");
            assert!(b.elapsed_ns > 0);
        }
    }

    #[test]
    fn a_wrong_expectation_is_counted_as_bad() {
        let mut p = Probe::new(Syscall::Getpid).unwrap();
        p.expected += 1;
        assert_eq!(p.run(10, false).bad, 10);
    }

    #[test]
    fn null_loop_is_much_cheaper_than_a_syscall() {
        let mut p = Probe::new(Syscall::Getpid).unwrap();
        // Warm up, then compare the best of several batches: a ratio, not an absolute time.
        let best = |p: &mut Probe, null| {
            (0..5)
                .map(|_| p.run(20_000, null).elapsed_ns)
                .min()
                .unwrap()
        };
        let sys = best(&mut p, false);
        let null = best(&mut p, true);
        assert!(null * 5 < sys, "null {null} ns vs syscall {sys} ns");
    }
}
