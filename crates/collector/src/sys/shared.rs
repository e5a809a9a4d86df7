//! Memory shared with forked children: a zeroed page of atomics a child fills in and its
//! parent reads after reaping it (the attach scenarios' timings, the ptrace tracee's batch).

use std::io;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};

/// A zeroed, page-aligned `T` in a MAP_SHARED anonymous mapping: writes by a forked child are
/// seen by the parent. `T` must be plain atomics (valid when zeroed, safe to share).
pub struct Shared<T> {
    ptr: *mut T,
    len: usize,
    _t: PhantomData<T>,
}

// SAFETY: the mapping holds only atomics (see `Slots`), shared by design.
unsafe impl<T: Sync> Send for Shared<T> {}

impl<T> Shared<T> {
    /// Maps a zeroed `T`. Only for types whose all-zero bytes are a valid value.
    pub fn new() -> io::Result<Shared<T>> {
        let len = std::mem::size_of::<T>().max(1);
        // SAFETY: anonymous shared mapping; checked for failure below.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(io::Error::last_os_error());
        }
        Ok(Shared {
            ptr: p.cast(),
            len,
            _t: PhantomData,
        })
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: mapped, zero-initialised and only ever accessed through shared references
        // to atomics.
        unsafe { &*self.ptr }
    }
}

impl<T> Drop for Shared<T> {
    fn drop(&mut self) {
        // SAFETY: our own mapping.
        unsafe { libc::munmap(self.ptr.cast(), self.len) };
    }
}

/// Eight result words a child fills in for its parent.
#[repr(C)]
#[derive(Default)]
pub struct Slots {
    pub w: [AtomicU64; 8],
    pub s: [AtomicI64; 4],
}

impl Slots {
    pub fn get(&self, i: usize) -> u64 {
        self.w[i].load(Ordering::SeqCst)
    }
    pub fn set(&self, i: usize, v: u64) {
        self.w[i].store(v, Ordering::SeqCst)
    }
    pub fn geti(&self, i: usize) -> i64 {
        self.s[i].load(Ordering::SeqCst)
    }
    pub fn seti(&self, i: usize, v: i64) {
        self.s[i].store(v, Ordering::SeqCst)
    }
    pub fn clear(&self) {
        for w in &self.w {
            w.store(0, Ordering::SeqCst);
        }
        for s in &self.s {
            s.store(0, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::process::{fork, Exit};

    #[test]
    fn a_child_writes_what_the_parent_reads() {
        let shm: Shared<Slots> = Shared::new().unwrap();
        shm.set(3, 42);
        let mut c = fork(|| {
            shm.set(3, shm.get(3) + 1);
            shm.seti(1, -7);
            5
        })
        .unwrap();
        assert_eq!(c.wait().unwrap(), Exit::Code(5));
        assert_eq!(shm.get(3), 43);
        assert_eq!(shm.geti(1), -7);
        shm.clear();
        assert_eq!((shm.get(3), shm.geti(1)), (0, 0));
    }
}
