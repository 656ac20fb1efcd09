//! The knobs of a run — threads, queue depth, block size, read %, random %, rate, skew, trim %,
//! polled completions — their
//! limits, how a rate is typed, and the two ways of driving the disk (`IoEngine`). Plain
//! data shared by the CLI, the engine, the reports and the TUI; `step` moves one knob a
//! step, as the TUI's sliders do; `position` maps a value to its place on a slider and back.

mod distribution;
mod position;
pub mod promise;
mod skew;
mod step;

pub use distribution::{Distribution, MAX_ZIPF_MILLI};
pub use position::{at_position, position};
pub use skew::{at_skew, skew_position, skew_step};
pub use step::{Knob, MIN_BS, Step, rate_by_fraction, rate_ladder_at_or_below, stepped};

use serde::{Deserialize, Serialize};

/// Most worker threads a run may have.
pub const MAX_THREADS: usize = 1024;
/// Largest block size: 16 MiB.
pub const MAX_BS: u64 = 16 << 20;
/// Most I/Os one thread may keep in flight (fio's `iodepth`).
pub const MAX_IODEPTH: usize = 256;
/// Highest rate `--rate` takes, in I/Os per second across all threads (0 means unlimited).
pub const MAX_RATE_IOPS: u64 = 100_000_000;
/// Run length when none is given and there is no TUI.
pub const DEFAULT_HEADLESS_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// How the workers drive the disk (fio's `ioengine` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum IoEngine {
    /// One ring per thread, `iodepth` requests in flight on each.
    #[serde(rename = "io_uring")]
    IoUring,
    /// pread/pwrite: one I/O in flight per thread, depth fixed at 1.
    #[default]
    #[serde(rename = "psync")]
    Psync,
}

impl IoEngine {
    /// fio's name for it.
    pub fn name(self) -> &'static str {
        match self {
            IoEngine::IoUring => "io_uring",
            IoEngine::Psync => "psync",
        }
    }

    /// The engine fio's name `text` names; the message lists both.
    pub fn parse(text: &str) -> Result<IoEngine, String> {
        [IoEngine::IoUring, IoEngine::Psync]
            .into_iter()
            .find(|e| e.name() == text.trim())
            .ok_or_else(|| format!("'{text}': use io_uring or psync"))
    }
}

/// What the workers do. Changing any field while running takes effect live. A saved result
/// from before a knob existed reads it at its default (depth 1, no rate).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// Worker threads, each with its own file descriptor (1..=1024).
    pub threads: usize,
    /// I/Os each thread keeps in flight (1..=256; above 1 only with io_uring).
    pub iodepth: usize,
    /// Bytes per I/O.
    pub bs: u64,
    /// Share of I/Os that are reads, in percent (like fio's rwmixread).
    pub read_pct: u8,
    /// Share of I/Os at random offsets, in percent; the rest are sequential (like vdbench's
    /// seekpct).
    pub random_pct: u8,
    /// I/Os per second asked of all threads together, each thread on a fixed timetable of its
    /// share (like fio's `rate_iops`, but in total); 0: unlimited, as fast as the disk goes.
    /// Saved results from before this knob have no such field and mean 0.
    pub rate_iops: u64,
    /// Where random offsets land (fio's `random_distribution`, spelled as fio does): uniform,
    /// Zipf, Pareto or a hot band. Saved results from before this knob mean uniform.
    pub random_distribution: Distribution,
    /// Share of I/Os that discard their block (`--trim`, fio's `trim`), in percent, drawn
    /// before the read share (which splits the rest). Saved results from before this knob
    /// mean 0.
    pub trim_pct: u8,
    /// Completions polled (`--hipri`, fio's `hipri`): each io_uring ring set up with
    /// `IORING_SETUP_IOPOLL`, its thread spinning in the kernel for them instead of sleeping
    /// for an interrupt; only where the target's queue polls (`target::poll`). Left out of
    /// the JSON when off; saved results from before this knob mean off.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hipri: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            threads: 1,
            iodepth: 1,
            bs: 4096,
            read_pct: 100,
            random_pct: 100,
            rate_iops: 0,
            random_distribution: Distribution::Uniform,
            trim_pct: 0,
            hipri: false,
        }
    }
}

/// A rate as `--rate` and `--sweep rate=…` take it: total I/Os per second, a whole number
/// with an optional k or M (thousands, millions: 50k is 50000), up to `MAX_RATE_IOPS`; 0 is
/// unlimited.
pub fn parse_rate_iops(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (digits, mult) = match t.strip_suffix(['k', 'K']) {
        Some(d) => (d, 1_000),
        None => match t.strip_suffix('M') {
            Some(d) => (d, 1_000_000),
            None => (t, 1),
        },
    };
    let value = digits
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
        .map(|v| v * mult as f64)
        .filter(|v| v.fract() == 0.0 && *v <= MAX_RATE_IOPS as f64);
    match value {
        Some(v) if digits.chars().all(|c| c.is_ascii_digit() || c == '.') => Ok(v as u64),
        _ => Err(format!(
            "'{text}': give I/Os per second across all threads, e.g. 5000 or 50k (0: unlimited, at most 100M)"
        )),
    }
}
