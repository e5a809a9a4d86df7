//! Where an interceptor (the USER_NOTIF supervisor, the ptrace tracer) runs relative to the
//! timed loop. With more than one CPU it goes on another one, as a container runtime's
//! supervisor usually does: the cost then includes the cross-CPU wake-up, not a context switch
//! on the loop's own CPU. With one CPU both share it.

use crate::sys::affinity::pin_to_cpu;

/// The interceptor's CPU: the highest of `candidates` (the CPUs the run may use) other than the
/// loop's, or the loop's own when it is the only one or `same` asks for it.
pub fn interceptor_cpu(candidates: &[u32], loop_cpu: u32, same: bool) -> u32 {
    if same {
        return loop_cpu;
    }
    candidates
        .iter()
        .rev()
        .find(|&&c| c != loop_cpu)
        .copied()
        .unwrap_or(loop_cpu)
}

/// What `params` says about the placement, decided from the same candidates in the parent.
pub fn describe(candidates: &[u32], same: bool) -> &'static str {
    if same || candidates.len() < 2 {
        "same as the timed loop"
    } else {
        "another CPU than the timed loop"
    }
}

/// Why a scenario that is a cross-CPU round trip (it has a `.same_cpu` twin) cannot be measured
/// when the run may use one CPU: its `interceptor` would share the loop's, which `twin`
/// measures already. None when there is a second CPU.
pub fn needs_second_cpu(candidates: &[u32], interceptor: &str, twin: &str) -> Option<String> {
    (candidates.len() < 2).then(|| {
        format!(
            "needs a second CPU: this run may use one, so the {interceptor} would share the \
             timed loop's CPU, which {twin} measures"
        )
    })
}

/// Pinning an interceptor (or the tracee) failed.
#[derive(Debug, thiserror::Error)]
#[error("cannot pin the {what} to CPU {cpu}: {source}")]
pub struct PinError {
    what: &'static str,
    cpu: u32,
    source: std::io::Error,
}

/// Pins the calling thread, with an error that says what was being placed.
pub fn pin(what: &'static str, cpu: u32) -> Result<(), PinError> {
    pin_to_cpu(cpu).map_err(|source| PinError { what, cpu, source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interceptor_avoids_the_loop_cpu_when_it_can() {
        assert_eq!(interceptor_cpu(&[0, 1], 1, false), 0);
        assert_eq!(interceptor_cpu(&[0, 1], 0, false), 1);
        assert_eq!(interceptor_cpu(&[0, 1, 2, 3], 3, false), 2);
        assert_eq!(interceptor_cpu(&[0, 1, 2, 3], 3, true), 3);
        assert_eq!(interceptor_cpu(&[2], 2, false), 2);
        assert!(describe(&[2], false).starts_with("same"));
        assert!(describe(&[0, 1], true).starts_with("same"));
        assert!(describe(&[0, 1], false).starts_with("another"));
        assert_eq!(needs_second_cpu(&[0, 1], "tracer", "x.same_cpu"), None);
        assert_eq!(
            needs_second_cpu(&[3], "tracer", "ptrace.syscall.same_cpu").as_deref(),
            Some(
                "needs a second CPU: this run may use one, so the tracer would share the \
                 timed loop's CPU, which ptrace.syscall.same_cpu measures"
            )
        );
    }
}
