//! seccomp filters that let the probe through: the kernel benchmark's four stacks, the depth
//! sweep, and a Docker-like allowlist built with seccompiler.
//!
//! Since 5.11 the kernel caches, per syscall, "every filter in the chain returns ALLOW whatever
//! the arguments" in a bitmap, and serves such calls without running any filter. A filter that
//! loads an argument defeats the cache for that syscall in itself *and every later filter*, which
//! is what the kernel benchmark's `full` stacks rely on.

use super::{Scenario, SetupError};
use crate::harness::{Batch, Probe, Syscall};
use seccompiler::{sock_filter, BpfProgram};
use std::collections::BTreeMap;

/// BPF_LD | BPF_W | BPF_ABS
const BPF_LD_W_ABS: u16 = 0x20;
/// BPF_RET | BPF_K
const BPF_RET_K: u16 = 0x06;
pub const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
/// offsetof(struct seccomp_data, args[0]): nr (4) + arch (4) + instruction_pointer (8).
const ARGS0_OFFSET: u32 = 16;

/// The Docker-like allowlist in seccompiler's JSON format, for this architecture.
#[cfg(target_arch = "x86_64")]
pub const PROFILE_JSON: &str = include_str!("../../profiles/docker-like.x86_64.json");
#[cfg(target_arch = "aarch64")]
pub const PROFILE_JSON: &str = include_str!("../../profiles/docker-like.aarch64.json");

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
    pub fn program(self) -> Result<BpfProgram, String> {
        let stmt = |code, k| sock_filter {
            code,
            jt: 0,
            jf: 0,
            k,
        };
        Ok(match self {
            Filter::ConstAllow => vec![stmt(BPF_LD_W_ABS, 0), stmt(BPF_RET_K, SECCOMP_RET_ALLOW)],
            Filter::ArgLoad => vec![
                stmt(BPF_LD_W_ABS, ARGS0_OFFSET),
                stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
            ],
            Filter::Profile => profile_program()?,
        })
    }
}

/// Compiles the bundled Docker-like profile for this architecture.
pub fn profile_program() -> Result<BpfProgram, String> {
    let arch = std::env::consts::ARCH.try_into().map_err(|e| {
        format!(
            "seccompiler does not support {}: {e:?}",
            std::env::consts::ARCH
        )
    })?;
    let mut map = seccompiler::compile_from_json(PROFILE_JSON.as_bytes(), arch)
        .map_err(|e| format!("bundled profile does not compile: {e}"))?;
    map.remove("docker_like")
        .ok_or_else(|| "bundled profile has no 'docker_like' filter".to_string())
}

/// Installs one filter on the calling thread (sets NO_NEW_PRIVS first, as unprivileged
/// seccomp requires). Errors say whether the kernel lacks the feature or refused this filter.
pub fn install(prog: &BpfProgram) -> Result<(), SetupError> {
    seccompiler::apply_filter(prog).map_err(|e| {
        let errno = match &e {
            seccompiler::Error::Seccomp(io) | seccompiler::Error::Prctl(io) => io.raw_os_error(),
            _ => None,
        };
        match errno {
            Some(libc::ENOSYS) => SetupError::Unsupported(
                "this kernel has no seccomp() syscall (CONFIG_SECCOMP is off)".into(),
            ),
            Some(libc::EINVAL) => SetupError::Unsupported(
                "the kernel refused SECCOMP_SET_MODE_FILTER with EINVAL (CONFIG_SECCOMP_FILTER \
                 off, or the process is already in strict mode)"
                    .into(),
            ),
            Some(libc::ENOMEM) => SetupError::Unsupported(
                "the kernel refused the filter with ENOMEM: the chain would exceed its \
                 instruction limit (MAX_INSNS_PER_PATH = 32768)"
                    .into(),
            ),
            _ => SetupError::Failed(format!("installing the seccomp filter failed: {e}")),
        }
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
            baseline: "native",
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
            "seccomp.bitmap.1".into(),
            format!("{s}, 1 constant-ALLOW filter (action cache)"),
            vec![ConstAllow],
            syscall,
        )),
        Box::new(Stack::new(
            "seccomp.bitmap.2".into(),
            format!("{s}, 2 constant-ALLOW filters (action cache)"),
            vec![ConstAllow, ConstAllow],
            syscall,
        )),
        Box::new(Stack::new(
            "seccomp.full.3".into(),
            format!("{s}, 2 constant filters + 1 loading args[0] (no cache)"),
            vec![ConstAllow, ConstAllow, ArgLoad],
            syscall,
        )),
        Box::new(Stack::new(
            "seccomp.full.4".into(),
            format!("{s}, as full.3 + 1 constant filter (no cache: the cache ANDs down the chain)"),
            vec![ConstAllow, ConstAllow, ArgLoad, ConstAllow],
            syscall,
        )),
    ];
    // The A/A control's copies of bitmap.1 (see baseline::REPLICAS).
    for (id, _) in super::baseline::REPLICAS
        .iter()
        .filter(|(_, of)| *of == "seccomp.bitmap.1")
    {
        let mut replica = Stack::new(
            (*id).into(),
            format!("{s}, 1 constant-ALLOW filter: an identical copy of seccomp.bitmap.1 in its own process (A/A control)"),
            vec![ConstAllow],
            syscall,
        );
        replica.baseline = "seccomp.bitmap.1";
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
        let mut probe = Probe::new(self.syscall).map_err(SetupError::Failed)?;
        for f in &self.filters {
            let prog = f.program().map_err(SetupError::Failed)?;
            install(&prog)?;
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
    fn run(&mut self, iters: u64) -> Batch {
        match &mut self.probe {
            Some(p) => p.run(iters, false),
            None => Batch::default(),
        }
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
        assert_eq!((b[1].code, b[1].k), (0x06, SECCOMP_RET_ALLOW));
        let f = Filter::ArgLoad.program().unwrap();
        assert_eq!((f[0].code, f[0].k), (0x20, 16));
    }
}
