//! Forked children: the workers, the kernel-method sequence, the attach scenarios' throwaway
//! children and the ptrace tracees. A child runs a closure and leaves with `_exit`, so nothing
//! of the parent (buffers, destructors, atexit handlers) runs twice; a panic in it is caught
//! and ends it with status 101 rather than unwinding into the parent's code in two processes.
//!
//! Children are forked from single-threaded processes (the parent before its workers, a worker
//! before its children), so they may allocate.

use std::fmt;
use std::io;

/// Exit status of a child that panicked.
pub const EXIT_PANIC: i32 = 101;
/// Exit status of a tied child whose parent was already gone when PDEATHSIG was armed.
pub const EXIT_PARENT_GONE: i32 = 125;

/// How a reaped child ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl fmt::Display for Exit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Exit::Code(c) => write!(f, "exited with status {c}"),
            Exit::Signal(sig) => {
                // SAFETY: strsignal returns a static or thread-local string (or null).
                let name = unsafe {
                    let p = libc::strsignal(sig);
                    if p.is_null() {
                        String::new()
                    } else {
                        std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
                    }
                };
                write!(f, "was killed by signal {sig} ({name})")
            }
        }
    }
}

/// What `waitpid` reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Stopped by this signal (ptrace stops report here).
    Stopped(i32),
    Ended(Exit),
}

/// The parent's handle on a forked child. Dropping it neither kills nor reaps: every caller
/// decides (a worker holding BPF links may take a grace period to exit, and must not be waited
/// for; a throwaway child is reaped at once).
#[derive(Debug)]
pub struct Child {
    pid: libc::pid_t,
    ended: Option<Exit>,
}

/// Forks; the child runs `f` and leaves with `_exit(f())`. Adds nothing to the child's path but
/// the closure: the attach scenarios time fork → child → waitpid.
pub fn fork<F: FnOnce() -> i32>(f: F) -> io::Result<Child> {
    // SAFETY: the child only runs `f` (panics caught) and `_exit`s.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(io::Error::last_os_error());
    }
    if pid == 0 {
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).unwrap_or(EXIT_PANIC);
        // SAFETY: leave without running the parent's atexit handlers or destructors.
        unsafe { libc::_exit(code) };
    }
    Ok(Child { pid, ended: None })
}

/// As [`fork`], for a child that must not outlive this process: it gets SIGKILL when the
/// parent dies (PR_SET_PDEATHSIG) and leaves with [`EXIT_PARENT_GONE`] if the parent died
/// before that was armed.
pub fn fork_tied<F: FnOnce() -> i32>(f: F) -> io::Result<Child> {
    // SAFETY: getpid cannot fail.
    let parent = unsafe { libc::getpid() };
    fork(move || {
        // SAFETY: plain prctl and getppid.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent {
                return EXIT_PARENT_GONE;
            }
        }
        f()
    })
}

/// Names the calling thread (its `comm`, as ps, top and perf show it): the kernel keeps the
/// first 15 bytes. A worker is named after its scenario, so a reader of `ps` knows which is which.
pub fn set_name(name: &str) {
    let mut buf = [0u8; 16];
    let bytes = name.as_bytes();
    let n = bytes.len().min(15);
    buf[..n].copy_from_slice(&bytes[..n]);
    // SAFETY: PR_SET_NAME reads a NUL-terminated string of at most 16 bytes, which `buf` is.
    unsafe { libc::prctl(libc::PR_SET_NAME, buf.as_ptr()) };
}

/// Points stdin and stdout of the calling (child) process at /dev/null; stderr stays, for what
/// a failing child has to say.
pub fn detach_stdio() {
    // SAFETY: open, dup2 and close on this process's own descriptors; a failure leaves them as
    // they were.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 0);
            libc::dup2(null, 1);
            if null > 1 {
                libc::close(null);
            }
        }
    }
}

/// Whether process `pid` is running or waiting for a CPU (state R in /proc/PID/stat), as
/// opposed to sleeping, stopped or gone.
pub fn runnable(pid: libc::pid_t) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // "pid (comm) S ...": the state follows the last ')' (comm may hold anything).
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.trim_start().chars().next())
        == Some('R')
}

impl Child {
    pub fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// How it ended, once reaped.
    pub fn ended(&self) -> Option<Exit> {
        self.ended
    }

    fn record(&mut self, status: libc::c_int) -> Option<Event> {
        if libc::WIFSTOPPED(status) {
            return Some(Event::Stopped(libc::WSTOPSIG(status)));
        }
        let exit = if libc::WIFEXITED(status) {
            Exit::Code(libc::WEXITSTATUS(status))
        } else if libc::WIFSIGNALED(status) {
            Exit::Signal(libc::WTERMSIG(status))
        } else {
            return None; // continued: not an event anyone waits for
        };
        self.ended = Some(exit);
        Some(Event::Ended(exit))
    }

    /// Blocks for the next stop or the end (`__WALL`: traced children too).
    pub fn wait_event(&mut self) -> io::Result<Event> {
        if let Some(e) = self.ended {
            return Ok(Event::Ended(e));
        }
        loop {
            let mut status = 0;
            // SAFETY: our own child.
            let r = unsafe { libc::waitpid(self.pid, &mut status, libc::__WALL) };
            if r == self.pid {
                if let Some(ev) = self.record(status) {
                    return Ok(ev);
                }
                continue;
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    /// Blocks until it has ended, and says how (stops are passed over).
    pub fn wait(&mut self) -> io::Result<Exit> {
        loop {
            if let Event::Ended(e) = self.wait_event()? {
                return Ok(e);
            }
        }
    }

    /// Reaps it if it has ended; never blocks.
    pub fn try_wait(&mut self) -> Option<Exit> {
        if self.ended.is_none() {
            let mut status = 0;
            // SAFETY: our own child.
            let r = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG | libc::__WALL) };
            if r == self.pid {
                self.record(status);
            }
        }
        self.ended
    }

    /// SIGKILL, unless it is already reaped (its pid may then belong to another process).
    pub fn kill(&self) {
        if self.ended.is_none() {
            // SAFETY: our own, unreaped child.
            unsafe { libc::kill(self.pid, libc::SIGKILL) };
        }
    }

    /// SIGKILL and reap.
    pub fn kill_and_reap(&mut self) {
        self.kill();
        let _ = self.wait();
    }
}

/// Makes the command's process the leader of a process group of its own (the terminal's
/// Ctrl-C stays ours to handle), killed with SIGKILL if this process dies; exit status 125
/// if this process is already gone when it starts.
pub fn tie_to_us(cmd: &mut std::process::Command) {
    use std::os::unix::process::CommandExt;
    let parent = std::process::id();
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            libc::setpgid(0, 0);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() as u32 != parent {
                libc::_exit(125);
            }
            Ok(())
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spinning_child_is_runnable_and_a_sleeping_one_is_not() {
        let stop: crate::sys::shared::Shared<crate::sys::shared::Slots> =
            crate::sys::shared::Shared::new().unwrap();
        let mut spin = fork(|| {
            while stop.get(0) == 0 {
                std::hint::spin_loop();
            }
            0
        })
        .unwrap();
        let mut sleep = fork(|| {
            std::thread::sleep(std::time::Duration::from_secs(30));
            0
        })
        .unwrap();
        // A spinning process is R whenever looked at; a sleeping one S once it got to sleep.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while runnable(sleep.pid()) && std::time::Instant::now() < deadline {
            std::thread::yield_now();
        }
        assert!(runnable(spin.pid()));
        assert!(!runnable(sleep.pid()));
        stop.set(0, 1);
        sleep.kill_and_reap();
        assert_eq!(spin.wait().unwrap(), Exit::Code(0));
        // Gone: not runnable either.
        assert!(!runnable(spin.pid()));
    }
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn a_child_ends_as_its_closure_says() {
        let mut c = fork(|| 5).unwrap();
        assert_eq!(c.wait().unwrap(), Exit::Code(5));
        assert_eq!(c.ended(), Some(Exit::Code(5)));
        // Reaped once; asking again repeats the answer rather than waiting on a stale pid.
        assert_eq!(c.wait().unwrap(), Exit::Code(5));
        let mut c = fork(|| {
            // SAFETY: the test child kills itself.
            unsafe { libc::raise(libc::SIGKILL) };
            0
        })
        .unwrap();
        let e = c.wait().unwrap();
        assert_eq!(e, Exit::Signal(libc::SIGKILL));
        assert!(e.to_string().starts_with("was killed by signal 9"), "{e}");
    }

    /// The child unwinds without the panic hook (`resume_unwind`): the hook takes locks
    /// (the backtrace's, with RUST_BACKTRACE set) that a thread of this test binary may hold at
    /// the fork, failing its own test, and the child would then wait for them for ever.
    #[test]
    fn a_panic_ends_the_child_not_the_parent() {
        let mut c = fork(|| std::panic::resume_unwind(Box::new("in the child"))).unwrap();
        assert_eq!(c.wait().unwrap(), Exit::Code(EXIT_PANIC));
    }

    #[test]
    fn a_tied_child_runs_and_a_killed_one_is_reaped() {
        // The closure runs in the child only: the parent's copy of the counter is untouched.
        let ran = AtomicU64::new(0);
        let mut c = fork_tied(|| {
            ran.fetch_add(1, Ordering::SeqCst);
            7
        })
        .unwrap();
        assert_eq!(c.wait().unwrap(), Exit::Code(7));
        assert_eq!(ran.load(Ordering::SeqCst), 0);
        let mut c = fork_tied(|| loop {
            // SAFETY: sleeps until the SIGKILL.
            unsafe { libc::pause() };
        })
        .unwrap();
        c.kill_and_reap();
        assert_eq!(c.ended(), Some(Exit::Signal(libc::SIGKILL)));
        assert_eq!(c.try_wait(), Some(Exit::Signal(libc::SIGKILL)));
    }
}
