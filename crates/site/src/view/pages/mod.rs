//! One module per kind of page, named after it. Each writes its pages from the run summaries
//! (or, for a run page, its record) through the templates in `crates/site/templates/`.

pub mod against;
pub mod arch;
pub mod changes;
pub mod compare;
pub mod content;
pub mod home;
pub mod kernels;
pub mod matrix;
pub mod metrics;
pub mod run;
pub mod runs;
pub mod search;
pub mod series;
pub mod unplaced;
