//! One program of a kind, loaded with its hit counter: building it (programs.rs), finding a
//! trampoline's target in the kernel's BTF, loading, attaching, reading the counter, and
//! turning the kernel's refusals and verifier log into reasons.

use super::host;
use super::kind::Kind;
use super::programs::{self, LICENSE};
use crate::sys::bpf::{btf, perf, Map, ProgSpec, Program};
use std::ffi::CString;
use std::io;
use std::path::PathBuf;

pub use super::programs::Config;
pub use crate::sys::bpf::Link;

/// Where a program is attached.
#[derive(Debug, Clone)]
pub enum Target {
    Tracepoint(String),
    RawTracepoint(&'static str),
    Kprobe {
        func: String,
        ret: bool,
    },
    KprobeMulti(String),
    /// fentry/fexit/fmod_ret: the target was fixed at load time.
    Trampoline,
    Uprobe {
        path: PathBuf,
        offset: usize,
        pid: i32,
        ret: bool,
    },
}

/// A BPF failure: what was attempted, errno when known, and the verifier's log.
#[derive(Debug, Clone)]
pub struct BpfError {
    pub what: String,
    pub message: String,
    pub errno: Option<i32>,
    /// An excerpt of the verifier's log, possibly empty.
    pub log: String,
    /// Whether the kernel returned a verifier log at all (an EPERM without one is a refusal
    /// before verification: lockdown, an LSM, a sandbox).
    pub verifier_log: bool,
}

impl std::fmt::Display for BpfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.what, self.message)
    }
}

impl BpfError {
    /// The message with the verifier's log excerpt, when there is one.
    pub fn with_log(&self) -> String {
        if self.log.is_empty() {
            self.to_string()
        } else {
            format!("{self} [log: {}]", self.log)
        }
    }

    fn new(what: String, message: String) -> BpfError {
        BpfError {
            what,
            message,
            errno: None,
            log: String::new(),
            verifier_log: false,
        }
    }

    fn io(what: String, step: &str, e: &io::Error) -> BpfError {
        BpfError {
            errno: e.raw_os_error(),
            ..BpfError::new(what, format!("{step}: {e}"))
        }
    }
}

/// Longest log excerpt kept in a reason (the worker's message to the parent is 4 KiB).
const LOG_EXCERPT: usize = 900;

/// The verifier's log on one line, bounded, newest lines kept (the reason is at the end).
pub fn excerpt(text: &str) -> String {
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ");
    if joined.len() <= LOG_EXCERPT {
        return joined;
    }
    let mut cut = joined.len() - LOG_EXCERPT;
    while !joined.is_char_boundary(cut) {
        cut += 1;
    }
    format!("…{}", &joined[cut..])
}

/// Why the hit counter could not be read.
#[derive(Debug, thiserror::Error)]
pub enum HitsError {
    #[error("reading the hit counter: {0}")]
    Lookup(io::Error),
}

/// The id of the first of `names` the kernel's BTF has as a function (aliases of one function
/// may appear in it under only one of their names).
fn trampoline_target(names: &[String]) -> Result<u32, BpfError> {
    let what = || format!("finding {} in the kernel's BTF", names.join(" or "));
    let blob = std::fs::read(btf::VMLINUX).map_err(|e| BpfError::io(what(), btf::VMLINUX, &e))?;
    for name in names {
        match btf::find_func(&blob, name) {
            Ok(Some(id)) => return Ok(id),
            Ok(None) => {}
            Err(e) => {
                return Err(BpfError {
                    errno: Some(libc::EINVAL),
                    ..BpfError::new(what(), format!("{}: {e}", btf::VMLINUX))
                })
            }
        }
    }
    Err(BpfError {
        errno: Some(libc::ESRCH),
        ..BpfError::new(what(), "no function of these names".into())
    })
}

/// A kind's program, loaded, and its hit counter.
pub struct Loaded {
    prog: Program,
    hits: Map,
    kind: Kind,
}

impl Loaded {
    /// Creates the counter, builds `kind`'s program for `cfg`, loads it.
    /// `trampoline_targets`: for fentry/fexit/fmod_ret, the kernel function's candidate names
    /// (empty for other kinds).
    pub fn load(
        kind: Kind,
        cfg: Config,
        trampoline_targets: &[String],
    ) -> Result<Loaded, BpfError> {
        let name = kind.program();
        let hits = Map::array_u64("syscost_hits", 1).map_err(|e| {
            BpfError::io(format!("creating {name}'s counter"), "BPF_MAP_CREATE", &e)
        })?;
        let insns = programs::program(kind, &cfg, hits.fd())
            .map_err(|e| BpfError::new(format!("building {name}"), e.to_string()))?;
        let attach_btf_id = if kind.is_trampoline() {
            trampoline_target(trampoline_targets)?
        } else {
            0
        };
        let (prog_type, attach_type) = programs::types(kind);
        let spec = ProgSpec {
            name,
            prog_type,
            attach_type,
            attach_btf_id,
            license: LICENSE,
            insns: &insns,
        };
        let prog = Program::load(&spec).map_err(|e| BpfError {
            what: format!("loading {name}"),
            message: e.to_string(),
            errno: Some(e.errno),
            log: excerpt(&e.log),
            verifier_log: !e.log.is_empty(),
        })?;
        Ok(Loaded { prog, hits, kind })
    }

    /// Attaches the program; dropping the link detaches it.
    pub fn attach(&self, target: &Target) -> Result<Link, BpfError> {
        let what = || format!("attaching {} ({target:?})", self.kind.program());
        let fail = |step: &str, e: io::Error| BpfError::io(what(), step, &e);
        let cstring = |s: Vec<u8>| {
            CString::new(s).map_err(|_| BpfError::new(what(), "a NUL byte in a name".into()))
        };
        match target {
            Target::Tracepoint(name) => {
                let path = format!("{}/events/syscalls/{name}/id", host::tracefs_dir());
                let id = std::fs::read_to_string(&path)
                    .map_err(|e| fail(&path, e))?
                    .trim()
                    .parse::<u64>()
                    .map_err(|_| BpfError::new(what(), format!("{path} does not hold a number")))?;
                let event = perf::tracepoint(id).map_err(|e| fail("perf_event_open", e))?;
                self.prog
                    .attach_perf(event)
                    .map_err(|e| fail("attaching", e))
            }
            Target::RawTracepoint(name) => {
                let name = cstring(name.as_bytes().to_vec())?;
                self.prog
                    .attach_raw_tracepoint(Some(&name))
                    .map_err(|e| fail("BPF_RAW_TRACEPOINT_OPEN", e))
            }
            Target::Kprobe { func, ret } => {
                let func = cstring(func.as_bytes().to_vec())?;
                let probe = perf::Probe {
                    pmu: "kprobe",
                    ret: *ret,
                    name: &func,
                    offset: 0,
                    pid: -1,
                };
                let event = perf::probe(&probe).map_err(|e| fail("perf_event_open", e))?;
                self.prog
                    .attach_perf(event)
                    .map_err(|e| fail("attaching", e))
            }
            Target::KprobeMulti(func) => {
                let func = cstring(func.as_bytes().to_vec())?;
                self.prog
                    .attach_kprobe_multi(&func)
                    .map_err(|e| fail("BPF_LINK_CREATE", e))
            }
            Target::Trampoline => self
                .prog
                .attach_raw_tracepoint(None)
                .map_err(|e| fail("BPF_RAW_TRACEPOINT_OPEN", e)),
            Target::Uprobe {
                path,
                offset,
                pid,
                ret,
            } => {
                use std::os::unix::ffi::OsStrExt;
                let file = cstring(path.as_os_str().as_bytes().to_vec())?;
                let probe = perf::Probe {
                    pmu: "uprobe",
                    ret: *ret,
                    name: &file,
                    offset: *offset as u64,
                    pid: *pid,
                };
                let event = perf::probe(&probe).map_err(|e| fail("perf_event_open", e))?;
                self.prog
                    .attach_perf(event)
                    .map_err(|e| fail("attaching", e))
            }
        }
    }

    /// The program's hit counter.
    pub fn hits(&self) -> Result<u64, HitsError> {
        self.hits.get_u64(0).map_err(HitsError::Lookup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_excerpts_keep_the_end() {
        assert_eq!(
            excerpt("0: R1=ctx\n\ninvalid access\n"),
            "0: R1=ctx | invalid access"
        );
        let long = "x".repeat(5000);
        let e = excerpt(&long);
        assert!(e.len() <= LOG_EXCERPT + "…".len() && e.starts_with('…'));
    }
}
