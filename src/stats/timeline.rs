//! The graphs' history at several time scales, in bounded memory: what the run screen's
//! sparklines and heatmap draw when the user picks a time per column (`Zoom`).
//!
//! Every sample (one sampler interval) goes into four stores at once: a ring of the last
//! `RING` intervals as they came (about 0.1 s each), rings of the last `RING` whole seconds
//! and ten-second stretches of the run's clock, and the whole run in at most `WHOLE` buckets
//! that double their length whenever the run outgrows them (pairs merged, so a day's run
//! holds as much as a minute's). A bucket merges exactly: operations and bytes are summed,
//! with the real time they took (so a rate is a sum over a sum, never a mean of rates), the
//! log2 latency histograms are added, and the latency lines keep the highest of the
//! intervals' own p50 and p99 (a maximum merges exactly; percentiles do not average).
//!
//! Nothing here knows about screens: it takes plain figures and hands back columns.

use std::collections::VecDeque;
use std::time::Duration;

use super::log2::Log2Histogram;

/// Buckets kept at each fixed scale: a minute of intervals, ten minutes of seconds, 100
/// minutes of ten-second stretches — wider than any terminal.
pub const RING: usize = 600;
/// Most buckets kept for the whole run before pairs merge.
pub const WHOLE: usize = 512;
/// The whole run's first bucket length.
const WHOLE_FIRST: Duration = Duration::from_secs(1);

/// The time a graph column stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Zoom {
    /// One sampler interval (about 0.1 s) a column.
    #[default]
    Interval,
    Second,
    TenSeconds,
    /// The whole run fitted into the graph's width.
    Whole,
}

impl Zoom {
    /// The next scale, coarser, wrapping back to the finest.
    pub fn next(self) -> Zoom {
        match self {
            Zoom::Interval => Zoom::Second,
            Zoom::Second => Zoom::TenSeconds,
            Zoom::TenSeconds => Zoom::Whole,
            Zoom::Whole => Zoom::Interval,
        }
    }
}

/// One interval's figures, as the sampler measured them.
#[derive(Debug, Clone, Default)]
pub struct Sample {
    /// The run's clock at the end of the interval.
    pub at: Duration,
    /// The interval's real length.
    pub elapsed: Duration,
    pub ops: u64,
    pub bytes: u64,
    /// The interval's own median and 99th percentile, in ns.
    pub p50_ns: u64,
    pub p99_ns: u64,
    pub latency: Log2Histogram,
}

impl Sample {
    /// The middle of the interval on the run's clock: where it is filed and marked.
    pub fn middle(&self) -> Duration {
        self.at.saturating_sub(self.elapsed / 2)
    }
}

/// Intervals merged: one graph column.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bucket {
    /// The run's clock where the first interval began and the last ended.
    pub start: Duration,
    pub end: Duration,
    /// The intervals' real time, summed.
    pub elapsed: Duration,
    pub ops: u64,
    pub bytes: u64,
    /// The highest of the intervals' own p50 and p99, in ns.
    pub max_p50_ns: u64,
    pub max_p99_ns: u64,
    pub latency: Log2Histogram,
    /// Intervals merged (0: a stretch of the clock with no interval, e.g. while stopped).
    pub intervals: u32,
}

impl Bucket {
    fn of(s: &Sample) -> Bucket {
        let mut b = Bucket::default();
        b.add_sample(s);
        b
    }

    fn add_sample(&mut self, s: &Sample) {
        self.merge(&Bucket {
            start: s.at.saturating_sub(s.elapsed),
            end: s.at,
            elapsed: s.elapsed,
            ops: s.ops,
            bytes: s.bytes,
            max_p50_ns: s.p50_ns,
            max_p99_ns: s.p99_ns,
            latency: s.latency.clone(),
            intervals: 1,
        });
    }

    /// Adds `o`'s intervals to this bucket's.
    pub fn merge(&mut self, o: &Bucket) {
        if o.intervals == 0 {
            return;
        }
        if self.intervals == 0 {
            self.start = o.start;
            self.end = o.end;
        }
        self.start = self.start.min(o.start);
        self.end = self.end.max(o.end);
        self.elapsed += o.elapsed;
        self.ops += o.ops;
        self.bytes += o.bytes;
        self.max_p50_ns = self.max_p50_ns.max(o.max_p50_ns);
        self.max_p99_ns = self.max_p99_ns.max(o.max_p99_ns);
        self.latency.add(&o.latency);
        self.intervals += o.intervals;
    }

    /// Operations per second over the bucket's real time.
    pub fn iops(&self) -> f64 {
        super::snapshot::per_second(self.ops, self.elapsed)
    }

    /// Bytes per second over the bucket's real time.
    pub fn bw(&self) -> f64 {
        super::snapshot::per_second(self.bytes, self.elapsed)
    }
}

/// Buckets keyed by their stretch of the clock (`key × span`), the last `cap` kept.
#[derive(Debug, Clone)]
struct Ring {
    /// `None`: one bucket per interval, as it came.
    span: Option<Duration>,
    cap: usize,
    /// (key, bucket), oldest first, keys consecutive.
    buckets: VecDeque<(u64, Bucket)>,
}

impl Ring {
    fn new(span: Option<Duration>, cap: usize) -> Ring {
        Ring {
            span,
            cap,
            buckets: VecDeque::new(),
        }
    }

    fn push(&mut self, s: &Sample) {
        let next = self.buckets.back().map_or(0, |(k, _)| k + 1);
        let key = self.span.map_or(next, |span| key_of(s.middle(), span));
        match self.buckets.back_mut() {
            Some((k, b)) if *k >= key => b.add_sample(s),
            _ => {
                // A stretch with no interval (a stop) keeps its columns, empty, so the
                // clock stays even across the graph.
                let from = self.buckets.back().map_or(key, |(k, _)| {
                    (k + 1).max(key.saturating_sub(self.cap as u64))
                });
                for k in from..key {
                    self.push_bucket(k, Bucket::default());
                }
                self.push_bucket(key, Bucket::of(s));
            }
        }
    }

    fn push_bucket(&mut self, key: u64, b: Bucket) {
        if self.buckets.len() == self.cap {
            self.buckets.pop_front();
        }
        self.buckets.push_back((key, b));
    }

    /// The last `n` buckets.
    fn last(&self, n: usize) -> Vec<Bucket> {
        let skip = self.buckets.len().saturating_sub(n);
        self.buckets
            .iter()
            .skip(skip)
            .map(|(_, b)| b.clone())
            .collect()
    }
}

fn key_of(t: Duration, span: Duration) -> u64 {
    (t.as_nanos() / span.as_nanos().max(1)) as u64
}

/// The whole run in at most `WHOLE` buckets of `span`; when the run outgrows them, pairs
/// merge and the span doubles.
#[derive(Debug, Clone)]
struct WholeRun {
    span: Duration,
    /// The key of `buckets[0]`.
    first: u64,
    buckets: Vec<Bucket>,
}

impl Default for WholeRun {
    fn default() -> Self {
        WholeRun {
            span: WHOLE_FIRST,
            first: 0,
            buckets: Vec::new(),
        }
    }
}

impl WholeRun {
    fn push(&mut self, s: &Sample) {
        if self.buckets.is_empty() {
            self.first = key_of(s.middle(), self.span);
        }
        let mut key = key_of(s.middle(), self.span).max(self.first);
        while key - self.first >= WHOLE as u64 {
            self.halve();
            key = key_of(s.middle(), self.span).max(self.first);
        }
        let i = (key - self.first) as usize;
        if self.buckets.len() <= i {
            self.buckets.resize(i + 1, Bucket::default());
        }
        self.buckets[i].add_sample(s);
    }

    /// Merges pairs of buckets (aligned on the clock) into buckets twice as long.
    fn halve(&mut self) {
        let first = self.first / 2;
        let mut merged: Vec<Bucket> = Vec::with_capacity(WHOLE / 2 + 1);
        for (i, b) in self.buckets.iter().enumerate() {
            let at = ((self.first + i as u64) / 2 - first) as usize;
            if merged.len() <= at {
                merged.resize(at + 1, Bucket::default());
            }
            merged[at].merge(b);
        }
        self.first = first;
        self.span *= 2;
        self.buckets = merged;
    }

    /// The whole run in at most `width` columns: runs of `k` buckets, `k` the fewest that fit.
    fn columns(&self, width: usize) -> (Vec<Bucket>, Duration) {
        let width = width.max(1);
        let k = self.buckets.len().div_ceil(width).max(1);
        let mut out: Vec<Bucket> = Vec::with_capacity(width);
        for (i, b) in self.buckets.iter().enumerate() {
            if i % k == 0 {
                out.push(Bucket::default());
            }
            if let Some(last) = out.last_mut() {
                last.merge(b);
            }
        }
        (out, self.span * k as u32)
    }
}

/// The graphs' history at every scale.
#[derive(Debug, Clone)]
pub struct Timeline {
    interval: Ring,
    second: Ring,
    ten: Ring,
    whole: WholeRun,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline {
            interval: Ring::new(None, RING),
            second: Ring::new(Some(Duration::from_secs(1)), RING),
            ten: Ring::new(Some(Duration::from_secs(10)), RING),
            whole: WholeRun::default(),
        }
    }
}

/// The columns a graph draws at one scale, oldest first.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Columns {
    pub buckets: Vec<Bucket>,
    /// The time each column stands for (`None`: one sampler interval, about 0.1 s).
    pub per_column: Option<Duration>,
}

impl Timeline {
    /// Files one interval at every scale.
    pub fn push(&mut self, s: &Sample) {
        self.interval.push(s);
        self.second.push(s);
        self.ten.push(s);
        self.whole.push(s);
    }

    /// The last `width` columns at `zoom` (the whole run fitted into `width` at `Whole`).
    pub fn columns(&self, zoom: Zoom, width: usize) -> Columns {
        let (buckets, per_column) = match zoom {
            Zoom::Interval => (self.interval.last(width), None),
            Zoom::Second => (self.second.last(width), self.second.span),
            Zoom::TenSeconds => (self.ten.last(width), self.ten.span),
            Zoom::Whole => {
                let (b, span) = self.whole.columns(width);
                (b, Some(span))
            }
        };
        Columns {
            buckets,
            per_column,
        }
    }

    /// Buckets held at all scales together: bounded however long the run.
    pub fn held(&self) -> usize {
        self.interval.buckets.len()
            + self.second.buckets.len()
            + self.ten.buckets.len()
            + self.whole.buckets.len()
    }

    /// Whether nothing was filed yet.
    pub fn is_empty(&self) -> bool {
        self.interval.buckets.is_empty()
    }
}

#[cfg(test)]
#[path = "timeline_tests.rs"]
mod tests;
