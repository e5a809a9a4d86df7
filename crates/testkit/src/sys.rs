//! The system calls that the tests and the site benchmark make and std does not: every
//! `unsafe` outside the collector's own `sys/` is here, each behind a safe function whose
//! `SAFETY:` comment says why it is sound. What rustix offers safely goes through rustix.

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::Duration;

use rustix::fs::{FileType, Mode, CWD};
use rustix::process::{Pid, Signal};

/// This process runs as root (effective user id 0).
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// Sends `signal` (`libc::SIGKILL`, …) to process `pid`. Panics on a signal Linux does not
/// name, or on pid 0 (which would signal this process's group).
pub fn kill(pid: u32, signal: i32) -> io::Result<()> {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .unwrap_or_else(|| panic!("{pid} is no process id"));
    let signal = Signal::from_named_raw(signal).unwrap_or_else(|| panic!("no signal {signal}"));
    Ok(rustix::process::kill_process(pid, signal)?)
}

/// Makes a FIFO at `path` with permission bits `mode` (less the umask).
pub fn mkfifo(path: &Path, mode: u32) -> io::Result<()> {
    Ok(rustix::fs::mknodat(
        CWD,
        path,
        FileType::Fifo,
        Mode::from_raw_mode(mode),
        0,
    )?)
}

/// Makes a null device (character device 1:3, mode 0666) at `path`. Needs root.
pub fn make_null_device(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let dev = rustix::fs::makedev(1, 3);
    let mode = Mode::from_raw_mode(0o666);
    rustix::fs::mknodat(CWD, path, FileType::CharacterDevice, mode, dev)?;
    // The umask took bits off.
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o666))
}

/// How a child ended, and what it used, as `wait4` reports them.
#[derive(Debug, Clone, Copy)]
pub struct Ended {
    pub status: ExitStatus,
    pub user: Duration,
    pub system: Duration,
    /// Peak resident set size, KB.
    pub max_rss_kb: i64,
}

/// Waits for this process's child `pid` to end, and reaps it: its `Child` must not be waited
/// for again.
pub fn wait4(pid: u32) -> io::Result<Ended> {
    loop {
        if let Some(ended) = wait4_flags(pid, 0)? {
            return Ok(ended);
        }
    }
}

/// As [`wait4`] if this process's child `pid` has ended; `None` if it has not, yet.
pub fn try_wait4(pid: u32) -> io::Result<Option<Ended>> {
    wait4_flags(pid, libc::WNOHANG)
}

fn wait4_flags(pid: u32, flags: i32) -> io::Result<Option<Ended>> {
    let pid =
        libc::pid_t::try_from(pid).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    let mut status = 0;
    // SAFETY: `rusage` is integers and `timeval`s of integers, for which all zeroes is valid.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `ru` are live, writable and of the types wait4(2) writes; it
    // keeps no pointer to them after returning.
    let r = unsafe { libc::wait4(pid, &mut status, flags, &mut ru) };
    if r < 0 {
        return Err(io::Error::last_os_error());
    }
    if r == 0 {
        return Ok(None);
    }
    let time = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    Ok(Some(Ended {
        status: ExitStatus::from_raw(status),
        user: time(ru.ru_utime),
        system: time(ru.ru_stime),
        max_rss_kb: ru.ru_maxrss,
    }))
}

/// Makes `cmd`'s process unable to write a file past `bytes`: a write past it fails with
/// EFBIG (SIGXFSZ is ignored), as on a full disk.
pub fn limit_file_size(cmd: &mut Command, bytes: u64) {
    let limit = rustix::process::Rlimit {
        current: Some(bytes),
        maximum: Some(bytes),
    };
    // SAFETY: the closure runs in the forked child before exec. It only makes setrlimit(2)
    // and signal(2) calls (async-signal-safe) on a value copied in before the fork, and
    // allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            rustix::process::setrlimit(rustix::process::Resource::Fsize, limit)?;
            if libc::signal(libc::SIGXFSZ, libc::SIG_IGN) == libc::SIG_ERR {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Makes `cmd`'s process install the seccomp `filters`, in order, before it executes (after
/// setting no_new_privs, which an unprivileged process needs to install one).
pub fn apply_filters_before_exec(cmd: &mut Command, filters: Vec<seccompiler::BpfProgram>) {
    // An empty filter is seccompiler's only error that is not the kernel's.
    assert!(filters.iter().all(|f| !f.is_empty()), "an empty filter");
    // SAFETY: the closure runs in the forked child before exec. apply_filter makes prctl(2)
    // and seccomp(2) calls (async-signal-safe) on filters built before the fork; a failure is
    // reported as the kernel's errno, without allocating.
    unsafe {
        cmd.pre_exec(move || {
            for f in &filters {
                seccompiler::apply_filter(f).map_err(|_| io::Error::last_os_error())?;
            }
            Ok(())
        });
    }
}

fn c_path(p: &Path) -> CString {
    CString::new(p.as_os_str().as_bytes())
        .unwrap_or_else(|_| panic!("{} has a NUL byte", p.display()))
}

/// Makes `cmd`'s process run chrooted into `root`, in a mount namespace of its own: there
/// `private` (a mount point holding `root`, see [`SelfBind`]) is made private, recursively, so
/// that nothing mounted below it reaches the host's namespace; then each `(source, target)` of
/// `binds` is bound; then the process changes root to `root` and its directory to `/`.
pub fn chroot_in_own_mount_namespace(
    cmd: &mut Command,
    root: &Path,
    private: &Path,
    binds: &[(&Path, &Path)],
) {
    use rustix::mount::{mount_bind, mount_change, MountPropagationFlags};
    let (root, private) = (c_path(root), c_path(private));
    let binds: Vec<(CString, CString)> =
        binds.iter().map(|(s, t)| (c_path(s), c_path(t))).collect();
    // SAFETY: the closure runs in the forked child before exec. It only makes unshare(2),
    // mount(2), chroot(2) and chdir(2) calls (async-signal-safe) on C strings made before the
    // fork, and allocates nothing. Unsharing the mount namespace (not the file table) changes
    // no file descriptor of the process, whose only thread is the one calling.
    unsafe {
        cmd.pre_exec(move || {
            rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNS)?;
            let rec_private = MountPropagationFlags::REC | MountPropagationFlags::PRIVATE;
            mount_change(private.as_c_str(), rec_private)?;
            for (source, target) in &binds {
                mount_bind(source.as_c_str(), target.as_c_str())?;
            }
            rustix::process::chroot(root.as_c_str())?;
            rustix::process::chdir(c"/")?;
            Ok(())
        });
    }
}

/// A directory bound onto itself (a mount point of its own) for as long as this lives; the
/// mount is detached when it is dropped. Needs root.
pub struct SelfBind(PathBuf);

impl SelfBind {
    pub fn new(dir: &Path) -> io::Result<SelfBind> {
        rustix::mount::mount_bind(dir, dir)?;
        Ok(SelfBind(dir.to_path_buf()))
    }
}

impl Drop for SelfBind {
    fn drop(&mut self) {
        let _ = rustix::mount::unmount(&self.0, rustix::mount::UnmountFlags::DETACH);
    }
}

// The children are reaped with wait4, not `Child::wait`.
#[allow(clippy::zombie_processes)]
#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;

    #[test]
    fn wait4_reports_how_a_child_ended() {
        let child = Command::new("/bin/sh")
            .args(["-c", "exit 3"])
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let ended = wait4(child.id()).unwrap();
        assert_eq!(ended.status.code(), Some(3));
        assert!(ended.max_rss_kb > 0, "{ended:?}");
    }

    #[test]
    fn a_killed_child_is_reported_killed() {
        let mut child = Command::new("/bin/sh")
            .args(["-c", "read x"])
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        assert!(try_wait4(child.id()).unwrap().is_none());
        kill(child.id(), libc::SIGTERM).unwrap();
        let ended = wait4(child.id()).unwrap();
        assert_eq!(ended.status.signal(), Some(libc::SIGTERM));
        drop(child.stdin.take());
    }

    #[test]
    fn a_limited_child_cannot_write_past_its_limit() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f");
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", "head -c 4096 /dev/zero > \"$1\""])
            .arg("sh")
            .arg(&file)
            .stderr(Stdio::null());
        limit_file_size(&mut cmd, 512);
        let status = cmd.status().unwrap();
        assert!(!status.success());
        assert_eq!(std::fs::metadata(&file).unwrap().len(), 512);
    }

    #[test]
    fn a_fifo_is_made() {
        use std::os::unix::fs::FileTypeExt;
        let tmp = tempfile::tempdir().unwrap();
        let fifo = tmp.path().join("fifo");
        mkfifo(&fifo, 0o600).unwrap();
        let m = std::fs::symlink_metadata(&fifo).unwrap();
        assert!(m.file_type().is_fifo());
        assert!(mkfifo(&fifo, 0o600).is_err(), "made twice");
    }
}
