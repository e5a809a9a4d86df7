//! `bpf-bench`: the BPF selftests' `bench trig-*` runs, as `Summary:` lines of `bench` itself
//! or as the table `run_bench_trigger.sh` prints from them:
//!
//! ```text
//! Summary: hits    9.200 ± 0.319M/s (  9.200M/prod), drops    0.000 ± 0.000M/s
//! base      :    9.200 ± 0.319M/s
//! --> uprobe-nop  :    3.246 ± 0.004M/s           (a row the author marked)
//! uprobe-nop      ( 4 cpus):    3.210 ± 0.003M/s  (  0.802M/s/cpu)
//! ```
//!
//! The last form is the per-CPU-count scaling table of the uprobe benchmarks' script: each
//! CPU count becomes a record of its own (one producer per CPU), its per-CPU rate the time per
//! call.
//!
//! Until Linux 6.10 every trigger bench looped on `getpgid()` with the program attached to its
//! path; since then the default drivers run inside the kernel and only `syscall-count` still
//! makes syscalls, so those rows are kept apart (`bpf.kdriver.*`), never mixed with syscall
//! costs.

use crate::format::Format;
use crate::lex::leading_f64;
use crate::parsed::{
    overhead_vs, provenance, single, skeleton, Contradiction, Hint, Outcome, Parsed, MAX_RUNS,
};
use crate::text::Cleaned;
use syscost_record::{RecordBuilder, ScenarioResult, Throughput, ENTRIES_MAX};

/// One published throughput: mean ± stddev in M/s, and per producer when `bench` printed it.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    name: String,
    mops: f64,
    stddev: f64,
    per_producer: Option<f64>,
    /// CPUs (one producer each) of a scaling-table row.
    cpus: Option<u32>,
    /// The marker the author put before the row (`-->`), kept as printed.
    mark: Option<String>,
    line: usize,
}

/// An author's marker before a row: `--> uprobe-nop : …`.
fn strip_mark(t: &str) -> (Option<&str>, &str) {
    for m in ["-->", "->", "=>", "*"] {
        if let Some(rest) = t.strip_prefix(m) {
            if rest.starts_with(char::is_whitespace) {
                return (Some(m), rest.trim_start());
            }
        }
    }
    (None, t)
}

/// `uprobe-nop      ( 4 cpus):    3.210 ± 0.003M/s  (  0.802M/s/cpu)`: name, CPUs, total
/// mean, stddev, per-CPU rate.
fn scaling_row(t: &str) -> Option<(String, u32, f64, f64, f64)> {
    let (name, rest) = t.split_once('(')?;
    let name = name.trim();
    let (inside, rest) = rest.split_once("):")?;
    let (n, unit) = crate::lex::leading_u64(inside.trim())?;
    if !matches!(unit.trim(), "cpus" | "cpu") || !is_name(name) {
        return None;
    }
    let (x, y, rest) = rate(rest)?;
    let (z, rest) = leading_f64(rest.trim_start().strip_prefix('(')?.trim_start())?;
    if rest.trim_start().strip_prefix("M/s/cpu")?.trim() != ")" {
        return None;
    }
    Some((name.to_string(), u32::try_from(n).ok()?, x, y, z))
}

fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// `9.200 ± 0.319M/s` (the `±` may arrive as `+-`, `+/-` or mojibake): mean, stddev, rest.
fn rate(s: &str) -> Option<(f64, f64, &str)> {
    let (x, rest) = leading_f64(s.trim_start())?;
    let rest = rest.trim_start();
    let rest = ["±", "Â±", "+/-", "+-", "+/−"]
        .iter()
        .find_map(|sep| rest.strip_prefix(sep))?;
    let (y, rest) = leading_f64(rest.trim_start())?;
    let rest = rest.trim_start().strip_prefix("M/s")?;
    Some((x, y, rest))
}

/// `base      :    9.200 ± 0.319M/s`
fn table_row(t: &str) -> Option<(String, f64, f64)> {
    let (name, rest) = t.split_once(':')?;
    let name = name.trim();
    if !is_name(name) {
        return None;
    }
    let (x, y, _) = rate(rest)?;
    Some((name.to_string(), x, y))
}

/// `uprobe-nop  3.246 ± 0.004M/s`: a row without the colon, as authors retype them; only a
/// bench name and a rate, nothing after it (prose has words around its rates).
fn bare_row(t: &str) -> Option<(String, f64, f64)> {
    let (name, rest) = t.split_once(char::is_whitespace)?;
    if !is_name(name) || !name.contains(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    let (x, y, tail) = rate(rest)?;
    tail.trim().is_empty().then(|| (name.to_string(), x, y))
}

/// `Summary: hits    9.200 ± 0.319M/s (  9.200M/prod), ...`
fn summary(t: &str) -> Option<(f64, f64, Option<f64>)> {
    let rest = t.strip_prefix("Summary: hits")?;
    let (x, y, rest) = rate(rest)?;
    let prod = rest
        .trim_start()
        .strip_prefix('(')
        .and_then(|r| leading_f64(r.trim_start()))
        .filter(|(_, r)| r.starts_with("M/prod"))
        .map(|(v, _)| v);
    Some((x, y, prod))
}

/// `Setting up benchmark 'trig-base'...` or `Benchmark 'trig-base' started.`
fn bench_name(t: &str) -> Option<&str> {
    let rest = t
        .strip_prefix("Setting up benchmark '")
        .or_else(|| t.strip_prefix("Benchmark '"))?;
    rest.split_once('\'').map(|(n, _)| n)
}

/// How a row maps onto the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// The getpgid() loop with no program: the baseline.
    Native,
    /// A program on getpgid()'s path, driven by the syscall loop.
    Syscall,
    /// A user-space probe driven by a user-space loop (no syscall).
    User,
    /// Driven from a loop inside the kernel (Linux 6.10+ bench defaults).
    Kernel,
    Unknown,
}

fn sanitize(name: &str) -> String {
    name.to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Row name (without `trig-`) → id, kind, description.
fn map(name: &str, in_kernel: bool) -> (String, Kind, String) {
    let syscall = |id: &str, what: &str| {
        if in_kernel {
            (
                format!("bpf.kdriver.{}", sanitize(name)),
                Kind::Kernel,
                format!("{what}, triggered from a loop inside the kernel (bench trig-{name}, Linux 6.10+)"),
            )
        } else {
            (
                id.to_string(),
                Kind::Syscall,
                format!("getpgid() with {what} (bench trig-{name})"),
            )
        }
    };
    match name {
        "base" | "syscall-count" => (
            "native".into(),
            Kind::Native,
            format!("getpgid() loop with no BPF program (bench trig-{name})"),
        ),
        "tp" => syscall(
            "bpf.tp",
            "a program on the syscalls/sys_enter_getpgid tracepoint",
        ),
        "rawtp" => syscall(
            "bpf.rawtp",
            "a raw_tp sys_enter program filtering on the syscall id",
        ),
        "kprobe" => syscall("bpf.kprobe", "a kprobe program"),
        "kretprobe" => syscall("bpf.kretprobe", "a kretprobe program"),
        "kprobe-multi" => syscall("bpf.kprobe_multi", "a kprobe.multi program"),
        "kretprobe-multi" => syscall("bpf.kretprobe_multi", "a kretprobe.multi program"),
        "fentry" => syscall("bpf.fentry", "an fentry program"),
        "fexit" => syscall("bpf.fexit", "an fexit program"),
        "fmodret" => syscall(
            "bpf.fmodret",
            "an fmod_ret program returning an error (the syscall body is skipped)",
        ),
        "kernel-count" => (
            "bpf.kdriver.kernel_count".into(),
            Kind::Kernel,
            "in-kernel driver loop counting in BPF (bench trig-kernel-count, Linux 6.10+)".into(),
        ),
        "uprobe-base" => (
            "bpf.ufunc".into(),
            Kind::User,
            "user-space function call with no probe (bench trig-uprobe-base)".into(),
        ),
        "uprobe-nop" | "uprobe-with-nop" => (
            "bpf.uprobe".into(),
            Kind::User,
            format!("uprobe on a user-space nop function (bench trig-{name})"),
        ),
        "uretprobe-nop" | "uretprobe-with-nop" => (
            "bpf.uretprobe".into(),
            Kind::User,
            format!("uretprobe on a user-space nop function (bench trig-{name})"),
        ),
        n if n.starts_with("uprobe")
            || n.starts_with("uretprobe")
            || n.starts_with("usdt")
            || n == "usermode-count" =>
        {
            (
                format!("bpf.{}", sanitize(n)),
                Kind::User,
                format!("user-space trigger (bench trig-{n})"),
            )
        }
        n => (
            format!("bpf.{}", sanitize(n)),
            Kind::Unknown,
            format!("bench trig-{n} (a name syscost does not know; kept as printed)"),
        ),
    }
}

/// What a line holds.
enum Read {
    Row(Row),
    /// A `Summary:` that is not a trigger bench's: why it is left out.
    Skipped(Hint),
    /// A line with a rate in it that is no row this parser reads.
    Near(Hint),
    Nothing,
}

/// Reads a table row (marked or not, plain or per CPU count), or a `Summary:` of `bench` (the
/// benchmark last named).
fn read(t: &str, no: usize, bench: Option<&str>) -> Read {
    let Some((x, y, prod)) = summary(t) else {
        let (mark, body) = strip_mark(t);
        let row = |name: &str, mops, stddev, per_producer, cpus| {
            Read::Row(Row {
                name: name.strip_prefix("trig-").unwrap_or(name).to_string(),
                mops,
                stddev,
                per_producer,
                cpus,
                mark: mark.map(str::to_string),
                line: no,
            })
        };
        if let Some((name, cpus, x, y, z)) = scaling_row(body) {
            return row(&name, x, y, Some(z), Some(cpus));
        }
        return match table_row(body).or_else(|| bare_row(body)) {
            Some((name, x, y)) => row(&name, x, y, None, None),
            None if t.contains("M/s") => Read::Near(Hint {
                line: no,
                text: t.to_string(),
                why: "mentions M/s but is not a bench row in a form this parser reads".into(),
            }),
            None => Read::Nothing,
        };
    };
    match bench.and_then(|b| b.strip_prefix("trig-")) {
        Some(name) => Read::Row(Row {
            name: name.to_string(),
            mops: x,
            stddev: y,
            per_producer: prod,
            cpus: None,
            mark: None,
            line: no,
        }),
        None => Read::Skipped(Hint {
            line: no,
            text: t.to_string(),
            why: match bench {
                Some(b) => format!("is the summary of {b}, not a trigger bench"),
                None => "is a summary whose benchmark name the log does not show".into(),
            },
        }),
    }
}

/// A scaling-table row's per-CPU rate against its total: the script prints both to the
/// thousandth from one mean (total ÷ CPUs), so per-CPU × CPUs lies within half a thousandth per
/// CPU, and half of one for the total, of the printed total. A row further off was not printed
/// so.
fn contradiction(row: &Row, cleaned: &Cleaned) -> Option<Contradiction> {
    let (n, per) = (row.cpus?, row.per_producer?);
    let slack = 0.0005 * f64::from(n) + 0.0005 + 1e-9;
    let total = per * f64::from(n);
    ((total - row.mops).abs() > slack).then(|| {
        Contradiction::new(
            cleaned,
            row.line,
            &[],
            format!(
                "{per} M/s per CPU on {n} CPUs is {total:.3} M/s in all (± {:.4} from the \
                 rounding), not {}",
                slack - 1e-9,
                row.mops
            ),
        )
    })
}

pub fn parse(cleaned: &Cleaned) -> Outcome {
    let mut out = Outcome::default();
    let mut runs: Vec<Vec<Row>> = Vec::new();
    let mut cur: Vec<Row> = Vec::new();
    // The (bench, CPU count) pairs of `cur`.
    let mut seen: std::collections::HashSet<(String, Option<u32>)> = Default::default();
    let mut bench: Option<String> = None;
    for line in &cleaned.lines {
        let t = line.text.as_ref();
        if let Some(n) = bench_name(t) {
            bench = Some(n.to_string());
            continue;
        }
        match read(t, line.no, bench.as_deref()) {
            Read::Row(row) => {
                if let Some(c) = contradiction(&row, cleaned) {
                    return Outcome {
                        contradiction: Some(c),
                        ..Outcome::default()
                    };
                }
                // A bench (at a CPU count) seen again begins the next run.
                if !seen.insert((row.name.clone(), row.cpus)) {
                    runs.push(std::mem::take(&mut cur));
                    seen.clear();
                    seen.insert((row.name.clone(), row.cpus));
                    if runs.len() == MAX_RUNS {
                        return Outcome {
                            too_many: Some(line.no),
                            ..Outcome::default()
                        };
                    }
                }
                // A record holds at most ENTRIES_MAX results.
                if cur.len() == ENTRIES_MAX {
                    return Outcome {
                        too_large: Some(line.no),
                        ..Outcome::default()
                    };
                }
                cur.push(row);
            }
            Read::Skipped(hint) => out.empty(hint),
            Read::Near(hint) => out.near(hint),
            Read::Nothing => {}
        }
    }
    if !cur.is_empty() {
        runs.push(cur);
    }
    // A scaling table is one run per CPU count.
    let runs: Vec<Vec<Row>> = runs.into_iter().flat_map(by_cpus).collect();
    if let Some(beyond) = runs.get(MAX_RUNS) {
        return Outcome {
            too_many: Some(beyond.first().map_or(0, |r| r.line)),
            ..Outcome::default()
        };
    }
    // Every record of the log says which summaries were left out.
    let mut skipped: Vec<String> = out
        .empty
        .iter()
        .map(|h| format!("Not imported: line {}: a Summary that {}.", h.line, h.why))
        .collect();
    if out.more_empty > 0 {
        skipped.push(format!(
            "Not imported either: {} more such Summary lines.",
            out.more_empty
        ));
    }
    for rows in runs {
        let first = rows.first().map_or(0, |r| r.line);
        let last = rows.last().map_or(0, |r| r.line);
        match record(&rows, &cleaned.repairs) {
            Some(rec) => {
                out.runs
                    .push(Parsed::new(first, last, rec.notes(skipped.iter().cloned())))
            }
            None => out.empty(Hint {
                line: first,
                text: format!("{} : {} M/s", rows[0].name, rows[0].mops),
                why: "gives no usable rate".into(),
            }),
        }
    }
    out
}

/// The rows of one run, split by CPU count (in the order the counts first appear); rows of a
/// plain table stay together.
fn by_cpus(rows: Vec<Row>) -> Vec<Vec<Row>> {
    let mut groups: Vec<(Option<u32>, Vec<Row>)> = Vec::new();
    for row in rows {
        match groups.iter_mut().find(|(c, _)| *c == row.cpus) {
            Some((_, g)) => g.push(row),
            None => groups.push((row.cpus, vec![row])),
        }
    }
    groups.into_iter().map(|(_, g)| g).collect()
}

/// A row with what it means.
struct Mapped<'a> {
    id: String,
    kind: Kind,
    description: String,
    ns: f64,
    row: &'a Row,
}

fn record(rows: &[Row], repairs: &[String]) -> Option<RecordBuilder> {
    let in_kernel = rows
        .iter()
        .any(|x| x.name == "kernel-count" || x.name == "syscall-count");
    let mut notes = general_notes(rows, in_kernel);
    let mapped = map_rows(rows, in_kernel, &mut notes);
    if mapped.is_empty() {
        return None;
    }
    let base = |want: &str| mapped.iter().find(|m| m.id == want).map(|m| m.ns);
    let (native, ufunc) = (base("native"), base("bpf.ufunc"));
    let results = mapped.iter().map(|m| result(m, native, ufunc));
    let syscall_driven = mapped
        .iter()
        .any(|m| matches!(m.kind, Kind::Native | Kind::Syscall));
    let mut r = skeleton(
        Format::BpfBench,
        if syscall_driven { "getpgid" } else { "none" },
    );
    if !syscall_driven {
        let s = &mut r.record_mut().settings;
        s.syscalls_per_op = None;
        s.operation = Some(
            "one trigger of the bench's probe, by a loop that makes no syscall (a user-space \
             function call for uprobes, a loop inside the kernel for the 6.10+ drivers)"
                .into(),
        );
    }
    let r = r.results(results).notes(notes);
    let first = rows.first().map_or(0, |x| x.line);
    let last = rows.last().map_or(0, |x| x.line);
    Some(provenance(r, first, last, repairs))
}

/// What every record of these rows says about how they were read.
fn general_notes(rows: &[Row], in_kernel: bool) -> Vec<String> {
    let mut notes = vec![
        "bench prints the mean ± standard deviation of per-second throughput: \
         throughput_mops.median holds that mean as printed, throughput_mops.stddev the ±, and \
         median_ns is 1000 / the mean (per producer). One published figure per bench, so no \
         confidence interval."
            .to_string(),
    ];
    if let Some(n) = rows.iter().find_map(|x| x.cpus) {
        notes.push(format!(
            "A scaling table: each CPU count is a record of its own. This one ran {n} producer(s) \
             on {n} CPU(s); throughput_mops is their total as printed, the per-CPU rate as printed is \
             in params, and median_ns is 1000 / (total / CPUs), the per-CPU rate at the \
             total's precision."
        ));
    }
    if rows.iter().any(|x| x.mark.is_some()) {
        notes.push(
            "The author marked some rows (params \"marked in the log\"); they are results like \
             the others."
                .into(),
        );
    }
    if rows.iter().any(|x| x.per_producer.is_none()) {
        notes.push(
            "The table does not show the producer count; run_bench_trigger.sh runs one \
             producer by default, which median_ns assumes."
                .into(),
        );
    }
    if in_kernel {
        notes.push(
            "This is the Linux 6.10+ bench: apart from syscall-count (a getpgid() loop), its \
             programs are triggered from a loop inside the kernel, so those rows are not \
             syscall costs and are kept as bpf.kdriver.* with no overhead against native."
                .into(),
        );
    }
    notes
}

/// The rows that give a time per call, mapped onto ids (the first row of each id wins); what
/// is left out or unusual is said in `notes`.
fn map_rows<'a>(rows: &'a [Row], in_kernel: bool, notes: &mut Vec<String>) -> Vec<Mapped<'a>> {
    let mut mapped = Vec::new();
    for row in rows {
        if row.mops <= 0.0 {
            notes.push(format!(
                "trig-{} reports {} M/s, which gives no time per call; left out.",
                row.name, row.mops
            ));
            continue;
        }
        let (id, kind, description) = map(&row.name, in_kernel);
        if mapped.iter().any(|m: &Mapped| m.id == id) {
            notes.push(format!(
                "trig-{} maps to {id}, already taken by another row; left out.",
                row.name
            ));
            continue;
        }
        if kind == Kind::Unknown {
            notes.push(format!(
                "trig-{} is not a bench name syscost knows: kept as {id}, with no overhead.",
                row.name
            ));
        }
        // A scaling row's per-CPU rate is printed to three decimals; its total over the CPU
        // count is the same rate with the total's precision.
        let per_thread = match row.cpus {
            Some(n) if n > 0 => row.mops / f64::from(n),
            _ => row.per_producer.filter(|p| *p > 0.0).unwrap_or(row.mops),
        };
        if row.cpus.is_none() && (per_thread - row.mops).abs() > 0.005 * row.mops {
            notes.push(format!(
                "trig-{} ran several producers ({} M/s in total, {per_thread} M/s each); \
                 median_ns uses the per-producer rate.",
                row.name, row.mops
            ));
        }
        mapped.push(Mapped {
            id,
            kind,
            description,
            ns: 1000.0 / per_thread,
            row,
        });
    }
    mapped
}

/// One row's result; its overhead is against native (syscall-driven programs) or the
/// user-space function (user-space probes).
fn result(m: &Mapped, native: Option<f64>, ufunc: Option<f64>) -> ScenarioResult {
    let family = if m.kind == Kind::Native {
        "baseline"
    } else {
        "bpf"
    };
    let mut res = single(&m.id, family, &m.description, m.ns);
    res.throughput_mops = Some(Throughput {
        median: m.row.mops,
        ci_low: None,
        ci_high: None,
        stddev: Some(m.row.stddev),
    });
    res.params
        .insert("bench".into(), format!("trig-{}", m.row.name));
    match (m.row.per_producer, m.row.cpus) {
        (Some(p), Some(n)) => {
            res.params.insert("cpus".into(), n.to_string());
            res.params.insert("M/s per cpu".into(), p.to_string());
        }
        (Some(p), None) => {
            res.params.insert("M/s per producer".into(), p.to_string());
        }
        _ => {}
    }
    if let Some(mark) = &m.row.mark {
        res.params.insert("marked in the log".into(), mark.clone());
    }
    res.overhead = match (m.kind, native, ufunc) {
        (Kind::Syscall, Some(n), _) => overhead_vs("native", n, m.ns),
        (Kind::User, _, Some(u)) if m.id != "bpf.ufunc" => overhead_vs("bpf.ufunc", u, m.ns),
        _ => None,
    };
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_in_every_spelling() {
        assert_eq!(rate("    9.200 ± 0.319M/s"), Some((9.2, 0.319, "")));
        assert_eq!(rate("9.2 +- 0.3 M/s"), Some((9.2, 0.3, "")));
        assert_eq!(rate("9.2 Â± 0.3M/s (x)"), Some((9.2, 0.3, " (x)")));
        assert_eq!(rate("9.2 M/s"), None);
    }

    #[test]
    fn table_rows_and_summaries() {
        assert_eq!(
            table_row("base      :    9.200 ± 0.319M/s"),
            Some(("base".into(), 9.2, 0.319))
        );
        assert_eq!(
            table_row("Date: 9.2 ± 1M/s").map(|r| r.0),
            Some("Date".into())
        );
        assert_eq!(table_row("two words : 9.2 ± 1M/s"), None);
        assert_eq!(
            summary("Summary: hits    9.200 ± 0.319M/s (  4.600M/prod), drops    0.000 ± 0.000M/s"),
            Some((9.2, 0.319, Some(4.6)))
        );
        assert_eq!(
            bench_name("Setting up benchmark 'trig-tp'..."),
            Some("trig-tp")
        );
    }

    #[test]
    fn marked_and_scaling_rows() {
        assert_eq!(
            strip_mark("--> uprobe-nop  :    3.246 ± 0.004M/s"),
            (Some("-->"), "uprobe-nop  :    3.246 ± 0.004M/s")
        );
        assert_eq!(strip_mark("-->x"), (None, "-->x"));
        assert_eq!(
            scaling_row("uprobe-nop      ( 4 cpus):    3.210 ± 0.003M/s  (  0.802M/s/cpu)"),
            Some(("uprobe-nop".into(), 4, 3.21, 0.003, 0.802))
        );
        assert_eq!(
            scaling_row("trig-uprobe-nop (16 cpus): 3.724 ± 0.011M/s (0.233M/s/cpu)")
                .map(|r| (r.0, r.1)),
            Some(("trig-uprobe-nop".into(), 16))
        );
        assert_eq!(scaling_row("uprobe-nop (4 cpus): 3.2 M/s"), None);
    }

    #[test]
    fn names_map_by_generation() {
        assert_eq!(map("fentry", false).0, "bpf.fentry");
        assert_eq!(map("fentry", true).0, "bpf.kdriver.fentry");
        assert_eq!(map("syscall-count", true).1, Kind::Native);
        assert_eq!(map("uprobe-nop", true).0, "bpf.uprobe");
        assert_eq!(
            map("Weird.Name", false),
            (
                "bpf.weird_name".into(),
                Kind::Unknown,
                "bench trig-Weird.Name (a name syscost does not know; kept as printed)".into()
            )
        );
    }
}
