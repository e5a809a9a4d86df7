//! seccomp filters that let the probe through: the kernel benchmark's four stacks, the depth
//! sweep, and a Docker-like allowlist built with seccompiler.
//!
//! Since 5.11 the kernel caches, per syscall, "every filter in the chain returns ALLOW whatever
//! the arguments" in a bitmap, and serves such calls without running any filter. A filter that
//! loads an argument defeats the cache for that syscall in itself *and every later filter*, which
//! is what the kernel benchmark's `full` stacks rely on.

use super::{RunError, Scenario, SetupError};
use crate::harness::{Batch, Probe, Syscall};
use crate::sys::seccomp::{self as filter, from_seccompiler, Insn, SeccompError, RET_ALLOW};
use libc::{c_long, c_ulong};
use std::collections::BTreeMap;
use syscost_record::KernelScenario;

/// The Docker-like allowlist in seccompiler's JSON format, for this architecture.
#[cfg(target_arch = "x86_64")]
pub const PROFILE_JSON: &str = include_str!("../../profiles/docker-like.x86_64.json");
#[cfg(target_arch = "aarch64")]
pub const PROFILE_JSON: &str = include_str!("../../profiles/docker-like.aarch64.json");
#[cfg(target_arch = "riscv64")]
pub const PROFILE_JSON: &str = include_str!("../../profiles/docker-like.riscv64.json");
/// seccompiler has no ppc64 target: the profile scenarios say so (ProfileError::Arch).
#[cfg(target_arch = "powerpc64")]
pub const PROFILE_JSON: &str = "";

/// The filters a scenario stacks, in installation order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// `ld [nr]; ret ALLOW`: the kernel benchmark's "bitmap" filter, cacheable.
    ConstAllow,
    /// `ld [args[0]]; ret ALLOW`: the "full" filter; the cache emulator gives up on it.
    ArgLoad,
    /// The Docker-like profile compiled by seccompiler.
    Profile,
}

impl Filter {
    pub fn program(self) -> Result<Vec<Insn>, ProfileError> {
        Ok(match self {
            Filter::ConstAllow => vec![filter::load_nr(), filter::ret(RET_ALLOW)],
            Filter::ArgLoad => vec![filter::load_arg0(), filter::ret(RET_ALLOW)],
            Filter::Profile => profile_program()?,
        })
    }
}

/// Why the bundled profile cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("seccompiler does not support {arch}: {reason}")]
    Arch { arch: &'static str, reason: String },
    #[error("bundled profile does not compile: {0}")]
    Compile(seccompiler::Error),
    #[error("bundled profile has no 'docker_like' filter")]
    Missing,
}

/// Compiles the bundled Docker-like profile for this architecture.
pub fn profile_program() -> Result<Vec<Insn>, ProfileError> {
    let arch = std::env::consts::ARCH;
    let target = arch.try_into().map_err(|e| ProfileError::Arch {
        arch,
        reason: format!("{e:?}"),
    })?;
    let mut map = seccompiler::compile_from_json(PROFILE_JSON.as_bytes(), target)
        .map_err(ProfileError::Compile)?;
    let prog = map.remove("docker_like").ok_or(ProfileError::Missing)?;
    Ok(from_seccompiler(&prog))
}

/// A profile seccompiler cannot compile for this architecture is missing here, not broken.
impl From<ProfileError> for SetupError {
    fn from(e: ProfileError) -> SetupError {
        match e {
            ProfileError::Arch { .. } => SetupError::Unsupported(e.to_string()),
            e => SetupError::failed(e),
        }
    }
}

/// Installs one filter on the calling thread (sets NO_NEW_PRIVS first, as unprivileged
/// seccomp requires); returns what seccomp() returned (the listener fd with
/// SECCOMP_FILTER_FLAG_NEW_LISTENER). Errors say whether the kernel lacks the feature or
/// refused this filter.
pub fn install(prog: &[Insn], flags: c_ulong) -> Result<c_long, SetupError> {
    filter::install(prog, flags).map_err(|e| match e {
        SeccompError::Refused(libc::ENOSYS) => SetupError::Unsupported(
            "this kernel has no seccomp() syscall (CONFIG_SECCOMP is off)".into(),
        ),
        SeccompError::Refused(libc::EINVAL) if flags != 0 => SetupError::Unsupported(format!(
            "the kernel refused seccomp filter flags {flags:#x} with EINVAL (too old for them)"
        )),
        SeccompError::Refused(libc::EINVAL) => SetupError::Unsupported(
            "the kernel refused SECCOMP_SET_MODE_FILTER with EINVAL (CONFIG_SECCOMP_FILTER \
             off, or the process is already in strict mode)"
                .into(),
        ),
        SeccompError::Refused(libc::ENOMEM) => SetupError::Unsupported(
            "the kernel refused the filter with ENOMEM: the chain would exceed its \
             instruction limit (MAX_INSNS_PER_PATH = 32768)"
                .into(),
        ),
        e => SetupError::failed(e),
    })
}

/// A stack of filters that all allow the probe.
pub struct Stack {
    id: String,
    description: String,
    filters: Vec<Filter>,
    syscall: Syscall,
    baseline: &'static str,
    probe: Option<Probe>,
}

impl Stack {
    fn new(id: String, description: String, filters: Vec<Filter>, syscall: Syscall) -> Stack {
        Stack {
            id,
            description,
            filters,
            syscall,
            baseline: KernelScenario::Native.id(),
            probe: None,
        }
    }
}

/// The depths of the sweep (seed 001 measured 1, 4 and 32).
pub const DEPTHS: [usize; 6] = [1, 2, 4, 8, 16, 32];

pub fn scenarios(syscall: Syscall) -> Vec<Box<dyn Scenario>> {
    use Filter::*;
    let s = syscall.describe();
    let mut v: Vec<Box<dyn Scenario>> = vec![
        Box::new(Stack::new(
            KernelScenario::Bitmap1.id().into(),
            format!("{s}, 1 constant-ALLOW filter (action cache)"),
            vec![ConstAllow],
            syscall,
        )),
        Box::new(Stack::new(
            KernelScenario::Bitmap2.id().into(),
            format!("{s}, 2 constant-ALLOW filters (action cache)"),
            vec![ConstAllow, ConstAllow],
            syscall,
        )),
        Box::new(Stack::new(
            KernelScenario::Full3.id().into(),
            format!("{s}, 2 constant filters + 1 loading args[0] (no cache)"),
            vec![ConstAllow, ConstAllow, ArgLoad],
            syscall,
        )),
        Box::new(Stack::new(
            KernelScenario::Full4.id().into(),
            format!("{s}, as full.3 + 1 constant filter (no cache: the cache ANDs down the chain)"),
            vec![ConstAllow, ConstAllow, ArgLoad, ConstAllow],
            syscall,
        )),
    ];
    // The A/A control's copies of bitmap.1 and bitmap.2 (see baseline::REPLICAS).
    for (id, of) in super::baseline::REPLICAS {
        let (original, filters) = match of {
            o if o == KernelScenario::Bitmap1.id() => (KernelScenario::Bitmap1, 1),
            o if o == KernelScenario::Bitmap2.id() => (KernelScenario::Bitmap2, 2),
            _ => continue,
        };
        let mut replica = Stack::new(
            id.into(),
            format!(
                "{s}, {filters} constant-ALLOW filter{}: an identical copy of {} in its own process (A/A control)",
                if filters == 1 { "" } else { "s" },
                original.id()
            ),
            vec![ConstAllow; filters],
            syscall,
        );
        replica.baseline = original.id();
        v.push(Box::new(replica));
    }
    for n in DEPTHS {
        v.push(Box::new(Stack::new(
            format!("seccomp.depth.{n}"),
            format!("{s}, {n} filter(s) loading args[0] (no cache)"),
            vec![ArgLoad; n],
            syscall,
        )));
    }
    v.push(Box::new(Stack::new(
        "seccomp.profile.cached".into(),
        format!("{s} under a Docker-like allowlist (allowed unconditionally: cached)"),
        vec![Profile],
        syscall,
    )));
    let mut argcheck = Stack::new(
        "seccomp.profile.argcheck".into(),
        "personality(0xffffffff) under the Docker-like allowlist (argument-checked: runs the \
         whole filter)"
            .into(),
        vec![Profile],
        Syscall::PersonalityQuery,
    );
    argcheck.baseline = "native.personality";
    v.push(Box::new(argcheck));
    v
}

impl Scenario for Stack {
    fn id(&self) -> String {
        self.id.clone()
    }
    fn family(&self) -> &'static str {
        "seccomp"
    }
    fn description(&self) -> String {
        self.description.clone()
    }
    fn baseline(&self) -> Option<String> {
        Some(self.baseline.into())
    }
    fn params(&self) -> BTreeMap<String, String> {
        let mut p = BTreeMap::new();
        p.insert("filters".into(), self.filters.len().to_string());
        let insns: Vec<String> = self
            .filters
            .iter()
            .map(|f| f.program().map(|p| p.len().to_string()).unwrap_or_default())
            .collect();
        p.insert("instructions".into(), insns.join("+"));
        let cacheable = self.filters.iter().all(|f| *f == Filter::ConstAllow)
            || (self.filters == [Filter::Profile] && self.syscall != Syscall::PersonalityQuery);
        p.insert("cacheable".into(), cacheable.to_string());
        p
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        let mut probe = Probe::new(self.syscall)?;
        for f in &self.filters {
            let prog = f.program()?;
            install(&prog, 0)?;
        }
        // The filters must let the probe through; check once before timing anything.
        let b = probe.run(16, false);
        if b.bad != 0 {
            return Err(SetupError::Failed(format!(
                "{} returned an unexpected value under the filter",
                self.syscall.describe()
            )));
        }
        self.probe = Some(probe);
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let p = self.probe.as_mut().ok_or(RunError::NotSetUp)?;
        Ok(p.run(iters, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_profile_compiles_and_is_docker_like() {
        let prog = profile_program().unwrap();
        assert!(prog.len() > 300, "only {} instructions", prog.len());
        // Every probe syscall must be allowed unconditionally for profile.cached to make sense.
        let json: serde_json::Value = serde_json::from_str(PROFILE_JSON).unwrap();
        let rules = json["docker_like"]["filter"].as_array().unwrap();
        let plain: Vec<&str> = rules
            .iter()
            .filter(|r| r.get("args").is_none())
            .filter_map(|r| r["syscall"].as_str())
            .collect();
        for name in [
            "getpid", "getppid", "getpgid", "getuid", "gettid", "sysinfo", "dup", "close", "umask",
        ] {
            assert!(plain.contains(&name), "{name} not allowed unconditionally");
        }
        assert!(plain.len() > 250, "{} unconditional rules", plain.len());
        assert!(!plain.contains(&"personality"));
    }

    #[test]
    fn kernel_benchmark_filters_are_two_instructions() {
        let b = Filter::ConstAllow.program().unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!((b[0].code, b[0].k), (0x20, 0));
        assert_eq!((b[1].code, b[1].k), (0x06, RET_ALLOW));
        let f = Filter::ArgLoad.program().unwrap();
        assert_eq!((f[0].code, f[0].k), (0x20, 16));
    }
}
