//! diskscope: a terminal disk benchmark. The engine generates and measures I/O; the CLI, the
//! headless reporter and the TUI are consumers of the snapshots it produces.
//!
//! The modules in layers, each importing only from those below it (README, "How it is
//! built"): `run` (the front door: one function per mode) and `cli` on top; the consumers
//! `tui`, `headless` and `show`; `render` (every output form); `results` (saving results and
//! reading them back, the state directory; the CSV and chart it saves are render's, handed in);
//! `sweep`, `suite`, `fleet`, `disks` and `fio`, which produce results; `model` (the results'
//! plain data) and `target`; at the bottom `engine`, `stats`, `settings`, `units`,
//! `diskstats` and the small helpers.
#![deny(clippy::unwrap_used)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod cli;
pub mod disks;
pub mod diskstats;
pub mod engine;
pub mod escape;
pub mod exit;
pub mod findings;
pub mod fio;
pub mod fleet;
pub(crate) mod headless;
pub mod health;
pub mod locale;
pub mod model;
pub(crate) mod output;
pub mod render;
pub mod results;
pub mod run;
pub mod sensors;
pub mod settings;
pub(crate) mod show;
pub(crate) mod signals;
pub mod stats;
pub mod suite;
pub mod surface;
pub mod sweep;
mod sys;
pub mod target;
pub mod tui;
pub mod units;
pub mod verify;
pub mod why;
