//! perf events that BPF programs attach to: a tracepoint by its tracefs id, and kprobes and
//! uprobes created through their PMUs (/sys/bus/event_source/devices/{kprobe,uprobe}), as
//! libbpf's default attach mode does.

use std::ffi::CStr;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};

const PERF_TYPE_TRACEPOINT: u32 = 2;
const PERF_FLAG_FD_CLOEXEC: libc::c_ulong = 8;
/// `sizeof(struct perf_event_attr)` up to `config2` (PERF_ATTR_SIZE_VER1): every field used
/// here; the kernel accepts any size it knows.
const ATTR_SIZE: u32 = 72;

// Encoded per architecture: powerpc's direction bits differ (_IO is 0x2000_2400 there, not
// 0x2400; _IOW sets bit 31, not bit 30), and the kernel answers ENOTTY to the generic numbers.
pub const PERF_EVENT_IOC_ENABLE: libc::c_ulong = libc::_IO(b'$' as u32, 0) as libc::c_ulong;
pub const PERF_EVENT_IOC_DISABLE: libc::c_ulong = libc::_IO(b'$' as u32, 1) as libc::c_ulong;
pub const PERF_EVENT_IOC_SET_BPF: libc::c_ulong =
    libc::_IOW::<u32>(b'$' as u32, 8) as libc::c_ulong;

/// `struct perf_event_attr` up to `config2`.
#[repr(C)]
#[derive(Default)]
struct Attr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    /// kprobe: the function's name; uprobe: the file's path.
    config1: u64,
    /// The offset into the function or the file.
    config2: u64,
}

/// A probe created through a PMU.
pub struct Probe<'a> {
    /// "kprobe" or "uprobe".
    pub pmu: &'static str,
    /// The return probe instead of the entry probe.
    pub ret: bool,
    /// kprobe: function name; uprobe: path of the file.
    pub name: &'a CStr,
    pub offset: u64,
    /// uprobe: the process it is bound to; -1 for every process.
    pub pid: i32,
}

fn open(attr: &Attr, pid: i32) -> io::Result<OwnedFd> {
    // A system-wide event needs a CPU; one bound to a process takes any (-1). The program runs
    // on every CPU either way.
    let cpu = if pid == -1 { 0 } else { -1 };
    // SAFETY: attr is a valid perf_event_attr of `size` bytes; the call only reads it.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            attr as *const Attr,
            pid,
            cpu,
            -1,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a new descriptor owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

/// The tracepoint event with tracefs id `id` (events/<category>/<name>/id), system-wide. A
/// counting event (no sample period), as libbpf opens it: the program is all it is for, and a
/// sampling event left without its program (while a detach is under way) would take a sample
/// of every hit on its CPU.
pub fn tracepoint(id: u64) -> io::Result<OwnedFd> {
    let attr = Attr {
        type_: PERF_TYPE_TRACEPOINT,
        size: ATTR_SIZE,
        config: id,
        ..Attr::default()
    };
    open(&attr, -1)
}

fn pmu_file(pmu: &str, file: &str) -> io::Result<String> {
    let path = format!("/sys/bus/event_source/devices/{pmu}/{file}");
    std::fs::read_to_string(&path)
        .map(|s| s.trim().to_string())
        .map_err(|e| io::Error::new(e.kind(), format!("{path}: {e}")))
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod ioctl_tests {
    /// The generic encodings (include/uapi/asm-generic/ioctl.h), as the kernel defines them.
    #[test]
    fn perf_ioctls_have_the_generic_numbers() {
        assert_eq!(super::PERF_EVENT_IOC_ENABLE, 0x2400);
        assert_eq!(super::PERF_EVENT_IOC_DISABLE, 0x2401);
        assert_eq!(super::PERF_EVENT_IOC_SET_BPF, 0x4004_2408);
    }
}

/// The config bit of a PMU's `retprobe` format ("config:0" → 0).
pub fn parse_format_bit(text: &str) -> Option<u32> {
    text.trim().strip_prefix("config:")?.parse().ok()
}

/// A kprobe or uprobe, created by its PMU.
pub fn probe(p: &Probe) -> io::Result<OwnedFd> {
    let type_: u32 = pmu_file(p.pmu, "type")?
        .parse()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "bad PMU type"))?;
    let mut config = 0;
    if p.ret {
        let format = pmu_file(p.pmu, "format/retprobe")?;
        let bit = parse_format_bit(&format)
            .filter(|b| *b < 64)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "bad retprobe format"))?;
        config |= 1u64 << bit;
    }
    let attr = Attr {
        type_,
        size: ATTR_SIZE,
        config,
        config1: p.name.as_ptr() as u64,
        config2: p.offset,
        ..Attr::default()
    };
    open(&attr, p.pid)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attr_is_the_kernels_first_extended_size() {
        assert_eq!(std::mem::size_of::<Attr>(), ATTR_SIZE as usize);
        assert_eq!(std::mem::offset_of!(Attr, config1), 56);
        assert_eq!(parse_format_bit("config:0\n"), Some(0));
        assert_eq!(parse_format_bit("config:12"), Some(12));
        assert_eq!(parse_format_bit("config1:0"), None);
    }
}
