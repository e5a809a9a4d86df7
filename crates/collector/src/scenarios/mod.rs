//! The scenario families. A scenario is set up once inside its own forked worker process
//! (filters and SUD cannot be undone) and then asked for timed batches by the engine.
//!
//! - [`baseline`]: `null` (harness loop) and `native` (the probe, no interception)
//! - [`seccomp`]: the kernel benchmark's bitmap/full filters, the depth sweep, a real profile
//! - [`sud`]: Syscall User Dispatch, selector ALLOW and BLOCK

pub mod attach;
pub mod baseline;
pub mod bpf;
pub mod intercept;
pub mod seccomp;
pub mod sud;

use crate::harness::{Batch, ProbeError, Syscall};
use std::collections::BTreeMap;
use syscost_record::KernelScenario;
use wildmatch::WildMatch;

/// Why a scenario could not be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    /// The kernel or the privileges here do not offer it: recorded as skipped, with the reason
    /// and what the user can do.
    #[error("{0}")]
    Unsupported(String),
    /// It should have worked and did not: recorded as failed.
    #[error("{0}")]
    Failed(String),
}

impl SetupError {
    /// Failed, with what went wrong.
    pub fn failed(e: impl std::fmt::Display) -> SetupError {
        SetupError::Failed(e.to_string())
    }
}

impl From<ProbeError> for SetupError {
    fn from(e: ProbeError) -> SetupError {
        SetupError::failed(e)
    }
}

/// Why a set-up scenario could not take a batch: the engine fails it with this reason (and the
/// round it happened in).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("the scenario was not set up")]
    NotSetUp,
    /// What went wrong, from the family's own error.
    #[error("{0}")]
    Failed(String),
}

impl RunError {
    pub fn failed(e: impl std::fmt::Display) -> RunError {
        RunError::Failed(e.to_string())
    }
}

/// One measurable situation. Lives in the parent for its identity and in the worker for
/// `setup`/`run` (the worker gets a copy by fork).
pub trait Scenario: Send {
    /// Stable id, see docs/ids.md.
    fn id(&self) -> String;
    fn family(&self) -> &'static str;
    fn description(&self) -> String;
    /// The scenario its overhead is paired against (`native` unless said otherwise).
    fn baseline(&self) -> Option<String> {
        Some(KernelScenario::Native.id().into())
    }
    /// Parameters worth recording (filters, instructions, cacheable...).
    fn params(&self) -> BTreeMap<String, String> {
        BTreeMap::new()
    }
    /// In the worker, once: install the interception. May change the process irreversibly.
    fn setup(&mut self) -> Result<(), SetupError>;
    /// In the worker: one timed batch of `iters` operations. An error ends the scenario with
    /// its reason in the record.
    fn run(&mut self, iters: u64) -> Result<Batch, RunError>;
    /// In the worker: a batch used only to size the samples. Scenarios whose samples do slow
    /// untimed work (a BPF detach waits for RCU) can time just their loop here.
    fn calibration_run(&mut self, iters: u64) -> Result<Batch, RunError> {
        self.run(iters)
    }
    /// What `Batch::verified` counts, if the scenario verifies its interception.
    fn verification(&self) -> Option<&'static str> {
        None
    }
    /// How many interceptions a batch of `iters` must show.
    fn expected_verified(&self, iters: u64) -> u64 {
        iters
    }
    /// Operations per sample when the scenario fixes it instead of calibrating to the sample
    /// duration. Attach costs use 1: each sample is then one operation, so the samples are
    /// the latency distribution (median, p90) rather than means of batches.
    fn fixed_iters(&self) -> Option<u64> {
        None
    }
    /// How long one sample may take before its worker is presumed hung, for scenarios whose
    /// untimed work per sample can outlast the engine's default (BPF detaches wait for RCU
    /// grace periods, which stretch to hundreds of ms under load).
    fn sample_timeout(&self) -> Option<std::time::Duration> {
        None
    }
    /// In the worker, after `run`: time spent on this sample's work outside the timed region
    /// (a BPF program's attach + detach), in ns. Reported as the result `untimed_result` names.
    fn untimed(&mut self) -> Option<u64> {
        None
    }
    /// Id and description of the result made from `untimed` (family `attach`).
    fn untimed_result(&self) -> Option<(String, String)> {
        None
    }
    /// Whether another task running in a sample only adds foreign time to it, so that the
    /// engine should take the sample again. Not for paths where a task of the scenario's own
    /// wakes on the worker's CPU and preempts it as part of each call (a supervisor, a tracer,
    /// the audit daemon's kernel thread).
    fn preemption_is_noise(&self) -> bool {
        true
    }
    /// Whether a sample attaches something every process's calls go through (a BPF program on
    /// a syscall tracepoint), attached only while the sample runs. The worker must answer a
    /// sample only once it is detached; the engine then never has another scenario measured
    /// while it is attached, samples its baseline right before and right after it, and
    /// lengthens its samples until the attach cycle is a small part of them.
    fn system_wide(&self) -> bool {
        false
    }
    /// In the worker, after `run`: how long, in ns, work the sample left running in the
    /// background (a detach waiting for RCU grace periods) will go on. The next sample would
    /// wait for it, so the engine samples other scenarios meanwhile.
    fn settle_ns(&mut self) -> Option<u64> {
        None
    }
}

/// Every scenario this build knows, in the order they are reported.
pub fn all(syscall: Syscall) -> Vec<Box<dyn Scenario>> {
    let mut v = baseline::scenarios(syscall);
    v.extend(seccomp::scenarios(syscall));
    v.extend(sud::scenarios(syscall));
    // Right after SUD, so every interception mechanism is reported together.
    v.extend(intercept::scenarios(syscall));
    v.extend(bpf::scenarios(syscall));
    v.extend(attach::scenarios());
    v
}

/// Why `--only`/`--skip` select nothing usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SelectError {
    #[error("{flag} '{pattern}' matches no scenario (see `syscost list`; known ids: {})", known.join(", "))]
    NoMatch {
        flag: &'static str,
        pattern: String,
        known: Vec<String>,
    },
    #[error("the --only/--skip patterns leave no scenario to run")]
    Empty,
    /// `--only ''` would otherwise select everything: the opposite of what it says.
    #[error("{flag} has an empty pattern: give scenario ids or globs (see `syscost list`)")]
    EmptyPattern { flag: &'static str },
}

/// The scenarios picked by `--only`/`--skip` patterns, plus the baselines they need. Every
/// pattern must match some scenario: a typo is an error, not an empty run.
pub fn select(
    all: Vec<Box<dyn Scenario>>,
    only: &[String],
    skip: &[String],
) -> Result<Vec<Box<dyn Scenario>>, SelectError> {
    let ids: Vec<String> = all.iter().map(|s| s.id()).collect();
    // Results a scenario reports besides its own (attach.bpf.* from bpf.*) select it too.
    let extra: Vec<Option<String>> = all
        .iter()
        .map(|s| s.untimed_result().map(|(id, _)| id))
        .collect();
    let known: Vec<&str> = ids
        .iter()
        .map(String::as_str)
        .chain(extra.iter().flatten().map(String::as_str))
        .collect();
    let matcher = |pats: &[String], flag: &'static str| -> Result<Vec<WildMatch>, SelectError> {
        let mut out = Vec::new();
        for p in pats.iter().map(|p| p.trim()) {
            if p.is_empty() {
                return Err(SelectError::EmptyPattern { flag });
            }
            let m = WildMatch::new(p);
            if !known.iter().any(|id| m.matches(id)) {
                return Err(SelectError::NoMatch {
                    flag,
                    pattern: p.to_string(),
                    known: known.iter().map(|k| k.to_string()).collect(),
                });
            }
            out.push(m);
        }
        Ok(out)
    };
    let only = matcher(only, "--only")?;
    let skip = matcher(skip, "--skip")?;
    // The A/A copies are measured only when asked for by name or pattern: a run's instances
    // (every worker created afresh several times) put the bias between worker processes they
    // estimate into every interval (see `engine::driver`), so a default run has no use for them.
    let replica = |i: usize| baseline::REPLICAS.iter().any(|r| r.0 == ids[i]);
    let wanted = |i: usize| {
        let mine = std::iter::once(&ids[i]).chain(extra[i].iter());
        ((only.is_empty() && !replica(i))
            || mine
                .into_iter()
                .any(|id| only.iter().any(|m| m.matches(id))))
            && !skip.iter().any(|m| m.matches(&ids[i]))
    };
    let mut keep: Vec<bool> = (0..ids.len()).map(wanted).collect();
    // Baselines of kept scenarios come along (transitively), or no overhead could be paired.
    loop {
        let mut changed = false;
        for i in 0..all.len() {
            if !keep[i] {
                continue;
            }
            if let Some(b) = all[i].baseline() {
                if let Some(j) = ids.iter().position(|id| *id == b) {
                    if !keep[j] {
                        keep[j] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let picked: Vec<_> = all
        .into_iter()
        .zip(keep)
        .filter_map(|(s, k)| k.then_some(s))
        .collect();
    if picked.is_empty() {
        return Err(SelectError::Empty);
    }
    Ok(picked)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: &[Box<dyn Scenario>]) -> Vec<String> {
        v.iter().map(|s| s.id()).collect()
    }

    #[test]
    fn ids_are_unique_and_baselines_exist() {
        let all = all(Syscall::Getpid);
        let ids = ids(&all);
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), ids.len(), "duplicate ids: {ids:?}");
        for s in &all {
            if let Some(b) = s.baseline() {
                assert!(ids.contains(&b), "{} has unknown baseline {b}", s.id());
            }
        }
    }

    #[test]
    fn globs_select_and_pull_in_baselines() {
        let v = select(all(Syscall::Getpid), &["sud.*".into()], &[]).unwrap();
        assert_eq!(ids(&v), vec!["native", "sud.allow", "sud.block"]);
        let v = select(
            all(Syscall::Getpid),
            &["seccomp.*".into()],
            &["seccomp.depth.*".into()],
        )
        .unwrap();
        let got = ids(&v);
        assert!(got.contains(&"native".to_string()));
        assert!(got.contains(&"native.personality".to_string()));
        assert!(!got.iter().any(|i| i.starts_with("seccomp.depth")));
    }

    #[test]
    fn unknown_patterns_are_errors() {
        let e = select(all(Syscall::Getpid), &["nope".into()], &[])
            .err()
            .unwrap();
        assert!(
            matches!(&e, SelectError::NoMatch { flag: "--only", pattern, .. } if pattern == "nope"),
            "{e:?}"
        );
        assert!(e.to_string().contains("'nope' matches no scenario"), "{e}");
        let e = select(all(Syscall::Getpid), &[], &["*".into()])
            .err()
            .unwrap();
        assert_eq!(e, SelectError::Empty);
    }
}
