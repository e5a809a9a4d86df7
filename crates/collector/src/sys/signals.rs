//! Signals: SIGINT/SIGTERM as a flag the engine polls between samples (a run stops cleanly,
//! kills its workers and writes nothing), and the dispositions of a forked child.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A flag raised by SIGINT or SIGTERM.
pub fn stop_flag() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        let _ = signal_hook::flag::register(sig, Arc::clone(&stop));
    }
    stop
}

/// In a forked child of the engine: ignore the terminal's SIGINT and SIGQUIT (the parent
/// decides when to stop, and kills it) and SIGPIPE (a parent gone mid-message gives EPIPE).
pub fn ignore_in_child() {
    // SAFETY: setting dispositions to SIG_IGN has no handler to be unsafe about.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_IGN);
        libc::signal(libc::SIGQUIT, libc::SIG_IGN);
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
}
