//! A forked child of the engine and the parent's end of the channel to it: what a worker
//! ([`super::worker`]) and the kernel-method sequence ([`super::sequential`]) are built on.
//!
//! The child dies with the parent (PR_SET_PDEATHSIG), ignores the terminal's SIGINT (the
//! parent decides when to stop) and leaves with `_exit`. Messages are fixed-size binary: a tag,
//! eight words and a text (a reason), encoded into a stack buffer — no allocation, no serde in
//! a worker's loop.

use crate::sys::channel::{self, Channel};
use crate::sys::process::{self, Child, Exit};
use crate::sys::signals;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

pub const WORDS: usize = 8;
const HEADER: usize = (WORDS + 1) * 8;
pub const MAX_MSG: usize = 4096;

/// One message: a tag, eight words, and a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub tag: u64,
    pub words: [u64; WORDS],
    pub text: String,
}

/// Encodes a message into `buf`; returns its length. Overlong text is cut on a character
/// boundary, never inside one.
pub fn encode(buf: &mut [u8; MAX_MSG], tag: u64, words: [u64; WORDS], text: &str) -> usize {
    buf[..8].copy_from_slice(&tag.to_ne_bytes());
    for (i, w) in words.iter().enumerate() {
        buf[8 + i * 8..16 + i * 8].copy_from_slice(&w.to_ne_bytes());
    }
    let mut cut = text.len().min(MAX_MSG - HEADER);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    buf[HEADER..HEADER + cut].copy_from_slice(&text.as_bytes()[..cut]);
    HEADER + cut
}

pub fn decode(buf: &[u8]) -> Option<Message> {
    if buf.len() < HEADER {
        return None;
    }
    let word = |i: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&buf[i * 8..i * 8 + 8]);
        u64::from_ne_bytes(b)
    };
    let mut words = [0u64; WORDS];
    for (i, w) in words.iter_mut().enumerate() {
        *w = word(i + 1);
    }
    Some(Message {
        tag: word(0),
        words,
        text: String::from_utf8_lossy(&buf[HEADER..]).into_owned(),
    })
}

/// The child's end: sends and receives messages.
pub struct Link<'a> {
    chan: &'a Channel,
    buf: [u8; MAX_MSG],
}

impl Link<'_> {
    /// Sends a message; false if the parent is gone.
    pub fn send(&mut self, tag: u64, words: [u64; WORDS], text: &str) -> bool {
        let n = encode(&mut self.buf, tag, words, text);
        self.chan.send(&self.buf[..n]).is_ok()
    }

    /// The next message; None when the parent is gone or sent garbage.
    pub fn recv(&mut self) -> Option<Message> {
        match self.chan.recv(&mut self.buf) {
            Ok(Some(n)) => decode(&self.buf[..n]),
            _ => None,
        }
    }
}

/// Why talking to a child failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorkerError {
    /// No answer in time: it is presumed hung (and is killed by the caller).
    Timeout(Duration),
    /// The child is gone: how it ended, if it has been reaped.
    Died(Option<Exit>),
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
            WorkerError::Died(Some(how)) => write!(f, "worker {how}"),
            WorkerError::Died(None) => {
                write!(f, "worker closed its connection and has not exited yet")
            }
            WorkerError::Io(e) => write!(f, "talking to the worker failed: {e}"),
            WorkerError::Interrupted => write!(f, "interrupted"),
        }
    }
}

/// The parent's handle on one child. Dropping it kills the child without waiting for it.
pub struct Peer {
    child: Child,
    chan: Channel,
}

impl Peer {
    /// Forks a child tied to this process that runs `body` with its end of the channel; its
    /// return value is the exit status.
    pub fn spawn(body: impl FnOnce(&mut Link) -> i32) -> io::Result<Peer> {
        let (mine, theirs) = channel::pair()?;
        let child = process::fork_tied(|| {
            mine.close_in_child();
            signals::ignore_in_child();
            // The run's output is the parent's: a worker still dying (releasing its filters or
            // programs) must not keep a reader of it waiting for its end.
            process::detach_stdio();
            body(&mut Link {
                chan: &theirs,
                buf: [0; MAX_MSG],
            })
        })?;
        drop(theirs);
        Ok(Peer { child, chan: mine })
    }

    /// Sends a message to the child.
    pub fn send(&mut self, tag: u64, words: [u64; WORDS]) -> Result<(), WorkerError> {
        let mut buf = [0u8; MAX_MSG];
        let n = encode(&mut buf, tag, words, "");
        self.chan.send(&buf[..n]).map_err(|e| {
            if e.raw_os_error() == Some(libc::EPIPE) || e.raw_os_error() == Some(libc::ECONNRESET) {
                WorkerError::Died(self.reap_status())
            } else {
                WorkerError::Io(e.to_string())
            }
        })
    }

    /// Waits for one message, polling so a hung child or a stop request is noticed.
    pub fn recv(&mut self, timeout: Duration, stop: &AtomicBool) -> Result<Message, WorkerError> {
        let deadline = Instant::now() + timeout;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(WorkerError::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(WorkerError::Timeout(timeout));
            }
            // Wake at least every 50 ms to check the stop flag.
            let wait = (deadline - now).min(Duration::from_millis(50));
            match self.chan.readable_within(wait) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => return Err(WorkerError::Io(e.to_string())),
            }
            let mut buf = [0u8; MAX_MSG];
            return match self.chan.recv(&mut buf) {
                Ok(Some(len)) => decode(&buf[..len])
                    .ok_or_else(|| WorkerError::Io("short message from worker".into())),
                // A peer killed mid-message resets the connection instead of closing it.
                Ok(None) => Err(WorkerError::Died(self.reap_status())),
                Err(e) if e.raw_os_error() == Some(libc::ECONNRESET) => {
                    Err(WorkerError::Died(self.reap_status()))
                }
                Err(e) => Err(WorkerError::Io(e.to_string())),
            };
        }
    }

    /// Whether the child is running or waiting for a CPU: not answering then means starved by
    /// a busy machine, not hung.
    pub fn runnable(&self) -> bool {
        process::runnable(self.child.pid())
    }

    /// Whether it has been reaped (reaps it if it has ended).
    pub fn reaped(&mut self) -> bool {
        self.child.try_wait().is_some()
    }

    /// SIGKILL, and reap if it is already gone. Never blocks: a worker holding BPF links may
    /// take a grace period to exit, and the budget must not wait for it (the kernel finishes
    /// its exit; the process is dead to us either way).
    pub fn kill(&mut self) {
        self.child.kill();
        self.child.try_wait();
    }

    /// Waits (at most 200 ms) for a child whose socket closed and says how it ended.
    fn reap_status(&mut self) -> Option<Exit> {
        let end = Instant::now() + Duration::from_millis(200);
        loop {
            if let Some(how) = self.child.try_wait() {
                return Some(how);
            }
            if Instant::now() >= end {
                return None;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_and_overlong_text_is_cut_on_a_boundary() {
        let mut buf = [0u8; MAX_MSG];
        let n = encode(&mut buf, 4, [10, 20, 1, 1, 9, 1, 7, 1], "kernel too old ✓");
        let m = decode(&buf[..n]).unwrap();
        assert_eq!(
            (m.tag, m.words[4], m.text.as_str()),
            (4, 9, "kernel too old ✓")
        );
        let long = "é".repeat(4000);
        let n = encode(&mut buf, 3, [0; WORDS], &long);
        assert!(n <= MAX_MSG);
        let m = decode(&buf[..n]).unwrap();
        assert!(!m.text.is_empty() && m.text.chars().all(|c| c == 'é'));
        assert!(decode(&buf[..10]).is_none());
    }

    #[test]
    fn a_child_answers_and_its_end_is_reported() {
        let stop = AtomicBool::new(false);
        let mut p = Peer::spawn(|link| {
            let Some(m) = link.recv() else { return 1 };
            link.send(m.tag + 1, m.words, "pong");
            3
        })
        .unwrap();
        p.send(7, [1; WORDS]).unwrap();
        let m = p.recv(Duration::from_secs(10), &stop).unwrap();
        assert_eq!((m.tag, m.text.as_str()), (8, "pong"));
        // EOF: the child is gone. How it ended is known once it is reaped, which may take a
        // moment after its socket closed.
        let e = p.recv(Duration::from_secs(10), &stop).unwrap_err();
        match e {
            WorkerError::Died(Some(how)) => assert_eq!(how, Exit::Code(3)),
            WorkerError::Died(None) => {}
            other => panic!("{other:?}"),
        }
        assert_eq!(p.child.wait().unwrap(), Exit::Code(3));
        assert!(p.reaped());
        assert_eq!(
            WorkerError::Died(Some(Exit::Code(3))).to_string(),
            "worker exited with status 3"
        );
    }
}
