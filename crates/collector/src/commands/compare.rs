//! `syscost compare BASE NEW...`: reads the records, compares each NEW with BASE
//! (`crate::compare`), prints the table or the JSON, and exits 3 on a regression beyond
//! `--fail-above`.

use super::record::read_path;
use crate::cli::CompareArgs;
use crate::compare::{self, Comparison, Options, Report, Side};
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
    let opts = Options {
        margin_pct: a.margin,
        force: a.force,
    };
    let comparisons = if a.pool {
        vec![pooled(a, opts)?]
    } else {
        one_by_one(a, opts)?
    };
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

/// Each NEW record compared with the one BASE record.
fn one_by_one(a: &CompareArgs, opts: Options) -> Result<Vec<Comparison>, Error> {
    let mut base = read_path(&a.base)?;
    if base.len() != 1 {
        return Err(Error::Record {
            path: a.base.clone(),
            reason: format!(
                "{} records; the base must be one (or pool reruns with --pool)",
                base.len()
            ),
        });
    }
    let (base_file, base) = base.remove(0);
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
    Ok(comparisons)
}

/// `--pool`: the runs of BASE pooled against the runs of NEW.
fn pooled(a: &CompareArgs, opts: Options) -> Result<Comparison, Error> {
    let [new] = a.new.as_slice() else {
        return Err(Error::Argument(format!(
            "with --pool, NEW is one directory or file of records ({} given)",
            a.new.len()
        )));
    };
    let side = |path: &std::path::Path| -> Result<Side, Error> {
        let runs = read_path(path)?;
        let records: Vec<_> = runs.iter().map(|(_, r)| r).collect();
        let mut side = compare::pool::pool(&records).map_err(|e| Error::Record {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
        side.reference.file = Some(path.display().to_string());
        Ok(side)
    };
    let (base, new) = (side(&a.base)?, side(new)?);
    compare::compare_sides(&base, &new, opts)
        .map_err(|e| Error::Incomparable(vec![format!("{e} ({})", a.new[0].display())]))
}
