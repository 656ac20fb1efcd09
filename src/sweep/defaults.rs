//! The sweeps offered without a spec (the TUI's `s t` and `s b`): threads 1 to 64, or block
//! sizes from the target's logical block size to 4 MiB, doubling, as far as the target allows.

use super::{Dimension, SweepSpec};
use crate::report::ConfigReport;
use crate::settings::MAX_THREADS;

/// The thread counts a sweep started with `s t` runs: 1 to 64, doubling.
pub const SWEEP_THREADS: (u64, u64) = (1, 64);
/// The block sizes a sweep started with `s b` runs: 512 (or the logical block size) to 4 MiB,
/// doubling.
pub const SWEEP_BS: (u64, u64) = (512, 4 << 20);

/// The sweep values of `dimension` for a target with this geometry: threads 1..64, or block
/// sizes from the logical block size (at least 512) to 4 MiB that fit the span.
pub fn default_sweep(dimension: Dimension, info: &ConfigReport) -> Result<SweepSpec, String> {
    let values: Vec<u64> = match dimension {
        Dimension::Threads => {
            let (lo, hi) = SWEEP_THREADS;
            std::iter::successors(Some(lo), |v| Some(v * 2))
                .take_while(|v| *v <= hi.min(MAX_THREADS as u64))
                .collect()
        }
        Dimension::Bs => {
            let lbs = u64::from(info.logical_block_size).max(1);
            let (lo, hi) = SWEEP_BS;
            std::iter::successors(Some(lo.max(lbs).next_power_of_two()), |v| Some(v * 2))
                .take_while(|v| *v <= hi)
                .filter(|v| *v <= info.span_bytes && (!info.direct || v.is_multiple_of(lbs)))
                .collect()
        }
    };
    if values.len() < 2 {
        return Err(format!(
            "no {} sweep: fewer than two steps fit this target (span {} bytes)",
            dimension.name(),
            info.span_bytes
        ));
    }
    Ok(SweepSpec { dimension, values })
}
