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
        /// Work the calibration left running in the background, ns (see [`Sample::settle_ns`]).
        settle_ns: Option<u64>,
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
    /// How long work the sample left running in the background goes on, ns (a detach waiting
    /// for RCU): the worker's next sample would wait for it.
    pub settle_ns: Option<u64>,
}

/// Flags of a batch reply's fourth word.
const HAS_VERIFIED: u64 = 1;
const HAS_UNTIMED: u64 = 2;
const PREEMPTED: u64 = 4;
const HAS_SETTLE: u64 = 8;

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

    /// Whether the worker is running or waiting for a CPU (see [`Peer::runnable`]).
    pub fn runnable(&self) -> bool {
        self.peer.runnable()
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
        TAG_CALIBRATED => Reply::Calibrated {
            iters: w[0],
            settle_ns: (w[1] & HAS_SETTLE != 0).then_some(w[2]),
        },
        TAG_BATCH => Reply::Batch(Sample {
            batch: Batch {
                iters: w[0],
                elapsed_ns: w[1],
                bad: w[2],
                verified: (w[3] & HAS_VERIFIED != 0).then_some(w[4]),
            },
            untimed_ns: (w[3] & HAS_UNTIMED != 0).then_some(w[5]),
            preempted: w[3] & PREEMPTED != 0,
            settle_ns: (w[3] & HAS_SETTLE != 0).then_some(w[6]),
        }),
        other => return Err(WorkerError::Io(format!("unknown message tag {other}"))),
    })
}

/// Longest sample of a system-wide scenario, ns. Absolute, not a multiple of the intended sample:
/// an attach cycle (~70 ms for a tracepoint) costs the same whatever the sample length, and the
/// long sample is bracketed by its baseline (ABA), which cancels drift across it.
pub const MAX_STRETCHED_NS: u64 = 32_000_000;
/// A system-wide scenario's samples are lengthened until its attach cycle is at most this
/// fraction of the sample.
pub const MAX_CYCLE_SHARE: f64 = 0.1;

/// How many times longer than calibrated a system-wide scenario's sample must be for an attach
/// cycle of `cycle_ns` (measured around a sample of `timed_ns`) to be at most
/// [`MAX_CYCLE_SHARE`] of it; at least 1, and no longer than [`MAX_STRETCHED_NS`] a sample.
pub fn stretch(cycle_ns: u64, timed_ns: u64) -> u64 {
    let want = cycle_ns as f64 * (1.0 - MAX_CYCLE_SHARE) / MAX_CYCLE_SHARE;
    let most = (MAX_STRETCHED_NS / timed_ns.max(1)).max(1);
    ((want / timed_ns.max(1) as f64).ceil() as u64).clamp(1, most)
}

/// Calibration: [`calibrate_loop`], then, for a system-wide scenario, one real sample at that
/// size measures the attach cycle around it (the untimed part of the sample: attach, detach,
/// waiting until the program is gone) and the sample is lengthened so the cycle is at most a
/// tenth of it.
fn calibrate(scenario: &mut dyn Scenario, sample_ns: u64) -> Result<u64, RunError> {
    let iters = calibrate_loop(scenario, sample_ns)?;
    if !scenario.system_wide() {
        return Ok(iters);
    }
    let t0 = crate::harness::clock::now_ns();
    let b = scenario.run(iters)?;
    let wall = crate::harness::clock::now_ns().saturating_sub(t0);
    let cycle = wall.saturating_sub(b.elapsed_ns);
    Ok(iters.saturating_mul(stretch(cycle, b.elapsed_ns)))
}

/// Runs the scenario until it costs about `sample_ns` per batch; returns the iteration count.
/// Quadruples from a small count (the first batches also warm caches and branch predictors),
/// then scales to the target from the fastest of three batches of the last count. A
/// disturbance (an interrupt, a preemption, the first microseconds after a wake-up with cold
/// caches) only lengthens a batch, so the fastest is the closest to the undisturbed cost;
/// scaled from a disturbed one, the samples are too short and measure the disturbance. (Scaled
/// from the median, the `null` loop, 0.3–0.6 ns an iteration, was once calibrated at 85 ns on
/// a loaded machine: its samples of 2,931 iterations measured 9.9 ns.) One batch at the final
/// size follows, so the first real sample is not the first of its kind; if it lasts less than
/// half the target, all three were disturbed, and the count is scaled from it again (twice at
/// most).
fn calibrate_loop(scenario: &mut dyn Scenario, sample_ns: u64) -> Result<u64, RunError> {
    let mut iters = 1u64;
    let mut fastest = loop {
        let elapsed = scenario.calibration_run(iters)?.elapsed_ns;
        if elapsed >= sample_ns / 4 || iters >= 1 << 40 {
            break elapsed;
        }
        iters *= 4;
    };
    for _ in 0..2 {
        fastest = fastest.min(scenario.calibration_run(iters)?.elapsed_ns);
    }
    iters = scaled(iters, sample_ns, fastest);
    for rescaled in 0.. {
        let elapsed = scenario.calibration_run(iters)?.elapsed_ns;
        if elapsed >= sample_ns / 2 || rescaled == 2 {
            break;
        }
        iters = scaled(iters, sample_ns, elapsed);
    }
    Ok(iters)
}

/// The iteration count that lasts `sample_ns` if `iters` lasted `elapsed_ns`; at least 1.
fn scaled(iters: u64, sample_ns: u64, elapsed_ns: u64) -> u64 {
    ((iters as f64 * sample_ns as f64 / elapsed_ns.max(1) as f64).round() as u64).max(1)
}

fn child_main(scenario: &mut dyn Scenario, link: &mut Link, cpu: u32, sample_ns: u64) -> i32 {
    crate::sys::process::set_name(&scenario.id());
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
                    Ok(iters) => {
                        let (flags, settle) =
                            scenario.settle_ns().map_or((0, 0), |t| (HAS_SETTLE, t));
                        link.send(TAG_CALIBRATED, [iters, flags, settle, 0, 0, 0, 0, 0], "")
                    }
                    Err(e) => {
                        link.send(TAG_RUN_FAILED, [0; WORDS], &e.to_string());
                        return 1;
                    }
                }
            }
            CMD_SAMPLE => {
                let switches = crate::sys::query::involuntary_switches();
                let b = scenario.run(m.words[0]);
                let preempted = (crate::sys::query::involuntary_switches() != switches) as u64;
                match b {
                    Ok(b) => {
                        let mut flags = preempted * PREEMPTED;
                        let mut word = |v: Option<u64>, flag: u64| {
                            flags |= v.map_or(0, |_| flag);
                            v.unwrap_or(0)
                        };
                        let v = word(b.verified, HAS_VERIFIED);
                        let u = word(scenario.untimed(), HAS_UNTIMED);
                        let settle = word(scenario.settle_ns(), HAS_SETTLE);
                        let words = [b.iters, b.elapsed_ns, b.bad, flags, v, u, settle, 0];
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
        let flags = HAS_VERIFIED | HAS_UNTIMED | PREEMPTED | HAS_SETTLE;
        assert_eq!(
            reply(TAG_BATCH, [10, 20, 1, flags, 9, 7, 5, 0], "").unwrap(),
            Reply::Batch(Sample {
                batch: Batch {
                    iters: 10,
                    elapsed_ns: 20,
                    bad: 1,
                    verified: Some(9)
                },
                untimed_ns: Some(7),
                preempted: true,
                settle_ns: Some(5),
            })
        );
        assert_eq!(
            reply(TAG_BATCH, [10, 20, 0, HAS_UNTIMED, 9, 7, 5, 0], "").unwrap(),
            Reply::Batch(Sample {
                batch: Batch {
                    iters: 10,
                    elapsed_ns: 20,
                    bad: 0,
                    verified: None
                },
                untimed_ns: Some(7),
                preempted: false,
                settle_ns: None,
            })
        );
        assert_eq!(
            reply(TAG_CALIBRATED, [1000, HAS_SETTLE, 70, 0, 0, 0, 0, 0], "").unwrap(),
            Reply::Calibrated {
                iters: 1000,
                settle_ns: Some(70)
            }
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

    /// A loop of 1 ns an iteration whose batches are slowed by the factors in `slow`, in
    /// order (then undisturbed); it only reports times, so the test needs no clock.
    struct Disturbed {
        slow: Vec<u64>,
        batches: Vec<u64>,
    }

    impl Scenario for Disturbed {
        fn id(&self) -> String {
            "disturbed".into()
        }
        fn family(&self) -> &'static str {
            "test"
        }
        fn description(&self) -> String {
            "scripted disturbances".into()
        }
        fn setup(&mut self) -> Result<(), SetupError> {
            Ok(())
        }
        fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
            let factor = self.slow.get(self.batches.len()).copied().unwrap_or(1);
            self.batches.push(iters);
            Ok(Batch {
                iters,
                elapsed_ns: iters * factor,
                bad: 0,
                verified: None,
            })
        }
    }

    fn calibrated(slow: &[u64]) -> (u64, Vec<u64>) {
        let mut s = Disturbed {
            slow: slow.to_vec(),
            batches: Vec::new(),
        };
        (calibrate_loop(&mut s, 250_000).unwrap(), s.batches)
    }

    #[test]
    fn disturbed_calibration_batches_do_not_shorten_the_samples() {
        // Undisturbed: 4^8 iterations pass a quarter of the target; two more batches at that
        // count, then one at the final size.
        let (iters, batches) = calibrated(&[]);
        assert_eq!(iters, 250_000);
        assert_eq!(batches.len(), 9 + 2 + 1);
        // The batch that crosses the threshold and one more of the three are slow (the median
        // would scale from 80 ns an iteration, to 3,125): the fastest sets the count.
        let mut slow = vec![1; 12];
        slow[5] = 80_000; // 4^5 iterations in 82 ms: past the threshold early
        slow[6] = 80;
        let (iters, batches) = calibrated(&slow);
        assert_eq!(iters, 250_000, "{batches:?}");
        // All three are slowed 85 times: the batch at the final size lasts 1/85 of the target,
        // and the count is scaled from it.
        let mut slow = vec![1; 12];
        slow[8..11].fill(85);
        let (iters, batches) = calibrated(&slow);
        assert_eq!(iters, 250_000, "{batches:?}");
        assert_eq!(batches.len(), 9 + 2 + 2);
        // Rescaled twice at most: calibration always ends, with the last count it measured.
        let mut slow = vec![1; 14];
        slow[8..11].fill(1_000_000);
        slow[11] = 10_000;
        slow[12] = 100;
        let (iters, batches) = calibrated(&slow);
        assert_eq!(batches[9..], [65_536, 65_536, 1, 25, 2_500]);
        assert_eq!(iters, 2_500);
    }

    #[test]
    fn system_wide_samples_stretch_until_the_cycle_is_a_tenth() {
        // A cycle of a tenth of nine samples' worth: nine times the sample, at most 32 ms.
        assert_eq!(stretch(0, 2_000_000), 1);
        assert_eq!(stretch(200_000, 2_000_000), 1);
        assert_eq!(stretch(500_000, 2_000_000), 3);
        assert_eq!(stretch(2_000_000, 2_000_000), 9);
        assert_eq!(stretch(100_000_000, 2_000_000), 16);
        // The cap is a length, not a factor: a shorter sample may stretch further.
        assert_eq!(stretch(100_000_000, 250_000), 128);
        assert_eq!(stretch(100_000_000, 64_000_000), 1);
        for (cycle, timed) in [(300_000u64, 2_000_000u64), (1_500_000, 2_000_000)] {
            let k = stretch(cycle, timed);
            let share = cycle as f64 / (cycle as f64 + (k * timed) as f64);
            assert!(share <= MAX_CYCLE_SHARE + 1e-9, "{cycle} {timed}: {share}");
        }
    }
}
