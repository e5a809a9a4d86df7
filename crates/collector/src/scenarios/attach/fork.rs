//! fork + attach + exit, timed from the parent as in seed 002's benchmark: the worker reads the
//! clock, forks a child that attaches one filter and `_exit`s, reaps it, and reads the clock
//! again. `attach.fork_seccomp.0` is the same without the attach, the baseline the others are
//! paired against, so their overhead is the attach as it costs inside a fork.

use super::programs::Size;
use super::{AttachError, FAMILY};
use crate::harness::{clock, Batch};
use crate::scenarios::{RunError, Scenario, SetupError};
use crate::sys::process::{self, Exit};
use crate::sys::seccomp::{self as filter, Insn};
use std::collections::BTreeMap;

const SECCOMP_MODE_FILTER: i32 = 2;

pub struct ForkAttach {
    size: Option<Size>,
    prog: Vec<Insn>,
    /// seccomp mode the child must report after its attach (or inherited, without one).
    mode: i32,
}

impl ForkAttach {
    pub fn new(size: Option<Size>) -> ForkAttach {
        ForkAttach {
            size,
            prog: Vec::new(),
            mode: 0,
        }
    }

    /// The child: attach (unless size 0), confirm the mode, leave. Exit code 0 = verified.
    fn child(prog: Option<&[Insn]>, mode: i32) -> i32 {
        if let Some(p) = prog {
            if filter::attach(p, 0) != Ok(0) {
                return 1;
            }
        }
        if crate::sys::query::seccomp_mode() != mode {
            return 2;
        }
        0
    }

    fn once(&self) -> Result<(u64, bool), AttachError> {
        let prog = self.size.map(|_| self.prog.as_slice());
        let mode = self.mode;
        let t0 = clock::now_ns();
        let mut child = process::fork(|| Self::child(prog, mode)).map_err(AttachError::Fork)?;
        let exit = child.wait().map_err(AttachError::Wait)?;
        let t1 = clock::now_ns();
        Ok((t1.saturating_sub(t0), exit == Exit::Code(0)))
    }
}

impl Scenario for ForkAttach {
    fn id(&self) -> String {
        format!(
            "attach.fork_seccomp.{}",
            self.size.map_or("0", |s| s.name())
        )
    }
    fn family(&self) -> &'static str {
        FAMILY
    }
    fn description(&self) -> String {
        match self.size {
            Some(s) => format!(
                "fork(), the child attaches a {}-instruction filter and exits, waitpid: timed \
                 from the parent",
                s.instructions()
            ),
            None => "fork(), the child exits, waitpid: timed from the parent (no filter)".into(),
        }
    }
    fn baseline(&self) -> Option<String> {
        self.size.map(|_| "attach.fork_seccomp.0".into())
    }
    fn params(&self) -> BTreeMap<String, String> {
        let mut p = BTreeMap::new();
        p.insert(
            "instructions".into(),
            self.size.map_or("0".into(), |s| s.instructions()),
        );
        p.insert(
            "timed".into(),
            "from the parent: fork → child attaches and _exits → waitpid returns".into(),
        );
        p.insert(
            "warm_up".into(),
            super::warm_up_param(super::warm_up(self.size)),
        );
        p
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        filter::no_new_privs().map_err(SetupError::failed)?;
        let inherited = crate::sys::query::seccomp_mode();
        self.mode = match self.size {
            Some(s) => {
                self.prog = s.program(true)?;
                SECCOMP_MODE_FILTER
            }
            None => inherited,
        };
        match self.once() {
            Ok((_, true)) => Ok(()),
            Ok((_, false)) => Err(SetupError::Failed(
                "the child's attach failed or its seccomp mode was not the expected one".into(),
            )),
            Err(e) => Err(SetupError::failed(e)),
        }
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let warm = super::warm_up(self.size);
        let mut b = Batch {
            iters,
            elapsed_ns: 0,
            bad: 0,
            verified: Some(0),
        };
        for _ in 0..iters {
            // Untimed twin first: the timed attach then meets warm kernel caches (see the
            // module documentation of `attach`).
            if warm {
                let _ = self.once();
            }
            let (ns, ok) = self.once()?;
            b.elapsed_ns += ns;
            b.verified = b.verified.map(|v| v + ok as u64);
        }
        Ok(b)
    }
    fn verification(&self) -> Option<&'static str> {
        Some("children whose attach succeeded and reported the expected seccomp mode")
    }
    fn fixed_iters(&self) -> Option<u64> {
        Some(1)
    }
    fn sample_timeout(&self) -> Option<std::time::Duration> {
        Some(super::SAMPLE_TIMEOUT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_child_verifies_its_mode() {
        let mut f = ForkAttach::new(Some(Size::Two));
        f.setup().unwrap();
        assert!(f.once().unwrap().1);
        f.mode = 1; // strict mode: not what a filter gives
        assert!(!f.once().unwrap().1);
        assert_eq!(f.run(2).unwrap().verified, Some(0));
    }
}
