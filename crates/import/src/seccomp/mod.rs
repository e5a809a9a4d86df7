//! `kselftest-seccomp`: output of the kernel's `seccomp_benchmark`, every generation:
//! - the first: `getpid native`, `getpid RET_ALLOW`, one estimate;
//! - mid 2020: `RET_ALLOW 1 filter` / `2 filters`, four estimates;
//! - late 2020 to 2023: the bitmap/full scenarios, seven estimates, `Expectations:` with
//!   ✔️/❌ (plain text, `sysctl` lines);
//! - 2024+: the same as KTAP (`# ` / `# # ` prefixes, `Running on:` + `uname -a`, `Pinned to
//!   CPU`, `ok N` / `not ok N` / `# SKIP`, `Totals:`).
//!
//! `read` splits the log into runs (concatenated runs split where the benchmark's fixed order
//! starts again); `check` holds each run's computed figures to its scenario lines (a log that
//! contradicts itself is refused); `assemble` makes each run that holds a result a record.

mod assemble;
mod check;
mod read;

use crate::parsed::{Hint, Outcome, Parsed, NO_RESULT_FOLLOWS};
use crate::text::Cleaned;

/// Parses every seccomp_benchmark run in the log.
pub fn parse(cleaned: &Cleaned) -> Outcome {
    let mut out = Outcome::default();
    let runs = match read::runs(cleaned) {
        Ok(runs) => runs,
        Err(line) => {
            out.too_many = Some(line);
            return out;
        }
    };
    for run in runs {
        if let Some(c) = check::contradiction(&run, cleaned) {
            return Outcome {
                contradiction: Some(c),
                ..Outcome::default()
            };
        }
        for (line, text, why) in &run.refused {
            out.refused(Hint {
                line: *line,
                text: text.clone(),
                why: why.clone(),
            });
        }
        if run.has_result() {
            let mut p = Parsed::new(
                run.first,
                run.last,
                assemble::record(&run, &cleaned.repairs),
            );
            p.uname_line = run.uname_line;
            out.runs.push(p);
        } else if let Some((line, text)) = run.header_line.clone() {
            out.empty(Hint {
                line,
                text,
                why: NO_RESULT_FOLLOWS.into(),
            });
        }
    }
    out
}
