//! A period that ended, kept small: its counts and times as they were, its latency
//! histograms (combined, service time, reads, writes and trims apart) compacted to two significant
//! digits, and while it stands alone its exact percentiles. Past `MAX_PERIODS` the two
//! oldest merge into one row, whose percentiles then come from the merged compact histograms.

use std::time::Duration;

use super::{Began, Open, Period};
use crate::settings::Settings;
use crate::stats::latency::{CompactLatency, Latency, LatencySummary};
use crate::stats::sides::ReadWrite;
use crate::stats::snapshot::{Counts, LeftOut, per_second};

/// The five distributions a period keeps: latency, service time, reads', writes', trims'.
type Five<T> = [T; 5];

/// A period that ended (or several merged), its histograms compacted.
#[derive(Debug, Clone)]
pub(super) struct Closed {
    pub(super) first_id: usize,
    began: Began,
    settings: Option<Settings>,
    merged: usize,
    start: Duration,
    end: Duration,
    elapsed: Duration,
    counts: Counts,
    left_out: LeftOut,
    /// The exact percentiles of a period not merged (latency, service, read, write, trim).
    exact: Option<Five<LatencySummary>>,
    /// The same distributions, compacted.
    compact: Five<CompactLatency>,
}

impl Closed {
    /// The open period `p`, closed.
    pub(super) fn of(p: Open) -> Closed {
        let w = &p.window;
        // A period of one direction keeps no second copy of its latencies.
        let none = Latency::default();
        let sides = w.sides.each();
        let [read, write, trim] = match sides.iter().filter(|l| !l.is_empty()).count() {
            0 | 1 => [&none; 3],
            _ => sides,
        };
        let all = [&w.latency, &w.service_latency, read, write, trim];
        Closed {
            first_id: p.id,
            began: p.began,
            settings: Some(p.settings),
            merged: 1,
            start: p.start,
            end: p.end,
            elapsed: w.elapsed,
            counts: w.counts,
            left_out: w.left_out,
            exact: Some(all.map(Latency::summary)),
            compact: all.map(Latency::compact),
        }
    }

    pub(super) fn period(&self) -> Period {
        let [latency_ns, service_latency_ns, read, write, trim] = self.exact.unwrap_or_else(|| {
            self.compact
                .each_ref()
                .map(|c| Latency::from_compact(c).summary())
        });
        Period {
            began: self.began,
            settings: self.settings,
            merged: self.merged,
            start_s: self.start.as_secs_f64(),
            end_s: self.end.as_secs_f64(),
            elapsed_s: self.elapsed.as_secs_f64(),
            counts: self.counts,
            iops: per_second(self.counts.ops, self.elapsed),
            bw_bytes_per_s: per_second(self.counts.bytes, self.elapsed),
            latency_ns,
            service_latency_ns,
            left_out: self.left_out,
            sides: ReadWrite::of(&self.counts, self.elapsed, [read, write, trim]),
        }
    }

    /// Distribution `i` (latency, service, read, write, trim) in full; a period of one direction
    /// keeps no sides, so its side is its latency.
    fn distribution(&self, i: usize) -> Latency {
        let ops = match i {
            2 => self.counts.read_ops,
            3 => self.counts.write_ops,
            4 => self.counts.trim_ops,
            _ => 0,
        };
        let l = Latency::from_compact(&self.compact[i]);
        if l.is_empty() && ops > 0 {
            Latency::from_compact(&self.compact[0])
        } else {
            l
        }
    }

    /// `self` followed by `next` as one row.
    pub(super) fn merge(self, next: Closed) -> Closed {
        let mut counts = self.counts;
        counts.add(&next.counts);
        let mut left_out = self.left_out;
        left_out.merge(&next.left_out);
        let compact = [0, 1, 2, 3, 4].map(|i| {
            let mut l = self.distribution(i);
            l.add(&next.distribution(i));
            l.compact()
        });
        Closed {
            first_id: self.first_id,
            began: self.began,
            settings: self.settings.filter(|s| Some(*s) == next.settings),
            merged: self.merged + next.merged,
            start: self.start,
            end: next.end,
            elapsed: self.elapsed + next.elapsed,
            counts,
            left_out,
            exact: None,
            compact,
        }
    }
}
