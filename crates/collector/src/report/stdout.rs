//! Standard output as a result: a full disk or a closed pipe is an error to report (or, for a
//! reader that went away, to leave quietly), never a panic.

use std::io::{self, Write};

/// Writes `text` to standard output and flushes it.
pub fn print(text: &str) -> io::Result<()> {
    let mut o = io::stdout().lock();
    o.write_all(text.as_bytes())?;
    o.flush()
}
