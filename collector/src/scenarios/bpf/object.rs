//! The BPF object (compiled from collector/bpf/syscost.bpf.c by scripts/gen-bpf and embedded
//! here): loading one program of it, attaching it, reading its hit counter, and turning
//! libbpf's errors and verifier log into reasons.

use super::kind::Kind;
use libbpf_rs::{Link, MapCore, MapFlags, Object, ObjectBuilder, PrintLevel, TracepointCategory};
use std::path::PathBuf;
use std::sync::Mutex;

/// The object built by scripts/gen-bpf; its stamp records the sources and clang version.
pub static OBJECT: &[u8] = include_bytes!("../../../bpf/syscost.bpf.o");

/// `struct syscost_cfg` of syscost.bpf.c: the program's read-only configuration.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Config {
    /// Only this process's calls count (and, for fmod_ret, are rewritten).
    pub tgid: u32,
    pub pad: u32,
    /// Syscall number the raw tracepoint filters on.
    pub nr: i64,
    /// What fmod_ret returns for the worker's calls.
    pub ret: i64,
}

impl Config {
    fn to_bytes(self) -> [u8; 24] {
        let mut b = [0u8; 24];
        b[0..4].copy_from_slice(&self.tgid.to_ne_bytes());
        b[4..8].copy_from_slice(&self.pad.to_ne_bytes());
        b[8..16].copy_from_slice(&self.nr.to_ne_bytes());
        b[16..24].copy_from_slice(&self.ret.to_ne_bytes());
        b
    }
}

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

/// A libbpf failure: what was attempted, errno when known, and the tail of libbpf's log.
#[derive(Debug, Clone)]
pub struct BpfError {
    pub what: String,
    pub message: String,
    pub errno: Option<i32>,
    /// The verifier's log (or libbpf's last warnings), possibly empty.
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
    /// The message with libbpf's log excerpt, when there is one.
    pub fn with_log(&self) -> String {
        if self.log.is_empty() {
            self.to_string()
        } else {
            format!("{self} [log: {}]", self.log)
        }
    }
}

/// Longest log excerpt kept in a reason (the worker's message to the parent is 4 KiB).
const LOG_EXCERPT: usize = 900;
/// What the capture buffer keeps of libbpf's output.
const LOG_KEEP: usize = 16 * 1024;

static LOG: Mutex<String> = Mutex::new(String::new());

fn capture(_level: PrintLevel, msg: String) {
    // try_lock: in a forked worker a lock held by another thread of the parent at fork time
    // would never be released; losing a log line is better than hanging.
    if let Ok(mut log) = LOG.try_lock() {
        log.push_str(&msg);
        if log.len() > LOG_KEEP {
            let mut cut = log.len() - LOG_KEEP;
            while !log.is_char_boundary(cut) {
                cut += 1;
            }
            log.drain(..cut);
        }
    }
}

/// Routes libbpf's messages into our buffer (not the terminal) and empties it.
fn start_capture() {
    libbpf_rs::set_print(Some((PrintLevel::Info, capture)));
    if let Ok(mut log) = LOG.try_lock() {
        log.clear();
    }
}

/// The useful part of what libbpf printed: the verifier log if there is one, else its
/// warnings; bounded, newest lines kept.
fn take_log() -> (String, bool) {
    let text = LOG
        .try_lock()
        .map(|mut l| std::mem::take(&mut *l))
        .unwrap_or_default();
    (excerpt(&text), text.contains(BEGIN_LOG))
}

const BEGIN_LOG: &str = "-- BEGIN PROG LOAD LOG --";

pub fn excerpt(text: &str) -> String {
    let body = match (text.find(BEGIN_LOG), text.find("-- END PROG LOAD LOG --")) {
        (Some(b), Some(e)) if b < e => &text[b + BEGIN_LOG.len()..e],
        _ => text,
    };
    let joined = body
        .lines()
        .map(|l| l.trim().trim_start_matches("libbpf: "))
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

/// errno of a libbpf-rs error: its chain ends in an `io::Error` printed as "(os error N)".
fn errno_of(text: &str) -> Option<i32> {
    let start = text.rfind("(os error ")? + "(os error ".len();
    let end = text[start..].find(')')? + start;
    text[start..end].parse().ok()
}

fn bpf_error(what: String, e: &libbpf_rs::Error) -> BpfError {
    let mut parts = vec![e.to_string()];
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        parts.push(s.to_string());
        src = s.source();
    }
    let message = parts.join(": ");
    let (log, verifier_log) = take_log();
    BpfError {
        what,
        errno: errno_of(&message),
        message,
        log,
        verifier_log,
    }
}

/// Why the hit counter could not be read.
#[derive(Debug, thiserror::Error)]
pub enum HitsError {
    #[error("the BPF object has no .bss map")]
    NoBss,
    #[error("reading the hit counter: {0}")]
    Lookup(libbpf_rs::Error),
    #[error("the hit counter is missing")]
    Missing,
    #[error("the hit counter is not 8 bytes")]
    Size,
}

/// One program of the object, loaded (the others are never loaded: one refused program must
/// not take the rest down).
pub struct Loaded {
    obj: Object,
    kind: Kind,
}

impl Loaded {
    /// Opens the embedded object, keeps only `kind`'s program, writes `cfg`, loads.
    /// `trampoline_targets`: for fentry/fexit/fmod_ret, the kernel function's candidate names
    /// (empty for other kinds).
    pub fn load(
        kind: Kind,
        cfg: Config,
        trampoline_targets: &[String],
    ) -> Result<Loaded, BpfError> {
        start_capture();
        let open_err = |e: &libbpf_rs::Error| bpf_error("opening the BPF object".into(), e);
        let mut builder = ObjectBuilder::default();
        builder.name("syscost").map_err(|e| open_err(&e))?;
        let mut open = builder.open_memory(OBJECT).map_err(|e| open_err(&e))?;
        let mut found = false;
        for mut prog in open.progs_mut() {
            let mine = prog.name() == kind.program();
            prog.set_autoload(mine);
            if !mine {
                continue;
            }
            found = true;
            // The first name the kernel's BTF knows (aliases of one function may appear in it
            // under only one of their names).
            let mut last = None;
            for func in trampoline_targets {
                match prog.set_attach_target(0, Some(func.clone())) {
                    Ok(()) => {
                        last = None;
                        break;
                    }
                    Err(e) => {
                        last = Some(bpf_error(
                            format!(
                                "finding {} in the kernel's BTF",
                                trampoline_targets.join(" or ")
                            ),
                            &e,
                        ))
                    }
                }
            }
            if let Some(e) = last {
                return Err(e);
            }
        }
        if !found {
            return Err(BpfError {
                what: "opening the BPF object".into(),
                message: format!("it has no program {}", kind.program()),
                errno: None,
                log: String::new(),
                verifier_log: false,
            });
        }
        let mut wrote = false;
        for mut map in open.maps_mut() {
            if !map.name().to_string_lossy().ends_with(".rodata") {
                continue;
            }
            let bytes = cfg.to_bytes();
            match map.initial_value_mut() {
                Some(v) if v.len() == bytes.len() => {
                    v.copy_from_slice(&bytes);
                    wrote = true;
                }
                other => {
                    return Err(BpfError {
                        what: "configuring the BPF object".into(),
                        message: format!(
                            "its .rodata holds {:?} bytes, expected {} (struct syscost_cfg \
                             and object.rs's Config disagree: run scripts/gen-bpf)",
                            other.map(|v| v.len()),
                            bytes.len()
                        ),
                        errno: None,
                        log: String::new(),
                        verifier_log: false,
                    });
                }
            }
        }
        if !wrote {
            return Err(BpfError {
                what: "configuring the BPF object".into(),
                message: "it has no .rodata map for its configuration".into(),
                errno: None,
                log: String::new(),
                verifier_log: false,
            });
        }
        let obj = open
            .load()
            .map_err(|e| bpf_error(format!("loading {}", kind.program()), &e))?;
        Ok(Loaded { obj, kind })
    }

    /// Attaches the program; dropping the link detaches it.
    pub fn attach(&self, target: &Target) -> Result<Link, BpfError> {
        start_capture();
        let prog = self
            .obj
            .progs_mut()
            .find(|p| p.name() == self.kind.program())
            .ok_or_else(|| BpfError {
                what: "attaching".into(),
                message: format!("program {} is not loaded", self.kind.program()),
                errno: None,
                log: String::new(),
                verifier_log: false,
            })?;
        let r = match target {
            Target::Tracepoint(name) => prog.attach_tracepoint(TracepointCategory::Syscalls, name),
            Target::RawTracepoint(name) => prog.attach_raw_tracepoint(name),
            Target::Kprobe { func, ret } => prog.attach_kprobe(*ret, func),
            Target::KprobeMulti(func) => prog.attach_kprobe_multi(false, vec![func.as_str()]),
            Target::Trampoline => prog.attach_trace(),
            Target::Uprobe {
                path,
                offset,
                pid,
                ret,
            } => prog.attach_uprobe(*ret, *pid, path, *offset),
        };
        r.map_err(|e| {
            bpf_error(
                format!("attaching {} ({target:?})", self.kind.program()),
                &e,
            )
        })
    }

    /// The program's hit counter (the `hits` global in .bss).
    pub fn hits(&self) -> Result<u64, HitsError> {
        let map = self
            .obj
            .maps()
            .find(|m| m.name().to_string_lossy().ends_with(".bss"))
            .ok_or(HitsError::NoBss)?;
        let value = map
            .lookup(&0u32.to_ne_bytes(), MapFlags::ANY)
            .map_err(HitsError::Lookup)?
            .ok_or(HitsError::Missing)?;
        let bytes: [u8; 8] = value
            .get(..8)
            .and_then(|b| b.try_into().ok())
            .ok_or(HitsError::Size)?;
        Ok(u64::from_ne_bytes(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errno_and_log_excerpts() {
        assert_eq!(
            errno_of("loading: Operation not permitted (os error 1)"),
            Some(1)
        );
        assert_eq!(errno_of("no errno here"), None);
        let log = "libbpf: prog 'x': BPF program load failed: Permission denied\n\
                   libbpf: prog 'x': -- BEGIN PROG LOAD LOG --\n0: R1=ctx\ninvalid access\n\
                   -- END PROG LOAD LOG --\nlibbpf: failed to load object\n";
        assert_eq!(excerpt(log), "0: R1=ctx | invalid access");
        let long = "x".repeat(5000);
        let e = excerpt(&long);
        assert!(e.len() <= LOG_EXCERPT + "…".len() && e.starts_with('…'));
    }

    #[test]
    fn the_embedded_object_has_every_program() {
        let mut b = ObjectBuilder::default();
        let open = b.open_memory(OBJECT).unwrap();
        let names: Vec<String> = open
            .progs()
            .map(|p| p.name().to_string_lossy().into_owned())
            .collect();
        for k in Kind::ALL {
            assert!(names.iter().any(|n| n == k.program()), "{k:?} missing");
        }
        let rodata = open
            .maps()
            .find(|m| m.name().to_string_lossy().ends_with(".rodata"))
            .unwrap();
        assert_eq!(rodata.value_size() as usize, std::mem::size_of::<Config>());
    }
}
