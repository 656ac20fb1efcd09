//! The sampler thread: the only reader of worker state and the only one that starts and stops
//! workers. Every tick (and at every command, so an interval never spans two settings) it reads
//! each worker's counters, empties its latency mailbox, divides the deltas by the real elapsed
//! time, and sends a `Snapshot`.

use std::sync::atomic::Ordering::*;
use std::sync::atomic::{AtomicU64, AtomicUsize};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::io::BlockIo;
use super::worker::{self, Control, ControlState, WorkerSlot};
use super::{Command, Geometry};
use crate::settings::Settings;
use crate::stats::{Counts, Latency, Snapshot, ThreadSample};

/// Stack for worker threads: the hot loop needs little, and 1024 threads of the default 2 MiB
/// would reserve 2 GiB of address space.
const WORKER_STACK: usize = 256 << 10;
/// How long a stop waits for workers stuck in an I/O before leaving them behind.
const STOP_GRACE: Duration = Duration::from_secs(1);

pub(super) fn spawn(
    geometry: Geometry,
    settings: Settings,
    tick: Duration,
    commands: Receiver<Command>,
    out: Sender<Snapshot>,
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
    });
    let now = Instant::now();
    let sampler = Sampler {
        control,
        workers: Vec::new(),
        next_id: 0,
        seq: 0,
        start: now,
        last: now,
        settings: Settings {
            threads: 0,
            ..settings
        },
        paused: false,
        interval_latency: Latency::default(),
        total_latency: Latency::default(),
        total_elapsed: Duration::ZERO,
        out,
    };
    thread::Builder::new()
        .name("sampler".into())
        .spawn(move || sampler.run(tick, commands))
        .map_err(|e| format!("starting the sampler thread: {e}"))
}

struct WorkerRec {
    slot: Arc<WorkerSlot>,
    handle: Option<JoinHandle<()>>,
    active: bool,
    /// Counters and latency sum at the last sample, and at the last reset.
    prev: (Counts, u64),
    base: (Counts, u64),
    active_time: Duration,
}

struct Sampler {
    control: Arc<Control>,
    workers: Vec<WorkerRec>,
    next_id: usize,
    seq: u64,
    start: Instant,
    last: Instant,
    settings: Settings,
    paused: bool,
    interval_latency: Latency,
    total_latency: Latency,
    total_elapsed: Duration,
    out: Sender<Snapshot>,
}

impl Sampler {
    fn run(mut self, tick: Duration, commands: Receiver<Command>) {
        let mut next_tick = Instant::now() + tick;
        loop {
            let wait = next_tick.saturating_duration_since(Instant::now());
            match commands.recv_timeout(wait) {
                Err(RecvTimeoutError::Timeout) => {
                    self.emit();
                    next_tick += tick;
                    // After a stall (suspended process), don't fire a burst of catch-up ticks.
                    if next_tick < Instant::now() {
                        next_tick = Instant::now() + tick;
                    }
                    continue;
                }
                Ok(Command::Stop) | Err(RecvTimeoutError::Disconnected) => break,
                Ok(cmd) => {
                    // Cut the interval: what ran so far ran under the old settings.
                    if self.workers.iter().any(|w| w.active) {
                        self.emit();
                    } else {
                        self.last = Instant::now();
                    }
                    self.handle(cmd);
                    next_tick = Instant::now() + tick;
                }
            }
        }
        self.stop_workers();
        self.emit();
    }

    fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::Apply(settings, ios, reply) => {
                let _ = reply.send(self.apply(settings, ios));
            }
            Command::Pause(paused) => {
                self.paused = paused;
                self.control.update(|st| st.paused = paused);
            }
            Command::Reset => self.reset(),
            Command::Stop => {}
        }
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
        }
        let mut result = Ok(());
        let mut threads = settings.threads;
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
                        prev: (Counts::default(), 0),
                        base: (Counts::default(), 0),
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
        let s = self.settings;
        self.control.update(|st| st.settings = s);
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
        self.total_latency.reset();
        self.total_elapsed = Duration::ZERO;
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

    /// Samples every worker and sends the snapshot of the interval since the last one.
    fn emit(&mut self) {
        let now = Instant::now();
        let elapsed = now.duration_since(self.last);
        self.last = now;
        let mut interval = Counts::default();
        let mut total = Counts::default();
        let mut threads = Vec::with_capacity(self.workers.len());
        for w in &mut self.workers {
            let (counts, latency_sum) = w.slot.read_counts();
            {
                let mut mailbox = w.slot.mailbox.lock().unwrap_or_else(|e| e.into_inner());
                self.interval_latency.add(&mailbox);
                mailbox.reset();
            }
            let delta = counts.since(&w.prev.0);
            let delta_latency = latency_sum.saturating_sub(w.prev.1);
            w.prev = (counts, latency_sum);
            let since_base = counts.since(&w.base.0);
            let latency_since_base = latency_sum.saturating_sub(w.base.1);
            if w.active && !self.paused {
                w.active_time += elapsed;
            }
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
        if !self.paused {
            self.total_elapsed += elapsed;
        }
        self.total_latency.add(&self.interval_latency);
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
            settings: self.settings,
            paused: self.paused,
            interval,
            interval_latency,
            total,
            total_elapsed: self.total_elapsed,
            total_latency: self.total_latency.summary(),
            threads,
            first_errors,
        };
        self.seq += 1;
        // A consumer that went away is not an error: the run is being torn down.
        let _ = self.out.send(snapshot);
    }
}

fn mean(sum: u64, count: u64) -> f64 {
    if count == 0 {
        0.0
    } else {
        sum as f64 / count as f64
    }
}
