//! Reading the records and writing the site: every record through one reader (`load`), the
//! summary cache beside the site (`cache`), the staging directory swapped in whole (`staging`)
//! the maintainers' triage file (`triage`) and the build's timings (`timing`).

pub mod cache;
pub mod load;
pub mod staging;
pub mod timing;
pub mod triage;
