//! Process plumbing shared by the attach and ptrace scenarios: a page of memory shared with
//! forked children, forking a child that runs a closure, and reaping it.
//!
//! Children are forked from a single-threaded worker, so they may allocate; they leave with
//! `_exit` so nothing of the worker (buffers, destructors) runs twice.

use std::io;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// A zeroed, page-aligned `T` in a MAP_SHARED anonymous mapping: writes by a forked child are
/// seen by the parent. `T` must be plain atomics (valid when zeroed, safe to share).
pub struct Shared<T> {
    ptr: *mut T,
    len: usize,
    _t: PhantomData<T>,
}

// SAFETY: the mapping holds only atomics (see `Slots`), shared by design.
unsafe impl<T: Sync> Send for Shared<T> {}

impl<T> Shared<T> {
    /// Maps a zeroed `T`. Only for types whose all-zero bytes are a valid value.
    pub fn new() -> io::Result<Shared<T>> {
        let len = std::mem::size_of::<T>().max(1);
        // SAFETY: anonymous shared mapping; checked for failure below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Shared {
            ptr: p.cast(),
            len,
            _t: PhantomData,
        })
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: mapped, zero-initialised and only ever accessed through shared references
        // to atomics.
        unsafe { &*self.ptr }
    }
}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        // SAFETY: our own mapping.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// Eight result words a child fills in for its parent.
#[repr(C)]
#[derive(Default)]
pub struct Slots {
    pub w: [AtomicU64; 8],
    pub s: [AtomicI64; 4],
}

impl Slots {
    pub fn get(&self, i: usize) -> u64 {
        self.w[i].load(Ordering::SeqCst)
    }
    pub fn set(&self, i: usize, v: u64) {
        self.w[i].store(v, Ordering::SeqCst)
    }
    pub fn geti(&self, i: usize) -> i64 {
        self.s[i].load(Ordering::SeqCst)
    }
    pub fn seti(&self, i: usize, v: i64) {
        self.s[i].store(v, Ordering::SeqCst)
    }
    pub fn clear(&self) {
        for w in &self.w {
            w.store(0, Ordering::SeqCst);
        }
        for s in &self.s {
            s.store(0, Ordering::SeqCst);
        }
    }
}

/// Forks; the child runs `f` and leaves with `_exit(f())`. Returns the child's pid.
pub fn fork_run<F: FnOnce() -> i32>(f: F) -> io::Result<libc::pid_t> {
    // SAFETY: the child only runs `f` and `_exit`s; the worker is single-threaded.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        let code = f();
        // SAFETY: leave without running the worker's destructors or atexit handlers.
        unsafe { libc::_exit(code) };
    }
    Ok(pid)
}

/// How a reaped child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Exit::Code(c) => write!(f, "exited with status {c}"),
            Exit::Signal(s) => write!(f, "was killed by signal {s}"),
        }
    }
}

/// Blocks until `pid` (a child of ours) has ended, and says how.
pub fn reap(pid: libc::pid_t) -> io::Result<Exit> {
    loop {
        let mut status = 0;
        // SAFETY: our own child; __WALL also waits for traced children.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::__WALL) };
        if r == pid {
            if libc::WIFEXITED(status) {
                return Ok(Exit::Code(libc::WEXITSTATUS(status)));
            }
            if libc::WIFSIGNALED(status) {
                return Ok(Exit::Signal(libc::WTERMSIG(status)));
            }
            continue; // stopped/continued reports: keep waiting for the end
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// SIGKILLs a child and reaps it.
pub fn kill_and_reap(pid: libc::pid_t) {
    // SAFETY: our own child.
    unsafe { libc::kill(pid, libc::SIGKILL) };
    let _ = reap(pid);
}

/// `Seccomp_filters` of a /proc status file: the number of filters attached to that task.
pub fn seccomp_filters(status_path: &str) -> Option<u64> {
    let text = std::fs::read_to_string(status_path).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("Seccomp_filters:"))
        .and_then(|v| v.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_child_writes_what_the_parent_reads() {
        let shm: Shared<Slots> = Shared::new().unwrap();
        shm.set(3, 42);
        let pid = fork_run(|| {
            shm.set(3, shm.get(3) + 1);
            shm.seti(1, -7);
            5
        })
        .unwrap();
        assert_eq!(reap(pid).unwrap(), Exit::Code(5));
        assert_eq!(shm.get(3), 43);
        assert_eq!(shm.geti(1), -7);
        let pid = fork_run(|| {
            // SAFETY: test child kills itself.
            unsafe { libc::raise(libc::SIGKILL) };
            0
        })
        .unwrap();
        assert_eq!(reap(pid).unwrap(), Exit::Signal(libc::SIGKILL));
    }

    #[test]
    fn status_file_counts_filters() {
        assert_eq!(seccomp_filters("/nonexistent"), None);
        let base = seccomp_filters("/proc/self/status").unwrap();
        let shm: Shared<Slots> = Shared::new().unwrap();
        let prog = super::super::programs::chain(4, true);
        let pid = fork_run(|| {
            if super::super::no_new_privs().is_err()
                || super::super::seccomp_attach(&prog, 0).is_err()
            {
                return 1;
            }
            shm.set(0, seccomp_filters("/proc/self/status").unwrap_or(0));
            0
        })
        .unwrap();
        assert_eq!(reap(pid).unwrap(), Exit::Code(0));
        assert_eq!(shm.get(0), base + 1);
    }
}
