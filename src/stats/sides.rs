//! Reads and writes apart. A run that both reads and writes reports each direction on its
//! own — its ops, bytes, rates and latency percentiles from its own histogram — beside the
//! combined figures, as fio reports `read` and `write` (an admin sizing a database needs the
//! write latency by itself, not mixed into the reads). The two histograms hold exactly the
//! I/Os of the combined one, split by direction, so their counts add up to its count.
//!
//! The engine carries a latency's direction in its top bit (`WRITE_TAG`) through the
//! worker's batch, so the split costs the worker nothing: no second batch, lock or send per
//! I/O. A stretch in which only one direction ran has no sides (`ReadWrite::of` is `None`):
//! a pure-read run reports as it always has.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::latency::{Latency, LatencySummary};
use super::snapshot::{Counts, per_second};

/// Set on a latency in a worker's batch when the I/O was a write; never a real latency
/// (2^63 ns is 292 years).
pub const WRITE_TAG: u64 = 1 << 63;

/// The latencies of reads and of writes, apart, in one interval and since the start or the
/// last reset. The combined figures are the snapshot's own.
#[derive(Debug, Clone, Default)]
pub struct Sides {
    /// This interval's reads' latencies (with a rate, from the due time, as every latency),
    /// and its writes', where it had both; both empty in an interval of one direction (its
    /// latencies are then the snapshot's `interval_latency`, and `interval` says which).
    pub interval_read: Latency,
    pub interval_write: Latency,
    /// Since the start or the last reset, stopped intervals left out (as `total_latency`);
    /// empty until both directions have run.
    pub total_read: LatencySummary,
    pub total_write: LatencySummary,
}

/// Two latency histograms, one per direction.
#[derive(Debug, Clone, Default)]
pub struct SideLatency {
    pub read: Latency,
    pub write: Latency,
}

impl SideLatency {
    /// Records one latency as the engine tags it (`WRITE_TAG` for a write); returns it
    /// untagged.
    #[inline]
    pub fn record_tagged(&mut self, tagged: u64) -> u64 {
        let ns = tagged & !WRITE_TAG;
        if tagged & WRITE_TAG == 0 {
            self.read.record(ns);
        } else {
            self.write.record(ns);
        }
        ns
    }

    /// Takes the interval recorded so far (`record_tagged`): all its latencies together, and
    /// its reads' and writes' apart when it had both — else both sides empty, the combined
    /// being the one direction's. Each latency was recorded once, into its direction; the
    /// combined is made by adding the two only in an interval that had both, so a run that
    /// only reads costs what it did before the split.
    pub fn take_interval(&mut self) -> (Latency, SideLatency) {
        let (read, write) = (
            std::mem::take(&mut self.read),
            std::mem::take(&mut self.write),
        );
        if write.is_empty() {
            (read, SideLatency::default())
        } else if read.is_empty() {
            (write, SideLatency::default())
        } else {
            let mut all = read.clone();
            all.add(&write);
            (all, SideLatency { read, write })
        }
    }

    /// Adds all of `other`.
    pub fn add(&mut self, other: &SideLatency) {
        self.read.add(&other.read);
        self.write.add(&other.write);
    }

    /// Adds an interval given as the engine sends it: `combined`, all its latencies; `read`
    /// and `write`, its directions apart when it had both (else empty); `counts`, which
    /// direction an interval of one was.
    pub fn add_interval(
        &mut self,
        combined: &Latency,
        read: &Latency,
        write: &Latency,
        counts: &Counts,
    ) {
        if read.is_empty() && write.is_empty() {
            if counts.read_ops == 0 {
                self.write.add(combined);
            } else {
                self.read.add(combined);
            }
        } else {
            self.read.add(read);
            self.write.add(write);
        }
    }

    /// Each side's summary where both directions ran, else empty ones (nothing is apart).
    pub fn summaries(&self) -> (LatencySummary, LatencySummary) {
        if self.read.is_empty() || self.write.is_empty() {
            Default::default()
        } else {
            (self.read.summary(), self.write.summary())
        }
    }

    /// Empties both, keeping their allocations.
    pub fn reset(&mut self) {
        self.read.reset();
        self.write.reset();
    }

    /// The figures of `counts` over `elapsed`, by direction, where both directions ran.
    pub fn figures(&self, counts: &Counts, elapsed: Duration) -> Option<ReadWrite> {
        ReadWrite::of(counts, elapsed, self.read.summary(), self.write.summary())
    }
}

/// One direction's figures over a stretch of a run: the same shape as the totals' (ops,
/// bytes, IOPS, bandwidth and latency), the rates over the stretch's whole measured time,
/// as fio divides each direction's I/Os by the job's runtime.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Side {
    pub ops: u64,
    pub bytes: u64,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    pub latency_ns: LatencySummary,
}

/// Reads and writes apart: `read` and `write` in the JSON, beside the combined figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadWrite {
    pub read: Side,
    pub write: Side,
}

impl ReadWrite {
    /// Each direction of `counts` over `elapsed` with its latencies; `None` unless both
    /// directions completed I/O.
    pub fn of(
        counts: &Counts,
        elapsed: Duration,
        read: LatencySummary,
        write: LatencySummary,
    ) -> Option<ReadWrite> {
        if counts.read_ops == 0 || counts.write_ops == 0 {
            return None;
        }
        let side = |ops, bytes, latency_ns| Side {
            ops,
            bytes,
            iops: per_second(ops, elapsed),
            bw_bytes_per_s: per_second(bytes, elapsed),
            latency_ns,
        };
        Some(ReadWrite {
            read: side(counts.read_ops, counts.read_bytes, read),
            write: side(counts.write_ops, counts.write_bytes, write),
        })
    }

    /// The two sides as ("read", side) and ("write", side), in that order.
    pub fn both(&self) -> [(&'static str, &Side); 2] {
        [("read", &self.read), ("write", &self.write)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tagged_write_lands_in_the_write_histogram_untagged() {
        let mut s = SideLatency::default();
        assert_eq!(s.record_tagged(1_000), 1_000);
        assert_eq!(s.record_tagged(5_000 | WRITE_TAG), 5_000);
        assert_eq!((s.read.count(), s.write.count()), (1, 1));
        assert_eq!(s.write.summary().max, 5_000);
        assert_eq!(s.read.summary().max, 1_000);
    }

    #[test]
    fn an_interval_of_one_direction_costs_no_copy_and_is_still_counted_on_its_side() {
        let mut s = SideLatency::default();
        s.record_tagged(1_000);
        s.record_tagged(2_000);
        let (all, apart) = s.take_interval();
        assert_eq!(all.count(), 2);
        assert!(apart.read.is_empty() && apart.write.is_empty());
        s.record_tagged(3_000);
        s.record_tagged(9_000 | WRITE_TAG);
        let (mixed, sides) = s.take_interval();
        assert_eq!(
            (mixed.count(), sides.read.count(), sides.write.count()),
            (2, 1, 1)
        );
        // Over both intervals: the reads-only one lands on the read side.
        let mut total = SideLatency::default();
        let reads = Counts {
            ops: 2,
            read_ops: 2,
            ..Counts::default()
        };
        total.add_interval(&all, &apart.read, &apart.write, &reads);
        assert_eq!(
            total.summaries(),
            Default::default(),
            "one direction so far"
        );
        let both = Counts {
            ops: 2,
            read_ops: 1,
            write_ops: 1,
            ..Counts::default()
        };
        total.add_interval(&mixed, &sides.read, &sides.write, &both);
        let (r, w) = total.summaries();
        assert_eq!((r.count, r.max, w.count, w.max), (3, 3_000, 1, 9_000));
    }

    #[test]
    fn one_direction_has_no_sides_and_two_have_their_own_rates() {
        let reads_only = Counts {
            ops: 10,
            read_ops: 10,
            ..Counts::default()
        };
        let one = LatencySummary::default();
        assert!(ReadWrite::of(&reads_only, Duration::from_secs(1), one, one).is_none());
        let both = Counts {
            ops: 10,
            bytes: 40960,
            read_ops: 7,
            read_bytes: 28672,
            write_ops: 3,
            write_bytes: 12288,
            ..Counts::default()
        };
        let rw = ReadWrite::of(&both, Duration::from_secs(2), one, one).expect("both ran");
        assert_eq!((rw.read.ops, rw.write.ops), (7, 3));
        assert_eq!((rw.read.iops, rw.write.iops), (3.5, 1.5));
        assert_eq!(rw.write.bw_bytes_per_s, 6144.0);
    }
}
