//! The pages written as independent tasks on all cores, the first error in task order
//! returned.

use crate::view::ctx::Ctx;
use crate::view::error::BuildError;

/// A piece of the build that writes its own files.
pub type Task<'t> = Box<dyn FnOnce(&mut Ctx) -> Result<(), BuildError> + Send + 't>;

/// Runs independent tasks on up to `jobs` threads, each taking the next task from a shared
/// queue; the first error (in task order) is returned.
pub fn run_tasks(tasks: Vec<Task>, ctx: Ctx, jobs: usize) -> Result<(), BuildError> {
    let n = tasks.len();
    let queue = std::sync::Mutex::new(tasks.into_iter().enumerate());
    let mut errors: Vec<(usize, BuildError)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..jobs.min(n).max(1))
            .map(|_| {
                s.spawn(|| {
                    let mut ctx = ctx;
                    let mut errs = Vec::new();
                    loop {
                        let next = queue.lock().ok().and_then(|mut q| q.next());
                        let Some((i, task)) = next else { break };
                        if let Err(e) = task(&mut ctx) {
                            errs.push((i, e));
                        }
                    }
                    errs
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    errors.sort_by_key(|(i, _)| *i);
    match errors.into_iter().next() {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}
