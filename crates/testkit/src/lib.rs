//! What the integration tests of the collector and of the site share (a dev-dependency of
//! both, never published).

pub mod peak;
pub mod sys;
