//! Benchmark targets: finding the block devices of the machine and presenting them. This module
//! owns reading sysfs/procfs descriptions of devices and the `--list` table; it never opens a
//! device for writing and never decides what the engine does with one.

pub mod discover;
pub mod list;
