//! What the site knows: kernel versions, series, metrics and the run summaries, the trends and
//! the steps found between versions, the quality and plausibility of runs.

pub mod changes;
pub mod groups;
pub mod kver;
pub mod metrics;
pub mod plausible;
pub mod quality;
pub mod series;
pub mod slug;
pub mod spread;
pub mod summary;
pub mod upstream;
