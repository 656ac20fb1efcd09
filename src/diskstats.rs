//! The kernel's own accounting of a block device: parsing `/proc/diskstats` and
//! `/sys/block/<dev>/stat`, and turning two samples into iostat-style rates. This module owns
//! only that arithmetic and those parsers; it must not measure I/O itself, keep state between
//! samples, or know anything about the benchmark engine that consumes it.
//!
//! Field layout after `major minor name` (kernel `Documentation/admin-guide/iostats.rst`):
//! 11 fields before 4.18, 15 with the discard counters (4.18+), 17 with the flush counters
//! (5.5+). Lines with more fields are accepted and the extra ones ignored.

pub mod devmap;
pub mod members;

use std::fs;
use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use serde::Serialize;

/// Cumulative counters for one device, as reported by the kernel since boot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiskCounters {
    /// Reads completed successfully.
    pub reads_completed: u64,
    /// Adjacent reads merged before being issued.
    pub reads_merged: u64,
    /// 512-byte sectors read.
    pub sectors_read: u64,
    /// Milliseconds spent by all reads.
    pub read_ticks_ms: u64,
    /// Writes completed successfully.
    pub writes_completed: u64,
    /// Adjacent writes merged before being issued.
    pub writes_merged: u64,
    /// 512-byte sectors written.
    pub sectors_written: u64,
    /// Milliseconds spent by all writes.
    pub write_ticks_ms: u64,
    /// I/Os currently in flight (a gauge, not a counter).
    pub in_flight: u64,
    /// Milliseconds during which at least one I/O was in flight.
    pub io_ticks_ms: u64,
    /// Weighted milliseconds doing I/O (sum of in-flight time of every request).
    pub time_in_queue_ms: u64,
    /// Discards completed (kernel 4.18+).
    pub discards_completed: Option<u64>,
    /// Discards merged (kernel 4.18+).
    pub discards_merged: Option<u64>,
    /// 512-byte sectors discarded (kernel 4.18+).
    pub sectors_discarded: Option<u64>,
    /// Milliseconds spent by all discards (kernel 4.18+).
    pub discard_ticks_ms: Option<u64>,
    /// Flush requests completed (kernel 5.5+).
    pub flushes_completed: Option<u64>,
    /// Milliseconds spent by all flushes (kernel 5.5+).
    pub flush_ticks_ms: Option<u64>,
}

/// Counters from the fields that follow `major minor name`; `None` when fewer than 11 or when
/// one of the used fields is not a number.
fn parse_counters(fields: &[&str]) -> Option<DiskCounters> {
    if fields.len() < 11 {
        return None;
    }
    let n = |i: usize| fields[i].parse::<u64>().ok();
    let (discards_completed, discards_merged, sectors_discarded, discard_ticks_ms) =
        if fields.len() >= 15 {
            (Some(n(11)?), Some(n(12)?), Some(n(13)?), Some(n(14)?))
        } else {
            (None, None, None, None)
        };
    let (flushes_completed, flush_ticks_ms) = if fields.len() >= 17 {
        (Some(n(15)?), Some(n(16)?))
    } else {
        (None, None)
    };
    Some(DiskCounters {
        reads_completed: n(0)?,
        reads_merged: n(1)?,
        sectors_read: n(2)?,
        read_ticks_ms: n(3)?,
        writes_completed: n(4)?,
        writes_merged: n(5)?,
        sectors_written: n(6)?,
        write_ticks_ms: n(7)?,
        in_flight: n(8)?,
        io_ticks_ms: n(9)?,
        time_in_queue_ms: n(10)?,
        discards_completed,
        discards_merged,
        sectors_discarded,
        discard_ticks_ms,
        flushes_completed,
        flush_ticks_ms,
    })
}

/// Parses `/proc/diskstats` (14-, 18- or 20-field lines) into `(name, counters)` in file order;
/// malformed lines are skipped.
pub fn parse_diskstats(text: &str) -> Vec<(String, DiskCounters)> {
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.len() < 3 {
                return None;
            }
            let counters = parse_counters(&fields[3..])?;
            Some((fields[2].to_string(), counters))
        })
        .collect()
}

/// Parses `/sys/block/<dev>/stat` (11, 15 or 17 fields, no name).
pub fn parse_stat_file(text: &str) -> Option<DiskCounters> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    parse_counters(&fields)
}

/// Counters of device `name` from `<proc_root>/diskstats`; fails naming the file when it cannot
/// be read or the device is not listed.
pub fn read_counters(proc_root: &Path, name: &str) -> anyhow::Result<DiskCounters> {
    let path = proc_root.join("diskstats");
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    parse_diskstats(&text)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, c)| c)
        .with_context(|| format!("device {name} not listed in {}", path.display()))
}

/// iostat-style rates over one sampling interval.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct KernelRates {
    /// Reads completed per second.
    pub r_per_s: f64,
    /// Writes completed per second.
    pub w_per_s: f64,
    /// Bytes read per second (sectors × 512).
    pub r_bytes_per_s: f64,
    /// Bytes written per second (sectors × 512).
    pub w_bytes_per_s: f64,
    /// Average number of requests in the queue (iostat `aqu-sz`).
    pub avg_queue_depth: f64,
    /// Mean time per read or write including queueing, in ms; `None` when no I/O completed.
    pub await_ms: Option<f64>,
    /// Share of the interval the device was busy, in percent, at most 100.
    pub util_pct: f64,
    /// Discards completed per second and bytes discarded per second (sectors × 512); `None`
    /// where the kernel keeps no discard counters (before Linux 4.18).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub discards: Option<(f64, f64)>,
}

/// Rates between two samples taken `elapsed` apart. Deltas saturate at 0, so a counter that
/// wrapped or was reset yields 0 rather than a huge value; a zero `elapsed` yields all zeros.
pub fn rates(prev: &DiskCounters, cur: &DiskCounters, elapsed: Duration) -> KernelRates {
    let d = |a: u64, b: u64| b.saturating_sub(a);
    let reads = d(prev.reads_completed, cur.reads_completed);
    let writes = d(prev.writes_completed, cur.writes_completed);
    let ticks = d(prev.read_ticks_ms, cur.read_ticks_ms)
        .saturating_add(d(prev.write_ticks_ms, cur.write_ticks_ms));
    let ios = reads.saturating_add(writes);
    let await_ms = if ios == 0 {
        None
    } else {
        Some(ticks as f64 / ios as f64)
    };
    let secs = elapsed.as_secs_f64();
    if secs <= 0.0 {
        return KernelRates {
            await_ms,
            ..KernelRates::default()
        };
    }
    let ms = secs * 1000.0;
    let sectors_read = d(prev.sectors_read, cur.sectors_read) as f64;
    let sectors_written = d(prev.sectors_written, cur.sectors_written) as f64;
    KernelRates {
        r_per_s: reads as f64 / secs,
        w_per_s: writes as f64 / secs,
        r_bytes_per_s: sectors_read * 512.0 / secs,
        w_bytes_per_s: sectors_written * 512.0 / secs,
        avg_queue_depth: d(prev.time_in_queue_ms, cur.time_in_queue_ms) as f64 / ms,
        await_ms,
        util_pct: (d(prev.io_ticks_ms, cur.io_ticks_ms) as f64 / ms * 100.0).min(100.0),
        discards: discard_rates(prev, cur, secs),
    }
}

/// Discards per second (completed, as reads and writes are counted) and bytes discarded per
/// second, where both samples have the kernel's discard counters.
fn discard_rates(prev: &DiskCounters, cur: &DiskCounters, secs: f64) -> Option<(f64, f64)> {
    let n = cur
        .discards_completed?
        .saturating_sub(prev.discards_completed?);
    let sectors = cur
        .sectors_discarded?
        .saturating_sub(prev.sectors_discarded?);
    Some((n as f64 / secs, sectors as f64 * 512.0 / secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewer_than_eleven_fields_is_rejected() {
        assert_eq!(parse_stat_file("1 2 3 4 5 6 7 8 9 10"), None);
        assert_eq!(parse_stat_file(""), None);
    }

    #[test]
    fn partial_discard_block_is_ignored() {
        let c = parse_stat_file("1 2 3 4 5 6 7 8 9 10 11 12 13");
        assert_eq!(
            c.map(|c| (c.time_in_queue_ms, c.discards_completed)),
            Some((11, None))
        );
    }

    #[test]
    fn non_numeric_field_rejects_line() {
        assert_eq!(parse_stat_file("1 2 3 x 5 6 7 8 9 10 11"), None);
        assert_eq!(parse_stat_file("1 2 3 4 5 6 7 8 9 10 11 12 13 14 y"), None);
    }

    #[test]
    fn zero_elapsed_gives_zero_rates_not_nan() {
        let prev = DiskCounters::default();
        let cur = DiskCounters {
            reads_completed: 10,
            read_ticks_ms: 20,
            io_ticks_ms: 5,
            ..DiskCounters::default()
        };
        let r = rates(&prev, &cur, Duration::ZERO);
        assert_eq!(r.r_per_s, 0.0);
        assert_eq!(r.util_pct, 0.0);
        assert_eq!(r.await_ms, Some(2.0));
    }
}
