//! Worker processes. Each scenario runs in its own forked child (filters and SUD cannot be
//! undone), pinned to the measurement CPU, and talks to the parent over a SOCK_SEQPACKET
//! socketpair with fixed-size binary messages — no allocation, no serde in the worker's loop.
//!
//! The worker dies with the parent (PR_SET_PDEATHSIG), ignores the terminal's SIGINT (the
//! parent decides when to stop), and exits with `_exit` so nothing of the parent's runtime runs
//! twice. BPF links and filters are owned by the worker process, so its death releases them.

use crate::harness::Batch;
use crate::scenarios::{Scenario, SetupError};
use crate::sys::affinity::pin_to_cpu;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

const CMD_CALIBRATE: u64 = 1;
const CMD_SAMPLE: u64 = 2;
const CMD_QUIT: u64 = 3;

const TAG_READY: u64 = 1;
const TAG_SKIP: u64 = 2;
const TAG_FAIL: u64 = 3;
const TAG_BATCH: u64 = 4;
const TAG_CALIBRATED: u64 = 5;

const WORDS: usize = 8;
const HEADER: usize = (WORDS + 1) * 8;
const MAX_MSG: usize = 4096;

/// What a worker said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Ready,
    Skipped(String),
    Failed(String),
    /// A timed batch, with what the worker saw around it.
    Batch(Sample),
    Calibrated {
        iters: u64,
    },
}

/// One sample as the worker reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sample {
    pub batch: Batch,
    /// Untimed work the scenario did around the batch (ns), if it reports any.
    pub untimed_ns: Option<u64>,
    /// The worker was involuntarily switched out during the batch: another task ran on its CPU
    /// and its time is in the sample.
    pub preempted: bool,
}

/// Why talking to a worker failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerError {
    /// No answer in time: it is presumed hung (and is killed by the caller).
    Timeout(Duration),
    /// The worker is gone; the text says how it ended.
    Died(String),
    Io(String),
    /// The parent was asked to stop (SIGINT/SIGTERM).
    Interrupted,
}

impl std::fmt::Display for WorkerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WorkerError::Timeout(d) => {
                write!(f, "no answer within {:.2} s (hung)", d.as_secs_f64())
            }
            WorkerError::Died(how) => write!(f, "worker {how}"),
            WorkerError::Io(e) => write!(f, "talking to the worker failed: {e}"),
            WorkerError::Interrupted => write!(f, "interrupted"),
        }
    }
}

/// The parent's handle on one worker.
pub struct Worker {
    pub pid: libc::pid_t,
    fd: OwnedFd,
    reaped: bool,
    /// SIGKILL was sent (it may still be exiting).
    killed: bool,
}

fn encode(tag: u64, words: [u64; WORDS], text: &str) -> Vec<u8> {
    let mut buf = Vec::with_capacity(HEADER + text.len());
    buf.extend_from_slice(&tag.to_ne_bytes());
    for w in words {
        buf.extend_from_slice(&w.to_ne_bytes());
    }
    let room = MAX_MSG - HEADER;
    let mut cut = text.len().min(room);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    buf.extend_from_slice(&text.as_bytes()[..cut]);
    buf
}

fn decode(buf: &[u8]) -> Option<(u64, [u64; WORDS], String)> {
    if buf.len() < HEADER {
        return None;
    }
    let word = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&buf[i * 8..i * 8 + 8]);
        u64::from_ne_bytes(b)
    };
    let text = String::from_utf8_lossy(&buf[HEADER..]).into_owned();
    let mut words = [0u64; WORDS];
    for (i, w) in words.iter_mut().enumerate() {
        *w = word(i + 1);
    }
    Some((word(0), words, text))
}

fn send_raw(fd: libc::c_int, msg: &[u8]) -> io::Result<()> {
    loop {
        // SAFETY: valid buffer; MSG_NOSIGNAL so a dead peer gives EPIPE, not SIGPIPE.
        let n = unsafe { libc::send(fd, msg.as_ptr().cast(), msg.len(), libc::MSG_NOSIGNAL) };
        if n >= 0 {
            return Ok(());
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// Receives one message; Ok(None) on EOF.
fn recv_raw(fd: libc::c_int, buf: &mut [u8]) -> io::Result<Option<usize>> {
    loop {
        // SAFETY: valid buffer.
        let n = unsafe { libc::recv(fd, buf.as_mut_ptr().cast(), buf.len(), 0) };
        if n > 0 {
            return Ok(Some(n as usize));
        }
        if n == 0 {
            return Ok(None);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

impl Worker {
    /// Forks a worker for `scenario`. The child sets the scenario up and reports Ready, Skipped
    /// or Failed as its first message.
    pub fn spawn(scenario: &mut dyn Scenario, cpu: u32, sample_ns: u64) -> io::Result<Worker> {
        let mut fds = [0 as libc::c_int; 2];
        // SAFETY: valid array.
        if unsafe {
            libc::socketpair(
                libc::AF_UNIX,
                libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
                0,
                fds.as_mut_ptr(),
            )
        } != 0
        {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: freshly created descriptors we own.
        let (parent_end, child_end) =
            unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let parent_pid = std::process::id() as libc::pid_t;
        // SAFETY: the child only runs the scenario and this module's loop, then _exits.
        let pid = unsafe { libc::fork() };
        if pid < 0 {
            return Err(io::Error::last_os_error());
        }
        if pid == 0 {
            drop(parent_end);
            // A panic must never unwind out of the child into the parent's code (which would
            // then run twice, in two processes): catch it and leave.
            let fd = child_end.as_raw_fd();
            let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                child_main(scenario, fd, cpu, sample_ns, parent_pid)
            }))
            .unwrap_or(101);
            // SAFETY: leave without running the parent's atexit handlers or destructors.
            unsafe { libc::_exit(code) };
        }
        drop(child_end);
        Ok(Worker {
            pid,
            fd: parent_end,
            reaped: false,
            killed: false,
        })
    }

    /// Waits for one reply, polling so a hung worker or a stop request is noticed.
    pub fn recv(
        &mut self,
        timeout: Duration,
        stop: &std::sync::atomic::AtomicBool,
    ) -> Result<Reply, WorkerError> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if stop.load(std::sync::atomic::Ordering::Relaxed) {
                return Err(WorkerError::Interrupted);
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return Err(WorkerError::Timeout(timeout));
            }
            // Wake at least every 50 ms to check the stop flag.
            let wait = (deadline - now).min(Duration::from_millis(50));
            let mut pfd = libc::pollfd {
                fd: self.fd.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            };
            // SAFETY: one valid pollfd.
            let n = unsafe { libc::poll(&mut pfd, 1, wait.as_millis().max(1) as libc::c_int) };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(WorkerError::Io(e.to_string()));
            }
            if n == 0 {
                continue;
            }
            let mut buf = [0u8; MAX_MSG];
            return match recv_raw(self.fd.as_raw_fd(), &mut buf) {
                Ok(Some(len)) => parse_reply(&buf[..len]),
                // A peer killed mid-message resets the connection instead of closing it.
                Ok(None) => Err(WorkerError::Died(self.reap_status())),
                Err(e) if e.raw_os_error() == Some(libc::ECONNRESET) => {
                    Err(WorkerError::Died(self.reap_status()))
                }
                Err(e) => Err(WorkerError::Io(e.to_string())),
            };
        }
    }

    fn send_cmd(&mut self, cmd: u64, arg: u64) -> Result<(), WorkerError> {
        send_raw(
            self.fd.as_raw_fd(),
            &encode(cmd, [arg, 0, 0, 0, 0, 0, 0, 0], ""),
        )
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::EPIPE) || e.raw_os_error() == Some(libc::ECONNRESET) {
                WorkerError::Died(self.reap_status())
            } else {
                WorkerError::Io(e.to_string())
            }
        })
    }

    pub fn request_sample(&mut self, iters: u64) -> Result<(), WorkerError> {
        self.send_cmd(CMD_SAMPLE, iters)
    }

    pub fn request_calibration(&mut self) -> Result<(), WorkerError> {
        self.send_cmd(CMD_CALIBRATE, 0)
    }

    /// Asks the worker to leave, waits briefly, then kills it.
    pub fn shutdown(&mut self) {
        if self.reaped {
            return;
        }
        let _ = self.send_cmd(CMD_QUIT, 0);
        for _ in 0..50 {
            if self.try_reap().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        self.kill();
    }

    /// Asks every worker to leave at once, then reaps them together (one worker's exit no
    /// longer waits for the previous one's), killing what is left after `grace`.
    pub fn shutdown_all(workers: &mut [&mut Worker], grace: Duration) {
        for w in workers.iter_mut().filter(|w| !w.reaped) {
            let _ = w.send_cmd(CMD_QUIT, 0);
        }
        let end = std::time::Instant::now() + grace;
        loop {
            let mut left = 0;
            for w in workers.iter_mut().filter(|w| !w.reaped) {
                if w.try_reap().is_none() {
                    left += 1;
                }
            }
            if left == 0 || std::time::Instant::now() >= end {
                break;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        for w in workers.iter_mut() {
            w.kill();
        }
    }

    /// SIGKILL, and reap if it is already gone. Never blocks: a worker holding BPF links may
    /// take a grace period to exit, and the budget must not wait for it (the kernel finishes
    /// its exit; the process is dead to us either way).
    pub fn kill(&mut self) {
        if self.reaped {
            return;
        }
        // SAFETY: our own child.
        unsafe { libc::kill(self.pid, libc::SIGKILL) };
        self.killed = true;
        let _ = self.try_reap();
    }

    fn try_reap(&mut self) -> Option<String> {
        if self.reaped {
            return Some("already exited".into());
        }
        let mut status = 0;
        // SAFETY: our own child.
        let r = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        if r == self.pid {
            self.reaped = true;
            Some(describe_status(status))
        } else {
            None
        }
    }

    /// Waits (at most 200 ms) for a worker whose socket closed and says how it ended.
    fn reap_status(&mut self) -> String {
        let end = std::time::Instant::now() + Duration::from_millis(200);
        loop {
            if let Some(how) = self.try_reap() {
                return how;
            }
            if std::time::Instant::now() >= end {
                return "closed its connection and has not exited yet".into();
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
    }
}

fn describe_status(status: libc::c_int) -> String {
    if libc::WIFSIGNALED(status) {
        let sig = libc::WTERMSIG(status);
        // SAFETY: strsignal returns a static or thread-local string.
        let name = unsafe {
            let p = libc::strsignal(sig);
            if p.is_null() {
                String::new()
            } else {
                std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
            }
        };
        format!("was killed by signal {sig} ({name})")
    } else if libc::WIFEXITED(status) {
        format!("exited with status {}", libc::WEXITSTATUS(status))
    } else {
        format!("ended with wait status {status:#x}")
    }
}

fn parse_reply(buf: &[u8]) -> Result<Reply, WorkerError> {
    let (tag, w, text) =
        decode(buf).ok_or_else(|| WorkerError::Io("short message from worker".into()))?;
    Ok(match tag {
        TAG_READY => Reply::Ready,
        TAG_SKIP => Reply::Skipped(text),
        TAG_FAIL => Reply::Failed(text),
        TAG_CALIBRATED => Reply::Calibrated { iters: w[0] },
        TAG_BATCH => Reply::Batch(Sample {
            batch: Batch {
                iters: w[0],
                elapsed_ns: w[1],
                bad: w[2],
                verified: (w[3] != 0).then_some(w[4]),
            },
            untimed_ns: (w[5] != 0).then_some(w[6]),
            preempted: w[7] != 0,
        }),
        other => return Err(WorkerError::Io(format!("unknown message tag {other}"))),
    })
}

/// Runs the scenario until it costs about `sample_ns` per batch; returns the iteration count.
/// Quadruples from a small count (the first batches also warm caches and branch predictors), then
/// scales to the target from the last batch, and never goes below one iteration.
fn calibrate(scenario: &mut dyn Scenario, sample_ns: u64) -> u64 {
    let mut iters = 1u64;
    loop {
        let b = scenario.calibration_run(iters);
        let elapsed = b.elapsed_ns.max(1);
        if elapsed >= sample_ns / 4 || iters >= 1 << 40 {
            // Rescale from the median of three batches: one slow outlier (an interrupt, a
            // preemption, a cold cache) must not set the sample size.
            let mut times = [elapsed, 0, 0];
            for t in times.iter_mut().skip(1) {
                *t = scenario.calibration_run(iters).elapsed_ns.max(1);
            }
            times.sort_unstable();
            let scaled = (iters as f64 * sample_ns as f64 / times[1] as f64).round() as u64;
            let iters = scaled.max(1);
            // One batch at the final size so the first real sample is not the first of its kind.
            scenario.calibration_run(iters);
            return iters;
        }
        iters *= 4;
    }
}

/// Involuntary context switches of the calling thread so far.
fn involuntary_switches() -> i64 {
    // SAFETY: rusage is plain data filled by the kernel.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    u.ru_nivcsw
}

fn child_main(
    scenario: &mut dyn Scenario,
    fd: libc::c_int,
    cpu: u32,
    sample_ns: u64,
    parent_pid: libc::pid_t,
) -> i32 {
    // SAFETY: plain prctl/signal calls.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        if libc::getppid() != parent_pid {
            return 1; // the parent died before PDEATHSIG was armed
        }
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGQUIT, libc::SIG_IGN);
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let reply = |tag, words, text: &str| send_raw(fd, &encode(tag, words, text)).is_ok();
    if let Err(e) = pin_to_cpu(cpu) {
        reply(
            TAG_FAIL,
            [0; WORDS],
            &format!("cannot pin to CPU {cpu}: {e}"),
        );
        return 1;
    }
    match scenario.setup() {
        Ok(()) => {
            if !reply(TAG_READY, [0; WORDS], "") {
                return 1;
            }
        }
        Err(SetupError::Unsupported(why)) => {
            reply(TAG_SKIP, [0; WORDS], &why);
            return 0;
        }
        Err(SetupError::Failed(why)) => {
            reply(TAG_FAIL, [0; WORDS], &why);
            return 1;
        }
    }
    let mut buf = [0u8; MAX_MSG];
    loop {
        let len = match recv_raw(fd, &mut buf) {
            Ok(Some(n)) => n,
            _ => return 0,
        };
        let Some((cmd, w, _)) = decode(&buf[..len]) else {
            return 1;
        };
        let ok = match cmd {
            CMD_CALIBRATE => {
                let iters = match scenario.fixed_iters() {
                    Some(n) => {
                        scenario.run(n); // warm-up, as calibration would have done
                        n
                    }
                    None => calibrate(scenario, sample_ns),
                };
                reply(TAG_CALIBRATED, [iters, 0, 0, 0, 0, 0, 0, 0], "")
            }
            CMD_SAMPLE => {
                let switches = involuntary_switches();
                let b = scenario.run(w[0]);
                let preempted = (involuntary_switches() != switches) as u64;
                let (has, v) = b.verified.map_or((0, 0), |v| (1, v));
                let (has_u, u) = scenario.untimed().map_or((0, 0), |u| (1, u));
                let words = [b.iters, b.elapsed_ns, b.bad, has, v, has_u, u, preempted];
                reply(TAG_BATCH, words, "")
            }
            _ => return 0,
        };
        if !ok {
            return 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip() {
        let m = encode(TAG_BATCH, [10, 20, 1, 1, 9, 1, 7, 1], "");
        assert_eq!(
            parse_reply(&m).unwrap(),
            Reply::Batch(Sample {
                batch: Batch {
                    iters: 10,
                    elapsed_ns: 20,
                    bad: 1,
                    verified: Some(9)
                },
                untimed_ns: Some(7),
                preempted: true,
            })
        );
        let m = encode(TAG_SKIP, [0; WORDS], "kernel too old ✓");
        assert_eq!(
            parse_reply(&m).unwrap(),
            Reply::Skipped("kernel too old ✓".into())
        );
        // Overlong text is cut on a character boundary, never split inside one.
        let long = "é".repeat(4000);
        let m = encode(TAG_FAIL, [0; WORDS], &long);
        assert!(m.len() <= MAX_MSG);
        assert!(
            matches!(parse_reply(&m).unwrap(), Reply::Failed(t) if t.chars().all(|c| c == 'é'))
        );
        assert!(parse_reply(&m[..10]).is_err());
    }
}
