//! What the engine measured, as plain data: latency summaries from histograms, the
//! `Snapshot` the sampler emits every tick, the `Window` that merges snapshots into longer
//! intervals for reports, and the `PeriodTracker` that tells a run setting by setting.
//! Nothing here spawns threads or does I/O; workers and the sampler live in `engine`,
//! consumers (headless report, TUI) only read these types.

#[cfg(test)]
pub mod fake;
pub mod latency;
pub mod log2;
pub mod periods;
pub mod seconds;
pub mod sides;
pub mod snapshot;
pub mod timeline;
pub mod window;

pub use latency::{Latency, LatencySummary};
pub use log2::{BUCKETS, Log2Histogram};
pub use periods::{Began, Boundary, Period, PeriodTracker, Periods};
pub use sides::{DIRECTION_TAGS, ReadWrite, Side, SideLatency, Sides, TRIM_TAG, WRITE_TAG};
pub use snapshot::{Counts, IoErrorRecord, LeftOut, Snapshot, ThreadSample};
pub use window::{IntervalFigures, Window};
