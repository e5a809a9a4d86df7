//! Everything the user sees while and after measuring: the progress bar on stderr and the
//! table on stdout. Presentation only: numbers arrive already computed.

pub mod progress;
pub mod table;
