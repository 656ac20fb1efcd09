//! How a worker's counts and latencies reach the sampler. Counters and latencies are appended
//! to a small preallocated local batch, moved into the worker's mailbox together when the
//! batch is full or `FLUSH_EVERY` has passed, and recorded into the interval's HdrHistogram by
//! the sampler. A batch rather than a per-thread histogram: merging a histogram costs its
//! whole counts array (some 16k entries at millisecond latencies), and 1024 workers doing that
//! every 10 ms starved the sampler for seconds on two cores; a batch costs what was recorded.
//! Batches are transport (at most 10 ms or `BATCH` values), never kept: every figure comes
//! from the histograms.
//!
//! Also handed over: where the worker switched to new settings (`Boundary`), its rate
//! timetable (so the sampler counts the slots due even while the worker is stuck in an I/O),
//! and every `SCHEDSTAT_EVERY` its time on a CPU and waiting for one, from the kernel's
//! schedstat. Only the worker's own mailbox is locked, never per I/O.

use std::sync::atomic::Ordering::Release;
use std::time::{Duration, Instant};

use super::control::{Boundary, Mailbox, WorkerSlot};
use super::worker::{FLUSH_EVERY, Worker};
use crate::engine::pace::Timetable;
use crate::stats::DIRECTION_TAGS;

/// How often a worker reads its schedstat, at most: one pread, off the per-I/O path.
const SCHEDSTAT_EVERY: Duration = Duration::from_millis(100);

impl Worker {
    /// Moves the batch to the mailbox when it is full or `FLUSH_EVERY` has passed.
    #[inline]
    pub fn maybe_flush(&mut self, slot: &WorkerSlot, now: Instant) {
        if self.batch.len() >= super::control::BATCH || now >= self.next_flush {
            self.flush(slot);
            self.next_flush = now + FLUSH_EVERY;
            self.fair.reweigh();
        }
    }

    /// Moves the latency batch and the counters into the mailbox.
    pub(super) fn flush(&mut self, slot: &WorkerSlot) {
        self.flush_check();
        drop(self.hand_over(slot));
    }

    /// Hands over what is left and marks the worker finished: its accounting is final, and
    /// what it still frees (ring, buffers, stack) is no longer part of the run.
    pub(super) fn finish(&mut self, slot: &WorkerSlot) {
        self.flush(slot);
        slot.finished
            .store(true, std::sync::atomic::Ordering::Release);
    }

    /// Hands over everything done so far (under the old generation), retires the rate
    /// timetable, and marks it all as done before `generation`, which the worker takes up.
    pub(super) fn mark_boundary(&mut self, slot: &WorkerSlot, generation: u64) {
        let at = Instant::now();
        self.timetable.pace = self.pace.take();
        self.timetable.retire(at);
        self.local.due = self.timetable.due_before;
        let mut mailbox = self.hand_over(slot);
        mailbox.timetable = self.timetable;
        self.seen_generation = generation;
        if mailbox.cut_without.is_some_and(|g| g <= generation) {
            mailbox.cut_without = None;
        }
        mailbox.boundary = Some(Boundary {
            generation: self.seen_generation,
            counts: self.local,
            latency_sum_ns: self.latency_sum_ns,
            latencies: mailbox.latencies.len(),
            service: mailbox.service.len(),
            at,
        });
        drop(mailbox);
        slot.acked_generation.store(self.seen_generation, Release);
    }

    /// Publishes the timetable just started (after `mark_boundary` retired the last one).
    pub(super) fn publish_timetable(&mut self, slot: &WorkerSlot) {
        self.timetable = Timetable {
            due_before: self.timetable.due_before,
            pace: self.pace,
        };
        let mut mailbox = slot.mailbox.lock().unwrap_or_else(|e| e.into_inner());
        mailbox.timetable = self.timetable;
    }

    /// Moves the batch and the counters into the mailbox, and returns it still locked. When
    /// the sampler already cut the interval of this worker's settings (`cut_without`), the
    /// complete I/Os since the last hand-over are counted as `after_switch` instead of ops:
    /// the interval they belong to is gone, and the next one runs under other settings.
    pub(super) fn hand_over<'a>(
        &mut self,
        slot: &'a WorkerSlot,
    ) -> std::sync::MutexGuard<'a, Mailbox> {
        self.read_schedstat();
        let mut mailbox = slot.mailbox.lock().unwrap_or_else(|e| e.into_inner());
        if mailbox
            .cut_without
            .is_some_and(|g| self.seen_generation < g)
        {
            self.set_aside_since_hand_over();
        } else {
            mailbox.latencies.extend_from_slice(&self.batch);
            mailbox.service.extend_from_slice(&self.service_batch);
        }
        self.batch.clear();
        self.service_batch.clear();
        mailbox.counts = self.local;
        mailbox.latency_sum_ns = self.latency_sum_ns;
        self.handed = self.local;
        mailbox
    }

    /// Brings the worker's CPU and run-queue wait up to date, at most every `SCHEDSTAT_EVERY`.
    fn read_schedstat(&mut self) {
        let now = Instant::now();
        if now < self.next_schedstat {
            return;
        }
        self.next_schedstat = now + SCHEDSTAT_EVERY;
        if let Some((file, (cpu0, wait0))) = &self.schedstat
            && let Some((cpu, wait)) = file.read()
        {
            self.local.worker_cpu_ns = cpu.saturating_sub(*cpu0);
            self.local.worker_runq_wait_ns = wait.saturating_sub(*wait0);
        }
    }

    /// Turns the complete I/Os since the last hand-over into `after_switch`: out of the ops,
    /// bytes and latency sum (their latencies, the batch, are dropped by the caller).
    fn set_aside_since_hand_over(&mut self) {
        let late = self.local.since(&self.handed);
        let l = &mut self.local;
        l.ops -= late.ops;
        l.bytes -= late.bytes;
        l.read_ops -= late.read_ops;
        l.read_bytes -= late.read_bytes;
        l.write_ops -= late.write_ops;
        l.write_bytes -= late.write_bytes;
        l.trim_ops -= late.trim_ops;
        l.trim_bytes -= late.trim_bytes;
        l.after_switch += late.ops;
        self.latency_sum_ns -= self.batch.iter().map(|&v| v & !DIRECTION_TAGS).sum::<u64>();
    }
}
