//! The plain data of every result diskscope writes with `--json` and reads back with
//! `--show` and `--baseline`: what made it (`meta`), what was measured (`config`, with the
//! disk's link, queue limits and sensor in `disk`), a run, a sweep, a suite's card, a fleet
//! with its hosts and a run on several disks (`disks`), and why the figures look as they do
//! (`finding`, `why`). The bottom of the results: it imports only `stats`, `settings`,
//! `units` and, for `Meta::now`, `sys`. `sweep`, `suite`, `fleet` and `disks` produce it,
//! `target` fills `disk` and `findings` returns `Finding`s; `render` turns it into text, CSV
//! and the card; nothing here computes a finding, runs I/O or draws.

pub mod config;
pub mod disk;
pub mod disks;
pub mod finding;
pub mod fleet;
pub mod health;
pub mod hot_spots;
pub mod meta;
pub mod run;
pub mod suite;
pub mod surface;
pub mod sweep;
pub mod verify;
pub mod why;

pub use config::{
    ConfigReport, Durability, LATENCY_BASIS, LATENCY_BASIS_PACED, TargetFacts, TargetKind,
    latency_basis,
};
pub use meta::Meta;
pub use run::{CpuReport, RunReport, ThreadReport, TotalReport, WritebackReport};
pub use sweep::SweepReport;
pub use why::WhyReport;
