//! Several runs of one machine and kernel pooled into one side of a comparison
//! (`syscost compare --pool`).
//!
//! A run's interval covers what varies within the run, across fresh instances of its workers;
//! it cannot see what changes between runs more slowly than a run lasts (the host's speed, on a
//! shared machine: docs/benchmarks.md), so two single runs of one machine differ "significantly"
//! more often than their intervals promise. Runs are the next level of the same design
//! (Kalibera and Jones): per quantity, the mean of the runs' values with a standard error from
//! their spread, s / √n, which holds the variation between runs whatever its source. With two or
//! three runs s is itself uncertain, so the comparison uses Student's t (Welch) rather than the
//! normal. The standard error is never taken below what the runs' own intervals say of their
//! mean (√(mean se²) / √n): runs that agree by chance, or exact instruction counts, do not make
//! an interval narrower than each run measured. The arithmetic is `syscost_stats::pool`'s, the
//! site's too.

use super::{quantities, z_of, KeyDifference, Quantity, RecordRef, Side, Spread, Value};
use syscost_record::key::{comparability_key, key_differences};
use syscost_record::RunRecord;

/// Why runs cannot be pooled.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PoolError {
    #[error("{0} run(s) to pool; pooling needs at least 2 (the spread between runs)")]
    TooFew(usize),
    #[error(
        "run {id} is not a rerun of {first}: {}",
        .differences.iter().map(|k| format!("{} differs ({}; {})", k.part, k.base, k.new)).collect::<Vec<_>>().join("; ")
    )]
    NotReruns {
        first: String,
        id: String,
        differences: Vec<KeyDifference>,
    },
    #[error("run {id} has {confidence} intervals; pooling reads 95 % intervals only")]
    Confidence { id: String, confidence: f64 },
}

/// Pools `runs` (reruns: one comparability key) into one side. A quantity is pooled when
/// every run reports it with an interval; the others are counted as not judged.
pub fn pool(runs: &[&RunRecord]) -> Result<Side, PoolError> {
    let first = match runs {
        [] | [_] => return Err(PoolError::TooFew(runs.len())),
        [first, ..] => *first,
    };
    let key = comparability_key(first);
    for r in runs {
        if (r.settings.confidence - 0.95).abs() > 1e-9 {
            return Err(PoolError::Confidence {
                id: r.id.clone(),
                confidence: r.settings.confidence,
            });
        }
        // The comparability key leaves the kernel out (comparisons are across kernels); the
        // runs of one side are reruns of one kernel too.
        let kernel = |r: &RunRecord| r.environment.comparability.kernel_release.clone();
        let mut differences: Vec<KeyDifference> = key_differences(&key, &comparability_key(r))
            .into_iter()
            .map(|(part, base, new)| KeyDifference { part, base, new })
            .collect();
        if kernel(r) != kernel(first) {
            differences.insert(
                0,
                KeyDifference {
                    part: "kernel",
                    base: kernel(first),
                    new: kernel(r),
                },
            );
        }
        if !differences.is_empty() {
            return Err(PoolError::NotReruns {
                first: first.id.clone(),
                id: r.id.clone(),
                differences,
            });
        }
    }
    let per_run: Vec<Vec<Quantity>> = runs.iter().map(|r| quantities(r).0).collect();
    let z = z_of(0.95);
    let n = runs.len();
    let mut pooled = Vec::new();
    let mut without = quantities(first).1;
    for q in &per_run[0] {
        let found: Vec<&Quantity> = per_run
            .iter()
            .filter_map(|qs| qs.iter().find(|x| x.same(q)))
            .collect();
        if found.len() < n {
            without += 1;
            continue;
        }
        let values: Vec<Value> = found.iter().map(|x| x.value).collect();
        // Never None: two runs at least.
        let Some(p) = syscost_stats::pool(&values, z) else {
            without += 1;
            continue;
        };
        pooled.push((
            Quantity {
                value: p.interval,
                ..q.clone()
            },
            Some(Spread { se: p.se, df: p.df }),
        ));
    }
    let ids: Vec<String> = runs.iter().map(|r| r.id.clone()).collect();
    let reference = RecordRef {
        id: ids.join("+"),
        date: runs.iter().filter_map(|r| r.source.date.clone()).min(),
        pooled: ids,
        ..RecordRef::of(first)
    };
    Ok(Side {
        reference,
        key,
        counts_instructions: runs.iter().all(|r| r.counts_instructions()),
        confidence: 0.95,
        quantities: pooled,
        without,
    })
}
