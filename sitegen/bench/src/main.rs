//! Site generator benchmark: generates synthetic records (into a temporary directory, never
//! `data/`) and times `syscost-site build` against the floor of just reading and parsing the
//! same files: on one thread for the CPU time a build spends beyond it, and on as many threads
//! as the build uses for its wall time. Each measurement runs in a child process (this binary re-executed) so that peak
//! RSS and CPU time come from `wait4` for exactly that work.
//!
//!     cargo build --release -p syscost-site-bench
//!     target/release/site-bench [--sizes 1000,10000,100000] [--work DIR] [--repeat N]
//!     target/release/site-bench synth --runs N --out DIR [--seed S]
//!     target/release/site-bench ratio --data DIR [--rounds N] [--goal 3] [--work DIR]

use clap::{Args, Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The allocator of `syscost-site` (see its main.rs): the floor and the builds measured here
/// run in this binary, and must allocate as the real program does.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Measure {
    wall_s: f64,
    user_s: f64,
    sys_s: f64,
    max_rss_mb: f64,
}

/// Why a measurement was not made.
#[derive(Debug, thiserror::Error)]
enum BenchError {
    #[error("cannot start a measured child ({0:?}): {1}")]
    Spawn(Vec<String>, std::io::Error),
    #[error("the measured child {0:?} failed (wait status {1})")]
    Child(Vec<String>, i32),
    #[error("cannot put the held-back record back at {0}: {1}")]
    Restore(PathBuf, std::io::Error),
}

/// Runs this binary with `args` as a child and measures it.
fn child(args: &[&str]) -> Result<Measure, BenchError> {
    let owned = || args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
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
    let pid = c.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: plain syscall on our own child; rusage is a valid out-pointer.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    let wall_s = start.elapsed().as_secs_f64();
    if r != pid || !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        return Err(BenchError::Child(owned(), status));
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Ok(Measure {
        wall_s,
        user_s: tv(ru.ru_utime),
        sys_s: tv(ru.ru_stime),
        max_rss_mb: ru.ru_maxrss as f64 / 1024.0,
    })
}

/// The best of `repeat` runs; `before` runs ahead of each (a build from scratch removes the
/// site first, or the builds after the first would be incremental).
fn best(args: &[&str], repeat: usize, before: &dyn Fn()) -> Result<Measure, BenchError> {
    before();
    let mut best = child(args)?;
    for _ in 1..repeat {
        before();
        let m = child(args)?;
        if m.wall_s < best.wall_s {
            best = m;
        }
    }
    Ok(best)
}

/// Moves the last record file (in path order) of `data` into `work`; returns where it was and
/// where it is.
fn hold_back(data: &Path, work: &Path) -> Option<(PathBuf, PathBuf)> {
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
fn inodes(dir: &Path) -> std::collections::HashMap<PathBuf, u64> {
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
fn du(dir: &Path) -> (u64, u64, u64, String) {
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

#[derive(Debug, Parser)]
#[command(
    name = "site-bench",
    about = "Times syscost-site build on synthetic records, or writes synthetic records",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Tool>,
    #[command(flatten)]
    bench: Bench,
}

#[derive(Debug, Args)]
struct Bench {
    /// Numbers of records to benchmark, comma-separated.
    #[arg(long, value_delimiter = ',', default_values_t = [1000, 10_000, 100_000])]
    sizes: Vec<usize>,
    /// Scratch directory for records and sites (default: a new one in the temp dir).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Measurements per size, best kept (default: 3 up to 10,000 records, else 1).
    #[arg(long)]
    repeat: Option<usize>,
    /// Records like a real default run (`real`, ~65 scenarios) or the small synthetic ones.
    #[arg(long, value_enum, default_value_t = ShapeArg::Real)]
    shape: ShapeArg,
    /// Copy each raw record into the site (a build without `--data-url`) instead of linking it
    /// in the repository as the published site does.
    #[arg(long)]
    copy_records: bool,
}

/// What the measured builds link raw records to (never fetched).
const DATA_URL: &str = "https://github.com/OWNER/REPO/blob/main/data";

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ShapeArg {
    Real,
    Small,
}

impl From<ShapeArg> for syscost_site_bench::Shape {
    fn from(s: ShapeArg) -> Self {
        match s {
            ShapeArg::Real => syscost_site_bench::Shape::Real,
            ShapeArg::Small => syscost_site_bench::Shape::Small,
        }
    }
}

/// The 1-minute load average, so a figure says how busy the machine was.
fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
}

#[derive(Debug, Subcommand)]
enum Tool {
    /// Write synthetic records (never into a directory named `data`).
    Synth {
        /// Number of records.
        #[arg(long)]
        runs: usize,
        /// Directory to write records into.
        #[arg(long)]
        out: PathBuf,
        /// Random seed; the same seed gives the same records.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, value_enum, default_value_t = ShapeArg::Real)]
        shape: ShapeArg,
    },
    /// Measure the build ÷ parse floor ratio over rounds on existing records: each round a
    /// build from scratch and both floors, in alternating order; the median ratio with its
    /// 95 % interval, and whether the goal is met.
    Ratio {
        /// The records (for example written by `synth`; never changed).
        #[arg(long)]
        data: PathBuf,
        /// Rounds to measure (an interval needs at least 6).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u16).range(1..=1000))]
        rounds: u16,
        /// The most the build may take, as a multiple of the floor.
        #[arg(long, default_value_t = 3.0, value_parser = positive)]
        goal: f64,
        /// Scratch directory for the site (default: a new one in the temp dir).
        #[arg(long)]
        work: Option<PathBuf>,
    },
}

/// A `--goal` that is not a finite ratio above 0.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not a ratio above 0")]
struct NotARatio(String);

/// A goal ratio: a finite number above 0 (a NaN goal would leave every verdict undecided).
fn positive(s: &str) -> Result<f64, NotARatio> {
    match s.parse::<f64>() {
        Ok(g) if g.is_finite() && g > 0.0 => Ok(g),
        _ => Err(NotARatio(s.to_string())),
    }
}

/// The floor a build is measured against: read and parse every record, nothing else.
fn parse_floor(data: &str) {
    let scan = syscost_site::load::scan(Path::new(data));
    let ok = scan
        .records
        .iter()
        .filter(|c| syscost_site::load::read_record(&c.abs).is_ok())
        .count();
    println!(
        "parsed {ok} records ({} unreadable)",
        scan.records.len() - ok
    );
}

/// [`parse_floor`] on as many threads as the build uses, each reading and parsing one
/// contiguous share of the records: the floor a build's *wall* time is compared with (its CPU
/// time is compared with the one-thread floor's).
fn parse_floor_all(data: &str) {
    let scan = syscost_site::load::scan(Path::new(data));
    let jobs = syscost_site::site::jobs();
    let per = scan.records.len().div_ceil(jobs).max(1);
    let ok: usize = std::thread::scope(|s| {
        let shares: Vec<_> = scan
            .records
            .chunks(per)
            .map(|share| {
                s.spawn(move || {
                    share
                        .iter()
                        .filter(|c| syscost_site::load::read_record(&c.abs).is_ok())
                        .count()
                })
            })
            .collect();
        // A share whose thread panicked is a defect of this program, not unreadable records.
        shares
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .sum()
    });
    println!(
        "parsed {ok} records on {jobs} threads ({} unreadable)",
        scan.records.len() - ok
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        match args.get(2).map(String::as_str) {
            Some("parse") => return parse_floor(args.get(4).map_or("data", String::as_str)),
            Some("parse-all") => {
                return parse_floor_all(args.get(4).map_or("data", String::as_str))
            }
            _ => {}
        }
        // The measured work: the real CLI, in this process.
        let cli = syscost_site::cli::Cli::parse_from(
            std::iter::once("syscost-site".to_string()).chain(args[2..].iter().cloned()),
        );
        if let Err(e) = syscost_site::commands::run(cli) {
            eprintln!("{e}");
            std::process::exit(1);
        }
        return;
    }
    let cli = Cli::parse();
    std::process::exit(match cli.command {
        Some(Tool::Synth {
            runs,
            out,
            seed,
            shape,
        }) => synth(runs, &out, seed, shape.into()),
        Some(Tool::Ratio {
            data,
            rounds,
            goal,
            work,
        }) => ratio(&data, usize::from(rounds), goal, work),
        None => bench(cli.bench),
    });
}

fn synth(runs: usize, out: &Path, seed: u64, shape: syscost_site_bench::Shape) -> i32 {
    match syscost_site_bench::write_shape(out, runs, seed, shape) {
        Ok(n) => {
            println!("wrote {n} synthetic records under {}", out.display());
            0
        }
        Err(e @ syscost_site_bench::WriteError::DataDir(_)) => {
            eprintln!("site-bench synth: {e}");
            2
        }
        Err(e) => {
            eprintln!("site-bench synth: {e}");
            1
        }
    }
}

/// `site-bench ratio`: rounds of a build from scratch beside both floors (see
/// `syscost_site_bench::rounds`). A round runs the floors first or the build first in turn, so
/// a machine growing busier or quieter over the rounds does not favour either.
fn ratio(data: &Path, rounds: usize, goal: f64, work: Option<PathBuf>) -> i32 {
    use syscost_site_bench::rounds::{ratio, report};
    if !data.is_dir() {
        eprintln!(
            "site-bench ratio: {} is not a directory of records",
            data.display()
        );
        return 2;
    }
    // A directory of our own is made new (not reused) and removed whole at the end; one given
    // keeps everything but the site and its summary cache.
    let (work, made) = match work {
        Some(w) => (std::fs::create_dir_all(&w).map(|()| w), false),
        None => {
            let w = std::env::temp_dir().join(format!("syscost-site-ratio-{}", std::process::id()));
            (std::fs::create_dir(&w).map(|()| w), true)
        }
    };
    let work = match work {
        Ok(w) => w,
        Err(e) => {
            eprintln!("site-bench ratio: cannot make the scratch directory: {e}");
            return 1;
        }
    };
    let scratch = Scratch {
        site: work.join("site"),
        // The build's summary cache, beside the site: a build from scratch has none.
        summaries: work.join(".site.summaries"),
        made: made.then(|| work.clone()),
    };
    let (d, s) = (data.to_string_lossy(), scratch.site.to_string_lossy());
    let floor1 = ["parse", "--data", &d];
    let floor_all = ["parse-all", "--data", &d];
    let build = ["build", "--data", &d, "--out", &s, "--data-url", DATA_URL];
    let from_scratch = || scratch.clear();
    let jobs = syscost_site::site::jobs();
    println!("load average before: {}", loadavg());
    println!("| round | first | floor, 1 thread: CPU | floor, {jobs} threads: wall | build: CPU (wall) | ÷ floor: CPU | ÷ {jobs}-thread floor: wall |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    let (mut cpu, mut wall) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let floors_first = round % 2 == 1;
        let measured = (|| -> Result<(Measure, Measure, Measure), BenchError> {
            let floors = || Ok::<_, BenchError>((child(&floor1)?, child(&floor_all)?));
            let built = || {
                from_scratch();
                child(&build)
            };
            Ok(if floors_first {
                let (f1, fa) = floors()?;
                (f1, fa, built()?)
            } else {
                let b = built()?;
                let (f1, fa) = floors()?;
                (f1, fa, b)
            })
        })();
        let (f1, fa, b) = match measured {
            Ok(m) => m,
            Err(e) => {
                eprintln!("site-bench ratio: round {round}: {e}");
                return 1;
            }
        };
        let (f1_cpu, b_cpu) = (f1.user_s + f1.sys_s, b.user_s + b.sys_s);
        let shown = |r: Option<f64>| r.map_or("—".to_string(), |r| format!("{r:.3}×"));
        let (c, w) = (ratio(b_cpu, f1_cpu), ratio(b.wall_s, fa.wall_s));
        println!(
            "| {round} | {} | {f1_cpu:.2} s | {:.2} s | {b_cpu:.2} s ({:.2} s) | {} | {} |",
            if floors_first { "floors" } else { "build" },
            fa.wall_s,
            b.wall_s,
            shown(c),
            shown(w),
        );
        cpu.push(c);
        wall.push(w);
    }
    drop(scratch);
    println!("load average after: {}", loadavg());
    for (what, measured) in [
        ("build CPU ÷ 1-thread floor CPU", &cpu),
        (&*format!("build wall ÷ {jobs}-thread floor wall"), &wall),
    ] {
        for line in report(what, measured, goal) {
            println!("{line}");
        }
    }
    0
}

/// Where `ratio`'s builds go. Cleared on every way out of `ratio`, a failed round included
/// (a site at 100,000 runs is most of a gigabyte).
struct Scratch {
    site: PathBuf,
    summaries: PathBuf,
    /// The directory, when `ratio` made it.
    made: Option<PathBuf>,
}

impl Scratch {
    fn clear(&self) {
        let _ = std::fs::remove_dir_all(&self.site);
        let _ = std::fs::remove_file(&self.summaries);
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.clear();
        if let Some(dir) = &self.made {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn bench(args: Bench) -> i32 {
    let Bench {
        sizes,
        work,
        repeat,
        shape,
        copy_records,
    } = args;
    let tmp;
    let work = match work {
        Some(w) => w,
        None => {
            tmp = std::env::temp_dir().join(format!("syscost-site-bench-{}", std::process::id()));
            tmp
        }
    };
    if work.file_name().is_some_and(|n| n == "data") {
        eprintln!("site-bench: refusing to use a directory named data");
        return 2;
    }
    let jobs = syscost_site::site::jobs();
    println!("| runs | records (per run) | parse floor, 1 thread: wall (user + sys) | floor peak RSS | parse floor, {jobs} threads: wall | build: wall (user + sys) | build ÷ floor: wall (÷ the {jobs}-thread floor), CPU (÷ the 1-thread floor) | build peak RSS | build wall per run | site (per run) | files | largest page | one more run: wall (user + sys), files written | load |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|");
    for &n in &sizes {
        let data = work.join(format!("records-{n}"));
        let site = work.join(format!("site-{n}"));
        // The build's summary cache, beside the site: a build from scratch has none.
        let summaries = work.join(format!(".site-{n}.summaries"));
        let _ = std::fs::remove_dir_all(&data);
        let t = Instant::now();
        if let Err(e) = syscost_site_bench::write_shape(&data, n, 1, shape.into()) {
            eprintln!("site-bench: {e}");
            return 1;
        }
        eprintln!(
            "generated {n} records in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        // One record is held back for the incremental build: the full build is of n − 1.
        let Some((held, aside)) = hold_back(&data, &work) else {
            eprintln!("site-bench: no record to hold back in {}", data.display());
            return 1;
        };
        let reps = repeat.unwrap_or(if n <= 10_000 { 3 } else { 1 });
        let load = loadavg();
        let d = data.to_string_lossy().into_owned();
        let s = site.to_string_lossy().into_owned();
        let run = || -> Result<(Measure, Measure, Measure, Measure, u64), BenchError> {
            let floor = best(&["parse", "--data", &d], reps, &|| {})?;
            let floor_all = best(&["parse-all", "--data", &d], reps, &|| {})?;
            let mut args = vec!["build", "--data", &d, "--out", &s];
            if !copy_records {
                args.extend(["--data-url", DATA_URL]);
            }
            let build = best(&args, reps, &|| {
                let _ = std::fs::remove_dir_all(&site);
                let _ = std::fs::remove_file(&summaries);
            })?;
            let before = inodes(&site);
            std::fs::rename(&aside, &held).map_err(|e| BenchError::Restore(held.clone(), e))?;
            let one_more = child(&args)?;
            let after = inodes(&site);
            let rewritten = after
                .iter()
                .filter(|(p, i)| before.get(*p) != Some(*i))
                .count() as u64;
            Ok((floor, floor_all, build, one_more, rewritten))
        };
        let (floor, floor_all, build, one_more, rewritten) = match run() {
            Ok(x) => x,
            Err(e) => {
                eprintln!("site-bench: {e}");
                return 1;
            }
        };
        let (rec_bytes, _, _, _) = du(&data);
        let (bytes, files, largest, largest_path) = du(&site);
        println!(
            "| {n} | {:.0} MB ({:.1} KB) | {:.2} s ({:.2} s + {:.2} s) | {:.0} MB | {:.2} s | {:.2} s ({:.2} s + {:.2} s) | {:.1}×, {:.1}× | {:.0} MB | {:.2} ms | {:.0} MB ({:.1} KB) | {files} | {largest_path} ({:.0} KB) | {:.2} s ({:.2} s + {:.2} s), {rewritten} | {load} |",
            rec_bytes as f64 / 1e6,
            rec_bytes as f64 / 1e3 / n as f64,
            floor.wall_s,
            floor.user_s,
            floor.sys_s,
            floor.max_rss_mb,
            floor_all.wall_s,
            build.wall_s,
            build.user_s,
            build.sys_s,
            build.wall_s / floor_all.wall_s,
            (build.user_s + build.sys_s) / (floor.user_s + floor.sys_s).max(1e-9),
            build.max_rss_mb,
            build.wall_s / n as f64 * 1e3,
            bytes as f64 / 1e6,
            bytes as f64 / 1e3 / n as f64,
            largest as f64 / 1e3,
            one_more.wall_s,
            one_more.user_s,
            one_more.sys_s,
        );
        let _ = std::fs::remove_dir_all(&data);
        let _ = std::fs::remove_dir_all(&site);
        let _ = std::fs::remove_file(&summaries);
    }
    let _ = std::fs::remove_dir(&work);
    0
}
