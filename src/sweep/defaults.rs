//! The sweeps offered without a spec (the TUI's `s t`, `s b`, `s q` and `s r`, the latency
//! curve): threads 1 to 64, block
//! sizes from the target's logical block size to 4 MiB as far as the target allows, or queue
//! depths 1 to 256 (io_uring only), doubling.

use super::{Dimension, SweepSpec};
use crate::model::ConfigReport;
use crate::settings::{IoEngine, MAX_IODEPTH, MAX_THREADS};

/// The thread counts a sweep started with `s t` runs: 1 to 64, doubling.
pub const SWEEP_THREADS: (u64, u64) = (1, 64);
/// The block sizes a sweep started with `s b` runs: 512 (or the logical block size) to 4 MiB,
/// doubling.
pub const SWEEP_BS: (u64, u64) = (512, 4 << 20);
/// The queue depths a sweep started with `s q` runs: 1 to 256, doubling.
pub const SWEEP_IODEPTH: (u64, u64) = (1, MAX_IODEPTH as u64);

/// On psync the depth is fixed at 1: why, for the message line.
pub fn psync_refusal(info: &ConfigReport) -> Result<(), String> {
    if info.ioengine == IoEngine::IoUring {
        return Ok(());
    }
    Err(match &info.ioengine_fallback {
        Some(why) => format!("queue depth stays 1: {why}"),
        None => "queue depth stays 1 with --ioengine psync".into(),
    })
}

/// The sweep values of `dimension` for a target with this geometry: threads 1..64, or block
/// sizes from the logical block size (at least 512) to 4 MiB that fit the span.
pub fn default_sweep(dimension: Dimension, info: &ConfigReport) -> Result<SweepSpec, String> {
    let values: Vec<u64> = match dimension {
        Dimension::Rate => return Ok(SweepSpec::curve()),
        Dimension::Threads => {
            let (lo, hi) = SWEEP_THREADS;
            std::iter::successors(Some(lo), |v| Some(v * 2))
                .take_while(|v| *v <= hi.min(MAX_THREADS as u64))
                .collect()
        }
        Dimension::Iodepth => {
            psync_refusal(info)?;
            let (lo, hi) = SWEEP_IODEPTH;
            std::iter::successors(Some(lo), |v| Some(v * 2))
                .take_while(|v| *v <= hi)
                .collect()
        }
        Dimension::Bs => {
            let lbs = u64::from(info.target.logical_block_size).max(1);
            let (lo, hi) = SWEEP_BS;
            std::iter::successors(Some(lo.max(lbs).next_power_of_two()), |v| Some(v * 2))
                .take_while(|v| *v <= hi)
                .filter(|v| {
                    *v <= info.target.span_bytes && (!info.target.direct || v.is_multiple_of(lbs))
                })
                .collect()
        }
    };
    if values.len() < 2 {
        return Err(format!(
            "no {} sweep: fewer than two steps fit this target (span {} bytes)",
            dimension.name(),
            info.target.span_bytes
        ));
    }
    Ok(SweepSpec {
        dimension,
        values,
        curve: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ConfigReport;

    #[test]
    fn a_depth_sweep_needs_io_uring_and_says_why_not() {
        let mut info = ConfigReport {
            ioengine: IoEngine::Psync,
            ioengine_fallback: Some("io_uring refused (EPERM)".into()),
            ..ConfigReport::example()
        };
        let e = default_sweep(Dimension::Iodepth, &info).unwrap_err();
        assert!(e.contains("EPERM"), "{e}");
        info.ioengine = IoEngine::IoUring;
        let spec = default_sweep(Dimension::Iodepth, &info).unwrap();
        assert_eq!(spec.values, vec![1, 2, 4, 8, 16, 32, 64, 128, 256]);
    }
}
