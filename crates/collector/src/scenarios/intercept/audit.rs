//! Reading the kernel's audit records over netlink, to count what SECCOMP_RET_LOG produced.
//!
//! Every audit record carries a serial number the kernel takes from one global counter at
//! creation (`audit(<time>:<serial>)`), and a seccomp LOG record is created for every logged
//! call, even when it is then rate-limited out of dmesg. So the number of records a batch
//! produced is the difference of the serials of two marker records logged just before and just
//! after it — no listener needs to be attached while the batch runs (a listener slows the audit
//! thread down, and the logged calls wait for it once its backlog is full).
//!
//! The read-only multicast group (AUDIT_NLGRP_READLOG) needs CAP_AUDIT_READ.

use crate::sys::netlink::{self, audit_socket};
use std::io;
use std::os::fd::OwnedFd;
use std::time::{Duration, Instant};

const AUDIT_GET: u16 = 1000;
const AUDIT_SECCOMP: u16 = 1326;
const NLMSG_ERROR: u16 = 2;
const AUDIT_NLGRP_READLOG: u32 = 1;
const NLMSG_HDRLEN: usize = 16;

/// Messages in a netlink datagram: (type, payload).
fn messages(buf: &[u8]) -> Vec<(u16, &[u8])> {
    let mut out = Vec::new();
    let mut off = 0;
    while off + NLMSG_HDRLEN <= buf.len() {
        let len = u32::from_ne_bytes([buf[off], buf[off + 1], buf[off + 2], buf[off + 3]]) as usize;
        let ty = u16::from_ne_bytes([buf[off + 4], buf[off + 5]]);
        if len < NLMSG_HDRLEN || off + len > buf.len() {
            // Audit multicast messages may carry a length that only counts the header; take
            // the rest of the datagram as the payload then.
            out.push((ty, &buf[off + NLMSG_HDRLEN..]));
            break;
        }
        out.push((ty, &buf[off + NLMSG_HDRLEN..off + len]));
        off += (len + 3) & !3;
    }
    out
}

/// The serial of an audit record's text (`audit(1700000000.123:4567): ...`).
pub fn serial_of(text: &str) -> Option<u64> {
    let start = text.find("audit(")? + "audit(".len();
    let rest = &text[start..];
    let close = rest.find(')')?;
    let colon = rest[..close].rfind(':')?;
    rest[colon + 1..close].parse().ok()
}

/// Whether a seccomp record's text is for syscall `nr` of process `pid`.
pub fn is_record_of(text: &str, pid: u32, nr: i64) -> bool {
    let has = |field: String| text.split_whitespace().any(|w| w == field);
    has(format!("pid={pid}")) && has(format!("syscall={nr}"))
}

/// Pid of the registered audit daemon (0 when none), from AUDIT_GET.
pub fn daemon_pid() -> io::Result<u32> {
    let fd = audit_socket(0)?;
    let mut req = [0u8; NLMSG_HDRLEN];
    req[0..4].copy_from_slice(&(NLMSG_HDRLEN as u32).to_ne_bytes());
    req[4..6].copy_from_slice(&AUDIT_GET.to_ne_bytes());
    req[6..8].copy_from_slice(&(libc::NLM_F_REQUEST as u16).to_ne_bytes());
    req[8..12].copy_from_slice(&1u32.to_ne_bytes());
    netlink::send_to_kernel(&fd, &req)?;
    let mut buf = [0u8; 8192];
    for _ in 0..4 {
        let n = recv_timeout(&fd, &mut buf, Duration::from_millis(500))?;
        for (ty, payload) in messages(&buf[..n]) {
            if ty == NLMSG_ERROR && payload.len() >= 4 {
                let err = i32::from_ne_bytes([payload[0], payload[1], payload[2], payload[3]]);
                if err != 0 {
                    return Err(io::Error::from_raw_os_error(-err));
                }
            }
            // struct audit_status: mask, enabled, failure, pid, ...
            if ty == AUDIT_GET && payload.len() >= 16 {
                return Ok(u32::from_ne_bytes([
                    payload[12],
                    payload[13],
                    payload[14],
                    payload[15],
                ]));
            }
        }
    }
    Err(io::Error::other("no AUDIT_GET reply"))
}

fn recv_timeout(fd: &OwnedFd, buf: &mut [u8], timeout: Duration) -> io::Result<usize> {
    let deadline = Instant::now() + timeout;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::from(io::ErrorKind::TimedOut));
        }
        match netlink::readable(fd, left.as_millis().max(1) as i32) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
            Ok(false) => continue,
            Ok(true) => {}
        }
        let e = match netlink::recv(fd, buf) {
            Ok(n) => return Ok(n),
            Err(e) => e,
        };
        match e.raw_os_error() {
            // The socket overflowed with other records: the marker may still come.
            Some(libc::EINTR) | Some(libc::ENOBUFS) => continue,
            _ => return Err(e),
        }
    }
}

/// Checks that audit records can be read here (CAP_AUDIT_READ, CONFIG_AUDIT).
pub fn can_read() -> io::Result<()> {
    audit_socket(AUDIT_NLGRP_READLOG).map(drop)
}

/// Why a marker's serial could not be read.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("cannot listen to audit records: {0}")]
    Listen(io::Error),
    #[error("no audit record for the marker syscall {nr} arrived ({source})")]
    NoRecord { nr: i64, source: io::Error },
    #[error("audit record without a serial: {0}")]
    NoSerial(String),
}

/// Listens on the read-only audit group, runs `emit` (which must make one logged call of
/// syscall `nr` in process `pid`) and returns that record's serial.
pub fn marker_serial(pid: u32, nr: i64, emit: impl FnOnce()) -> Result<u64, AuditError> {
    let fd = audit_socket(AUDIT_NLGRP_READLOG).map_err(AuditError::Listen)?;
    emit();
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut buf = vec![0u8; 16384];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let n = recv_timeout(&fd, &mut buf, left)
            .map_err(|source| AuditError::NoRecord { nr, source })?;
        for (ty, payload) in messages(&buf[..n]) {
            if ty != AUDIT_SECCOMP {
                continue;
            }
            let text = String::from_utf8_lossy(payload);
            if is_record_of(&text, pid, nr) {
                return serial_of(&text).ok_or_else(|| AuditError::NoSerial(text.into_owned()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const REC: &str = "audit(1795978640.709:2345): auid=4294967295 uid=0 gid=0 \
        ses=4294967295 pid=17685 comm=\"log\" exe=\"/tmp/log\" sig=0 arch=c000003e \
        syscall=110 compat=0 ip=0x7ff5a9ece829 code=0x7ffc0000";

    #[test]
    fn parses_serial_and_matches_fields_exactly() {
        assert_eq!(serial_of(REC), Some(2345));
        assert_eq!(serial_of("no serial here"), None);
        assert!(is_record_of(REC, 17685, 110));
        assert!(!is_record_of(REC, 1768, 110));
        assert!(!is_record_of(REC, 17685, 11));
        // ppid= must not be taken for pid=.
        assert!(!is_record_of("audit(1.2:3): ppid=5 syscall=1", 5, 1));
    }

    #[test]
    fn splits_netlink_datagrams() {
        let mut d = Vec::new();
        for (ty, text) in [(1326u16, "abc"), (1300, "defgh")] {
            let len = (NLMSG_HDRLEN + text.len()) as u32;
            d.extend_from_slice(&len.to_ne_bytes());
            d.extend_from_slice(&ty.to_ne_bytes());
            d.extend_from_slice(&[0u8; 10]);
            d.extend_from_slice(text.as_bytes());
            while d.len() % 4 != 0 {
                d.push(0);
            }
        }
        let m = messages(&d);
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].0, m[0].1), (1326, &b"abc"[..]));
        assert_eq!((m[1].0, m[1].1), (1300, &b"defgh"[..]));
    }
}
