//! The four knobs of a run — threads, block size, read %, random % — and their limits.
//! Plain data shared by the CLI, the engine, the reports and the TUI; `step` moves one knob a
//! step, as the TUI's sliders do.

mod step;

pub use step::{Knob, MIN_BS, Step, stepped};

use serde::Serialize;

/// Most worker threads a run may have.
pub const MAX_THREADS: usize = 1024;
/// Largest block size: 16 MiB.
pub const MAX_BS: u64 = 16 << 20;

/// What the workers do. Changing any field while running takes effect live.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Settings {
    /// Worker threads, each with its own file descriptor (1..=1024).
    pub threads: usize,
    /// Bytes per I/O.
    pub bs: u64,
    /// Share of I/Os that are reads, in percent (like fio's rwmixread).
    pub read_pct: u8,
    /// Share of I/Os at random offsets, in percent; the rest are sequential (like vdbench's
    /// seekpct).
    pub random_pct: u8,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            threads: 1,
            bs: 4096,
            read_pct: 100,
            random_pct: 100,
        }
    }
}
