//! diskscope: a terminal disk benchmark. The engine generates and measures I/O; the CLI, the
//! headless reporter and the TUI are consumers of the snapshots it produces.

pub mod app;
pub mod cli;
pub mod diskstats;
pub mod engine;
pub mod headless;
pub mod output;
pub mod report;
pub mod settings;
pub mod signals;
pub mod stats;
pub mod sweep;
pub mod target;
pub mod tui;
pub mod units;
