//! Progress on stderr: elapsed time against the budget, rounds done and the groups that met
//! their targets so far.
//! indicatif hides it when stderr is not a terminal.

use crate::engine::driver::Progress;
use indicatif::{ProgressBar, ProgressStyle};

pub struct Bar {
    bar: ProgressBar,
}

impl Bar {
    pub fn new(budget_ms: u64) -> Bar {
        let bar = ProgressBar::new(budget_ms.max(1));
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {bar:30} {msg} (ETA {eta}, budget end)",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Bar { bar }
    }

    pub fn update(&self, p: &Progress) {
        self.bar.set_position(p.elapsed.as_millis() as u64);
        self.bar.set_message(format!(
            "{}: {} rounds, {} of {} groups at their targets",
            p.phase, p.rounds, p.met, p.groups
        ));
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
