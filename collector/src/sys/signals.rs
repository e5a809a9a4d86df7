//! SIGINT/SIGTERM as a flag the engine polls between samples: a run stops cleanly, kills its
//! workers and writes nothing.

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
