//! The sampler thread: the only reader of worker state and the only one that starts and stops
//! workers. Every tick (and at every command, so an interval never spans two settings) it
//! empties each worker's mailbox (counters and latencies), takes the deltas over the real
//! elapsed time, and sends a `Snapshot`.
//!
//! When the process was stopped (SIGSTOP, Ctrl-Z; see `stops`), the interval is cut where every
//! worker has finished the I/O it was in when the stop came, and marked `stopped`: its time,
//! counts and latencies are left out of the run's totals and counted apart, so a stop neither
//! dilutes the rates nor becomes a latency.

use std::sync::atomic::Ordering::*;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::io::BlockIo;
use super::stops;
use super::worker::{self, Control, ControlState, WorkerSlot};
use super::{Command, Geometry, SnapshotSink};
use crate::settings::Settings;
use crate::stats::{Counts, Latency, LeftOut, Snapshot, ThreadSample};

/// Stack for worker threads: the hot loop needs little, and 1024 threads of the default 2 MiB
/// would reserve 2 GiB of address space.
const WORKER_STACK: usize = 256 << 10;
/// How long a settings change waits for every worker to switch before cutting the interval.
const SWITCH_WAIT: Duration = Duration::from_millis(200);
/// How long a stop waits for workers stuck in an I/O before leaving them behind.
const STOP_GRACE: Duration = Duration::from_secs(1);
/// How long to wait for a pending SIGCONT's handler to run on whichever thread takes it.
const SIGCONT_WAIT: Duration = Duration::from_millis(100);

/// Where an interval ends other than at a tick: the generation each worker switches to, what
/// the interval ran under, and for a stop of the process, how long it lasted at least.
#[derive(Clone, Copy)]
struct Cut {
    generation: u64,
    settings: Settings,
    paused: bool,
    /// For a stop: how late the sampler woke past its tick.
    stopped: Option<Duration>,
}

pub(super) fn spawn(
    geometry: Geometry,
    settings: Settings,
    tick: Duration,
    fsync_every: u32,
    commands: Receiver<Command>,
    out: Box<dyn SnapshotSink>,
) -> Result<JoinHandle<()>, String> {
    let control = Arc::new(Control {
        generation: AtomicU64::new(0),
        state: Mutex::new(ControlState {
            settings: Settings {
                threads: 0,
                ..settings
            },
            paused: false,
        }),
        wake: Condvar::new(),
        errors: Mutex::new(Vec::new()),
        errors_kept: AtomicUsize::new(0),
        align: geometry.logical_block_size.max(4096) as usize,
        span: geometry.span,
        fsync_every,
    });
    let now = Instant::now();
    let sampler = Sampler {
        control,
        workers: Vec::new(),
        next_id: 0,
        seq: 0,
        tick,
        start: now,
        last: now,
        settings: Settings {
            threads: 0,
            ..settings
        },
        paused: false,
        interval_latency: Latency::default(),
        total_latency: Latency::default(),
        spare: Vec::new(),
        total_elapsed: Duration::ZERO,
        left_out: LeftOut::default(),
        continued_seen: stops::continued(),
        out,
    };
    thread::Builder::new()
        .name("sampler".into())
        .spawn(move || sampler.run(commands))
        .map_err(|e| format!("starting the sampler thread: {e}"))
}

struct WorkerRec {
    slot: Arc<WorkerSlot>,
    handle: Option<JoinHandle<()>>,
    active: bool,
    /// Stopped by the last command: it still ran during the interval being cut.
    just_stopped: bool,
    /// Counters and latency sum at the last sample, and at the last reset.
    prev: (Counts, u64),
    base: (Counts, u64),
    /// Counters and latency sum of stopped intervals since the last reset.
    left_out: (Counts, u64),
    active_time: Duration,
}

struct Sampler {
    control: Arc<Control>,
    workers: Vec<WorkerRec>,
    next_id: usize,
    seq: u64,
    tick: Duration,
    start: Instant,
    last: Instant,
    settings: Settings,
    paused: bool,
    interval_latency: Latency,
    total_latency: Latency,
    /// An empty batch to swap with a worker's mailbox.
    spare: Vec<u64>,
    total_elapsed: Duration,
    /// Stopped intervals since the start or reset.
    left_out: LeftOut,
    /// The SIGCONT count already accounted for.
    continued_seen: u64,
    out: Box<dyn SnapshotSink>,
}

impl Sampler {
    fn run(mut self, commands: Receiver<Command>) {
        let tick = self.tick;
        let mut next_tick = Instant::now() + tick;
        loop {
            let wait = next_tick.saturating_duration_since(Instant::now());
            let received = commands.recv_timeout(wait);
            // Woken this late past the tick: at least that long stopped, if it was a stop.
            let late = Instant::now().saturating_duration_since(next_tick);
            if self.was_stopped() {
                self.cut_stop(late);
                next_tick = Instant::now() + tick;
                if matches!(received, Err(RecvTimeoutError::Timeout)) {
                    continue;
                }
            }
            match received {
                Err(RecvTimeoutError::Timeout) => {
                    self.emit(None);
                    next_tick += tick;
                    // After a stall (suspended process), don't fire a burst of catch-up ticks.
                    if next_tick < Instant::now() {
                        next_tick = Instant::now() + tick;
                    }
                    continue;
                }
                Ok(Command::Stop) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(Command::Reset) => {
                    self.emit(None);
                    self.reset();
                    next_tick = Instant::now() + tick;
                }
                Ok(cmd) => {
                    let running = self.workers.iter().any(|w| w.active);
                    let (settings, paused) = (self.settings, self.paused);
                    let generation = self.handle(cmd);
                    if running {
                        // Cut exactly where each worker switched: what ran before ran under
                        // the old settings, and is labelled so.
                        self.await_switch(generation);
                        self.emit(Some(Cut {
                            generation,
                            settings,
                            paused,
                            stopped: None,
                        }));
                    } else {
                        self.last = Instant::now();
                    }
                    next_tick = Instant::now() + tick;
                }
            }
        }
        self.stop_workers();
        self.emit(None);
        self.out.done();
    }

    /// Whether the process was continued after a stop since the last look: a SIGCONT was
    /// counted, or is pending and about to be (its handler waits for a thread to run it).
    fn was_stopped(&mut self) -> bool {
        let mut count = stops::continued();
        if count == self.continued_seen && stops::sigcont_pending() {
            let deadline = Instant::now() + SIGCONT_WAIT;
            while count == self.continued_seen && Instant::now() < deadline {
                thread::sleep(Duration::from_millis(1));
                count = stops::continued();
            }
        }
        let stopped = count != self.continued_seen;
        self.continued_seen = count;
        stopped
    }

    /// Ends the interval the stop fell in where every worker has finished the I/O it was in
    /// when the process stopped (those I/Os carry the stop in their latency), and marks it.
    fn cut_stop(&mut self, at_least: Duration) {
        self.control.update(|_| {});
        let generation = self.control.generation.load(Acquire);
        self.await_switch(generation);
        self.emit(Some(Cut {
            generation,
            settings: self.settings,
            paused: self.paused,
            stopped: Some(at_least),
        }));
    }

    /// Waits until every live worker has switched to `generation`, or `SWITCH_WAIT` passed (a
    /// worker in a slow I/O switches after it; its last old I/O then counts in the next
    /// interval).
    fn await_switch(&self, generation: u64) {
        let deadline = Instant::now() + SWITCH_WAIT;
        while Instant::now() < deadline
            && !self
                .workers
                .iter()
                .all(|w| w.handle.is_none() || w.slot.acked_generation.load(Acquire) >= generation)
        {
            thread::sleep(Duration::from_micros(200));
        }
    }

    /// Carries out a settings or pause command; returns the control generation that
    /// publishes it.
    fn handle(&mut self, cmd: Command) -> u64 {
        match cmd {
            Command::Apply(settings, ios, reply) => {
                let _ = reply.send(self.apply(settings, ios));
            }
            Command::Pause(paused) => {
                self.paused = paused;
                self.control.update(|st| st.paused = paused);
            }
            Command::Reset | Command::Stop => {}
        }
        self.control.generation.load(Acquire)
    }

    /// Stops surplus workers or starts new ones on the given descriptors, and publishes the
    /// settings. Returns how many new workers started if not all could.
    fn apply(
        &mut self,
        settings: Settings,
        ios: Vec<Box<dyn BlockIo>>,
    ) -> Result<(), (usize, String)> {
        let active = self.workers.iter().filter(|w| w.active).count();
        // Stop the highest-index workers: the rest keep their stripes.
        for w in self
            .workers
            .iter_mut()
            .filter(|w| w.active && w.slot.index >= settings.threads)
        {
            w.slot.stop.store(true, Release);
            w.active = false;
            w.just_stopped = true;
        }
        let mut result = Ok(());
        let mut threads = settings.threads;
        // Hold the control lock while spawning: new workers block on it in their first
        // refresh, so they start together, under the new settings, once all exist (spawning
        // 1024 threads while the first ones already compete for the CPU would take seconds).
        let mut state = self.control.state.lock().unwrap_or_else(|e| e.into_inner());
        for (k, io) in ios.into_iter().enumerate() {
            let slot = Arc::new(WorkerSlot::new(self.next_id, active + k));
            let (s, c) = (slot.clone(), self.control.clone());
            let spawned = thread::Builder::new()
                .name(format!("worker-{}", self.next_id))
                .stack_size(WORKER_STACK)
                .spawn(move || worker::run(s, c, io));
            match spawned {
                Ok(handle) => {
                    self.next_id += 1;
                    self.workers.push(WorkerRec {
                        slot,
                        handle: Some(handle),
                        active: true,
                        just_stopped: false,
                        prev: (Counts::default(), 0),
                        base: (Counts::default(), 0),
                        left_out: (Counts::default(), 0),
                        active_time: Duration::ZERO,
                    });
                }
                Err(e) => {
                    threads = active + k;
                    result = Err((k, e.to_string()));
                    break;
                }
            }
        }
        self.settings = Settings {
            threads,
            ..settings
        };
        state.settings = self.settings;
        self.control.publish(state);
        self.reap();
        result
    }

    /// Joins workers that have exited.
    fn reap(&mut self) {
        for w in &mut self.workers {
            if w.slot.finished.load(Acquire)
                && let Some(h) = w.handle.take()
            {
                let _ = h.join();
            }
        }
    }

    fn reset(&mut self) {
        self.reap();
        self.workers.retain(|w| w.active || w.handle.is_some());
        for w in &mut self.workers {
            w.base = w.prev;
            w.active_time = Duration::ZERO;
        }
        for w in &mut self.workers {
            w.left_out = (Counts::default(), 0);
        }
        self.total_latency.reset();
        self.total_elapsed = Duration::ZERO;
        self.left_out = LeftOut::default();
        let mut kept = self
            .control
            .errors
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        kept.clear();
        self.control.errors_kept.store(0, Relaxed);
    }

    /// Stops every worker and waits up to `STOP_GRACE` for them; a worker stuck in an I/O
    /// (a dying disk can take minutes to fail one) is left behind rather than hang the exit.
    fn stop_workers(&mut self) {
        for w in &mut self.workers {
            w.slot.stop.store(true, Release);
        }
        self.control.update(|_| {});
        let deadline = Instant::now() + STOP_GRACE;
        while Instant::now() < deadline
            && !self.workers.iter().all(|w| w.slot.finished.load(Acquire))
        {
            thread::sleep(Duration::from_millis(2));
        }
        self.reap();
    }

    /// Samples every worker and sends the snapshot of the interval since the last one. A
    /// `cut` ends the interval where each worker switched to its generation, and labels it
    /// with the settings it ran under, and as stopped when the process was stopped in it.
    fn emit(&mut self, cut: Option<Cut>) {
        let (settings, paused, stopped) = match cut {
            Some(c) => (c.settings, c.paused, c.stopped),
            None => (self.settings, self.paused, None),
        };
        // Each worker's hand-over, counters and latencies together, so the interval's latency
        // count is its op count; then the clock. At a cut, what came before each worker's
        // switch, and the interval ends at the last switch.
        let mut end = None;
        let mut taken = Vec::with_capacity(self.workers.len());
        for w in &self.workers {
            let t = take_handover(&w.slot, cut.map(|c| c.generation), &mut self.spare);
            for &ns in &self.spare {
                self.interval_latency.record(ns);
            }
            self.spare.clear();
            if let Some((_, _, Some(at))) = t {
                end = end.max(Some(at));
            }
            taken.push(t.map(|(counts, sum, _)| (counts, sum)));
        }
        let now = Instant::now()
            .min(end.unwrap_or_else(Instant::now))
            .max(self.last);
        let elapsed = now.duration_since(self.last);
        self.last = now;
        // The stop lasted at least as long as the sampler woke late, and as the interval ran
        // beyond its tick (the sampler may have been stopped mid-emit rather than asleep).
        let stopped = stopped.map(|late| late.max(elapsed.saturating_sub(self.tick)));
        let mut interval = Counts::default();
        let mut total = Counts::default();
        let mut threads = Vec::with_capacity(self.workers.len());
        for (w, t) in self.workers.iter_mut().zip(taken) {
            let (counts, latency_sum) = t.unwrap_or(w.prev);
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
            });
        }
        threads.sort_by_key(|t| (!t.active, t.id));
        match stopped {
            // Left out of the run's time, counts and latency, and counted apart.
            Some(stop) => self.left_out.add(stop, elapsed, &interval),
            None => {
                if !paused {
                    self.total_elapsed += elapsed;
                }
                self.total_latency.add(&self.interval_latency);
            }
        }
        let interval_latency = std::mem::take(&mut self.interval_latency);
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
            total,
            total_elapsed: self.total_elapsed,
            total_latency: self.total_latency.summary(),
            total_left_out: self.left_out,
            threads,
            first_errors,
        };
        self.seq += 1;
        // A consumer that went away is not an error: the run is being torn down.
        self.out.send(snapshot);
    }
}

/// Takes what a worker handed over into `into` (latencies) and returns its cumulative
/// counters and latency sum, and at a cut (`generation`) the moment it switched.
fn take_handover(
    slot: &WorkerSlot,
    generation: Option<u64>,
    into: &mut Vec<u64>,
) -> Option<(Counts, u64, Option<Instant>)> {
    let Some(generation) = generation else {
        // Between cuts, swap the batch out in O(1). If the worker holds the lock right now (it
        // may have been preempted mid-flush), take its hand-over next tick rather than wait
        // on a lower-priority thread: counters and latencies then both wait.
        let mut mailbox = slot.mailbox.try_lock().ok()?;
        std::mem::swap(&mut mailbox.latencies, into);
        mailbox.boundary = None;
        return Some((mailbox.counts, mailbox.latency_sum_ns, None));
    };
    let mut mailbox = slot.mailbox.lock().unwrap_or_else(|e| e.into_inner());
    match mailbox
        .boundary
        .take()
        .filter(|b| b.generation >= generation)
    {
        Some(b) => {
            into.extend(mailbox.latencies.drain(..b.latencies));
            Some((b.counts, b.latency_sum_ns, Some(b.at)))
        }
        // Still in an I/O under the old settings (see `await_switch`): all it handed over.
        None => {
            into.append(&mut mailbox.latencies);
            Some((mailbox.counts, mailbox.latency_sum_ns, None))
        }
    }
}

fn mean(sum: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        sum as f64 / count as f64
    }
}
