//! A SOCK_SEQPACKET socketpair between a parent and its forked child: whole messages (no
//! framing to get wrong), EOF when the peer is gone, and no allocation to send or receive.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::time::Duration;

/// One end of the pair.
#[derive(Debug)]
pub struct Channel {
    fd: OwnedFd,
}

/// Both ends; close-on-exec.
pub fn pair() -> io::Result<(Channel, Channel)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: valid array of two descriptors.
    if unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    } != 0
    {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: freshly created descriptors we own.
    let (a, b) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((Channel { fd: a }, Channel { fd: b }))
}

impl Channel {
    /// Sends one message. A peer that is gone gives EPIPE (or ECONNRESET), never SIGPIPE.
    pub fn send(&self, msg: &[u8]) -> io::Result<()> {
        loop {
            // SAFETY: valid buffer; MSG_NOSIGNAL so a dead peer gives EPIPE, not SIGPIPE.
            let n = unsafe {
                libc::send(
                    self.fd.as_raw_fd(),
                    msg.as_ptr().cast(),
                    msg.len(),
                    libc::MSG_NOSIGNAL,
                )
            };
            if n >= 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    /// Receives one message into `buf` (blocking); Ok(None) on EOF.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            // SAFETY: valid buffer.
            let n =
                unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len(), 0) };
            if n > 0 {
                return Ok(Some(n as usize));
            }
            if n == 0 {
                return Ok(None);
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }

    /// Waits at most `timeout` for a message (or EOF) to be ready; false if none came.
    pub fn readable_within(&self, timeout: Duration) -> io::Result<bool> {
        let mut pfd = libc::pollfd {
            fd: self.fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe { libc::poll(&mut pfd, 1, timeout.as_millis().max(1) as libc::c_int) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(false);
            }
            return Err(e);
        }
        Ok(n > 0)
    }

    /// Closes this end in a forked child, which inherited both: the child keeps its own end
    /// only, so the parent sees EOF when the child is gone. The descriptor is not closed twice:
    /// the child leaves with `_exit`, which runs no destructor.
    pub fn close_in_child(&self) {
        // SAFETY: our descriptor; see above.
        unsafe { libc::close(self.fd.as_raw_fd()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run in a child of its own: the test binary's other tests fork children, and a child
    /// forked while this test's pair is open inherits its descriptors and keeps a peer alive,
    /// so EOF never comes (a hang) and a send to the "closed" peer succeeds. A child of a
    /// multi-threaded process has one thread: nothing forks behind its back. It reports the
    /// first step that failed as its exit code (no panic: a child must not take the parent's
    /// panic-hook locks, which another thread may have held at the fork).
    #[test]
    fn messages_keep_their_boundaries_and_eof_follows_the_last() {
        use crate::sys::process::{fork, Exit};
        let mut child = fork(|| match boundaries_and_eof() {
            Ok(()) => 0,
            Err(step) => step,
        })
        .unwrap();
        assert_eq!(child.wait().unwrap(), Exit::Code(0), "the step that failed");
    }

    fn boundaries_and_eof() -> Result<(), i32> {
        let check = |ok: bool, step: i32| if ok { Ok(()) } else { Err(step) };
        let (a, b) = pair().map_err(|_| 1)?;
        check(a.send(b"one").is_ok(), 2)?;
        check(a.send(b"three").is_ok(), 3)?;
        drop(a);
        let mut buf = [0u8; 16];
        check(
            b.readable_within(Duration::from_millis(1)).ok() == Some(true),
            4,
        )?;
        check(b.recv(&mut buf).ok() == Some(Some(3)), 5)?;
        check(b.recv(&mut buf).ok() == Some(Some(5)), 6)?;
        check(&buf[..5] == b"three", 7)?;
        check(b.recv(&mut buf).ok() == Some(None), 8)?;
        let (a, b) = pair().map_err(|_| 9)?;
        check(
            b.readable_within(Duration::from_millis(1)).ok() == Some(false),
            10,
        )?;
        drop(b);
        let refused = a.send(b"x").err().and_then(|e| e.raw_os_error());
        check(refused == Some(libc::EPIPE), 11)
    }
}
