//! The surface scan: every block of a disk read in order (or an even sample of it) at its
//! sequential limit, each read's time folded into a map of regions and a bandwidth curve
//! against position (`model::surface`). `plan` says what to read, `scan` reads it on one
//! io_uring and times each read, `fold` turns the times into the map, `resume` keeps a
//! stopped scan in the state directory (with the `medium` it read, so it resumes on no other), `session` ties them together for the front door and
//! the TUI, `judge` reads the disk's facts and asks the findings. Read-only: it opens the target as every run does, with every check.

pub mod fold;
pub mod judge;
pub mod medium;
pub mod plan;
pub mod resume;
pub mod scan;
pub mod session;
