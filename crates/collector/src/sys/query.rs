//! What the kernel says about this process and machine: plain queries, each a safe function.

use std::ffi::CStr;
use std::io;
use std::path::Path;

/// The CPU the calling thread runs on, or -1 with errno set.
pub fn current_cpu() -> i32 {
    // SAFETY: sched_getcpu has no preconditions.
    unsafe { libc::sched_getcpu() }
}

/// The effective user id.
pub fn euid() -> u32 {
    // SAFETY: geteuid cannot fail.
    unsafe { libc::geteuid() }
}

/// `sysconf(name)`: -1 when the value is unknown.
pub fn sysconf(name: libc::c_int) -> libc::c_long {
    // SAFETY: sysconf has no side effects.
    unsafe { libc::sysconf(name) }
}

/// uname(2) fields: (sysname, nodename, release, version, machine).
pub fn uname() -> (String, String, String, String, String) {
    // SAFETY: utsname is plain data filled by the kernel.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer.
    unsafe { libc::uname(&mut u) };
    let field = |f: &[libc::c_char]| {
        // SAFETY: uname NUL-terminates each field.
        unsafe { CStr::from_ptr(f.as_ptr()) }
            .to_string_lossy()
            .into_owned()
    };
    (
        field(&u.sysname),
        field(&u.nodename),
        field(&u.release),
        field(&u.version),
        field(&u.machine),
    )
}

/// Involuntary context switches of the calling thread so far.
pub fn involuntary_switches() -> i64 {
    // SAFETY: rusage is plain data filled by the kernel.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    u.ru_nivcsw
}

/// The calling thread's seccomp mode (`prctl(PR_GET_SECCOMP)`).
pub fn seccomp_mode() -> i32 {
    // SAFETY: plain prctl query.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP) }
}

const LINUX_CAPABILITY_VERSION_3: u32 = 0x2008_0522;

#[repr(C)]
struct CapHeader {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// Effective capability bits of this process (64 of them), or None if capget fails.
pub fn effective_caps() -> Option<u64> {
    let mut hdr = CapHeader {
        version: LINUX_CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut data = [CapData::default(); 2];
    // SAFETY: header and a two-element data array, as capget v3 expects.
    let rc = unsafe { libc::syscall(libc::SYS_capget, &mut hdr, data.as_mut_ptr()) };
    (rc == 0).then(|| data[0].effective as u64 | (data[1].effective as u64) << 32)
}

/// Whether this process may write `path` (access(2) with W_OK), as the kernel would judge an
/// open for writing.
pub fn writable(path: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).map_err(io::Error::other)?;
    // SAFETY: a NUL-terminated path; access(2) only reads it.
    if unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sleeps until a signal ends the process; never returns.
pub fn pause_forever() -> ! {
    loop {
        // SAFETY: sleeps until a signal; no memory is touched.
        unsafe { libc::pause() };
    }
}
