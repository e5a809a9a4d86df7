//! `site-bench`'s rounds and their pooling: the build timed against the parse floor, stated
//! as an interval. The synthetic records are `syscost-synth`'s.

pub mod pool;
pub mod rounds;
