//! syscost-site: turns a directory of syscost run records into a static site (plain HTML and
//! inline SVG) with trends per kernel version and architecture, and checks submissions.

pub mod build;
pub mod cli;
pub mod commands;
pub mod model;
pub mod parallel;
pub mod view;
