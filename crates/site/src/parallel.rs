//! Running work on all cores without letting the output depend on scheduling.

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

/// Number of threads for the passes over records (`SYSCOST_SITE_JOBS` overrides).
pub fn jobs() -> usize {
    std::env::var("SYSCOST_SITE_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, 16)
}
