//! Reads, writes and trims apart. A run that does more than one reports each direction on its
//! own — its ops, bytes, rates and latency percentiles from its own histogram — beside the
//! combined figures, as fio reports `read` and `write` (an admin sizing a database needs the
//! write latency by itself, not mixed into the reads). The histograms hold exactly the
//! I/Os of the combined one, split by direction, so their counts add up to its count. A trim
//! (`--trim`, a discard) is a third direction, as fio's `trim`.
//!
//! The engine carries a latency's direction in its top bits (`WRITE_TAG`, `TRIM_TAG`) through
//! the worker's batch, so the split costs the worker nothing: no second batch, lock or send per
//! I/O. A stretch in which only one direction ran has no sides (`ReadWrite::of` is `None`):
//! a pure-read run reports as it always has.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::latency::{Latency, LatencySummary};
use super::snapshot::{Counts, per_second};

/// Set on a latency in a worker's batch when the I/O was a write; never a real latency
/// (2^63 ns is 292 years).
pub const WRITE_TAG: u64 = 1 << 63;
/// Set on a latency in a worker's batch when the I/O was a trim (a discard).
pub const TRIM_TAG: u64 = 1 << 62;
/// Both direction bits: what is left under them is the latency in ns.
pub const DIRECTION_TAGS: u64 = WRITE_TAG | TRIM_TAG;

/// The latencies of reads and of writes, apart, in one interval and since the start or the
/// last reset. The combined figures are the snapshot's own.
#[derive(Debug, Clone, Default)]
pub struct Sides {
    /// This interval's reads' latencies (with a rate, from the due time, as every latency),
    /// and its writes', where it had both; both empty in an interval of one direction (its
    /// latencies are then the snapshot's `interval_latency`, and `interval` says which).
    pub interval_read: Latency,
    pub interval_write: Latency,
    pub interval_trim: Latency,
    /// Since the start or the last reset, stopped intervals left out (as `total_latency`);
    /// empty until both directions have run.
    pub total_read: LatencySummary,
    pub total_write: LatencySummary,
    pub total_trim: LatencySummary,
}

impl Sides {
    /// This interval's three sides (read, write, trim), empty unless it had more than one.
    pub fn interval_each(&self) -> [&Latency; 3] {
        [
            &self.interval_read,
            &self.interval_write,
            &self.interval_trim,
        ]
    }
}

/// Three latency histograms, one per direction.
#[derive(Debug, Clone, Default)]
pub struct SideLatency {
    pub read: Latency,
    pub write: Latency,
    pub trim: Latency,
}

impl SideLatency {
    /// Records one latency as the engine tags it (`WRITE_TAG` for a write, `TRIM_TAG` for a
    /// trim); returns it untagged.
    #[inline]
    pub fn record_tagged(&mut self, tagged: u64) -> u64 {
        let ns = tagged & !DIRECTION_TAGS;
        if tagged & DIRECTION_TAGS == 0 {
            self.read.record(ns);
        } else if tagged & WRITE_TAG != 0 {
            self.write.record(ns);
        } else {
            self.trim.record(ns);
        }
        ns
    }

    /// The three histograms: read, write, trim.
    pub fn each(&self) -> [&Latency; 3] {
        [&self.read, &self.write, &self.trim]
    }

    /// How many of the three directions have latencies.
    fn directions(&self) -> usize {
        [&self.read, &self.write, &self.trim]
            .iter()
            .filter(|l| !l.is_empty())
            .count()
    }

    /// Takes the interval recorded so far (`record_tagged`): all its latencies together, and
    /// its reads' and writes' apart when it had both — else both sides empty, the combined
    /// being the one direction's. Each latency was recorded once, into its direction; the
    /// combined is made by adding the two only in an interval that had both, so a run that
    /// only reads costs what it did before the split.
    pub fn take_interval(&mut self) -> (Latency, SideLatency) {
        let apart = std::mem::take(self);
        if apart.directions() < 2 {
            let SideLatency { read, write, trim } = apart;
            let one = [read, write, trim].into_iter().find(|l| !l.is_empty());
            return (one.unwrap_or_default(), SideLatency::default());
        }
        let mut all = apart.read.clone();
        all.add(&apart.write);
        all.add(&apart.trim);
        (all, apart)
    }

    /// Adds all of `other`.
    pub fn add(&mut self, other: &SideLatency) {
        self.read.add(&other.read);
        self.write.add(&other.write);
        self.trim.add(&other.trim);
    }

    /// Adds an interval given as the engine sends it: `combined`, all its latencies; `apart`,
    /// its directions apart when it had more than one (else empty); `counts`, which
    /// direction an interval of one was.
    pub fn add_interval(&mut self, combined: &Latency, apart: [&Latency; 3], counts: &Counts) {
        if apart.iter().any(|l| !l.is_empty()) {
            self.read.add(apart[0]);
            self.write.add(apart[1]);
            self.trim.add(apart[2]);
        } else if counts.write_ops > 0 {
            self.write.add(combined);
        } else if counts.trim_ops > 0 {
            self.trim.add(combined);
        } else {
            self.read.add(combined);
        }
    }

    /// Each side's summary (read, write, trim) where more than one direction ran, else empty
    /// ones (nothing is apart).
    pub fn summaries(&self) -> [LatencySummary; 3] {
        if self.directions() < 2 {
            Default::default()
        } else {
            [&self.read, &self.write, &self.trim].map(Latency::summary)
        }
    }

    /// Empties all three, keeping their allocations.
    pub fn reset(&mut self) {
        self.read.reset();
        self.write.reset();
        self.trim.reset();
    }

    /// The figures of `counts` over `elapsed`, by direction, where more than one ran.
    pub fn figures(&self, counts: &Counts, elapsed: Duration) -> Option<ReadWrite> {
        let all = [&self.read, &self.write, &self.trim].map(Latency::summary);
        ReadWrite::of(counts, elapsed, all)
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

/// Reads, writes and trims apart: `read`, `write` and (where trims ran) `trim` in the JSON,
/// beside the combined figures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ReadWrite {
    pub read: Side,
    pub write: Side,
    /// Discards (`--trim`); absent from the JSON of a run without them, and read as none
    /// from a result saved before trims existed.
    #[serde(default, skip_serializing_if = "Side::is_none")]
    pub trim: Side,
}

impl Side {
    /// No op of this direction.
    pub fn is_none(&self) -> bool {
        self.ops == 0
    }
}

impl ReadWrite {
    /// Each direction of `counts` over `elapsed` with its latencies (read, write, trim);
    /// `None` unless more than one direction completed I/O.
    pub fn of(
        counts: &Counts,
        elapsed: Duration,
        [read, write, trim]: [LatencySummary; 3],
    ) -> Option<ReadWrite> {
        let ran = [counts.read_ops, counts.write_ops, counts.trim_ops];
        if ran.iter().filter(|&&n| n > 0).count() < 2 {
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
            trim: side(counts.trim_ops, counts.trim_bytes, trim),
        })
    }

    /// The sides as ("read", side), ("write", side) and, where trims ran, ("trim", side), in
    /// that order.
    pub fn both(&self) -> Vec<(&'static str, &Side)> {
        let mut sides = vec![("read", &self.read), ("write", &self.write)];
        if !self.trim.is_none() {
            sides.push(("trim", &self.trim));
        }
        sides
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
        total.add_interval(&all, apart.each(), &reads);
        assert_eq!(
            total.summaries(),
            [LatencySummary::default(); 3],
            "one direction so far"
        );
        let both = Counts {
            ops: 2,
            read_ops: 1,
            write_ops: 1,
            ..Counts::default()
        };
        total.add_interval(&mixed, sides.each(), &both);
        let [r, w, _] = total.summaries();
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
        assert!(ReadWrite::of(&reads_only, Duration::from_secs(1), [one; 3]).is_none());
        let both = Counts {
            ops: 10,
            bytes: 40960,
            read_ops: 7,
            read_bytes: 28672,
            write_ops: 3,
            write_bytes: 12288,
            ..Counts::default()
        };
        let rw = ReadWrite::of(&both, Duration::from_secs(2), [one; 3]).expect("both ran");
        assert!(
            rw.trim.is_none() && rw.both().len() == 2,
            "no trims, no trim side"
        );
        assert_eq!((rw.read.ops, rw.write.ops), (7, 3));
        assert_eq!((rw.read.iops, rw.write.iops), (3.5, 1.5));
        assert_eq!(rw.write.bw_bytes_per_s, 6144.0);
    }

    #[test]
    fn a_tagged_trim_is_a_third_side_and_reads_with_trims_are_apart() {
        let mut s = SideLatency::default();
        assert_eq!(s.record_tagged(7_000 | TRIM_TAG), 7_000);
        let (only, apart) = s.take_interval();
        assert_eq!(only.count(), 1, "trims alone: the combined is theirs");
        assert_eq!(apart.directions(), 0);
        s.record_tagged(1_000);
        s.record_tagged(8_000 | TRIM_TAG);
        s.record_tagged(9_000 | TRIM_TAG);
        let (all, apart) = s.take_interval();
        assert_eq!(
            (all.count(), apart.read.count(), apart.trim.count()),
            (3, 1, 2)
        );
        let counts = Counts {
            ops: 3,
            bytes: 3 * 4096,
            read_ops: 1,
            read_bytes: 4096,
            trim_ops: 2,
            trim_bytes: 8192,
            ..Counts::default()
        };
        let mut total = SideLatency::default();
        let one_trim = Counts {
            ops: 1,
            trim_ops: 1,
            ..Counts::default()
        };
        total.add_interval(&only, SideLatency::default().each(), &one_trim);
        total.add_interval(&all, apart.each(), &counts);
        let [r, w, t] = total.summaries();
        assert_eq!((r.count, w.count, t.count, t.max), (1, 0, 3, 9_000));
        let rw = total
            .figures(&counts, Duration::from_secs(1))
            .expect("two ran");
        assert_eq!((rw.read.ops, rw.trim.ops, rw.trim.bytes), (1, 2, 8192));
        let names: Vec<_> = rw.both().iter().map(|(n, _)| *n).collect();
        assert_eq!(names, ["read", "write", "trim"]);
    }
}
