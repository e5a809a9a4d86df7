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
//!     target/release/site-bench pool [--goal 3] SAVED...   (outputs of `ratio`, as one set)
//!
//! Every build is into a directory of its own; on a disk nothing is deleted until the
//! measuring is over (see `Scratch`).

mod measure;
use measure::*;

use clap::{Args, Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The allocator of `syscost-site` (see its main.rs): the floor and the builds measured here
/// run in this binary, and must allocate as the real program does.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Where to make the scratch directory for records and sites (default: the temp dir). Every
    /// build goes into a new directory, all kept until the end: put it on the file system
    /// being measured, with room for the records and a site per build (~1 GB at 100,000 runs).
    #[arg(long)]
    work: Option<PathBuf>,
    /// Measurements per size, best kept (default: 3 up to 10,000 records, else 1).
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
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

impl From<ShapeArg> for syscost_synth::Shape {
    fn from(s: ShapeArg) -> Self {
        match s {
            ShapeArg::Real => syscost_synth::Shape::Real,
            ShapeArg::Small => syscost_synth::Shape::Small,
        }
    }
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
        /// Where to make the scratch directory for the sites (default: the temp dir). On a
        /// disk each round's site is kept until the last round (~1 GB at 100,000 runs): put it
        /// on the file system of the records, with room for a site per round.
        #[arg(long)]
        work: Option<PathBuf>,
    },
    /// The rounds of saved `ratio` outputs as one set: the median ratio with its 95 %
    /// interval over all of them, and whether the goal is met (for a verdict planned over
    /// sets made at different times).
    Pool {
        /// What `site-bench ratio` printed, one file a set.
        #[arg(required = true)]
        saved: Vec<PathBuf>,
        /// The most the build may take, as a multiple of the floor.
        #[arg(long, default_value_t = 3.0, value_parser = positive)]
        goal: f64,
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
    let scan = syscost_site::build::load::scan(Path::new(data));
    let mut reader = syscost_site::build::load::Reader::default();
    let ok = scan
        .records
        .iter()
        .filter(|c| reader.record(&c.abs).is_ok())
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
    let scan = syscost_site::build::load::scan(Path::new(data));
    let jobs = syscost_site::parallel::jobs();
    let per = scan.records.len().div_ceil(jobs).max(1);
    let ok: usize = std::thread::scope(|s| {
        let shares: Vec<_> = scan
            .records
            .chunks(per)
            .map(|share| {
                s.spawn(move || {
                    let mut reader = syscost_site::build::load::Reader::default();
                    share
                        .iter()
                        .filter(|c| reader.record(&c.abs).is_ok())
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
        Some(Tool::Pool { saved, goal }) => pool(&saved, goal),
        None => bench(cli.bench),
    });
}

fn synth(runs: usize, out: &Path, seed: u64, shape: syscost_synth::Shape) -> i32 {
    match syscost_synth::write_shape(out, runs, seed, shape) {
        Ok(n) => {
            println!("wrote {n} synthetic records under {}", out.display());
            0
        }
        Err(e @ syscost_synth::WriteError::DataDir(_)) => {
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
    use syscost_site_bench::rounds::{ratio, report, Round};
    if !data.is_dir() {
        eprintln!(
            "site-bench ratio: {} is not a directory of records",
            data.display()
        );
        return 2;
    }
    // A directory of our own, made new in the one given (or the temp dir) and removed whole at
    // the end: a build into a directory an earlier measurement left would be incremental.
    let dir = work
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("syscost-site-ratio-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(dir.parent().unwrap_or(&dir))
        .and_then(|()| std::fs::create_dir(&dir))
    {
        eprintln!("site-bench ratio: cannot make {}: {e}", dir.display());
        return 1;
    }
    let scratch = Scratch(dir);
    let d = data.to_string_lossy().into_owned();
    let floor1 = ["parse", "--data", &d];
    let floor_all = ["parse-all", "--data", &d];
    let jobs = syscost_site::parallel::jobs();
    println!("load average before: {}", loadavg());
    println!("| round | first | floor, 1 thread: CPU | floor, {jobs} threads: wall | build: CPU (wall) | ÷ floor: CPU | ÷ {jobs}-thread floor: wall |");
    println!("|---:|---|---:|---:|---:|---:|---:|");
    let (mut cpu, mut wall) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        let floors_first = round % 2 == 1;
        // A new directory each round: no summary cache, nothing to delete first.
        let site = scratch.fresh(&format!("site-{round}"));
        let measured = (|| -> Result<(Measure, Measure, Measure), BenchError> {
            let floors = || Ok::<_, BenchError>((child(&floor1)?, child(&floor_all)?));
            let s = site.to_string_lossy();
            let build = ["build", "--data", &d, "--out", &s, "--data-url", DATA_URL];
            let built = || child(&build);
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
        cpu.push(Round {
            floors_first,
            ratio: c,
        });
        wall.push(Round {
            floors_first,
            ratio: w,
        });
        scratch.done(&site);
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

/// `site-bench pool`: the rounds of saved `ratio` outputs reported as one set (see
/// `syscost_site_bench::pool`). Sets whose wall floor ran on different thread counts do not
/// pool.
fn pool(saved: &[PathBuf], goal: f64) -> i32 {
    use syscost_site_bench::pool::parse;
    use syscost_site_bench::rounds::report;
    let mut sets = Vec::new();
    for path in saved {
        let read = std::fs::read_to_string(path).map_err(|e| e.to_string());
        match read.and_then(|text| parse(&text).map_err(|e| e.to_string())) {
            Ok(set) => sets.push((path, set)),
            Err(e) => {
                eprintln!("site-bench pool: {}: {e}", path.display());
                return 1;
            }
        }
    }
    let Some((first_path, first)) = sets.first() else {
        eprintln!("site-bench pool: no saved outputs given");
        return 2;
    };
    if let Some((path, other)) = sets.iter().find(|(_, s)| s.jobs != first.jobs) {
        eprintln!(
            "site-bench pool: {}: its wall floor ran on {} threads, {}'s on {}: not one measure",
            path.display(),
            other.jobs,
            first_path.display(),
            first.jobs
        );
        return 1;
    }
    let jobs = first.jobs;
    let cpu: Vec<_> = sets
        .iter()
        .flat_map(|(_, s)| s.cpu.iter().copied())
        .collect();
    let wall: Vec<_> = sets
        .iter()
        .flat_map(|(_, s)| s.wall.iter().copied())
        .collect();
    let n = sets.len();
    println!(
        "{} rounds from {n} set{}",
        cpu.len(),
        if n == 1 { "" } else { "s" }
    );
    for (what, rounds) in [
        ("build CPU ÷ 1-thread floor CPU", &cpu),
        (&*format!("build wall ÷ {jobs}-thread floor wall"), &wall),
    ] {
        for line in report(what, rounds, goal) {
            println!("{line}");
        }
    }
    0
}

/// Where measured builds go: each into a directory of its own, and on a disk all removed only
/// when the measuring is over, on every way out (a failed round included). Deleting the
/// ~18,500 files of a 100,000-run site on ext4 just before the next build had made ext4's
/// inode allocator test the recently deleted inodes one by one (`recently_deleted` and
/// `find_get_block_common` were a sixth of that build's samples, its system time 14.6 s
/// against 4.7–6.5 s in a directory nothing had been deleted from just before): a cost of the
/// benchmark's loop, not of a build, which CI makes on a new file system. The price is the
/// space of every build's site until the end (see [`Scratch::done`] for memory).
struct Scratch(PathBuf);

impl Scratch {
    /// A site directory that does not exist yet (its summary cache goes beside it).
    fn fresh(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// The measurements of the site at `site` are made. In memory (tmpfs, ramfs) it is removed
    /// now: there a deletion costs the next build nothing, and each site kept is a gigabyte of
    /// RAM less (twelve rounds kept on tmpfs saw their builds grow from 34.4 to 42.6 s of CPU
    /// as the free memory went).
    fn done(&self, site: &Path) {
        if in_memory(&self.0) {
            let _ = std::fs::remove_dir_all(site);
            let _ = std::fs::remove_file(syscost_site::build::staging::summaries_path(site));
        }
    }
}

/// `dir` is on a file system held in memory.
fn in_memory(dir: &Path) -> bool {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    const RAMFS_MAGIC: i64 = 0x8584_58f6;
    // The width of `f_type` differs between architectures.
    #[allow(clippy::unnecessary_cast)]
    let in_memory = |st: rustix::fs::StatFs| matches!(st.f_type as i64, TMPFS_MAGIC | RAMFS_MAGIC);
    rustix::fs::statfs(dir).is_ok_and(in_memory)
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
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
    if work
        .as_ref()
        .and_then(|w| w.file_name())
        .is_some_and(|n| n == "data")
    {
        eprintln!("site-bench: refusing to use a directory named data");
        return 2;
    }
    let dir = work
        .unwrap_or_else(std::env::temp_dir)
        .join(format!("syscost-site-bench-{}", std::process::id()));
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("site-bench: cannot make {}: {e}", dir.display());
        return 1;
    }
    let scratch = Scratch(dir);
    let jobs = syscost_site::parallel::jobs();
    println!("| runs | records (per run) | parse floor, 1 thread: wall (user + sys) | floor peak RSS | parse floor, {jobs} threads: wall | build: wall (user + sys) | build ÷ floor: wall (÷ the {jobs}-thread floor), CPU (÷ the 1-thread floor) | build peak RSS | build wall per run | site (per run) | files | largest page | one more run: wall (user + sys), files written | load |");
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|");
    for &n in &sizes {
        let data = scratch.fresh(&format!("records-{n}"));
        let t = Instant::now();
        if let Err(e) = syscost_synth::write_shape(&data, n, 1, shape.into()) {
            eprintln!("site-bench: {e}");
            return 1;
        }
        eprintln!(
            "generated {n} records in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        // One record is held back for the incremental build: the full build is of n − 1.
        let Some((held, aside)) = hold_back(&data, &scratch.0) else {
            eprintln!("site-bench: no record to hold back in {}", data.display());
            return 1;
        };
        let reps = repeat.unwrap_or(if n <= 10_000 { 3 } else { 1 });
        let load = loadavg();
        let d = data.to_string_lossy().into_owned();
        // Each build from scratch goes into a new directory (see `Scratch`); the one more run
        // is built into the last one.
        let site = |rep: usize| scratch.fresh(&format!("site-{n}-{rep}"));
        let build_args = |rep: usize| {
            let mut args = vec![
                "build".to_string(),
                "--data".into(),
                d.clone(),
                "--out".into(),
            ];
            args.push(site(rep).to_string_lossy().into_owned());
            if !copy_records {
                args.extend(["--data-url".to_string(), DATA_URL.to_string()]);
            }
            args
        };
        let run = || -> Result<(Measure, Measure, Measure, Measure, u64), BenchError> {
            let floor = best(reps, &|_| vec!["parse".into(), "--data".into(), d.clone()])?;
            let floor_all = best(reps, &|_| {
                vec!["parse-all".into(), "--data".into(), d.clone()]
            })?;
            let build = best(reps, &build_args)?;
            let last = site(reps - 1);
            let before = inodes(&last);
            std::fs::rename(&aside, &held).map_err(|e| BenchError::Restore(held.clone(), e))?;
            let one_more = child(&build_args(reps - 1))?;
            let after = inodes(&last);
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
        let (bytes, files, largest, largest_path) = du(&site(reps - 1));
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
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which sites `ratio` deletes as it goes: only those held in memory.
    #[test]
    #[ignore = "needs /dev/shm on tmpfs (as on Debian; CI runs it)"]
    fn memory_is_told_from_a_disk() {
        assert!(in_memory(Path::new("/dev/shm")));
        assert!(!in_memory(Path::new("/proc")));
        assert!(!in_memory(Path::new("/no/such/dir")));
    }
}
