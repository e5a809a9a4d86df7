//! Everything the user gets while and after measuring: the progress bar on stderr, the table on
//! stdout, and the JSON record written atomically. Presentation only: numbers arrive computed.

pub mod json;
pub mod progress;
pub mod table;
