//! Baselines: the harness loop alone (`null`) and the probe with nothing watching (`native`).

use super::{Scenario, SetupError};
use crate::probe::{Batch, Probe, Syscall};

/// The probe with no interception, or (null = true) the same loop without the syscall.
pub struct Plain {
    id: &'static str,
    baseline: Option<&'static str>,
    syscall: Syscall,
    null: bool,
    probe: Option<Probe>,
}

pub fn scenarios(syscall: Syscall) -> Vec<Box<dyn Scenario>> {
    vec![
        Box::new(Plain {
            id: "null",
            baseline: None,
            syscall,
            null: true,
            probe: None,
        }),
        Box::new(Plain {
            id: "native",
            baseline: None,
            syscall,
            null: false,
            probe: None,
        }),
        // The A/A control: a second, identical worker. Its paired "overhead" over native is the
        // bias between two processes doing the same thing; differences smaller than it mean
        // nothing.
        Box::new(Plain {
            id: "native.replica",
            baseline: Some("native"),
            syscall,
            null: false,
            probe: None,
        }),
        // Baseline of seccomp.profile.argcheck, whose probe must be a syscall with arguments.
        Box::new(Plain {
            id: "native.personality",
            baseline: None,
            syscall: Syscall::PersonalityQuery,
            null: false,
            probe: None,
        }),
    ]
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
                "{}, no filter: an identical second worker (A/A control of the method)",
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
        self.probe = Some(Probe::new(self.syscall).map_err(SetupError::Failed)?);
        Ok(())
    }
    fn run(&mut self, iters: u64) -> Batch {
        match &mut self.probe {
            Some(p) => p.run(iters, self.null),
            None => Batch::default(),
        }
    }
}
