//! Running the build's work on all cores without letting the output depend on scheduling.

use super::ctx::Ctx;
use super::error::BuildError;

/// Splits `items` into at most `jobs` contiguous parts, runs `f` on each in its own thread and
/// returns the results in the original order, so output never depends on scheduling.
pub fn par_map<T: Send, R: Send>(items: Vec<T>, jobs: usize, f: impl Fn(T) -> R + Sync) -> Vec<R> {
    let per = items.len().div_ceil(jobs.max(1)).max(1);
    let mut parts: Vec<Vec<T>> = Vec::new();
    let mut it = items.into_iter().peekable();
    while it.peek().is_some() {
        parts.push(it.by_ref().take(per).collect());
    }
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = parts
            .into_iter()
            .map(|p| s.spawn(move || p.into_iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

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

/// Number of threads for the passes over records (`SYSCOST_SITE_JOBS` overrides).
pub fn jobs() -> usize {
    std::env::var("SYSCOST_SITE_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 16)
}
