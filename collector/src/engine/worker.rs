//! Worker processes. Each scenario runs in its own forked child (filters and SUD cannot be
//! undone), pinned to the measurement CPU, and talks to the parent over a SOCK_SEQPACKET
//! socketpair with fixed-size binary messages — no allocation, no serde in the worker's loop
//! (the child and the channel are `peer.rs`'s, shared with the sequential method).
//!
//! The worker dies with the parent (PR_SET_PDEATHSIG), ignores the terminal's SIGINT (the
//! parent decides when to stop), and exits with `_exit` so nothing of the parent's runtime runs
//! twice. BPF links and filters are owned by the worker process, so its death releases them.

pub use super::peer::WorkerError;

use super::peer::{Link, Message, Peer, WORDS};
use crate::harness::Batch;
use crate::scenarios::{RunError, Scenario, SetupError};
use crate::sys::affinity::pin_to_cpu;
use std::io;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

const CMD_CALIBRATE: u64 = 1;
const CMD_SAMPLE: u64 = 2;
const CMD_QUIT: u64 = 3;

const TAG_READY: u64 = 1;
const TAG_SKIP: u64 = 2;
const TAG_FAIL: u64 = 3;
const TAG_BATCH: u64 = 4;
const TAG_CALIBRATED: u64 = 5;
const TAG_RUN_FAILED: u64 = 6;

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
    /// The scenario could not take a batch (calibration or sample); the worker has left.
    RunFailed(String),
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

/// The parent's handle on one worker. Dropping it kills the worker without waiting for it.
pub struct Worker {
    peer: Peer,
}

impl Worker {
    /// Forks a worker for `scenario`. The child sets the scenario up and reports Ready, Skipped
    /// or Failed as its first message.
    pub fn spawn(scenario: &mut dyn Scenario, cpu: u32, sample_ns: u64) -> io::Result<Worker> {
        let peer = Peer::spawn(|link| child_main(scenario, link, cpu, sample_ns))?;
        Ok(Worker { peer })
    }

    /// Waits for one reply, polling so a hung worker or a stop request is noticed.
    pub fn recv(&mut self, timeout: Duration, stop: &AtomicBool) -> Result<Reply, WorkerError> {
        parse_reply(self.peer.recv(timeout, stop)?)
    }

    pub fn request_sample(&mut self, iters: u64) -> Result<(), WorkerError> {
        self.peer.send(CMD_SAMPLE, [iters, 0, 0, 0, 0, 0, 0, 0])
    }

    pub fn request_calibration(&mut self) -> Result<(), WorkerError> {
        self.peer.send(CMD_CALIBRATE, [0; WORDS])
    }

    /// Asks the worker to leave, waits briefly, then kills it.
    pub fn shutdown(&mut self) {
        Worker::shutdown_all(&mut [self], Duration::from_millis(100));
    }

    /// Asks every worker to leave at once, then reaps them together (one worker's exit no
    /// longer waits for the previous one's), killing what is left after `grace`.
    pub fn shutdown_all(workers: &mut [&mut Worker], grace: Duration) {
        for w in workers.iter_mut() {
            if !w.peer.reaped() {
                let _ = w.peer.send(CMD_QUIT, [0; WORDS]);
            }
        }
        let end = Instant::now() + grace;
        loop {
            let mut left = 0;
            for w in workers.iter_mut() {
                left += !w.peer.reaped() as usize;
            }
            if left == 0 || Instant::now() >= end {
                break;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
        for w in workers.iter_mut() {
            w.kill();
        }
    }

    /// SIGKILL, and reap if it is already gone; never blocks (see [`Peer::kill`]).
    pub fn kill(&mut self) {
        self.peer.kill();
    }

    /// Kills every worker and waits until all are reaped, for at most `bound`: a worker that
    /// holds BPF links takes a few hundred ms to exit (the kernel detaches them on the way), and
    /// "nothing stays attached" must hold when the command returns. Returns how many were
    /// still exiting when the bound was reached.
    pub fn kill_and_reap_all(workers: &mut [&mut Worker], bound: Duration) -> usize {
        let end = Instant::now() + bound;
        for w in workers.iter_mut() {
            w.kill();
        }
        loop {
            let mut left = 0;
            for w in workers.iter_mut() {
                left += !w.peer.reaped() as usize;
            }
            if left == 0 || Instant::now() >= end {
                return left;
            }
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}

fn parse_reply(m: Message) -> Result<Reply, WorkerError> {
    let w = m.words;
    Ok(match m.tag {
        TAG_READY => Reply::Ready,
        TAG_SKIP => Reply::Skipped(m.text),
        TAG_FAIL => Reply::Failed(m.text),
        TAG_RUN_FAILED => Reply::RunFailed(m.text),
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
fn calibrate(scenario: &mut dyn Scenario, sample_ns: u64) -> Result<u64, RunError> {
    let mut iters = 1u64;
    loop {
        let b = scenario.calibration_run(iters)?;
        let elapsed = b.elapsed_ns.max(1);
        if elapsed >= sample_ns / 4 || iters >= 1 << 40 {
            // Rescale from the median of three batches: one slow outlier (an interrupt, a
            // preemption, a cold cache) must not set the sample size.
            let mut times = [elapsed, 0, 0];
            for t in times.iter_mut().skip(1) {
                *t = scenario.calibration_run(iters)?.elapsed_ns.max(1);
            }
            times.sort_unstable();
            let scaled = (iters as f64 * sample_ns as f64 / times[1] as f64).round() as u64;
            let iters = scaled.max(1);
            // One batch at the final size so the first real sample is not the first of its kind.
            scenario.calibration_run(iters)?;
            return Ok(iters);
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

fn child_main(scenario: &mut dyn Scenario, link: &mut Link, cpu: u32, sample_ns: u64) -> i32 {
    if let Err(e) = pin_to_cpu(cpu) {
        link.send(
            TAG_FAIL,
            [0; WORDS],
            &format!("cannot pin to CPU {cpu}: {e}"),
        );
        return 1;
    }
    match scenario.setup() {
        Ok(()) => {
            if !link.send(TAG_READY, [0; WORDS], "") {
                return 1;
            }
        }
        Err(SetupError::Unsupported(why)) => {
            link.send(TAG_SKIP, [0; WORDS], &why);
            return 0;
        }
        Err(SetupError::Failed(why)) => {
            link.send(TAG_FAIL, [0; WORDS], &why);
            return 1;
        }
    }
    while let Some(m) = link.recv() {
        let replied = match m.tag {
            CMD_CALIBRATE => {
                let iters = match scenario.fixed_iters() {
                    // Warm-up, as calibration would have done.
                    Some(n) => scenario.run(n).map(|_| n),
                    None => calibrate(scenario, sample_ns),
                };
                match iters {
                    Ok(iters) => link.send(TAG_CALIBRATED, [iters, 0, 0, 0, 0, 0, 0, 0], ""),
                    Err(e) => {
                        link.send(TAG_RUN_FAILED, [0; WORDS], &e.to_string());
                        return 1;
                    }
                }
            }
            CMD_SAMPLE => {
                let switches = involuntary_switches();
                let b = scenario.run(m.words[0]);
                let preempted = (involuntary_switches() != switches) as u64;
                match b {
                    Ok(b) => {
                        let (has, v) = b.verified.map_or((0, 0), |v| (1, v));
                        let (has_u, u) = scenario.untimed().map_or((0, 0), |u| (1, u));
                        let words = [b.iters, b.elapsed_ns, b.bad, has, v, has_u, u, preempted];
                        link.send(TAG_BATCH, words, "")
                    }
                    Err(e) => {
                        link.send(TAG_RUN_FAILED, [0; WORDS], &e.to_string());
                        return 1;
                    }
                }
            }
            _ => return 0,
        };
        if !replied {
            return 0;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::super::peer::{encode, MAX_MSG};
    use super::*;

    fn reply(tag: u64, words: [u64; WORDS], text: &str) -> Result<Reply, WorkerError> {
        let mut buf = [0u8; MAX_MSG];
        let n = encode(&mut buf, tag, words, text);
        parse_reply(super::super::peer::decode(&buf[..n]).unwrap())
    }

    #[test]
    fn replies_decode() {
        assert_eq!(
            reply(TAG_BATCH, [10, 20, 1, 1, 9, 1, 7, 1], "").unwrap(),
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
        assert_eq!(
            reply(TAG_SKIP, [0; WORDS], "kernel too old ✓").unwrap(),
            Reply::Skipped("kernel too old ✓".into())
        );
        assert_eq!(
            reply(TAG_RUN_FAILED, [0; WORDS], "attaching failed").unwrap(),
            Reply::RunFailed("attaching failed".into())
        );
        assert!(reply(99, [0; WORDS], "").is_err());
    }
}
