//! Baselines: the harness loop alone (`null`) and the probe with nothing watching (`native`).

use super::{RunError, Scenario, SetupError};
use crate::harness::{Batch, Probe, Syscall};
use syscost_record::KernelScenario;

const NATIVE: &str = KernelScenario::Native.id();
const BITMAP1: &str = KernelScenario::Bitmap1.id();
const BITMAP2: &str = KernelScenario::Bitmap2.id();

/// The probe with no interception, or (null = true) the same loop without the syscall.
pub struct Plain {
    id: &'static str,
    baseline: Option<&'static str>,
    syscall: Syscall,
    null: bool,
    probe: Option<Probe>,
}

/// The A/A control: (replica, original) pairs — identical copies in processes of their own, of
/// `native` and of the filtered scenarios whose filter objects have placements of their own too.
/// Both sides of the bitmap expectations have a copy: their tolerance (2–4 ns) is of the size
/// of one process's offset, and an offset only the bitmap.2 process had (5 ns, where the other
/// copies agreed within 0.4) once made "entry ≈ 1 bitmapped" fail; with its own copy such an
/// offset shows in the allowance.
pub const REPLICAS: [(&str, &str); 5] = [
    ("native.replica.1", NATIVE),
    ("native.replica.2", NATIVE),
    ("seccomp.bitmap.1.replica.1", BITMAP1),
    ("seccomp.bitmap.1.replica.2", BITMAP1),
    ("seccomp.bitmap.2.replica.1", BITMAP2),
];

pub fn scenarios(syscall: Syscall) -> Vec<Box<dyn Scenario>> {
    let mut v: Vec<Box<dyn Scenario>> = vec![
        Box::new(Plain {
            id: "null",
            baseline: None,
            syscall,
            null: true,
            probe: None,
        }),
        Box::new(Plain {
            id: NATIVE,
            baseline: None,
            syscall,
            null: false,
            probe: None,
        }),
    ];
    // The A/A control: identical copies of `native` in processes of their own. Their paired
    // "overheads" over native measure the bias between two processes doing the same thing
    // (where their pages and kernel stacks landed); differences smaller than it mean nothing.
    for (id, _) in REPLICAS.iter().filter(|(_, of)| *of == NATIVE) {
        v.push(Box::new(Plain {
            id,
            baseline: Some(NATIVE),
            syscall,
            null: false,
            probe: None,
        }));
    }
    // Baseline of seccomp.profile.argcheck, whose probe must be a syscall with arguments.
    v.push(Box::new(Plain {
        id: "native.personality",
        baseline: None,
        syscall: Syscall::PersonalityQuery,
        null: false,
        probe: None,
    }));
    v
}

impl Scenario for Plain {
    fn id(&self) -> String {
        self.id.into()
    }
    fn family(&self) -> &'static str {
        "baseline"
    }
    fn description(&self) -> String {
        if self.baseline.is_some() {
            return format!(
                "{}, no filter: an identical copy of native in its own process (A/A control)",
                self.syscall.describe()
            );
        }
        if self.null {
            format!(
                "timed loop without the syscall (harness cost of the {} loop)",
                self.syscall
            )
        } else {
            format!("{}, no filter", self.syscall.describe())
        }
    }
    fn baseline(&self) -> Option<String> {
        self.baseline.map(String::from)
    }
    fn setup(&mut self) -> Result<(), SetupError> {
        self.probe = Some(Probe::new(self.syscall)?);
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Result<Batch, RunError> {
        let p = self.probe.as_mut().ok_or(RunError::NotSetUp)?;
        Ok(p.run(iters, self.null))
    }
}
