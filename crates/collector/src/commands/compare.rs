//! `syscost compare BASE NEW...`: reads the records, compares each NEW with BASE
//! (`crate::compare`), prints the table or the JSON, and exits 3 on a regression beyond
//! `--fail-above`.

use super::record::read_path;
use crate::cli::CompareArgs;
use crate::compare::{self, Options, Report};
use crate::error::Error;
use crate::report::{stdout, table};

pub fn run(a: &CompareArgs) -> Result<i32, Error> {
    if !(a.margin.is_finite() && a.margin >= 0.0) {
        return Err(Error::Argument(format!(
            "--margin must be a percentage of 0 or more, got {}",
            a.margin
        )));
    }
    if let Some(p) = a.fail_above.filter(|p| !p.is_finite() || *p < 0.0) {
        return Err(Error::Argument(format!(
            "--fail-above must be a percentage of 0 or more, got {p}"
        )));
    }
    let mut base = read_path(&a.base)?;
    if base.len() != 1 {
        return Err(Error::Record {
            path: a.base.clone(),
            reason: format!("{} records; the base must be one", base.len()),
        });
    }
    let (base_file, base) = base.remove(0);
    let opts = Options {
        margin_pct: a.margin,
        force: a.force,
    };
    let mut comparisons = Vec::new();
    let mut refused = Vec::new();
    for path in &a.new {
        for (file, new) in read_path(path)? {
            match compare::compare(&base, &new, opts) {
                Ok(mut c) => {
                    c.base.file = Some(base_file.display().to_string());
                    c.new.file = Some(file.display().to_string());
                    comparisons.push(c);
                }
                Err(e) => refused.push(format!("{} ({})", e, file.display())),
            }
        }
    }
    if !refused.is_empty() {
        return Err(Error::Incomparable(refused));
    }
    let text = if a.json {
        let out = Report {
            tool: format!("syscost {}", env!("CARGO_PKG_VERSION")),
            comparisons: comparisons.clone(),
        };
        let mut s = serde_json::to_string_pretty(&out)?;
        s.push('\n');
        s
    } else {
        comparisons
            .iter()
            .map(table::render_comparison)
            .collect::<Vec<_>>()
            .join("\n")
    };
    stdout::print(&text).map_err(Error::Stdout)?;
    if let Some(pct) = a.fail_above {
        let mut count = 0;
        for c in &comparisons {
            for r in compare::regressions(c, pct) {
                count += 1;
                let rel = r
                    .relative_pct
                    .map(|p| format!(" ({:+.1}%)", p.median))
                    .unwrap_or_default();
                eprintln!(
                    "syscost compare: regression in {}: {}{rel}",
                    c.new.id,
                    r.name()
                );
            }
        }
        if count > 0 {
            return Err(Error::Regression { pct, count });
        }
    }
    Ok(0)
}
