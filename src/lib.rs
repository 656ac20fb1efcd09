//! diskscope: a terminal disk benchmark. The engine generates and measures I/O; the CLI, the
//! headless reporter and the TUI are consumers of the snapshots it produces.

pub mod diskstats;
pub mod target;
