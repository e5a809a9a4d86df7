//! Measuring a command in a child process (wall time, CPU time, peak memory), and the sizes of what it wrote.

use super::*;

pub(super) struct Measure {
    pub(super) wall_s: f64,
    pub(super) user_s: f64,
    pub(super) sys_s: f64,
    pub(super) max_rss_mb: f64,
}

/// Why a measurement was not made.
#[derive(Debug, thiserror::Error)]
pub(super) enum BenchError {
    #[error("cannot start a measured child ({0:?}): {1}")]
    Spawn(Vec<String>, std::io::Error),
    #[error("cannot wait for the measured child ({0:?}): {1}")]
    Wait(Vec<String>, std::io::Error),
    #[error("the measured child {0:?} failed ({1})")]
    Child(Vec<String>, std::process::ExitStatus),
    #[error("cannot put the held-back record back at {0}: {1}")]
    Restore(PathBuf, std::io::Error),
}

/// Runs this binary with `args` as a child and measures it.
pub(super) fn child<S: AsRef<std::ffi::OsStr> + ToString>(
    args: &[S],
) -> Result<Measure, BenchError> {
    let owned = || args.iter().map(ToString::to_string).collect::<Vec<_>>();
    let start = Instant::now();
    let c = std::env::current_exe()
        .and_then(|exe| {
            Command::new(exe)
                .arg("--child")
                .args(args)
                .stdout(std::process::Stdio::null())
                .spawn()
        })
        .map_err(|e| BenchError::Spawn(owned(), e))?;
    // wait4, not `Child::wait`: for the child's resource usage.
    let ended = syscost_testkit::sys::wait4(c.id()).map_err(|e| BenchError::Wait(owned(), e))?;
    let wall_s = start.elapsed().as_secs_f64();
    if !ended.status.success() {
        return Err(BenchError::Child(owned(), ended.status));
    }
    Ok(Measure {
        wall_s,
        user_s: ended.user.as_secs_f64(),
        sys_s: ended.system.as_secs_f64(),
        max_rss_mb: ended.max_rss_kb as f64 / 1024.0,
    })
}

/// The best (least wall time) of `repeat` runs, the `rep`th with the arguments `args(rep)`.
pub(super) fn best(
    repeat: usize,
    args: &dyn Fn(usize) -> Vec<String>,
) -> Result<Measure, BenchError> {
    let run = |rep| child(&args(rep));
    let mut best = run(0)?;
    for rep in 1..repeat {
        let m = run(rep)?;
        if m.wall_s < best.wall_s {
            best = m;
        }
    }
    Ok(best)
}

/// Moves the last record file (in path order) of `data` into `work`; returns where it was and
/// where it is.
pub(super) fn hold_back(data: &Path, work: &Path) -> Option<(PathBuf, PathBuf)> {
    let last = walkdir::WalkDir::new(data)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .last()?
        .into_path();
    let aside = work.join("held-back.json");
    std::fs::rename(&last, &aside).ok()?;
    Some((last, aside))
}

/// Every file under `dir` with its inode: a file the build did not write keeps its inode.
pub(super) fn inodes(dir: &Path) -> std::collections::HashMap<PathBuf, u64> {
    use std::os::unix::fs::MetadataExt;
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let ino = e.metadata().ok()?.ino();
            Some((e.path().strip_prefix(dir).ok()?.to_path_buf(), ino))
        })
        .collect()
}

/// Total bytes, file count and the largest .html file under `dir`.
pub(super) fn du(dir: &Path) -> (u64, u64, u64, String) {
    let (mut bytes, mut files, mut largest, mut largest_path) = (0, 0, 0, String::new());
    for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
        if !e.file_type().is_file() {
            continue;
        }
        let len = e.metadata().map(|m| m.len()).unwrap_or(0);
        bytes += len;
        files += 1;
        let name = e.path().to_string_lossy();
        if name.ends_with(".html") && len > largest {
            largest = len;
            largest_path = e
                .path()
                .strip_prefix(dir)
                .unwrap_or(e.path())
                .to_string_lossy()
                .into_owned();
        }
    }
    (bytes, files, largest, largest_path)
}

/// The 1-minute load average, so a figure says how busy the machine was.
pub(super) fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
}
