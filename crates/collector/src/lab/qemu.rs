//! Starting QEMU and watching it: the command line for each architecture and accelerator, the
//! console and record channels as files, and a watch loop that ends — within its deadlines,
//! always — with QEMU gone: exited by itself, or killed and reaped.

use super::arch::Arch;
use super::frame;
use super::initramfs::{DONE_MARK, INIT_MARK};
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// What the kernel prints first once its console is up: the sign that it booted at all.
pub const LIFE_SIGN: &str = "Linux version ";
/// QEMU's `-icount` when the guest's clock counts instructions: one virtual nanosecond per
/// instruction (`shift=0`), and idle time skipped rather than waited for (`sleep=off`).
pub const ICOUNT: &str = "shift=0,sleep=off";
/// QEMU's `-seed` then: the guest's random numbers (RDRAND, RNDR, the arm64 KASLR seed in the
/// device tree) come from a generator seeded with it instead of the host's.
pub const SEED: u64 = 1;
/// And its real-time clock: starts at this date and follows the virtual clock. The boot's
/// randomness mixes in the wall-clock time; with both fixed, two boots run the same
/// instructions.
pub const RTC: &str = "base=2026-01-01T00:00:00,clock=vm";
/// How long QEMU may take to power off after the record has arrived.
const POWEROFF_GRACE: Duration = Duration::from_secs(15);
const POLL: Duration = Duration::from_millis(50);

/// One boot of a kernel.
#[derive(Debug, Clone)]
pub struct Boot {
    pub arch: Arch,
    pub kvm: bool,
    /// The guest's clock counts instructions ([`ICOUNT`], [`SEED`], [`RTC`]); TCG only.
    pub instructions: bool,
    pub cpus: u32,
    pub mem_mib: u32,
    pub kernel: PathBuf,
    pub initrd: PathBuf,
    /// Extra kernel command-line words.
    pub append: String,
    /// Where QEMU writes the console and (on x86) the record channel.
    pub console_log: PathBuf,
    pub record_log: PathBuf,
    pub qemu_log: PathBuf,
}

impl Boot {
    pub fn cpu_model(&self) -> &'static str {
        self.arch.cpu_model(self.kvm, self.instructions)
    }

    /// The kernel command line.
    pub fn cmdline(&self) -> String {
        // panic=-1: reboot at once on a panic, which -no-reboot turns into QEMU exiting.
        let mut s = format!("console={} panic=-1 rdinit=/init", self.arch.console());
        // Under TCG every vCPU reads the host's own (invariant) TSC, but the guest's sync
        // check, emulated, sees warps and falls back to hpet, which has no vDSO mode: every
        // clock read would become a slow emulated syscall (and PTRACE_SYSEMU could not be
        // timed at all).
        // And the boot-time check that the timer interrupt arrives within a few emulated
        // ticks fails on a busy host ("IO-APIC + timer doesn't work!", a panic).
        if self.arch == Arch::X86_64 && !self.kvm {
            s.push_str(" tsc=reliable no_timer_check");
        }
        // Counting instructions, timers run off the periodic tick: in high-resolution mode,
        // 7.x arms an hrtimer at every other context switch of a one-CPU guest, and its
        // interrupt (some 700 instructions) lands in the next sample of whichever scenario
        // runs then — half the samples of every scenario read a call higher.
        if self.instructions && !self.kvm {
            s.push_str(" highres=off");
            // ppc64 6.12 in low-resolution NO_HZ mode under -icount stopped rearming the
            // decrementer once init ran: DEC stayed negative, the CPU took one decrementer
            // interrupt after another and user space never ran again. The periodic tick
            // (nohz=off) runs, and a busy CPU ticks the same either way (6.1 counts the same).
            if self.arch == Arch::Ppc64le {
                s.push_str(" nohz=off");
            }
        }
        if !self.append.trim().is_empty() {
            s.push(' ');
            s.push_str(self.append.trim());
        }
        s
    }

    pub fn args(&self) -> Vec<String> {
        let a = self.arch;
        let mut v: Vec<String> = [
            "-nodefaults",
            "-no-user-config",
            "-display",
            "none",
            "-monitor",
            "none",
            "-no-reboot",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let machine = match (a, self.kvm) {
            (Arch::Aarch64, true) => "virt,gic-version=max".to_string(),
            (_, _) => a.machine().to_string(),
        };
        v.extend([
            "-M".into(),
            machine,
            "-accel".into(),
            // One host thread runs every vCPU in turn. With a thread per vCPU, a vCPU can
            // execute the int3 the kernel's live code patching plants (BPF attach and detach,
            // text_poke_bp) after the patching CPU has finished and withdrawn it: the guest
            // oopses on an "unexpected" int3 and panics (seen on 6.12 and 7.2 within seconds
            // of fentry attach/detach cycles). A vCPU's trap is then handled before another
            // vCPU runs.
            if self.kvm { "kvm" } else { "tcg,thread=single" }.into(),
            "-cpu".into(),
            self.cpu_model().into(),
            "-smp".into(),
            self.cpus.to_string(),
            "-m".into(),
            self.mem_mib.to_string(),
            "-kernel".into(),
            self.kernel.display().to_string(),
            "-initrd".into(),
            self.initrd.display().to_string(),
            "-append".into(),
            self.cmdline(),
            "-chardev".into(),
            format!("file,id=console,path={}", self.console_log.display()),
            "-serial".into(),
            "chardev:console".into(),
        ]);
        if !a.record_on_console() {
            v.extend([
                "-chardev".into(),
                format!("file,id=record,path={}", self.record_log.display()),
                "-serial".into(),
                "chardev:record".into(),
            ]);
        }
        if self.instructions && !self.kvm {
            v.extend([
                "-icount".into(),
                ICOUNT.into(),
                "-seed".into(),
                SEED.to_string(),
                "-rtc".into(),
                RTC.into(),
            ]);
        }
        v
    }

    /// Starts QEMU in a process group of its own (the terminal's Ctrl-C is ours to handle), tied
    /// to this process: it gets SIGKILL if syscost dies.
    pub fn spawn(&self) -> std::io::Result<Child> {
        for p in [&self.console_log, &self.record_log] {
            fs::write(p, b"")?;
        }
        let log = fs::File::create(&self.qemu_log)?;
        let mut cmd = Command::new(self.arch.qemu_binary());
        cmd.args(self.args())
            .stdin(Stdio::null())
            .stdout(log.try_clone()?)
            .stderr(log);
        crate::sys::process::tie_to_us(&mut cmd);
        cmd.spawn()
    }
}

/// The first line of `qemu-system-<arch> --version`.
pub fn version(arch: Arch) -> std::io::Result<String> {
    let out = Command::new(arch.qemu_binary())
        .arg("--version")
        .stdin(Stdio::null())
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let first = text.lines().next().unwrap_or_default().trim().to_string();
    if !out.status.success() || first.is_empty() {
        return Err(std::io::Error::other(format!(
            "`{} --version` failed ({})",
            arch.qemu_binary(),
            out.status
        )));
    }
    Ok(first)
}

/// Major and minor of `qemu-system-* --version`'s first line ("QEMU emulator version 7.2.22
/// (Debian ...)" → (7, 2)).
pub fn version_number(line: &str) -> Option<(u32, u32)> {
    let v = line.split("version ").nth(1)?.split_whitespace().next()?;
    let mut parts = v.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

/// The upstream version in `qemu-system-* --version`'s first line ("7.2.22").
pub fn version_text(line: &str) -> Option<&str> {
    let v = line.split("version ").nth(1)?.split_whitespace().next()?;
    v.chars().next()?.is_ascii_digit().then_some(v)
}

/// Bytes appended to a file since the last read.
struct Tail {
    path: PathBuf,
    offset: u64,
    pub bytes: Vec<u8>,
}

impl Tail {
    fn new(path: &Path) -> Tail {
        Tail {
            path: path.to_path_buf(),
            offset: 0,
            bytes: Vec::new(),
        }
    }

    fn poll(&mut self) {
        let Ok(mut f) = fs::File::open(&self.path) else {
            return;
        };
        if f.seek(SeekFrom::Start(self.offset)).is_err() {
            return;
        }
        let mut more = Vec::new();
        if f.read_to_end(&mut more).is_ok() {
            self.offset += more.len() as u64;
            self.bytes.extend_from_slice(&more);
        }
    }

    fn contains(&self, needle: &str) -> bool {
        self.bytes
            .windows(needle.len())
            .any(|w| w == needle.as_bytes())
    }
}

/// How a watched boot ended. QEMU is gone in every case.
#[derive(Debug)]
pub enum Ending {
    /// The record frame arrived complete.
    Record,
    /// QEMU exited (the guest powered off, rebooted on a panic, or QEMU failed) without one.
    Exited(ExitStatus),
    /// No life sign within the probe window (`life_sign_within`).
    NoLifeSign,
    /// A deadline passed: the boot one before init started, or the total one.
    TimedOut,
    Interrupted,
}

/// What the host saw of one boot.
#[derive(Debug)]
pub struct Observed {
    pub ending: Ending,
    /// Seconds after the start at which the kernel's console, init, and the run's end showed.
    pub life_sign: Option<f64>,
    pub init: Option<f64>,
    pub done: Option<f64>,
    pub elapsed: f64,
    pub console: Vec<u8>,
    pub record: Vec<u8>,
    pub qemu_log: String,
}

/// Limits of one watch.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The kernel must print its life sign within this (the KVM probe), if set.
    pub life_sign_within: Option<Duration>,
    /// Init must start within this.
    pub boot: Duration,
    /// Everything must be over within this.
    pub total: Duration,
}

/// Kills and reaps a child still running when dropped.
struct Reaper(Option<Child>);

impl Drop for Reaper {
    fn drop(&mut self) {
        if let Some(mut c) = self.0.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Watches a started QEMU until it ends or a limit passes; QEMU is gone when this returns.
pub fn watch(boot: &Boot, child: Child, limits: Limits, stop: &AtomicBool) -> Observed {
    let t0 = Instant::now();
    let mut reaper = Reaper(Some(child));
    let mut console = Tail::new(&boot.console_log);
    let mut record = Tail::new(&boot.record_log);
    let (mut life, mut init, mut done) = (None, None, None);
    let mut complete_at: Option<Instant> = None;
    let on_console = boot.arch.record_on_console();
    let ending = loop {
        console.poll();
        if !on_console {
            record.poll();
        }
        let now = t0.elapsed().as_secs_f64();
        if life.is_none() && console.contains(LIFE_SIGN) {
            life = Some(now);
        }
        if init.is_none() && console.contains(INIT_MARK) {
            init = Some(now);
        }
        if done.is_none() && console.contains(DONE_MARK) {
            done = Some(now);
        }
        let channel = if on_console {
            &console.bytes
        } else {
            &record.bytes
        };
        if complete_at.is_none() && frame::complete(channel) {
            complete_at = Some(Instant::now());
        }
        let status = reaper.0.as_mut().and_then(|c| c.try_wait().ok().flatten());
        if let Some(st) = status {
            reaper.0 = None;
            // Whatever QEMU wrote before it exited.
            console.poll();
            record.poll();
            let channel = if on_console {
                &console.bytes
            } else {
                &record.bytes
            };
            break if frame::complete(channel) {
                Ending::Record
            } else {
                Ending::Exited(st)
            };
        }
        if let Some(at) = complete_at {
            if at.elapsed() > POWEROFF_GRACE {
                break Ending::Record;
            }
        } else if stop.load(Ordering::Relaxed) {
            break Ending::Interrupted;
        } else if limits
            .life_sign_within
            .is_some_and(|w| life.is_none() && t0.elapsed() > w)
        {
            break Ending::NoLifeSign;
        } else if (init.is_none() && t0.elapsed() > limits.boot) || t0.elapsed() > limits.total {
            break Ending::TimedOut;
        }
        std::thread::sleep(POLL);
    };
    drop(reaper);
    console.poll();
    record.poll();
    let qemu_log = fs::read_to_string(&boot.qemu_log).unwrap_or_default();
    let record = if on_console {
        console.bytes.clone()
    } else {
        record.bytes
    };
    Observed {
        ending,
        life_sign: life,
        init,
        done,
        elapsed: t0.elapsed().as_secs_f64(),
        console: console.bytes,
        record,
        qemu_log,
    }
}

/// The last `n` lines of a console, printable.
pub fn tail(console: &[u8], n: usize) -> String {
    let text = String::from_utf8_lossy(console);
    let lines: Vec<String> = text
        .split('\n')
        .map(|l| {
            l.chars()
                .filter(|c| !c.is_control() || *c == '\t')
                .collect::<String>()
        })
        .collect();
    let mut lines: Vec<&String> = lines.iter().collect();
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let start = lines.len().saturating_sub(n);
    lines[start..]
        .iter()
        .map(|l| l.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why KVM cannot be used for a guest.
#[derive(Debug, thiserror::Error)]
pub enum NoKvm {
    #[error("the guest is {guest} and this machine is {}", std::env::consts::ARCH)]
    OtherArch { guest: Arch },
    #[error("/dev/kvm: {0}")]
    Device(#[source] std::io::Error),
}

/// Whether KVM can be asked for at all: the guest is this machine's architecture and /dev/kvm
/// opens for reading and writing. Err says why not.
pub fn kvm_available(arch: Arch) -> Result<(), NoKvm> {
    if Arch::host() != Some(arch) {
        return Err(NoKvm::OtherArch { guest: arch });
    }
    fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kvm")
        .map(|_| ())
        .map_err(NoKvm::Device)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boot(arch: Arch, kvm: bool) -> Boot {
        Boot {
            arch,
            kvm,
            instructions: false,
            cpus: 2,
            mem_mib: 1024,
            kernel: "/k".into(),
            initrd: "/i".into(),
            append: "mitigations=off".into(),
            console_log: "/c".into(),
            record_log: "/r".into(),
            qemu_log: "/q".into(),
        }
    }

    #[test]
    fn command_lines() {
        let x = boot(Arch::X86_64, false).args().join(" ");
        assert!(
            x.contains("-M pc -accel tcg,thread=single -cpu max -smp 2 -m 1024"),
            "{x}"
        );
        assert!(
            x.contains(
                "console=ttyS0 panic=-1 rdinit=/init tsc=reliable no_timer_check mitigations=off"
            ),
            "{x}"
        );
        assert!(x.contains("path=/r -serial chardev:record"), "{x}");
        assert!(x.contains("-no-reboot"));
        let k = boot(Arch::X86_64, true).args().join(" ");
        assert!(k.contains("-accel kvm -cpu host"), "{k}");
        let a = boot(Arch::Aarch64, false).args().join(" ");
        assert!(
            a.contains("-M virt -accel tcg,thread=single -cpu max,pauth-impdef=on"),
            "{a}"
        );
        assert!(a.contains("console=ttyAMA0"));
        assert!(!a.contains("chardev:record"), "{a}");
        assert!(!x.contains("-icount") && !a.contains("cntfrq"));
        let counting = |arch| Boot {
            instructions: true,
            ..boot(arch, false)
        };
        let xi = counting(Arch::X86_64).args().join(" ");
        assert!(xi.contains("no_timer_check highres=off"), "{xi}");
        assert!(
            xi.contains("-icount shift=0,sleep=off -seed 1 -rtc base=2026-01-01T00:00:00,clock=vm"),
            "{xi}"
        );
        assert!(!xi.contains("nohz=off"), "{xi}");
        let pi = counting(Arch::Ppc64le).args().join(" ");
        assert!(pi.contains("highres=off nohz=off"), "{pi}");
        let ai = counting(Arch::Aarch64).args().join(" ");
        assert!(
            ai.contains("-cpu max,pauth-impdef=on,cntfrq=1000000000") && ai.contains("-icount"),
            "{ai}"
        );
    }

    #[test]
    fn versions_are_read_from_the_first_line() {
        let debian = "QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)";
        assert_eq!(version_number(debian), Some((7, 2)));
        assert_eq!(version_text(debian), Some("7.2.22"));
        assert_eq!(
            version_number("QEMU emulator version 10.0.2"),
            Some((10, 0))
        );
        assert!(version_number("QEMU emulator version 7.2.22") < Some((8, 1)));
        assert!(version_number("QEMU emulator version 8.1.0") >= Some((8, 1)));
        assert_eq!(version_number("qemu"), None);
        assert_eq!(version_text("QEMU emulator version x"), None);
    }

    #[test]
    fn tails_are_printable_and_short() {
        let t = tail(b"a\r\nb\x1b[0m\r\nc\r\n\r\n", 2);
        assert_eq!(t, "b[0m\nc");
    }
}
