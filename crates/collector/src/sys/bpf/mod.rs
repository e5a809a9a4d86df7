//! bpf(2) directly, for what the BPF scenarios need: an array map read back by key, a program
//! loaded from instructions (with the verifier's log when the kernel refuses it), and the links
//! that attach it — tracepoint, kprobe and uprobe perf events, raw tracepoints, trampolines,
//! kprobe.multi. Every object is a file descriptor: dropping it (or the death of the process)
//! detaches and frees it.
//!
//! Hand-written instead of libbpf (C, which needs libelf and zlib to build) or aya (no fmod_ret
//! or kprobe.multi, and newer releases need a newer Rust): see ARCHITECTURE.md. The attribute
//! layouts are `union bpf_attr`'s members from include/uapi/linux/bpf.h, cut after the last
//! field used; the kernel treats the missing rest as zero.

pub mod btf;
pub mod insn;
pub mod perf;

use insn::Insn;
use std::ffi::{c_char, CStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const BPF_MAP_CREATE: u32 = 0;
const BPF_MAP_LOOKUP_ELEM: u32 = 1;
const BPF_PROG_LOAD: u32 = 5;
const BPF_PROG_GET_NEXT_ID: u32 = 11;
const BPF_PROG_GET_FD_BY_ID: u32 = 13;
const BPF_OBJ_GET_INFO_BY_FD: u32 = 15;
const BPF_RAW_TRACEPOINT_OPEN: u32 = 17;
const BPF_LINK_CREATE: u32 = 28;
const BPF_LINK_GET_NEXT_ID: u32 = 31;

const BPF_MAP_TYPE_ARRAY: u32 = 2;

/// `enum bpf_prog_type`: the ones syscost loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgType {
    Kprobe = 2,
    Tracepoint = 5,
    RawTracepoint = 17,
    Tracing = 26,
}

/// `enum bpf_attach_type`: what a program expects to be attached to, fixed at load time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttachType {
    /// None given (0 is also BPF_CGROUP_INET_INGRESS, which these program types ignore).
    Unspecified = 0,
    TraceFentry = 24,
    TraceFexit = 25,
    ModifyReturn = 26,
    PerfEvent = 41,
    TraceKprobeMulti = 42,
}

/// How much of the verifier's log a refused load keeps (its tail holds the reason).
const LOG_SIZE: usize = 256 * 1024;

fn bpf<T>(cmd: u32, attr: &mut T) -> io::Result<i64> {
    // SAFETY: attr is a #[repr(C)] prefix of union bpf_attr with no implicit padding, of the
    // size passed; pointers in it are valid for the call.
    let r = unsafe {
        libc::syscall(
            libc::SYS_bpf,
            cmd,
            attr as *mut T,
            std::mem::size_of::<T>() as u32,
        )
    };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(r)
}

fn bpf_fd<T>(cmd: u32, attr: &mut T) -> io::Result<OwnedFd> {
    let fd = bpf(cmd, attr)?;
    // SAFETY: the command returned a new descriptor that nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// An object name for the kernel: at most 15 bytes and a NUL.
fn obj_name(name: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (o, b) in out.iter_mut().zip(name.bytes().take(15)) {
        *o = b;
    }
    out
}

#[repr(C)]
#[derive(Default)]
struct MapCreateAttr {
    map_type: u32,
    key_size: u32,
    value_size: u32,
    max_entries: u32,
    map_flags: u32,
    inner_map_fd: u32,
    numa_node: u32,
    map_name: [u8; 16],
    map_ifindex: u32,
}

#[repr(C)]
#[derive(Default)]
struct MapElemAttr {
    map_fd: u32,
    pad: u32,
    key: u64,
    value: u64,
    flags: u64,
}

/// Lifts this process's RLIMIT_MEMLOCK, once: before Linux 5.11 every map and program is
/// charged against it (since, against the memory cgroup), and the default (64 KiB to 8 MiB)
/// runs out when programs are loaded again and again while the freed ones wait for RCU — libbpf
/// does the same. Refused without privilege, when loading would be refused anyway.
fn lift_memlock_limit() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let unlimited = libc::rlimit {
            rlim_cur: libc::RLIM_INFINITY,
            rlim_max: libc::RLIM_INFINITY,
        };
        // SAFETY: plain syscall with a valid rlimit.
        unsafe { libc::setrlimit(libc::RLIMIT_MEMLOCK, &unlimited) };
    });
}

/// A BPF map.
#[derive(Debug)]
pub struct Map {
    fd: OwnedFd,
}

impl Map {
    /// An array of `entries` u64 values, all zero.
    pub fn array_u64(name: &str, entries: u32) -> io::Result<Map> {
        lift_memlock_limit();
        let mut a = MapCreateAttr {
            map_type: BPF_MAP_TYPE_ARRAY,
            key_size: 4,
            value_size: 8,
            max_entries: entries,
            map_name: obj_name(name),
            ..Default::default()
        };
        Ok(Map {
            fd: bpf_fd(BPF_MAP_CREATE, &mut a)?,
        })
    }

    /// The descriptor a program's instructions name the map by (see [`insn::ld_map_value`]).
    pub fn fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    /// The value at `key` of an array of u64.
    pub fn get_u64(&self, key: u32) -> io::Result<u64> {
        let mut value = 0u64;
        let mut a = MapElemAttr {
            map_fd: self.fd() as u32,
            key: &key as *const u32 as u64,
            value: &mut value as *mut u64 as u64,
            ..Default::default()
        };
        bpf(BPF_MAP_LOOKUP_ELEM, &mut a)?;
        Ok(value)
    }
}

#[repr(C)]
#[derive(Default)]
struct ProgLoadAttr {
    prog_type: u32,
    insn_cnt: u32,
    insns: u64,
    license: u64,
    log_level: u32,
    log_size: u32,
    log_buf: u64,
    kern_version: u32,
    prog_flags: u32,
    prog_name: [u8; 16],
    prog_ifindex: u32,
    expected_attach_type: u32,
    prog_btf_fd: u32,
    func_info_rec_size: u32,
    func_info: u64,
    func_info_cnt: u32,
    line_info_rec_size: u32,
    line_info: u64,
    line_info_cnt: u32,
    attach_btf_id: u32,
    attach_btf_obj_fd: u32,
    pad: u32,
}

/// What a program is, for the kernel.
#[derive(Debug, Clone)]
pub struct ProgSpec<'a> {
    pub name: &'a str,
    pub prog_type: ProgType,
    pub attach_type: AttachType,
    /// For trampolines: the target function's id in the kernel's BTF (0 otherwise).
    pub attach_btf_id: u32,
    pub license: &'a CStr,
    pub insns: &'a [Insn],
}

/// A refused load: the errno and whatever the verifier wrote.
#[derive(Debug, Clone)]
pub struct LoadError {
    pub errno: i32,
    /// The verifier's log; empty when the kernel refused before verifying (or wrote none).
    pub log: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", io::Error::from_raw_os_error(self.errno))
    }
}

/// A loaded program.
#[derive(Debug)]
pub struct Program {
    fd: OwnedFd,
}

fn load(spec: &ProgSpec, log: Option<&mut [u8]>) -> io::Result<OwnedFd> {
    let (log_level, log_size, log_buf) = match log {
        Some(buf) => (1, buf.len() as u32, buf.as_mut_ptr() as u64),
        None => (0, 0, 0),
    };
    // kern_version stays 0: only kprobe programs before Linux 5.0 had to state it.
    let mut a = ProgLoadAttr {
        prog_type: spec.prog_type as u32,
        insn_cnt: spec.insns.len() as u32,
        insns: spec.insns.as_ptr() as u64,
        license: spec.license.as_ptr() as u64,
        log_level,
        log_size,
        log_buf,
        prog_name: obj_name(spec.name),
        expected_attach_type: spec.attach_type as u32,
        attach_btf_id: spec.attach_btf_id,
        ..Default::default()
    };
    bpf_fd(BPF_PROG_LOAD, &mut a)
}

impl Program {
    /// Loads the program. On a refusal, loads it once more with a log buffer, as libbpf does,
    /// so the error carries the verifier's words (a successful load then writes no log).
    pub fn load(spec: &ProgSpec) -> Result<Program, LoadError> {
        lift_memlock_limit();
        let errno = match load(spec, None) {
            Ok(fd) => return Ok(Program { fd }),
            Err(e) => e.raw_os_error().unwrap_or(libc::EINVAL),
        };
        let mut buf = vec![0u8; LOG_SIZE];
        if let Ok(fd) = load(spec, Some(&mut buf)) {
            return Ok(Program { fd });
        }
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        Err(LoadError {
            errno,
            log: String::from_utf8_lossy(&buf[..end]).trim_end().to_string(),
        })
    }

    fn fd(&self) -> u32 {
        self.fd.as_raw_fd() as u32
    }

    /// Attaches to a perf event (tracepoint, kprobe, uprobe) and enables it: through a BPF link
    /// (Linux ≥ 5.15), else by the event's ioctl, as libbpf does.
    pub fn attach_perf(&self, event: OwnedFd) -> io::Result<Link> {
        let mut a = LinkCreateAttr {
            prog_fd: self.fd(),
            target_fd: event.as_raw_fd() as u32,
            attach_type: AttachType::PerfEvent as u32,
            ..Default::default()
        };
        let link = match bpf_fd(BPF_LINK_CREATE, &mut a) {
            Ok(fd) => Some(fd),
            Err(e) if e.raw_os_error() == Some(libc::EINVAL) => {
                // SAFETY: ioctl on our own perf descriptor with a program descriptor argument.
                let r = unsafe {
                    libc::ioctl(
                        event.as_raw_fd(),
                        perf::PERF_EVENT_IOC_SET_BPF as _,
                        self.fd(),
                    )
                };
                if r < 0 {
                    return Err(io::Error::last_os_error());
                }
                None
            }
            Err(e) => return Err(e),
        };
        // SAFETY: ioctl on our own perf descriptor, no argument.
        if unsafe { libc::ioctl(event.as_raw_fd(), perf::PERF_EVENT_IOC_ENABLE as _, 0) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Link {
            link,
            event: Some(event),
        })
    }

    /// Attaches to the raw tracepoint `name`, or, for a trampoline program (`None`), to the
    /// function fixed at load time.
    pub fn attach_raw_tracepoint(&self, name: Option<&CStr>) -> io::Result<Link> {
        let mut a = RawTracepointAttr {
            name: name.map_or(0, |n| n.as_ptr() as u64),
            prog_fd: self.fd(),
            pad: 0,
        };
        Ok(Link {
            link: Some(bpf_fd(BPF_RAW_TRACEPOINT_OPEN, &mut a)?),
            event: None,
        })
    }

    /// Attaches a kprobe.multi program to the kernel function `func`.
    pub fn attach_kprobe_multi(&self, func: &CStr) -> io::Result<Link> {
        let syms: [*const c_char; 1] = [func.as_ptr()];
        let mut a = LinkCreateAttr {
            prog_fd: self.fd(),
            attach_type: AttachType::TraceKprobeMulti as u32,
            cnt: 1,
            syms: syms.as_ptr() as u64,
            ..Default::default()
        };
        Ok(Link {
            link: Some(bpf_fd(BPF_LINK_CREATE, &mut a)?),
            event: None,
        })
    }
}

#[repr(C)]
struct RawTracepointAttr {
    name: u64,
    prog_fd: u32,
    pad: u32,
}

#[repr(C)]
#[derive(Default)]
struct LinkCreateAttr {
    prog_fd: u32,
    target_fd: u32,
    attach_type: u32,
    flags: u32,
    // link_create.kprobe_multi
    kprobe_multi_flags: u32,
    cnt: u32,
    syms: u64,
    addrs: u64,
    cookies: u64,
}

/// An attached program: dropping it detaches.
#[derive(Debug)]
pub struct Link {
    link: Option<OwnedFd>,
    event: Option<OwnedFd>,
}

impl Drop for Link {
    /// As libbpf: the perf event is disabled and its descriptor closed first, then the link,
    /// whose release frees both. Closing the link first waits for the kernel twice (the
    /// program's removal, then the event's), with the event still enabled in between.
    fn drop(&mut self) {
        if let Some(event) = self.event.take() {
            // SAFETY: ioctl on our own perf descriptor, no argument.
            unsafe { libc::ioctl(event.as_raw_fd(), perf::PERF_EVENT_IOC_DISABLE as _, 0) };
            drop(event);
        }
        drop(self.link.take());
    }
}

#[repr(C)]
#[derive(Default)]
struct GetIdAttr {
    id: u32,
    next_id: u32,
    open_flags: u32,
    pad: u32,
}

#[repr(C)]
struct InfoAttr {
    bpf_fd: u32,
    info_len: u32,
    info: u64,
}

/// `struct bpf_prog_info` up to its name.
#[repr(C)]
#[derive(Default)]
struct ProgInfo {
    type_: u32,
    id: u32,
    tag: [u8; 8],
    jited_prog_len: u32,
    xlated_prog_len: u32,
    jited_prog_insns: u64,
    xlated_prog_insns: u64,
    load_time: u64,
    created_by_uid: u32,
    nr_map_ids: u32,
    map_ids: u64,
    name: [u8; 16],
}

fn ids(cmd: u32) -> io::Result<Vec<u32>> {
    let mut out = Vec::new();
    let mut a = GetIdAttr::default();
    loop {
        match bpf(cmd, &mut a) {
            Ok(_) => out.push(a.next_id),
            Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(out),
            Err(e) => return Err(e),
        }
        a.id = a.next_id;
    }
}

/// Ids and names of every program loaded in the kernel (needs CAP_SYS_ADMIN). A program
/// unloaded while being listed is left out.
pub fn programs() -> io::Result<Vec<(u32, String)>> {
    let mut out = Vec::new();
    for id in ids(BPF_PROG_GET_NEXT_ID)? {
        let mut a = GetIdAttr {
            id,
            ..Default::default()
        };
        let Ok(fd) = bpf_fd(BPF_PROG_GET_FD_BY_ID, &mut a) else {
            continue;
        };
        let mut info = ProgInfo::default();
        let mut i = InfoAttr {
            bpf_fd: fd.as_raw_fd() as u32,
            info_len: std::mem::size_of::<ProgInfo>() as u32,
            info: &mut info as *mut ProgInfo as u64,
        };
        bpf(BPF_OBJ_GET_INFO_BY_FD, &mut i)?;
        let name = CStr::from_bytes_until_nul(&info.name)
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push((id, name));
    }
    Ok(out)
}

/// Ids of every BPF link in the kernel (Linux ≥ 5.8; needs CAP_SYS_ADMIN).
pub fn links() -> io::Result<Vec<u32>> {
    ids(BPF_LINK_GET_NEXT_ID)
}

#[cfg(test)]
mod tests {
    use super::insn::*;
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn attributes_have_the_kernels_layout() {
        assert_eq!(offset_of!(ProgLoadAttr, prog_name), 48);
        assert_eq!(offset_of!(ProgLoadAttr, expected_attach_type), 68);
        assert_eq!(offset_of!(ProgLoadAttr, attach_btf_id), 108);
        assert_eq!(size_of::<ProgLoadAttr>(), 120);
        assert_eq!(offset_of!(MapCreateAttr, map_name), 28);
        assert_eq!(size_of::<MapCreateAttr>(), 48);
        assert_eq!(offset_of!(MapElemAttr, value), 16);
        assert_eq!(offset_of!(LinkCreateAttr, cnt), 20);
        assert_eq!(offset_of!(LinkCreateAttr, syms), 24);
        assert_eq!(offset_of!(ProgInfo, name), 64);
        assert_eq!(
            obj_name("syscost_kpmulti_and_more")[..16],
            *b"syscost_kpmulti\0"
        );
    }

    fn is_root() -> bool {
        // SAFETY: geteuid cannot fail.
        unsafe { libc::geteuid() == 0 }
    }

    #[test]
    #[ignore = "needs root"]
    fn a_refused_program_brings_the_verifier_log_and_a_good_one_is_listed() {
        assert!(is_root(), "loads BPF programs: run as root");
        // Returns without setting r0: the verifier says R0 was never written.
        let bad = [exit()];
        let spec = ProgSpec {
            name: "syscost_test",
            prog_type: ProgType::RawTracepoint,
            attach_type: AttachType::Unspecified,
            attach_btf_id: 0,
            license: c"GPL",
            insns: &bad,
        };
        let e = Program::load(&spec).unwrap_err();
        assert_eq!(e.errno, libc::EACCES, "{e}: {}", e.log);
        assert!(e.log.contains("R0 !read_ok"), "{}", e.log);

        let map = Map::array_u64("syscost_test", 1).unwrap();
        assert_eq!(map.get_u64(0).unwrap(), 0);
        assert!(map.get_u64(1).is_err(), "past the array's end");
        let good = [mov64_imm(R0, 0), exit()];
        let p = Program::load(&ProgSpec {
            insns: &good,
            ..spec
        })
        .unwrap();
        let listed = programs().unwrap();
        assert!(
            listed.iter().any(|(_, n)| n == "syscost_test"),
            "{listed:?}"
        );
        drop(p);
    }
}
