//! Cutting an interval: each worker's hand-over (counters and latencies together) taken into
//! the interval, the deltas per worker and in all, stopped intervals set apart from the run's
//! totals, and the `Snapshot` sent.

use std::sync::atomic::Ordering::Acquire;
use std::time::Instant;

use super::{Cut, Sampler};
use crate::engine::worker::WorkerSlot;
use crate::stats::{Counts, SideLatency, Sides, Snapshot, ThreadSample};

/// One worker's part of an interval: its cumulative counters and latency sum as handed over,
/// or `None` when it could not be taken this time.
type Taken = Option<(Counts, u64)>;

impl Sampler {
    /// Samples every worker and sends the snapshot of the interval since the last one. A
    /// `cut` ends the interval where each worker switched to its generation, and labels it
    /// with the settings it ran under, and as stopped when the process was stopped in it.
    pub(super) fn emit(&mut self, cut: Option<Cut>) {
        let (settings, paused, stopped) = match cut {
            Some(c) => (c.settings, c.paused, c.stopped),
            None => (self.settings, self.paused, None),
        };
        let (taken, end) = self.take_all(cut.map(|c| c.generation));
        let now = Instant::now()
            .min(end.unwrap_or_else(Instant::now))
            .max(self.last);
        let elapsed = now.duration_since(self.last);
        self.last = now;
        // The stop lasted at least as long as the sampler woke late, and as the interval ran
        // beyond its tick (the sampler may have been stopped mid-emit rather than asleep).
        let stopped = stopped.map(|late| late.max(elapsed.saturating_sub(self.tick)));
        let (interval, total, threads) = self.per_worker(taken, elapsed, stopped, paused);
        // Each latency was recorded once, into its direction; the interval's whole
        // distribution is put together here (see `SideLatency::take_interval`).
        let (interval_latency, apart) = self.interval_sides.take_interval();
        match stopped {
            // Left out of the run's time, counts and latency, and counted apart.
            Some(stop) => self.left_out.add(stop, elapsed, &interval),
            None => {
                if !paused {
                    self.total_elapsed += elapsed;
                }
                self.total_latency.add(&interval_latency);
                self.total_sides
                    .add_interval(&interval_latency, apart.each(), &interval);
                if settings.rate_iops > 0 {
                    self.total_service.add(&self.interval_service);
                } else {
                    self.total_service.add(&interval_latency);
                }
            }
        }
        // Without a rate, service time and latency are the same figure: `None` says so.
        let interval_service_latency = if settings.rate_iops > 0 {
            Some(std::mem::take(&mut self.interval_service))
        } else {
            self.interval_service.reset();
            None
        };
        let first_errors = self
            .control
            .errors
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let snapshot = Snapshot {
            seq: self.seq,
            at: now.duration_since(self.start),
            interval_elapsed: elapsed,
            settings,
            paused,
            stopped,
            interval,
            interval_latency,
            interval_service_latency,
            total,
            total_elapsed: self.total_elapsed,
            total_latency: self.total_latency.summary(),
            total_service_latency: self.total_service.summary(),
            total_left_out: self.left_out,
            sides: self.sides(apart),
            threads,
            first_errors,
        };
        self.seq += 1;
        // A consumer that went away is not an error: the run is being torn down.
        self.out.send(snapshot);
    }

    /// The snapshot's reads, writes and trims apart: this interval's (`apart`) and the run's.
    fn sides(&self, apart: SideLatency) -> Sides {
        let [total_read, total_write, total_trim] = self.total_sides.summaries();
        Sides {
            interval_read: apart.read,
            interval_write: apart.write,
            interval_trim: apart.trim,
            total_read,
            total_write,
            total_trim,
        }
    }

    /// Each worker's hand-over, counters and latencies together (the latencies recorded into
    /// the interval's histograms), so the interval's latency count is its op count. At a cut
    /// (`generation`), what came before each worker's switch, and the last switch's moment,
    /// where the interval ends.
    fn take_all(&mut self, generation: Option<u64>) -> (Vec<Taken>, Option<Instant>) {
        let mut end = None;
        let mut taken = Vec::with_capacity(self.workers.len());
        for w in &self.workers {
            let t = take_handover(
                &w.slot,
                generation,
                &mut self.spare,
                &mut self.spare_service,
            );
            for &tagged in &self.spare {
                self.interval_sides.record_tagged(tagged);
            }
            for &ns in &self.spare_service {
                self.interval_service.record(ns);
            }
            self.spare.clear();
            self.spare_service.clear();
            if let Some((_, _, Some(at))) = t {
                end = end.max(Some(at));
            }
            taken.push(t.map(|(counts, sum, _)| (counts, sum)));
        }
        (taken, end)
    }

    /// Each worker's deltas over the interval, summed into the interval's and the run's
    /// counts, and its row of the thread table. A stopped interval's deltas are set apart.
    fn per_worker(
        &mut self,
        taken: Vec<Taken>,
        elapsed: std::time::Duration,
        stopped: Option<std::time::Duration>,
        paused: bool,
    ) -> (Counts, Counts, Vec<ThreadSample>) {
        let mut interval = Counts::default();
        let mut total = Counts::default();
        let mut threads = Vec::with_capacity(self.workers.len());
        for (w, t) in self.workers.iter_mut().zip(taken) {
            let (mut counts, latency_sum) = t.unwrap_or(w.prev);
            if self.ending && !w.slot.finished.load(Acquire) {
                // Issued since its last hand-over too: done or not, they are not ops here.
                counts.issued = counts.issued.max(w.slot.issued.load(Acquire));
                counts.unfinished = counts.issued.saturating_sub(counts.settled());
            }
            let delta = counts.since(&w.prev.0);
            let delta_latency = latency_sum.saturating_sub(w.prev.1);
            w.prev = (counts, latency_sum);
            if stopped.is_some() {
                w.left_out.0.add(&delta);
                w.left_out.1 += delta_latency;
            } else if (w.active || w.just_stopped) && !paused {
                w.active_time += elapsed;
            }
            w.just_stopped = false;
            let since_base = counts.since(&w.base.0).since(&w.left_out.0);
            let latency_since_base = latency_sum
                .saturating_sub(w.base.1)
                .saturating_sub(w.left_out.1);
            interval.add(&delta);
            total.add(&since_base);
            threads.push(ThreadSample {
                id: w.slot.id,
                active: w.active,
                total: since_base,
                active_time: w.active_time,
                interval_ops: delta.ops,
                interval_latency_mean_ns: mean(delta_latency, delta.ops),
                latency_mean_ns: mean(latency_since_base, since_base.ops),
                fell_back: w.slot.fell_back.load(Acquire),
            });
        }
        threads.sort_by_key(|t| (!t.active, t.id));
        (interval, total, threads)
    }
}

/// Takes what a worker handed over into `into` (latencies) and `service` (service times, with
/// a rate) and returns its cumulative counters and latency sum, and at a cut (`generation`)
/// the moment it switched.
fn take_handover(
    slot: &WorkerSlot,
    generation: Option<u64>,
    into: &mut Vec<u64>,
    service: &mut Vec<u64>,
) -> Option<(Counts, u64, Option<Instant>)> {
    let Some(generation) = generation else {
        // Between cuts, swap the batch out in O(1). If the worker holds the lock right now (it
        // may have been preempted mid-flush), take its hand-over next tick rather than wait
        // on a lower-priority thread: counters and latencies then both wait.
        let mut mailbox = slot.mailbox.try_lock().ok()?;
        std::mem::swap(&mut mailbox.latencies, into);
        std::mem::swap(&mut mailbox.service, service);
        mailbox.boundary = None;
        return Some((due_now(&mailbox), mailbox.latency_sum_ns, None));
    };
    let mut mailbox = slot.mailbox.lock().unwrap_or_else(|e| e.into_inner());
    match mailbox
        .boundary
        .take()
        .filter(|b| b.generation >= generation)
    {
        Some(b) => {
            into.extend(mailbox.latencies.drain(..b.latencies));
            service.extend(mailbox.service.drain(..b.service));
            Some((b.counts, b.latency_sum_ns, Some(b.at)))
        }
        // Still in an I/O under the old settings (see `await_switch`): all it handed over
        // counts here, and what it hands over before it switches is counted apart.
        None => {
            mailbox.cut_without = Some(generation);
            into.append(&mut mailbox.latencies);
            service.append(&mut mailbox.service);
            Some((due_now(&mailbox), mailbox.latency_sum_ns, None))
        }
    }
}

/// The mailbox's counters with the slots of the worker's timetable due by now: counted here,
/// not by the worker, so a worker stuck in a slow I/O still shows the slots it is missing.
fn due_now(mailbox: &crate::engine::control::Mailbox) -> Counts {
    Counts {
        due: mailbox.timetable.due_by(Instant::now()),
        ..mailbox.counts
    }
}

fn mean(sum: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        sum as f64 / count as f64
    }
}
