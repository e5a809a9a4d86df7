//! tracefs, mounted where a BPF scenario needs it without touching the host's mounts.

use std::ffi::CStr;
use std::io;

/// Mounts tracefs at /sys/kernel/tracing in a mount namespace of the calling process's own
/// (the host's mounts are left as they are). The error names the step that failed.
pub fn tracefs_in_own_namespace() -> Result<(), (&'static str, io::Error)> {
    let fail = |what| (what, io::Error::last_os_error());
    let cstr = |s: &'static CStr| s.as_ptr();
    // SAFETY: the strings are NUL-terminated constants, which mount(2) only reads; unshare
    // takes no pointer (a process whose threads share its filesystem context gets EINVAL).
    unsafe {
        if libc::unshare(libc::CLONE_NEWNS) != 0 {
            return Err(fail("unshare(CLONE_NEWNS)"));
        }
        // Stop mount events propagating back to the host's namespace: make the mount that
        // holds /sys/kernel/tracing private. That is `/` (recursively) on a normal system; in a
        // chroot, `/` is no mount point (EINVAL), but `/sys` is.
        let private = |at: &'static CStr| {
            libc::mount(
                std::ptr::null(),
                cstr(at),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ) == 0
        };
        if !private(c"/") && !private(c"/sys/kernel") && !private(c"/sys") {
            return Err(fail("making the worker's mounts private"));
        }
        if libc::mount(
            cstr(c"nodev"),
            cstr(c"/sys/kernel/tracing"),
            cstr(c"tracefs"),
            0,
            std::ptr::null(),
        ) != 0
        {
            return Err(fail("mount -t tracefs"));
        }
    }
    Ok(())
}
