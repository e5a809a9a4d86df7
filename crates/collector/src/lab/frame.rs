//! How the record leaves the guest: framed, base64-encoded and checksummed on a serial line.
//! The guest's init (busybox `wc`, `sha256sum`, `base64`) writes
//!
//! ```text
//! SYSCOST-LAB-RECORD 1 exit=<status of syscost run> bytes=<n> sha256=<hex>
//! <base64 of the record, 76 characters a line>
//! SYSCOST-LAB-END
//! ```
//!
//! and the host accepts the record only if its length and SHA-256 match: a byte lost or changed
//! on the way (a kernel message printed into the middle of the frame, a truncated console) is an
//! error, never a different record. Serial lines may turn `\n` into `\r\n`.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use sha2::{Digest, Sha256};

pub const BEGIN: &str = "SYSCOST-LAB-RECORD 1";
pub const END: &str = "SYSCOST-LAB-END";

/// What a complete frame carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// Exit status of `syscost run` in the guest.
    pub exit: i32,
    /// The record's bytes (empty when the guest run wrote none).
    pub body: Vec<u8>,
}

/// Why the bytes of a channel hold no usable frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("no record frame (no `{BEGIN}` line)")]
    Missing,
    #[error("the record frame is incomplete (no `{END}` line after `{BEGIN}`)")]
    Incomplete,
    #[error("the record frame's header is malformed: {0:?}")]
    Header(String),
    #[error("the record frame's line {line} is not base64: {text:?}")]
    Base64 { line: usize, text: String },
    #[error("the record arrived with {got} bytes, the guest sent {sent}")]
    Length { sent: usize, got: usize },
    #[error("the record arrived corrupted: SHA-256 {got}, the guest sent {sent}")]
    Checksum { sent: String, got: String },
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// The frame for `body` (what the guest's shell writes; used by the tests).
pub fn encode(exit: i32, body: &[u8]) -> String {
    let mut s = format!(
        "{BEGIN} exit={exit} bytes={} sha256={}\n",
        body.len(),
        hex(&Sha256::digest(body))
    );
    let b64 = base64_encode(body);
    for chunk in b64.as_bytes().chunks(76) {
        s.push_str(std::str::from_utf8(chunk).unwrap_or_default());
        s.push('\n');
    }
    s.push_str(END);
    s.push('\n');
    s
}

/// Whether `bytes` hold a frame's end line (the host stops waiting for the guest then).
pub fn complete(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(bytes);
    match text.rfind(BEGIN) {
        Some(i) => text[i..].lines().any(|l| l.trim_end_matches('\r') == END),
        None => false,
    }
}

/// The last frame in `bytes`, verified.
pub fn decode(bytes: &[u8]) -> Result<Frame, FrameError> {
    let text = String::from_utf8_lossy(bytes);
    let start = text.rfind(BEGIN).ok_or(FrameError::Missing)?;
    let mut lines = text[start..].lines().map(|l| l.trim_end_matches('\r'));
    let header = lines.next().unwrap_or_default();
    let field = |name: &str| {
        header
            .split_whitespace()
            .find_map(|w| w.strip_prefix(name)?.strip_prefix('='))
    };
    let bad = || FrameError::Header(header.to_string());
    let exit: i32 = field("exit").and_then(|v| v.parse().ok()).ok_or_else(bad)?;
    let sent: usize = field("bytes")
        .and_then(|v| v.parse().ok())
        .ok_or_else(bad)?;
    let sum = field("sha256")
        .filter(|s| s.len() == 64 && s.bytes().all(|c| c.is_ascii_hexdigit()))
        .ok_or_else(bad)?
        .to_ascii_lowercase();
    let mut b64 = String::new();
    let mut ended = false;
    for (i, line) in lines.enumerate() {
        if line == END {
            ended = true;
            break;
        }
        let line = line.trim();
        if !line
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
        {
            return Err(FrameError::Base64 {
                line: i + 2,
                text: line.chars().take(80).collect(),
            });
        }
        b64.push_str(line);
    }
    if !ended {
        return Err(FrameError::Incomplete);
    }
    let body = base64_decode(&b64).ok_or(FrameError::Base64 {
        line: 0,
        text: "the lines do not join into valid base64".into(),
    })?;
    if body.len() != sent {
        return Err(FrameError::Length {
            sent,
            got: body.len(),
        });
    }
    let got = hex(&Sha256::digest(&body));
    if got != sum {
        return Err(FrameError::Checksum { sent: sum, got });
    }
    Ok(Frame { exit, body })
}

fn base64_encode(b: &[u8]) -> String {
    BASE64.encode(b)
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    BASE64.decode(s).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_survives_crlf_and_surrounding_noise() {
        for body in [&b""[..], b"{}", b"{\"a\": 1}\n", &[0u8, 255, 7, 9, 10][..]] {
            let f = encode(1, body).replace('\n', "\r\n");
            let noisy = format!("[  3.1] boot noise\r\n{f}[  9.9] reboot: Power down\r\n");
            assert!(complete(noisy.as_bytes()));
            assert_eq!(
                decode(noisy.as_bytes()).unwrap(),
                Frame {
                    exit: 1,
                    body: body.to_vec()
                }
            );
        }
        // What busybox base64 writes for a known text.
        assert_eq!(base64_encode(b"syscost"), "c3lzY29zdA==");
        assert_eq!(base64_decode("c3lzY29zdA==").unwrap(), b"syscost");
    }

    #[test]
    fn a_damaged_frame_is_an_error_not_a_record() {
        let body = br#"{"schema": 1, "results": []}"#.repeat(10);
        let f = encode(0, &body);
        assert_eq!(decode(b"nothing here"), Err(FrameError::Missing));
        let cut = &f[..f.len() - END.len() - 1];
        assert!(!complete(cut.as_bytes()));
        assert_eq!(decode(cut.as_bytes()), Err(FrameError::Incomplete));
        // A kernel message printed into the middle of the base64.
        let lines: Vec<&str> = f.lines().collect();
        let mut hit = lines.clone();
        let broken = format!("{}[ 12.3] audit: x", &lines[1][..20]);
        hit[1] = &broken;
        let e = decode(hit.join("\n").as_bytes()).unwrap_err();
        assert!(matches!(e, FrameError::Base64 { line: 2, .. }), "{e:?}");
        // One character changed: the checksum catches it.
        let flipped = f.replacen("eyJz", "eyJy", 1);
        assert!(matches!(
            decode(flipped.as_bytes()),
            Err(FrameError::Checksum { .. })
        ));
        // A lost line: the length (or the base64) catches it.
        let mut short = lines.clone();
        short.remove(2);
        assert!(decode(short.join("\n").as_bytes()).is_err());
        assert!(matches!(
            decode(b"SYSCOST-LAB-RECORD 1 exit=x bytes=1 sha256=00\nSYSCOST-LAB-END\n"),
            Err(FrameError::Header(_))
        ));
    }
}
