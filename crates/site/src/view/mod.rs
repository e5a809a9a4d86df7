//! What the site shows: a module per kind of page, the charts, the formatting of numbers and
//! texts, and the template environment.

pub mod chart;
pub(crate) mod charts;
pub(crate) mod ctx;
pub(crate) mod data;
pub mod error;
pub(crate) mod exports;
pub(crate) mod feed;
pub mod format;
pub(crate) mod links;
pub(crate) mod pager;
pub(crate) mod pages;
pub mod render;
pub(crate) mod rows;
pub(crate) mod sweep;
pub(crate) mod tasks;
