//! Everything the user gets while and after measuring: the progress bar on stderr, the table on
//! stdout (whose write errors are reported, not panicked on), and the JSON record written
//! atomically. Presentation only: numbers arrive computed.

pub mod json;
pub mod progress;
pub mod stdout;
pub mod table;
pub mod units;
