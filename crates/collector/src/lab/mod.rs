//! `syscost lab`: boots a kernel in QEMU with a generated initramfs, runs `syscost run` inside,
//! and brings the record back — the way to measure a kernel without installing it.
//!
//! - [`arch`]: per-architecture QEMU settings and kernel image recognition
//! - [`initramfs`] (with [`cpio`], [`elf`]): the guest's root filesystem and its `/init`
//! - [`frame`]: the record's framing and checksum on the serial line
//! - [`qemu`]: the command line, and a watch loop that always ends with QEMU gone
//! - [`facts`]: what the host adds to the guest's record (accelerator, QEMU, vCPUs)
//! - [`matrix`]: judging a record against its kernel's version and configuration
//!
//! Under TCG the numbers are an emulator's: the record says so in its comparability key
//! (`virtualization.kind = "qemu-tcg"`). Under KVM it is a real measurement of that guest.

pub mod arch;
pub mod cpio;
pub mod elf;
pub mod facts;
pub mod frame;
pub mod initramfs;
pub mod judge;
pub mod qemu;

pub use arch::Arch;

use frame::FrameError;
use initramfs::InitramfsError;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Duration;
use syscost_record::{Accelerator, Clock, KernelPackage, RunRecord};

/// Console lines an error shows.
pub const TAIL_LINES: usize = 40;
/// How long a kernel under KVM has to print its first console line before `auto` gives up on
/// KVM (a healthy one does it in well under a second; nested KVM here hangs silently).
pub const KVM_PROBE: Duration = Duration::from_secs(20);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccelChoice {
    /// KVM when it works, else TCG (and the run says so).
    Auto,
    Kvm,
    Tcg,
}

/// One lab run.
#[derive(Debug, Clone)]
pub struct Spec {
    pub kernel: PathBuf,
    pub arch: Arch,
    pub accel: AccelChoice,
    /// What the guest's clock counts: instructions only under TCG, with `-icount`.
    pub clock: Clock,
    pub config: Option<PathBuf>,
    pub cpus: u32,
    pub mem_mib: u32,
    /// Init must start within this; the whole run must end within `timeout`.
    pub boot_timeout: Duration,
    pub timeout: Duration,
    pub contents: initramfs::Contents,
    pub append: String,
    /// Where the initramfs and the logs are written (a fresh directory).
    pub work_dir: PathBuf,
}

/// A finished lab run.
#[derive(Debug)]
pub struct Outcome {
    /// The guest's record with the lab facts, its id recomputed.
    pub record: RunRecord,
    /// Exit status of `syscost run` in the guest (1: a scenario failed).
    pub guest_exit: i32,
    pub console: Vec<u8>,
    pub accelerator: Accelerator,
    pub boot_s: Option<f64>,
    pub total_s: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum LabError {
    #[error("cannot read the kernel image {}: {source}", path.display())]
    Kernel {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{} is not a kernel image syscost recognises (an x86 bzImage or an arm64 Image, \
         plain, gzip or EFI zboot); give its architecture with --arch",
        .0.display()
    )]
    UnknownImage(PathBuf),
    #[error("{} is an {image} kernel, and --arch says {asked}", path.display())]
    ArchMismatch {
        path: PathBuf,
        image: Arch,
        asked: Arch,
    },
    #[error(
        "cannot run {binary}: {source} (install {package}: scripts/lab-tools, or apt-get \
         install {package})"
    )]
    NoQemu {
        binary: &'static str,
        package: &'static str,
        source: std::io::Error,
    },
    #[error("--accel kvm: KVM cannot be used: {0}")]
    KvmUnavailable(qemu::NoKvm),
    #[error(
        "--cpus {cpus} with --count instructions needs QEMU 8.1 or later; this is {qemu}. \
         Before 8.1, QEMU's single-threaded TCG gives a vCPU under -icount all the instructions \
         until the next timer: one that spins waiting for another (Linux's SMP bring-up, an IPI \
         that waits for its answer) starves it, and the guest hangs (QEMU commit \"ensure \
         fairness with icount\", 8.1). Use --cpus 1"
    )]
    IcountSmp { cpus: u32, qemu: String },
    #[error(
        "the guest's record says its clock counted {got:?}, not {want:?}: it was not made by the \
         syscost this lab put into the guest"
    )]
    ClockMismatch { got: Clock, want: Clock },
    #[error(transparent)]
    Initramfs(#[from] InitramfsError),
    #[error("cannot prepare {}: {source}", path.display())]
    WorkDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot start {binary}: {source}")]
    Spawn {
        binary: &'static str,
        source: std::io::Error,
    },
    #[error("{binary} exited ({status}) before the kernel printed anything:\n{log}")]
    QemuFailed {
        binary: &'static str,
        status: String,
        log: String,
    },
    #[error("the kernel panicked {seconds:.0} s after QEMU started; its console ends:\n{tail}")]
    Panic { seconds: f64, tail: String },
    #[error("{what} within {seconds:.0} s; QEMU was stopped; the console ends:\n{tail}")]
    Hang {
        what: String,
        seconds: f64,
        tail: String,
    },
    #[error(
        "the guest stopped ({status}) {seconds:.0} s after QEMU started without sending a \
         record; the console ends:\n{tail}"
    )]
    Ended {
        status: String,
        seconds: f64,
        tail: String,
    },
    #[error("{error}; the console ends:\n{tail}")]
    Frame { error: FrameError, tail: String },
    #[error(
        "`syscost run` in the guest exited with status {exit} and wrote no record; the console \
         ends:\n{tail}"
    )]
    GuestRun { exit: i32, tail: String },
    #[error("the guest's record is not a run record: {0}")]
    Record(serde_json::Error),
    #[error("interrupted; QEMU was stopped and no record was written")]
    Interrupted,
}

fn sha256_file(path: &Path) -> Result<String, std::io::Error> {
    let bytes = std::fs::read(path)?;
    Ok(Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Checks that `path` is a kernel of `asked` (or tells its architecture when None).
pub fn image_arch(path: &Path, asked: Option<Arch>) -> Result<Arch, LabError> {
    let bytes = std::fs::read(path).map_err(|source| LabError::Kernel {
        path: path.to_path_buf(),
        source,
    })?;
    match (arch::detect_image(&bytes), asked) {
        (Some(image), Some(asked)) if image != asked => Err(LabError::ArchMismatch {
            path: path.to_path_buf(),
            image,
            asked,
        }),
        (Some(a), _) | (None, Some(a)) => Ok(a),
        (None, None) => Err(LabError::UnknownImage(path.to_path_buf())),
    }
}

/// A kernel configuration beside an image: `config-<suffix>` for `vmlinuz-<suffix>` (a
/// distribution's /boot), the only `config-*` there, or the `.config` of the build tree an
/// `arch/<arch>/boot/bzImage` or `vmlinux` lies in.
pub fn config_beside(image: &Path) -> Option<PathBuf> {
    let dir = image.parent()?;
    let name = image.file_name()?.to_string_lossy().into_owned();
    for prefix in ["vmlinuz-", "vmlinux-", "bzImage-", "Image-"] {
        if let Some(suffix) = name.strip_prefix(prefix) {
            let c = dir.join(format!("config-{suffix}"));
            if c.is_file() {
                return Some(c);
            }
        }
    }
    let configs: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("config-"))
        })
        .collect();
    if configs.len() == 1 {
        return configs.into_iter().next();
    }
    image
        .ancestors()
        .skip(1)
        .take(4)
        .map(|d| d.join(".config"))
        .find(|c| c.is_file())
}

/// The distribution package `scripts/lab-kernels` noted in `SOURCE` beside an image it
/// unpacked (`package linux-image-6.1.0-50-amd64=6.1.176-1:amd64`, `suite bookworm`).
pub fn package_beside(image: &Path) -> Option<KernelPackage> {
    let text = std::fs::read_to_string(image.parent()?.join("SOURCE")).ok()?;
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
            .map(str::trim)
    };
    let package = field("package")?;
    // NAME=VERSION:ARCH (a kernel package's version has no epoch, but allow one).
    let (name, rest) = package.split_once('=')?;
    let version = rest.rsplit_once(':').map_or(rest, |(v, _)| v);
    (!name.is_empty() && !version.is_empty()).then(|| KernelPackage {
        name: name.to_string(),
        version: version.to_string(),
        suite: field("suite").filter(|s| !s.is_empty()).map(str::to_string),
    })
}

/// Boots `spec`'s kernel, runs syscost in it and returns its record with the lab facts. `say`
/// gets what the user should know on the way (the accelerator, a fallback to TCG).
pub fn run(
    spec: &Spec,
    stop: &AtomicBool,
    say: &mut dyn FnMut(String),
) -> Result<Outcome, LabError> {
    let arch = spec.arch;
    // The host's date: a guest that counts instructions has its clock set to a fixed one.
    let started = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let qemu_version = qemu::version(arch).map_err(|source| LabError::NoQemu {
        binary: arch.qemu_binary(),
        package: arch.qemu_package(),
        source,
    })?;
    let counting = spec.clock == Clock::Instructions;
    if counting && spec.cpus > 1 && qemu::version_number(&qemu_version) < Some((8, 1)) {
        return Err(LabError::IcountSmp {
            cpus: spec.cpus,
            qemu: qemu_version,
        });
    }
    let kernel_sha256 = sha256_file(&spec.kernel).map_err(|source| LabError::Kernel {
        path: spec.kernel.clone(),
        source,
    })?;
    let config_sha256 = match &spec.config {
        Some(c) => Some(sha256_file(c).map_err(|source| InitramfsError::Read {
            path: c.clone(),
            source,
        })?),
        None => None,
    };
    let wd = |source| LabError::WorkDir {
        path: spec.work_dir.clone(),
        source,
    };
    std::fs::create_dir_all(&spec.work_dir).map_err(wd)?;
    let initrd = spec.work_dir.join("initramfs.cpio");
    initramfs::build(&spec.contents, &initrd)?;

    let mut kvm = first_accelerator(spec, counting, say)?;
    let mut fallback = None;
    loop {
        let boot = qemu::Boot {
            arch,
            kvm,
            instructions: counting,
            cpus: spec.cpus,
            mem_mib: spec.mem_mib,
            kernel: spec.kernel.clone(),
            initrd: initrd.clone(),
            append: spec.append.clone(),
            console_log: spec.work_dir.join("console.log"),
            record_log: spec.work_dir.join("record.log"),
            qemu_log: spec.work_dir.join("qemu.log"),
        };
        say(format!(
            "booting {} under {} ({} {}, -cpu {}, {} vCPUs, {} MiB)",
            spec.kernel.display(),
            if kvm { "KVM" } else { "TCG" },
            arch.qemu_binary(),
            arch.machine(),
            boot.cpu_model(),
            spec.cpus,
            spec.mem_mib
        ));
        let child = boot.spawn().map_err(|source| LabError::Spawn {
            binary: arch.qemu_binary(),
            source,
        })?;
        let probing = kvm && spec.accel == AccelChoice::Auto;
        let limits = qemu::Limits {
            life_sign_within: probing.then_some(KVM_PROBE),
            boot: spec.boot_timeout,
            total: spec.timeout,
        };
        let seen = qemu::watch(&boot, child, limits, stop);
        // Under auto, KVM that does not boot is KVM that does not work here: try TCG.
        let kvm_failed = match &seen.ending {
            qemu::Ending::NoLifeSign => Some(format!(
                "the kernel printed nothing within {} s under KVM (nested KVM can hang guests \
                 silently)",
                KVM_PROBE.as_secs()
            )),
            qemu::Ending::Exited(st) if seen.life_sign.is_none() => Some(format!(
                "QEMU exited ({st}) under KVM: {}",
                seen.qemu_log.trim()
            )),
            _ => None,
        };
        if probing {
            if let Some(why) = kvm_failed {
                say(format!(
                    "KVM did not work: {why}; falling back to TCG — emulated, the record will \
                     say qemu-tcg and is no measurement of any CPU"
                ));
                fallback = Some(why);
                kvm = false;
                continue;
            }
        }
        if let Some(e) = failure(&seen, spec) {
            return Err(e);
        }
        let facts = Facts {
            qemu_version,
            kernel_sha256,
            config_sha256,
            fallback,
            started,
        };
        return outcome(spec, &boot, seen, kvm, facts);
    }
}

/// Whether the first boot tries KVM: never when counting instructions (QEMU counts only what
/// it translates), as asked, or — under auto — when /dev/kvm works.
fn first_accelerator(
    spec: &Spec,
    counting: bool,
    say: &mut dyn FnMut(String),
) -> Result<bool, LabError> {
    let arch = spec.arch;
    Ok(match spec.accel {
        _ if counting => false,
        AccelChoice::Tcg => false,
        AccelChoice::Kvm => {
            qemu::kvm_available(arch).map_err(LabError::KvmUnavailable)?;
            true
        }
        AccelChoice::Auto => match qemu::kvm_available(arch) {
            Ok(()) => true,
            Err(why) => {
                say(format!(
                    "KVM is not available ({why}): running under TCG, emulated — the record \
                     will say qemu-tcg and is no measurement of any CPU"
                ));
                false
            }
        },
    })
}

/// Why a boot that ended without a record failed: interrupted, a panic, QEMU's own failure, an
/// early exit or a hang, each with the end of the console. None when the record came.
fn failure(seen: &qemu::Observed, spec: &Spec) -> Option<LabError> {
    let arch = spec.arch;
    let tail = || qemu::tail(&seen.console, TAIL_LINES);
    let text = String::from_utf8_lossy(&seen.console);
    let panicked = text.contains("Kernel panic - not syncing");
    Some(match &seen.ending {
        qemu::Ending::Record => return None,
        qemu::Ending::Interrupted => LabError::Interrupted,
        _ if panicked => LabError::Panic {
            seconds: seen.elapsed,
            tail: tail(),
        },
        qemu::Ending::Exited(st) if seen.life_sign.is_none() => LabError::QemuFailed {
            binary: arch.qemu_binary(),
            status: st.to_string(),
            log: format!("{}\n{}", seen.qemu_log.trim(), tail()),
        },
        qemu::Ending::Exited(st) => LabError::Ended {
            status: st.to_string(),
            seconds: seen.elapsed,
            tail: tail(),
        },
        qemu::Ending::NoLifeSign | qemu::Ending::TimedOut => {
            let what = if seen.life_sign.is_none() {
                "the kernel printed nothing on its console".to_string()
            } else if seen.init.is_none() {
                format!(
                    "the kernel did not start init (boot limit {} s)",
                    spec.boot_timeout.as_secs()
                )
            } else if seen.done.is_none() {
                "syscost run in the guest did not finish".to_string()
            } else {
                "the guest did not send its record".to_string()
            };
            LabError::Hang {
                what,
                seconds: seen.elapsed,
                tail: tail(),
            }
        }
    })
}

/// What the host knows of a boot beyond what the guest's record says.
struct Facts {
    qemu_version: String,
    kernel_sha256: String,
    config_sha256: Option<String>,
    fallback: Option<String>,
    started: String,
}

/// The guest's record, checked (its frame, its clock) and given the lab's facts.
fn outcome(
    spec: &Spec,
    boot: &qemu::Boot,
    seen: qemu::Observed,
    kvm: bool,
    f: Facts,
) -> Result<Outcome, LabError> {
    let arch = spec.arch;
    let counting = spec.clock == Clock::Instructions;
    let tail = || qemu::tail(&seen.console, TAIL_LINES);
    let framed = frame::decode(&seen.record).map_err(|error| LabError::Frame {
        error,
        tail: tail(),
    })?;
    if framed.body.is_empty() {
        return Err(LabError::GuestRun {
            exit: framed.exit,
            tail: tail(),
        });
    }
    let record: RunRecord = serde_json::from_slice(&framed.body).map_err(LabError::Record)?;
    let got = record.environment.comparability.clock();
    if got != spec.clock {
        return Err(LabError::ClockMismatch {
            got,
            want: spec.clock,
        });
    }
    let accelerator = if kvm {
        Accelerator::Kvm
    } else {
        Accelerator::Tcg
    };
    let boot_s = seen.init;
    let lab = syscost_record::Lab {
        qemu: f.qemu_version,
        accelerator,
        machine: arch.machine().to_string(),
        cpu_model: boot.cpu_model().to_string(),
        vcpus: spec.cpus,
        memory_mib: spec.mem_mib,
        kernel_sha256: f.kernel_sha256,
        kernel_config_sha256: f.config_sha256,
        kvm_fallback: f.fallback,
        boot_s: boot_s.map(|b| (b * 10.0).round() / 10.0),
        icount: counting.then(|| qemu::ICOUNT.to_string()),
        seed: counting.then_some(qemu::SEED),
        kernel_package: package_beside(&spec.kernel),
    };
    Ok(Outcome {
        record: facts::apply(record, lab, &f.started),
        guest_exit: framed.exit,
        console: seen.console,
        accelerator,
        boot_s,
        total_s: seen.elapsed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The package `scripts/lab-kernels` noted beside an image is the record's provenance; a
    /// kernel without that note (built by hand) has none.
    #[test]
    fn the_package_noted_beside_an_image_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let image = dir.path().join("vmlinuz-6.1.0-50-amd64");
        std::fs::write(&image, b"x").unwrap();
        assert_eq!(package_beside(&image), None);
        std::fs::write(
            dir.path().join("SOURCE"),
            "package linux-image-6.1.0-50-amd64=6.1.176-1:amd64\nsuite bookworm\n\
             linux-image-6.1.0-50-amd64_6.1.176-1_amd64.deb 0123\n",
        )
        .unwrap();
        assert_eq!(
            package_beside(&image),
            Some(KernelPackage {
                name: "linux-image-6.1.0-50-amd64".into(),
                version: "6.1.176-1".into(),
                suite: Some("bookworm".into()),
            })
        );
        std::fs::write(dir.path().join("SOURCE"), "package nonsense\n").unwrap();
        assert_eq!(package_beside(&image), None);
    }
}
