//! Where a build's time and memory go, printed with `SYSCOST_SITE_TIMINGS=1` (for the
//! benchmark and for profiling). Times are CPU time, not wall time: the machine a build is
//! measured on is often shared, and another process's load lengthens wall time but not the
//! CPU time a phase takes. A phase is timed as the whole process (every thread) from its start
//! to its end; the parts of the parallel passes as the CPU time of the thread doing them,
//! summed over threads. Only read when enabled: otherwise nothing is measured.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        if std::env::var_os("SYSCOST_SITE_TIMINGS").is_none() {
            return false;
        }
        // Without these files every time would read as zero: say so once and measure nothing.
        let missing: Vec<&str> = [
            "/proc/self/stat",
            "/proc/self/status",
            "/proc/thread-self/schedstat",
        ]
        .into_iter()
        .filter(|f| std::fs::read_to_string(f).is_err())
        .collect();
        if !missing.is_empty() {
            eprintln!(
                "SYSCOST_SITE_TIMINGS: no timings, {} cannot be read",
                missing.join(", ")
            );
        }
        missing.is_empty()
    })
}

/// This thread's CPU time so far (Linux: the first field of its schedstat, in ns). The file
/// is opened once per thread and read again from its start: the parts are timed several times
/// per record.
fn thread_cpu() -> Duration {
    use std::os::unix::fs::FileExt;
    thread_local! {
        static SCHEDSTAT: Option<std::fs::File> =
            std::fs::File::open("/proc/thread-self/schedstat").ok();
    }
    let mut buf = [0u8; 96];
    let n = SCHEDSTAT
        .with(|f| f.as_ref().and_then(|f| f.read_at(&mut buf, 0).ok()))
        .unwrap_or(0);
    std::str::from_utf8(buf.get(..n).unwrap_or_default())
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_nanos)
}

/// The process's CPU time so far, user and system, every thread (in clock ticks of 10 ms:
/// Linux's USER_HZ is 100 on every architecture).
fn process_cpu() -> Duration {
    let Ok(s) = std::fs::read_to_string("/proc/self/stat") else {
        return Duration::ZERO;
    };
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = s.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse().ok())
        .collect();
    Duration::from_millis(f.iter().sum::<u64>() * 10)
}

/// The process's peak resident memory so far and now, in MB.
fn memory() -> (u64, u64) {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb = |name: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
            .unwrap_or(0)
    };
    (kb("VmHWM:") / 1024, kb("VmRSS:") / 1024)
}

/// Laps of the current thread's CPU time.
pub struct Lap(Duration);

impl Lap {
    pub fn start() -> Lap {
        Lap(if enabled() {
            thread_cpu()
        } else {
            Duration::ZERO
        })
    }

    /// The CPU time since the last lap (zero when timings are off).
    pub fn lap(&mut self) -> Duration {
        if !enabled() {
            return Duration::ZERO;
        }
        let now = thread_cpu();
        let d = now.saturating_sub(self.0);
        self.0 = now;
        d
    }
}

/// What was measured, in the order first met: phases of the whole process, and the parts of
/// some phases summed over the threads that did them.
pub struct Timings {
    start: Instant,
    phase: (Instant, Duration),
    lines: Mutex<Vec<Line>>,
}

struct Line {
    name: &'static str,
    /// A part of the phase that ends after it (not itself a phase).
    part: bool,
    cpu: Duration,
    wall: Option<Duration>,
    memory: Option<(u64, u64)>,
}

impl Default for Timings {
    fn default() -> Timings {
        Timings::new()
    }
}

impl Timings {
    pub fn new() -> Timings {
        let now = Instant::now();
        Timings {
            start: now,
            phase: (now, process_cpu()),
            lines: Mutex::new(Vec::new()),
        }
    }

    /// Ends the phase that began with the previous one (or the build).
    pub fn phase(&mut self, name: &'static str) {
        if !enabled() {
            return;
        }
        let now = (Instant::now(), process_cpu());
        let line = Line {
            name,
            part: false,
            cpu: now.1.saturating_sub(self.phase.1),
            wall: Some(now.0 - self.phase.0),
            memory: Some(memory()),
        };
        self.phase = now;
        if let Ok(mut l) = self.lines.lock() {
            l.push(line);
        }
    }

    /// Adds a thread's CPU time to the part `name` of the current phase.
    pub fn part(&self, name: &'static str, cpu: Duration) {
        if !enabled() {
            return;
        }
        let Ok(mut l) = self.lines.lock() else { return };
        let open = l.iter().rposition(|x| !x.part).map_or(0, |i| i + 1);
        match l[open..].iter_mut().find(|x| x.name == name) {
            Some(x) => x.cpu += cpu,
            None => l.push(Line {
                name,
                part: true,
                cpu,
                wall: None,
                memory: None,
            }),
        }
    }

    /// Prints every phase to stderr, each followed by its parts.
    pub fn print(&self) {
        if !enabled() {
            return;
        }
        let Ok(lines) = self.lines.lock() else { return };
        let total: Duration = lines.iter().filter(|l| !l.part).map(|l| l.cpu).sum();
        eprintln!(
            "timings: {:.2} s CPU, {:.2} s wall",
            total.as_secs_f64(),
            self.start.elapsed().as_secs_f64()
        );
        let mut parts: Vec<&Line> = Vec::new();
        for l in lines.iter() {
            let (Some(w), Some((peak, now))) = (l.wall, l.memory) else {
                parts.push(l);
                continue;
            };
            eprintln!(
                "  {:<26} {:>7.2} s CPU {:>7.2} s wall   peak {peak} MB, now {now} MB",
                l.name,
                l.cpu.as_secs_f64(),
                w.as_secs_f64()
            );
            for p in parts.drain(..) {
                eprintln!("    {:<24} {:>7.2} s CPU", p.name, p.cpu.as_secs_f64());
            }
        }
    }
}
