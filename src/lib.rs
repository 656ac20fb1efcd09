//! diskscope: a terminal disk benchmark. The engine generates and measures I/O; the CLI, the
//! headless reporter and the TUI are consumers of the snapshots it produces.

pub mod chart;
pub mod cli;
pub mod diskstats;
pub mod engine;
pub mod exit;
pub mod fleet;
pub(crate) mod headless;
pub(crate) mod output;
pub mod report;
pub mod run;
pub mod settings;
pub(crate) mod show;
pub(crate) mod signals;
pub mod stats;
pub mod suite;
pub mod sweep;
mod sys;
pub mod target;
pub mod tui;
pub mod units;
