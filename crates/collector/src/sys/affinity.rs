//! CPU affinity: the measurement CPU, the CPUs this process may use, and keeping the parent
//! off the measurement CPU.

use std::io;

/// Pins the calling process to one CPU.
pub fn pin_to_cpu(cpu: u32) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET bounds-checks against its size.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu as usize, &mut set);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Restricts the calling process to `cpus` (the parent keeps off the measurement CPU).
pub fn pin_to_cpus(cpus: &[u32]) -> io::Result<()> {
    // SAFETY: as above.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &c in cpus {
            libc::CPU_SET(c as usize, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// CPUs this process may run on.
pub fn allowed_cpus() -> Vec<u32> {
    // SAFETY: as above.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Vec::new();
        }
        (0..libc::CPU_SETSIZE as u32)
            .filter(|&c| libc::CPU_ISSET(c as usize, &set))
            .collect()
    }
}

/// The CPU the calling thread is pinned to, when it may run on exactly one (the engine pins
/// every worker so).
pub fn pinned_cpu() -> Option<u32> {
    match allowed_cpus()[..] {
        [cpu] => Some(cpu),
        _ => None,
    }
}

/// `cpus` without `cpu`.
pub fn others(cpus: &[u32], cpu: u32) -> Vec<u32> {
    cpus.iter().copied().filter(|&c| c != cpu).collect()
}

/// Moves this (parent) process off the measurement CPU when there is another: woken by every
/// reply, it would otherwise be scheduled next to the workers and preempt them. The workers
/// inherit this mask and then pin themselves to `cpu`.
pub fn keep_off(cpu: u32) {
    let others = others(&allowed_cpus(), cpu);
    if !others.is_empty() {
        let _ = pin_to_cpus(&others);
    }
}

/// Asks for real-time priority (SCHED_FIFO, 1) for the calling thread; without privilege it
/// is refused and the thread stays at normal priority.
pub fn realtime_priority() {
    // musl's sched_param has more fields than glibc's (the sporadic-server ones): start from
    // zeroes, which is what both mean by "no such parameter".
    // SAFETY: sched_param is plain integers; all-zero is a valid value.
    let mut param: libc::sched_param = unsafe { std::mem::zeroed() };
    param.sched_priority = 1;
    // SAFETY: plain syscall on the calling thread with a valid pointer.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pinned_thread_knows_its_cpu() {
        let all = allowed_cpus();
        let cpu = *all.last().unwrap();
        let on = std::thread::spawn(move || {
            let before = pinned_cpu();
            pin_to_cpu(cpu).unwrap();
            (before, pinned_cpu(), allowed_cpus())
        })
        .join()
        .unwrap();
        assert_eq!(on.0.is_some(), all.len() == 1);
        assert_eq!((on.1, on.2), (Some(cpu), vec![cpu]));
        assert_eq!(others(&[0, 1, 2], 1), vec![0, 2]);
    }
}
