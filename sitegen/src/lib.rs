//! syscost-site: turns a directory of syscost run records into a static site (plain HTML and
//! inline SVG) with trends per kernel version and architecture, and checks submissions.

pub mod changes;
pub mod chart;
pub mod check;
pub mod cli;
pub mod commands;
pub mod fmt;
pub mod info;
pub mod intake;
pub mod kver;
pub mod load;
pub mod metrics;
pub mod migrate;
pub mod out;
pub mod plausible;
pub mod quality;
pub mod render;
pub mod series;
pub mod site;
pub mod slug;
pub mod triage;
pub mod upstream;
