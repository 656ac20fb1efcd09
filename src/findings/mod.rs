//! Findings: why the figures look the way they do, in words. Each detector here is a pure
//! function (or a small state fed one interval at a time) over plain data — the interval
//! series, a target's link, queue and temperature facts — and returns `Finding`s, which the
//! TUI's message line, the text summary, the JSON and the card all show as one list.
//!
//! This module owns the detectors, their thresholds (`thresholds`, each with its source) and
//! the sentences. It must not touch a clock, a file, sysfs, the engine or a renderer: others
//! read the facts and sample the run, then hand plain values in. It imports only `model` (the `Finding` it returns, the facts it reads) and `units`.
//!
//! - `steady`: the SNIA PTS steady-state check, live and over a finished run.
//! - `slowdown`: sustained drops, the write-cache cliff, and recovery.
//! - `thermal`: throttling from the temperature series and the drive's own counters.
//! - `link`: a link trained below its maximum, and bandwidth at the link's ceiling.
//! - `queue`: the block layer's limits (request size, queue depth, write cache, rotational)
//!   where the settings cross them.
//! - `split`: how the kernel cuts one I/O into requests, from every limit that cuts it.
//! - `outliers`: the member of a group (a fleet's hosts, a run's disks) well below the
//!   group's median.
//! - `shared_limit`: disks that fall short together of what they did alone.
//! - `surface`: a surface scan's slow regions, read errors and curve shape.
//! - `conditions`: what each detector needs (O_DIRECT, the disk as the limit, a drive, rows,
//!   peers), one table, and the gate every caller asks through.
//! - `verify`: what reading back the stamps found: a fake capacity, corrupt, stale or lost
//!   blocks by offset.
//! - `collect`: all of them over a finished run, in reading order.

pub mod collect;
pub mod conditions;
pub mod health;
pub mod health_changes;
pub mod link;
pub mod outliers;
pub mod queue;
pub mod series;
pub mod shared_limit;
pub mod slowdown;
pub mod split;
pub mod steady;
pub mod surface;
pub mod surface_stretch;
pub mod thermal;
pub mod thresholds;
pub mod verify;
pub mod words;

pub use collect::{RunFacts, all_findings};
pub use series::{Interval, Metric};

pub use crate::model::finding::{Finding, kind};
