//! Command-line interface: the argument types (clap) and nothing else. `commands/` turns them
//! into work; no domain module sees them.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "syscost",
    version,
    about = "What does it cost a Linux system call to be watched or filtered?",
    long_about = "Measures the per-call cost of seccomp filters (cached and full), Syscall User \
Dispatch and BPF programs on this machine, with confidence intervals, inside a fixed time budget, \
and writes one JSON run record."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Measure this machine and print the table (or the JSON record).
    Run(RunArgs),
    /// Show every scenario, whether it can run here, and if not, why.
    List(ListArgs),
    /// Send run records to the project: checked as the site's check would, shown, and, once
    /// confirmed, proposed as a pull request with GitHub's `gh` (or the steps by hand).
    Submit(SubmitArgs),
    /// Turn captured kernel benchmark logs into run records.
    Import(ImportArgs),
    /// Boot a kernel in QEMU and measure it: `syscost run RUN-ARGS` inside the guest, the
    /// record brought back and written like `run` does.
    Lab(LabArgs),
    /// Boot every cached kernel (scripts/lab-kernels) and check each scenario against its
    /// kernel's version and configuration; prints the kernel × scenario table.
    LabMatrix(LabMatrixArgs),
    /// Compare records: for every quantity they share, NEW − BASE with its interval and a
    /// verdict (slower, faster, no change, inconclusive), sorted by size (docs/compare.md).
    Compare(CompareArgs),
    /// Show a record: the table `run` prints, or the record as plain objects with named fields
    /// (what `run --json` prints), or in the compact form `data/` stores.
    Record(RecordArgs),
    /// Measure syscost's own measurements: kernel method vs ours, precision vs budget,
    /// harness overhead (several minutes; prints Markdown).
    Selfcheck(SelfcheckArgs),
}

#[derive(Debug, Clone, Args)]
pub struct SelfcheckArgs {
    /// Alternating runs of each method (with --suite: runs of the default suite).
    #[arg(long, default_value_t = 5)]
    pub runs: u32,
    /// Budget of each method-comparison run (with --suite: of each run), seconds.
    #[arg(long, default_value_t = 30.0)]
    pub budget: f64,
    /// Only this: run the default suite (`syscost run` with its defaults) --runs times and
    /// report, per headline quantity, the median CI half-width, the spread of the estimates
    /// across runs, the verdict counts, the targets met and the wall time against the budget.
    #[arg(long)]
    pub suite: bool,
    /// With --suite: report on these saved records (`syscost run -o FILE`, one run each)
    /// instead of running the suite.
    #[arg(long, num_args = 1.., requires = "suite")]
    pub records: Vec<std::path::PathBuf>,
    /// Budgets of the precision-versus-budget runs, seconds.
    #[arg(long, value_delimiter = ',', default_values_t = [5.0, 10.0, 20.0, 40.0])]
    pub budgets: Vec<f64>,
}

#[derive(Debug, Clone, Args)]
pub struct CompareArgs {
    /// The base record: a record file, or a file or directory holding exactly one.
    pub base: PathBuf,
    /// The records compared with it: record files, files of records (a JSON array, as
    /// `import --json` prints) or directories (every `*.json` beneath them).
    #[arg(required = true, value_name = "NEW")]
    pub new: Vec<PathBuf>,
    /// Print the comparison as JSON (docs/compare.schema.json) instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Equivalence margin, percent of the base value (at least 1 ns): "no change" when the
    /// difference's whole interval lies within it. An instruction count's margin is one
    /// instruction whatever this says.
    #[arg(long, value_name = "PCT", default_value_t = crate::compare::DEFAULT_MARGIN_PCT)]
    pub margin: f64,
    /// Compare records whose comparability keys differ; every line then carries a warning.
    #[arg(long)]
    pub force: bool,
    /// Exit with status 3 when a cost is slower by more than PCT percent of its base value (a
    /// regression beyond PCT: verdict slower and the relative difference above PCT).
    #[arg(long, value_name = "PCT", allow_negative_numbers = true)]
    pub fail_above: Option<f64>,
    /// BASE and NEW are each several reruns (a directory or a file of records), pooled per side:
    /// per quantity the mean over the runs with Student's t over them, an interval that holds
    /// what varies between runs, which one run's cannot (docs/compare.md).
    #[arg(long)]
    pub pool: bool,
}

#[derive(Debug, Clone, Args)]
#[command(group(clap::ArgGroup::new("form").args(["objects", "compact"])))]
pub struct RecordArgs {
    /// The record file (either form).
    pub file: PathBuf,
    /// Print it as plain objects with named fields, what `run --json` prints (for jq, pandas).
    #[arg(long)]
    pub objects: bool,
    /// Print it in the compact form `data/` stores (the file form; `syscost-site check`
    /// accepts only it).
    #[arg(long)]
    pub compact: bool,
    /// Write to this file (atomically) instead of standard output.
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Args)]
pub struct SelectArgs {
    /// Only these scenarios: comma-separated ids or globs (`seccomp.*,sud.*`).
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Leave out these scenarios: comma-separated ids or globs.
    #[arg(long, value_delimiter = ',')]
    pub skip: Vec<String>,
    /// The probe syscall timed in the loop: getpid (default, as the kernel's seccomp_benchmark),
    /// getppid, getpgid, getuid, gettid, sysinfo, or `mix` (UnixBench's five-syscall iteration).
    #[arg(long, value_enum, default_value_t = SyscallArg::Getpid)]
    pub syscall: SyscallArg,
    /// CPU to pin the workers to (default: the highest-numbered CPU this process may use).
    #[arg(long)]
    pub cpu: Option<u32>,
}

/// The probes `--syscall` offers (the harness knows one more, `personality`, used internally).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SyscallArg {
    Getpid,
    Getppid,
    Getpgid,
    Getuid,
    Gettid,
    Sysinfo,
    Mix,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MethodArg {
    /// Interleaved rounds across forked workers, paired differences (syscost's method).
    Interleaved,
    /// The kernel seccomp_benchmark's method: calibrate, then one long timing per scenario in
    /// the kernel's order, integer ns, the kernel's verdict rules (getpid only).
    Sequential,
}

#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Time budget for the whole run, in seconds (setup included).
    #[arg(long, default_value_t = 30.0, allow_negative_numbers = true)]
    pub budget: f64,
    /// Stop early once every reported difference and estimate has a 95% CI half-width of at
    /// most this percent of the native call (of the quantity, or of its baseline, when that is
    /// larger), and never less than 0.5 ns.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    pub target_ci: f64,
    /// Print the record on stdout instead of the table, as plain objects with named fields
    /// (docs/run.schema.json); `-o` and `--save` write the compact file form.
    #[arg(long)]
    pub json: bool,
    /// Write the JSON record to this file (atomically).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Write the JSON record under DIR/runs/<arch>/<kernel>/<id>.json.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Sampling method.
    #[arg(long, value_enum, default_value_t = MethodArg::Interleaved)]
    pub method: MethodArg,
    /// What this machine's clock counts. `instructions`: one tick per instruction executed, as
    /// in a QEMU guest under `-icount shift=0` (`syscost lab --count instructions` boots one and
    /// says so): every number is then instructions per operation, and the run refuses to start
    /// unless the clock really counts exactly (identical loops must read identical counts).
    #[arg(long, value_enum, default_value_t = ClockArg::Time)]
    pub clock: ClockArg,
    /// Then submit the record (`syscost submit`).
    #[arg(long)]
    pub submit: bool,
    #[command(flatten)]
    pub to: SubmitTo,
}

/// Where and how records are submitted.
#[derive(Debug, Clone, Args)]
pub struct SubmitTo {
    /// Submit without asking (for scripts); what will be published is still printed.
    #[arg(long)]
    pub yes: bool,
    /// The GitHub repository to propose the records to: OWNER/NAME or its address (by default
    /// the project's, as its Cargo.toml names it).
    #[arg(long, value_name = "OWNER/NAME", default_value = env!("CARGO_PKG_REPOSITORY"))]
    pub repo: String,
}

#[derive(Debug, Clone, Args)]
pub struct SubmitArgs {
    /// Record files (as `syscost run --save`, `-o` or `import --save` wrote them).
    #[arg(required = true, value_name = "RECORD")]
    pub records: Vec<PathBuf>,
    #[command(flatten)]
    pub to: SubmitTo,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ClockArg {
    /// Time (nanoseconds).
    Time,
    /// Instructions executed (an emulator's instruction-counting clock).
    Instructions,
}

#[derive(Debug, Clone, Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub select: SelectArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ImportFormat {
    Auto,
    KselftestSeccomp,
    KselftestSud,
    BpfBench,
    PerfBench,
}

#[derive(Debug, Clone, Args)]
pub struct ImportArgs {
    /// Captured log files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = ImportFormat::Auto)]
    pub format: ImportFormat,
    /// Write each record under DIR/runs/<arch>/<kernel>/<id>.json.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Print the records on stdout as a JSON array.
    #[arg(long)]
    pub json: bool,
    /// URL or message id of the published log (kept as provenance).
    #[arg(long)]
    pub source: Option<String>,
    /// A note kept with the records.
    #[arg(long)]
    pub note: Option<String>,
    /// The kernel release as the log's source states it outside the log (never overriding a
    /// release the log prints). Prefix `~` for an approximate one: `~5.7-rc` ("bpf-next around
    /// 5.7-rc") is recorded as approximate and leaves kernel_release "unknown".
    #[arg(long, value_name = "RELEASE")]
    pub kernel: Option<String>,
    /// The architecture as the source states it (uname -m's name where it allows: x86_64,
    /// aarch64, ...); an error if the log prints another.
    #[arg(long)]
    pub arch: Option<String>,
    /// The machine as the source describes it, in its words (CPU, cores, memory, VM).
    #[arg(long, value_name = "TEXT")]
    pub machine: Option<String>,
    /// When the run happened as the source states it (or the message date): an RFC 3339 date
    /// (2021-02-07) or UTC time.
    #[arg(long)]
    pub date: Option<String>,
    /// Where and how the source states these facts (a quote or the part of the message).
    #[arg(long, value_name = "TEXT")]
    pub stated_in: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    #[value(name = "x86_64")]
    X86_64,
    Aarch64,
    Riscv64,
    Ppc64le,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AccelArg {
    /// KVM when it works (a bounded probe), else TCG — and the run says so.
    Auto,
    Kvm,
    /// QEMU's emulator: the record is marked qemu-tcg, never a measurement of hardware.
    Tcg,
}

/// Where the record goes: the same choices as `run`.
#[derive(Debug, Clone, Args)]
pub struct OutputArgs {
    /// Print the record on stdout instead of the table, as plain objects with named fields
    /// (docs/run.schema.json); `-o` and `--save` write the compact file form.
    #[arg(long)]
    pub json: bool,
    /// Write the JSON record to this file (atomically).
    #[arg(short = 'o', long = "output")]
    pub output: Option<PathBuf>,
    /// Write the JSON record under DIR/runs/<arch>/<kernel>/<id>.json.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
}

/// How the guest is put together and booted (shared by `lab` and `lab-matrix`).
#[derive(Debug, Clone, Args)]
pub struct GuestArgs {
    /// Accelerator: auto uses KVM when it works and falls back to TCG, saying so.
    #[arg(long, value_enum, default_value_t = AccelArg::Auto)]
    pub accel: AccelArg,
    /// What the guest's clock counts: `time`, or `instructions` — QEMU's TCG with `-icount
    /// shift=0,sleep=off` (one tick per instruction), a fixed `-seed` and clock, so every number
    /// is instructions per operation (path length on the emulated CPU, not time) and a boot
    /// repeats exactly.
    #[arg(long, value_enum, default_value_t = ClockArg::Time)]
    pub count: ClockArg,
    /// Virtual CPUs (default 2; 1 with --count instructions: QEMU before 8.1 can starve a vCPU
    /// under -icount, and a boot with two hangs).
    #[arg(long)]
    pub cpus: Option<u32>,
    /// Guest memory, MiB.
    #[arg(long, default_value_t = 1024)]
    pub mem: u32,
    /// The static syscost executable put into a guest of its architecture (read from its ELF
    /// header; repeat for several). Default: this one when it is static and of the guest's
    /// architecture, else target/<arch>-unknown-linux-musl/<profile>/syscost of this one's target
    /// directory, as `cargo build -p syscost --target <arch>-unknown-linux-musl` builds it.
    #[arg(long, value_name = "PATH")]
    pub guest_binary: Vec<PathBuf>,
    /// A static busybox for the guest's architecture (default: the lab cache's, from
    /// scripts/lab-kernels, else /bin/busybox for this machine's architecture).
    #[arg(long, value_name = "PATH")]
    pub busybox: Option<PathBuf>,
    /// Extra kernel command-line words (e.g. "mitigations=off").
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    pub append: String,
    /// Seconds the kernel may take to start init (default: 60 under KVM, 300 under TCG, 600 for
    /// an arm64 guest under TCG).
    #[arg(long, value_name = "S")]
    pub boot_timeout: Option<f64>,
}

#[derive(Debug, Clone, Args)]
pub struct LabArgs {
    /// The kernel image to boot (bzImage, vmlinuz, arm64 Image).
    #[arg(long, value_name = "PATH")]
    pub kernel: PathBuf,
    /// The kernel's architecture (default: read from the image).
    #[arg(long, value_enum)]
    pub arch: Option<ArchArg>,
    /// The kernel's configuration, put at /boot/config-<release> in the guest (default: a
    /// config-* beside the image, or the .config of the build tree it is in).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    #[command(flatten)]
    pub guest: GuestArgs,
    /// Seconds the whole run may take, boot included (default: the boot limit + 3 × the
    /// budget + 180).
    #[arg(long, value_name = "S")]
    pub timeout: Option<f64>,
    /// Write the guest's whole console log to this file.
    #[arg(long, value_name = "FILE")]
    pub console: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
    /// Arguments of `syscost run` in the guest (after `--`): `-- --budget 20 --only 'bpf.*'`.
    #[arg(last = true, value_name = "RUN-ARGS")]
    pub run_args: Vec<String>,
}

#[derive(Debug, Clone, Args)]
pub struct LabMatrixArgs {
    /// The lab cache (default: $SYSCOST_LAB_CACHE, else $XDG_CACHE_HOME/syscost, else
    /// ~/.cache/syscost): boots every kernels/<arch>/<release>/vmlinuz-* in it.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Only these kernels: arch:version prefixes (`x86_64:5.10,aarch64:6.12`), each the newest
    /// cached release it matches.
    #[arg(long, value_delimiter = ',', value_name = "ARCH:VERSION")]
    pub kernels: Vec<String>,
    /// Budget of each guest's `syscost run`, seconds. Under TCG the whole default suite needs
    /// about this much: half of it for the setups (thousands of stacked filters for
    /// attach.stack.max), and at least two rounds (an attach cost needs a detach before it).
    #[arg(long, default_value_t = 120.0)]
    pub budget: f64,
    #[command(flatten)]
    pub guest: GuestArgs,
    /// Save every guest's record under DIR/runs/<arch>/<kernel>/<id>.json.
    #[arg(long, value_name = "DIR")]
    pub save: Option<PathBuf>,
    /// Write the table as Markdown to this file (atomically).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,
    /// Further arguments of each guest's `syscost run` (after `--`).
    #[arg(last = true, value_name = "RUN-ARGS")]
    pub run_args: Vec<String>,
}
