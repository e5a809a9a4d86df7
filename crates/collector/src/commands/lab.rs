//! `syscost lab`: boots a kernel in QEMU, runs `syscost run` inside, and writes the record like
//! `run` does. `syscost lab-matrix` is in [`super::lab_matrix`].

use super::run::{emit, Output};
use crate::cli::{AccelArg, ArchArg, Cli, ClockArg, Command, GuestArgs, LabArgs};
use crate::error::Error;
use crate::lab::initramfs::{self, Contents};
use crate::lab::{self, AccelChoice, Arch, Spec};
use crate::sys::signals;
use clap::Parser;
use std::path::{Path, PathBuf};
use std::time::Duration;
use syscost_record::Clock;

pub fn arch_of(a: ArchArg) -> Arch {
    match a {
        ArchArg::X86_64 => Arch::X86_64,
        ArchArg::Aarch64 => Arch::Aarch64,
        ArchArg::Riscv64 => Arch::Riscv64,
        ArchArg::Ppc64le => Arch::Ppc64le,
    }
}

pub fn accel_of(a: AccelArg) -> AccelChoice {
    match a {
        AccelArg::Auto => AccelChoice::Auto,
        AccelArg::Kvm => AccelChoice::Kvm,
        AccelArg::Tcg => AccelChoice::Tcg,
    }
}

/// The guest's `syscost run` arguments, checked here (a typo fails now, not after a boot);
/// returns them and the budget they give.
pub fn check_run_args(args: &[String]) -> Result<f64, Error> {
    let argv = ["syscost", "run"]
        .into_iter()
        .map(String::from)
        .chain(args.iter().cloned());
    let cli = Cli::try_parse_from(argv).map_err(|e| {
        Error::Argument(format!(
            "the guest's run arguments ({}): {}",
            args.join(" "),
            e.to_string().trim()
        ))
    })?;
    let Command::Run(run) = cli.command else {
        return Err(Error::Argument("not run arguments".into()));
    };
    super::run::check_numbers(&run)?;
    if run.json || run.output.is_some() || run.save.is_some() {
        return Err(Error::Argument(
            "--json, -o and --save belong to syscost lab (before `--`): the guest always sends \
             its record back as JSON"
                .into(),
        ));
    }
    if run.clock != ClockArg::Time {
        return Err(Error::Argument(
            "--clock belongs to syscost lab, as --count instructions (before `--`): the lab \
             makes the guest's clock count instructions and tells its syscost run so"
                .into(),
        ));
    }
    Ok(run.budget)
}

/// How a guest is booted, from the arguments shared by `lab` and `lab-matrix`.
#[derive(Debug, Clone, Copy)]
pub struct Guest {
    pub accel: AccelChoice,
    pub clock: Clock,
    pub cpus: u32,
}

impl Guest {
    pub fn of(g: &GuestArgs) -> Result<Guest, Error> {
        let clock = match g.count {
            ClockArg::Time => Clock::Time,
            ClockArg::Instructions => Clock::Instructions,
        };
        let counting = clock == Clock::Instructions;
        if counting && g.accel == AccelArg::Kvm {
            return Err(Error::Argument(
                "--count instructions runs under TCG (QEMU counts instructions only when it \
                 translates them): leave out --accel kvm"
                    .into(),
            ));
        }
        let cpus = g.cpus.unwrap_or(if counting { 1 } else { 2 });
        if cpus == 0 || cpus > 64 {
            return Err(Error::Argument(format!(
                "--cpus must be 1 to 64, got {cpus}"
            )));
        }
        Ok(Guest {
            accel: accel_of(g.accel),
            clock,
            cpus,
        })
    }

    /// The guest's `syscost run` arguments: `--clock instructions` first when it counts them.
    pub fn run_args(&self, args: &[String]) -> Vec<String> {
        let mut v = Vec::new();
        if self.clock == Clock::Instructions {
            v.extend(["--clock".to_string(), "instructions".to_string()]);
        }
        v.extend(args.iter().cloned());
        v
    }

    /// The whole run's limit when none is given: the boot, then the guest's budget — which
    /// under an instruction-counting clock is 10⁹ instructions a second, several times longer
    /// in the host's time than in the guest's (QEMU emulates some 10⁸ a second here) — and a
    /// margin.
    pub fn timeout(&self, boot: Duration, budget: f64) -> Duration {
        let stretch = if self.clock == Clock::Instructions {
            20.0
        } else {
            3.0
        };
        boot + Duration::from_secs_f64(budget * stretch + 180.0)
    }
}

/// A directory of its own under the system's temp dir, removed when dropped.
pub struct WorkDir(pub PathBuf);

impl WorkDir {
    pub fn new(what: &str) -> Result<WorkDir, Error> {
        let base = std::env::temp_dir();
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let dir = base.join(format!("syscost-{what}.{}.{nanos}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|source| Error::Save {
            path: dir.clone(),
            source,
        })?;
        Ok(WorkDir(dir))
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The lab cache directory: $SYSCOST_LAB_CACHE, else $XDG_CACHE_HOME/syscost, else
/// ~/.cache/syscost (what scripts/lab-kernels fills).
pub fn cache_dir() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    var("SYSCOST_LAB_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("syscost")))
        .or_else(|| var("HOME").map(|h| h.join(".cache/syscost")))
}

/// The static syscost executable for a guest of `arch`: the given one of that architecture, or
/// this one when it is static, or the musl build in this one's target directory.
fn guest_binary(arch: Arch, given: &[PathBuf]) -> Result<PathBuf, Error> {
    if !given.is_empty() {
        let of_arch =
            |p: &PathBuf| crate::lab::elf::read(p).is_ok_and(|e| e.machine == arch.elf_machine());
        return given.iter().find(|p| of_arch(p)).cloned().ok_or_else(|| {
            Error::Argument(format!(
                "none of the --guest-binary executables ({}) is an {arch} ELF executable",
                given
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        });
    }
    let me = std::env::current_exe().map_err(Error::SelfExe)?;
    if Arch::host() == Some(arch) && initramfs::check_static(&me, arch).is_ok() {
        return Ok(me);
    }
    // <target>[/<triple>]/<profile>/syscost → <target>/<arch's musl triple>/<profile>/syscost
    let candidate = me.parent().and_then(|profile_dir| {
        let profile = profile_dir.file_name()?;
        let mut target = profile_dir.parent()?;
        if target
            .file_name()
            .is_some_and(|t| t.to_string_lossy().contains("-linux-"))
        {
            target = target.parent()?;
        }
        Some(
            target
                .join(arch.rust_target())
                .join(profile)
                .join("syscost"),
        )
    });
    match candidate {
        Some(c) if c.is_file() => Ok(c),
        c => Err(Error::Argument(format!(
            "no static syscost built for {arch}{}: build it with `cargo build --release -p \
             syscost --target {}` (`rustup target add {}` first), or give --guest-binary",
            c.map(|c| format!(" at {}", c.display()))
                .unwrap_or_default(),
            arch.rust_target(),
            arch.rust_target()
        ))),
    }
}

fn busybox(arch: Arch, given: &Option<PathBuf>) -> Result<PathBuf, Error> {
    if let Some(p) = given {
        return Ok(p.clone());
    }
    let cached = cache_dir().map(|c| c.join("userland").join(arch.name()).join("busybox"));
    if let Some(c) = cached.as_ref().filter(|c| c.is_file()) {
        return Ok(c.clone());
    }
    let system = Path::new("/bin/busybox");
    if Arch::host() == Some(arch) && system.is_file() {
        return Ok(system.to_path_buf());
    }
    Err(Error::Argument(format!(
        "no busybox for {arch}{}: fetch it with scripts/lab-kernels (or install busybox-static \
         for this machine's architecture), or give --busybox",
        cached
            .map(|c| format!(" at {}", c.display()))
            .unwrap_or_default()
    )))
}

/// The initramfs contents for a guest of `arch`.
pub fn contents(
    arch: Arch,
    g: &GuestArgs,
    config: Option<PathBuf>,
    run_args: Vec<String>,
) -> Result<Contents, Error> {
    let syscost = guest_binary(arch, &g.guest_binary)?;
    Ok(Contents {
        arch,
        syscost,
        busybox: busybox(arch, &g.busybox)?,
        config,
        run_args,
    })
}

fn seconds(flag: &str, v: f64) -> Result<Duration, Error> {
    if !(v.is_finite() && v > 0.0 && v <= 86_400.0) {
        return Err(Error::Argument(format!(
            "{flag} must be a positive number of seconds up to a day, got {v}"
        )));
    }
    Ok(Duration::from_secs_f64(v))
}

/// The boot limit: what --boot-timeout says, or what this accelerator and architecture need.
pub fn boot_limit(g: &GuestArgs, arch: Arch) -> Result<Duration, Error> {
    match g.boot_timeout {
        Some(v) => seconds("--boot-timeout", v),
        None if g.accel == AccelArg::Kvm => Ok(Duration::from_secs(60)),
        None if arch != Arch::X86_64 => Ok(Duration::from_secs(600)),
        None => Ok(Duration::from_secs(300)),
    }
}

/// Everything a lab run needs, from the arguments.
pub fn spec(
    kernel: &Path,
    arch: Option<ArchArg>,
    config: Option<PathBuf>,
    g: &GuestArgs,
    timeout: Option<f64>,
    run_args: &[String],
    work: &Path,
) -> Result<Spec, Error> {
    let budget = check_run_args(run_args)?;
    let guest = Guest::of(g)?;
    if g.mem < 256 {
        return Err(Error::Argument(format!(
            "--mem must be at least 256 (MiB), got {}",
            g.mem
        )));
    }
    let arch = lab::image_arch(kernel, arch.map(arch_of))?;
    let config = config.or_else(|| lab::config_beside(kernel));
    let boot_timeout = boot_limit(g, arch)?;
    let timeout = match timeout {
        Some(t) => seconds("--timeout", t)?,
        None => guest.timeout(boot_timeout, budget),
    };
    Ok(Spec {
        kernel: kernel.to_path_buf(),
        arch,
        accel: guest.accel,
        clock: guest.clock,
        cpus: guest.cpus,
        mem_mib: g.mem,
        boot_timeout,
        timeout,
        contents: contents(arch, g, config.clone(), guest.run_args(run_args))?,
        config,
        append: g.append.clone(),
        work_dir: work.join("guest"),
    })
}

pub fn run(args: &LabArgs) -> Result<i32, Error> {
    // Before booting anything: a guest's run is minutes lost when its record cannot be written.
    for path in args.out.output.iter().chain(&args.console) {
        crate::report::json::check_writable_file(path).map_err(Error::Destination)?;
    }
    let work = WorkDir::new("lab")?;
    let spec = spec(
        &args.kernel,
        args.arch,
        args.config.clone(),
        &args.guest,
        args.timeout,
        &args.run_args,
        &work.0,
    )?;
    if Arch::host() == Some(spec.arch)
        && args.guest.guest_binary.is_empty()
        && cfg!(debug_assertions)
    {
        eprintln!(
            "syscost lab: warning: this is a debug build, and the guest runs it too: its loops \
             are not optimised (build with --release)"
        );
    }
    match &spec.config {
        Some(c) => eprintln!(
            "syscost lab: kernel config {} (at /boot/config-<release> in the guest)",
            c.display()
        ),
        None => eprintln!(
            "syscost lab: no kernel config given or found beside the image: the guest reads \
             none unless the kernel has /proc/config.gz (skip reasons then cannot name options)"
        ),
    }
    let stop = signals::stop_flag();
    let result = lab::run(&spec, &stop, &mut |m| eprintln!("syscost lab: {m}"));
    if let Some(path) = &args.console {
        let log = spec.work_dir.join("console.log");
        if let Ok(bytes) = std::fs::read(&log) {
            crate::report::json::write_output(path, &bytes)?;
            eprintln!("syscost lab: console written to {}", path.display());
        }
    }
    let outcome = result?;
    let c = &outcome.record.environment.comparability;
    eprintln!(
        "syscost lab: Linux {} {} under {}: init after {}, everything in {:.0} s",
        c.kernel_release,
        c.arch,
        outcome.accelerator.name().to_uppercase(),
        outcome
            .boot_s
            .map_or("?".to_string(), |b| format!("{b:.1} s")),
        outcome.total_s
    );
    emit(
        &Output {
            json: args.out.json,
            output: args.out.output.clone(),
            save: args.out.save.clone(),
        },
        &outcome.record,
    )
}
