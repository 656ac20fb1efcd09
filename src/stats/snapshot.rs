//! The `Snapshot`: what the sampler saw in one interval and since the start, as plain data.
//!
//! Interval values (`interval`, `interval_latency`) cover only the time between two snapshots,
//! `interval_elapsed`, measured on the monotonic clock; cumulative values (`total`,
//! `total_latency`) cover the run since its start or the last reset. The two are kept in
//! separate fields so they can never be mistaken for each other.
//!
//! Only complete I/Os are ops: `ops`, `bytes` and the latencies count I/Os that transferred
//! the whole block, so `bytes == ops × bs` and the latency count equals `ops` in every
//! interval. Short, failed and stop-spanning I/Os are counted beside them. An interval in which
//! the process was stopped (`stopped`) is left out of the cumulative figures and added to
//! `total_left_out` instead.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};

use super::latency::{Latency, LatencySummary};
use super::sides::Sides;
use crate::settings::Settings;

/// Operation counters. `ops` counts I/Os that transferred the whole block; short, failed and
/// stop-spanning I/Os are counted apart and are not ops (nor bytes, nor latencies). A saved
/// result from before a counter existed reads it as 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Counts {
    pub ops: u64,
    pub bytes: u64,
    pub read_ops: u64,
    pub read_bytes: u64,
    pub write_ops: u64,
    pub write_bytes: u64,
    /// Discards (`--trim`): ops too, their bytes the span each discarded; counted in `ops` and
    /// `bytes` as reads and writes are, so `bytes == ops × bs` still holds.
    pub trim_ops: u64,
    pub trim_bytes: u64,
    /// I/Os that failed with an errno.
    pub errors: u64,
    /// I/Os that transferred fewer bytes than asked (e.g. past the end of a shrunken file).
    pub short_ios: u64,
    /// Complete I/Os during which the process was stopped (SIGSTOP, Ctrl-Z): their latency
    /// would be the stop's length, so they are not ops.
    pub spanning_stop: u64,
    /// fdatasyncs completed for `--fsync` (their time is in the triggering write's latency).
    /// With io_uring each is an `IORING_OP_FSYNC` (datasync) in the ring, sent once the write
    /// that triggered it has completed, so it covers that write and every one before it.
    pub syncs: u64,
    /// I/Os still in flight when the run ended that were cancelled (`IORING_OP_ASYNC_CANCEL`)
    /// rather than waited for, and writes whose sync was cancelled: not ops, not errors.
    pub cancelled: u64,
    /// With a rate: slots of the timetable whose due time had passed (by more than
    /// `rate::LATE_AFTER`) at the end of the interval: what was asked. Without a rate, 0.
    pub due: u64,
    /// I/Os started (a write and its linked sync are one). With a rate, each takes a slot of
    /// the timetable, so `due - issued` is the backlog of late I/Os; a disk (or CPU) that
    /// keeps up leaves none. At the end of a run every issued I/O is settled: an op or one of
    /// the kinds counted apart (`settled() + unfinished == issued`).
    pub issued: u64,
    /// I/Os still in flight (or done but not yet handed over) when the run ended and its
    /// workers were not waited for any longer (`sampler::STOP_GRACE`): not ops, not errors.
    pub unfinished: u64,
    /// The workers' time on a CPU, from the kernel's schedstat (read every ~100 ms per
    /// worker, so up to that much behind).
    pub worker_cpu_ns: u64,
    /// The workers' time runnable but waiting for a CPU (schedstat's run-queue wait).
    pub worker_runq_wait_ns: u64,
    /// Complete I/Os of the previous settings that a worker handed over only after the
    /// interval of those settings was cut (it did not switch within the sampler's wait: a slow
    /// disk, a starved CPU). Counted apart, so no interval mixes two settings.
    pub after_switch: u64,
    /// Random I/Os issued (sequential ones are not drawn from the distribution).
    pub random_issued: u64,
    /// Of those, how many went to the distribution's hottest 1 % of blocks (by rank: the
    /// scatter bijection is known, so no table over the span is needed)…
    pub top1_issued: u64,
    /// …and how many to the hottest 10 % (the hottest 1 % included).
    pub top10_issued: u64,
    /// The time the settled I/Os spent in flight, from submission to completion reaped,
    /// summed (ns): over a window, divided by its length, how many were in flight on average
    /// (Little's law). With a rate the latencies run from the due time and include the wait
    /// behind schedule; this does not. A live figure, not saved.
    #[serde(skip)]
    pub busy_ns: u64,
}

impl Counts {
    /// The counts accumulated between `earlier` and `self`.
    pub fn since(&self, earlier: &Counts) -> Counts {
        Counts {
            ops: self.ops.saturating_sub(earlier.ops),
            bytes: self.bytes.saturating_sub(earlier.bytes),
            read_ops: self.read_ops.saturating_sub(earlier.read_ops),
            read_bytes: self.read_bytes.saturating_sub(earlier.read_bytes),
            write_ops: self.write_ops.saturating_sub(earlier.write_ops),
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
            trim_ops: self.trim_ops.saturating_sub(earlier.trim_ops),
            trim_bytes: self.trim_bytes.saturating_sub(earlier.trim_bytes),
            errors: self.errors.saturating_sub(earlier.errors),
            short_ios: self.short_ios.saturating_sub(earlier.short_ios),
            spanning_stop: self.spanning_stop.saturating_sub(earlier.spanning_stop),
            syncs: self.syncs.saturating_sub(earlier.syncs),
            cancelled: self.cancelled.saturating_sub(earlier.cancelled),
            due: self.due.saturating_sub(earlier.due),
            issued: self.issued.saturating_sub(earlier.issued),
            unfinished: self.unfinished.saturating_sub(earlier.unfinished),
            worker_cpu_ns: self.worker_cpu_ns.saturating_sub(earlier.worker_cpu_ns),
            worker_runq_wait_ns: self
                .worker_runq_wait_ns
                .saturating_sub(earlier.worker_runq_wait_ns),
            after_switch: self.after_switch.saturating_sub(earlier.after_switch),
            random_issued: self.random_issued.saturating_sub(earlier.random_issued),
            top1_issued: self.top1_issued.saturating_sub(earlier.top1_issued),
            top10_issued: self.top10_issued.saturating_sub(earlier.top10_issued),
            busy_ns: self.busy_ns.saturating_sub(earlier.busy_ns),
        }
    }

    /// Adds `other` into `self`.
    pub fn add(&mut self, other: &Counts) {
        self.ops += other.ops;
        self.bytes += other.bytes;
        self.read_ops += other.read_ops;
        self.read_bytes += other.read_bytes;
        self.write_ops += other.write_ops;
        self.write_bytes += other.write_bytes;
        self.trim_ops += other.trim_ops;
        self.trim_bytes += other.trim_bytes;
        self.errors += other.errors;
        self.short_ios += other.short_ios;
        self.spanning_stop += other.spanning_stop;
        self.syncs += other.syncs;
        self.cancelled += other.cancelled;
        self.due += other.due;
        self.issued += other.issued;
        self.unfinished += other.unfinished;
        self.worker_cpu_ns += other.worker_cpu_ns;
        self.worker_runq_wait_ns += other.worker_runq_wait_ns;
        self.after_switch += other.after_switch;
        self.random_issued += other.random_issued;
        self.top1_issued += other.top1_issued;
        self.top10_issued += other.top10_issued;
        self.busy_ns += other.busy_ns;
    }

    /// I/Os that were issued but are not ops: short, failed, spanning a stop, finished
    /// after their settings' interval was cut, cancelled or unfinished at the end.
    pub fn not_ops(&self) -> u64 {
        self.short_ios
            + self.errors
            + self.spanning_stop
            + self.after_switch
            + self.cancelled
            + self.unfinished
    }

    /// Issued I/Os that ended one way or another: ops, and those counted apart but
    /// `unfinished`.
    pub fn settled(&self) -> u64 {
        self.ops
            + self.short_ios
            + self.errors
            + self.spanning_stop
            + self.after_switch
            + self.cancelled
    }
}

/// Operations per second over `elapsed`; 0 for an empty interval.
pub fn per_second(count: u64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 { count as f64 / secs } else { 0.0 }
}

/// Intervals in which the process was stopped (SIGSTOP, Ctrl-Z), left out of the rates and
/// latency figures and counted here instead.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct LeftOut {
    /// How many stops (each ended by a SIGCONT).
    pub stops: u64,
    /// How long the process was stopped, at least: how far its intervals ran past the tick.
    #[serde(
        rename = "stopped_s",
        serialize_with = "as_secs",
        deserialize_with = "from_secs"
    )]
    pub stopped: Duration,
    /// Real time of the intervals left out: the stops plus the running time they covered.
    #[serde(
        rename = "elapsed_s",
        serialize_with = "as_secs",
        deserialize_with = "from_secs"
    )]
    pub elapsed: Duration,
    /// What completed in those intervals (their latencies are left out too).
    pub counts: Counts,
}

impl LeftOut {
    /// Adds one stopped interval.
    pub fn add(&mut self, stopped: Duration, elapsed: Duration, counts: &Counts) {
        self.stops += 1;
        self.stopped += stopped;
        self.elapsed += elapsed;
        self.counts.add(counts);
    }

    /// Adds another tally.
    pub fn merge(&mut self, other: &LeftOut) {
        self.stops += other.stops;
        self.stopped += other.stopped;
        self.elapsed += other.elapsed;
        self.counts.add(&other.counts);
    }

    pub fn is_empty(&self) -> bool {
        self.stops == 0
    }
}

fn as_secs<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Seconds as a saved result writes them; a negative or non-finite figure reads as zero.
fn from_secs<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let secs = f64::deserialize(d)?;
    Ok(Duration::try_from_secs_f64(secs).unwrap_or_default())
}

/// The operation's name as the engine writes it; another name (a file from a later version)
/// reads as "other".
fn op_name<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let name = String::deserialize(d)?;
    Ok([
        "read",
        "write",
        "fdatasync",
        "io_uring_setup",
        "io_uring_enter",
    ]
    .into_iter()
    .find(|n| *n == name)
    .unwrap_or("other"))
}

/// An operation's name. An alias, not `&'static str` written out, because serde's derive
/// borrows every field spelled `&str` from its input; this one reads back through `op_name`.
pub type OpName = &'static str;

/// One failed or short I/O, kept for the report (only the first few of a run are kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IoErrorRecord {
    pub thread: usize,
    /// "read", "write" or "fdatasync"; "io_uring_setup" or "io_uring_enter" for a worker's
    /// ring that failed (then offset 0, and the I/O in flight is settled apart).
    #[serde(deserialize_with = "op_name")]
    pub op: OpName,
    pub offset: u64,
    /// The errno, or `None` for a short transfer.
    pub errno: Option<i32>,
    /// What happened, e.g. "Input/output error" or "short read: 0 of 4096 bytes".
    pub message: String,
}

/// One worker as the sampler saw it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThreadSample {
    /// Worker number, in start order; not reused after a worker stops.
    pub id: usize,
    /// False once the worker was stopped (thread count lowered, or run over).
    pub active: bool,
    /// Counts since the run started or was reset.
    pub total: Counts,
    /// How long this worker has run since the start or reset.
    pub active_time: Duration,
    /// Ops in the last interval.
    pub interval_ops: u64,
    /// Mean latency of the last interval's ops, in ns (0 when none).
    pub interval_latency_mean_ns: f64,
    /// Mean latency over `total`, in ns (0 when no ops).
    pub latency_mean_ns: f64,
    /// Its io_uring ring failed and it went on with pread/pwrite, one I/O at a time.
    pub fell_back: bool,
}

/// What the sampler emits every tick, and at every settings change (so an interval never spans
/// two settings).
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// 0, 1, 2 … in emission order.
    pub seq: u64,
    /// Time since the engine started, at the end of this interval.
    pub at: Duration,
    /// Real length of this interval (not the nominal tick).
    pub interval_elapsed: Duration,
    /// The settings the workers ran under during this interval.
    pub settings: Settings,
    /// True when the workers were paused for this interval.
    pub paused: bool,
    /// Set when the process was stopped (SIGSTOP, Ctrl-Z) during this interval: at least how
    /// long (the interval's excess over the tick). Such an interval is not part of `total`, `total_elapsed` or `total_latency`; a UI
    /// should not plot it as a rate.
    pub stopped: Option<Duration>,
    /// Counts of this interval only.
    pub interval: Counts,
    /// Latencies of the I/Os completed in this interval. With a rate (`settings.rate_iops`),
    /// from when each I/O was due on its timetable (coordinated omission corrected); without
    /// one, from submission.
    pub interval_latency: Latency,
    /// With a rate, the same I/Os' service times, from submission to completion reaped.
    /// `None` without a rate: the service time is then `interval_latency` itself.
    pub interval_service_latency: Option<Latency>,
    /// Counts since the start or the last reset.
    pub total: Counts,
    /// Time since the start or the last reset, paused and stopped intervals excluded.
    pub total_elapsed: Duration,
    /// Latency since the start or the last reset (from the due time where a rate was set).
    pub total_latency: LatencySummary,
    /// Service time (from submission) since the start or the last reset; equal to
    /// `total_latency` when no rate was ever set.
    pub total_service_latency: LatencySummary,
    /// Stopped intervals since the start or the last reset, left out of the totals above.
    pub total_left_out: LeftOut,
    /// Reads' and writes' latencies apart, in this interval and in total (`sides`).
    pub sides: Sides,
    /// Every worker that ran since the start or reset, active ones first in id order.
    pub threads: Vec<ThreadSample>,
    /// The first few failed or short I/Os since the start or reset.
    pub first_errors: Vec<IoErrorRecord>,
}

impl Snapshot {
    /// This interval's service times: the recorded ones with a rate, else the latencies.
    pub fn service_latency(&self) -> &Latency {
        self.interval_service_latency
            .as_ref()
            .unwrap_or(&self.interval_latency)
    }
    /// IOPS in this interval.
    pub fn interval_iops(&self) -> f64 {
        per_second(self.interval.ops, self.interval_elapsed)
    }
    /// Bytes per second in this interval.
    pub fn interval_bw(&self) -> f64 {
        per_second(self.interval.bytes, self.interval_elapsed)
    }
    /// IOPS since the start or reset.
    pub fn total_iops(&self) -> f64 {
        per_second(self.total.ops, self.total_elapsed)
    }
    /// Bytes per second since the start or reset.
    pub fn total_bw(&self) -> f64 {
        per_second(self.total.bytes, self.total_elapsed)
    }
}
