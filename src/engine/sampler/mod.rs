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
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

mod emit;
mod reset;

use super::io::BlockIo;
use super::stops;
use super::worker::{self, Control, ControlState, WorkerSlot};
use super::{Command, Geometry, Options, SnapshotSink};
use crate::settings::Settings;
use crate::stats::{Counts, Latency, LeftOut, SideLatency};

/// Stack for worker threads: the hot loop needs little, and 1024 threads of the default 2 MiB
/// would reserve 2 GiB of address space.
use crate::engine::memory::THREAD_STACK as WORKER_STACK;
/// How long a settings change waits for every worker to switch before cutting the interval.
const SWITCH_WAIT: Duration = Duration::from_millis(200);
/// How long the end of a run waits for workers to reap (or cancel) what they have in flight
/// before leaving them behind: a run ends at most this long after it was asked to. What
/// they still hold then is counted as `unfinished`. (A dying disk can take minutes to fail an
/// I/O; a throttled or slow one minutes to serve a deep queue, and what it already holds
/// cannot be cancelled.)
const STOP_GRACE: Duration = Duration::from_secs(1);
/// How late a SIGCONT beside a termination signal must find the sampler to end a real stop.
const STOP_EVIDENCE: Duration = Duration::from_millis(20);
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
    options: Options,
    commands: Receiver<Command>,
    (out, checker): (
        Box<dyn SnapshotSink>,
        Option<Arc<dyn crate::engine::check::Checker>>,
    ),
) -> Result<JoinHandle<()>, String> {
    let control = Arc::new(Control {
        generation: AtomicU64::new(0),
        wake_word: AtomicU32::new(0),
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
        fsync_every: options.fsync_every,
        ioengine: options.ioengine,
        checker,
        trim: options.trim,
    });
    let tick = options.tick;
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
        total_latency: Latency::default(),
        interval_service: Latency::default(),
        total_service: Latency::default(),
        interval_sides: SideLatency::default(),
        total_sides: SideLatency::default(),
        spare: Vec::new(),
        spare_service: Vec::new(),
        total_elapsed: Duration::ZERO,
        left_out: LeftOut::default(),
        continued_seen: stops::continued(),
        ending: false,
        out,
    };
    thread::Builder::new()
        .name("sampler".into())
        .spawn(move || {
            // Its workers, spawned from it, inherit the mask.
            crate::signals::leave_to_main();
            sampler.run(commands)
        })
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
    total_latency: Latency,
    /// Service times (from submission) of this interval's I/Os, recorded only with a rate;
    /// without one they are the interval's latencies themselves.
    interval_service: Latency,
    total_service: Latency,
    /// This interval's latencies, each recorded once into its direction's histogram (the
    /// snapshot's whole one is put together at the cut), and the run's, reads and writes
    /// apart (`total_latency` holds them together).
    interval_sides: SideLatency,
    total_sides: SideLatency,
    /// An empty batch to swap with a worker's mailbox.
    spare: Vec<u64>,
    spare_service: Vec<u64>,
    total_elapsed: Duration,
    /// Stopped intervals since the start or reset.
    left_out: LeftOut,
    /// The SIGCONT count already accounted for.
    continued_seen: u64,
    /// Set for the last snapshot: what a worker not finished by then has in flight is counted
    /// as `unfinished`.
    ending: bool,
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
            // A SIGCONT beside a termination signal that cost no time is `timeout`'s, sent
            // to a process that never stopped (`stops`, for the handler's own check).
            let ending = crate::signals::received().is_some() && late < STOP_EVIDENCE;
            if self.was_stopped() && !ending {
                self.cut_at_switch(Some(late));
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
                Ok(Command::Sync(reply)) => {
                    let _ = reply.send(());
                }
                Ok(Command::Reset) => {
                    self.cut_at_switch(None);
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
        self.ending = true;
        self.emit(None);
        self.out.done();
        // Joined only after the last snapshot is out: a join frees the thread's stack, which
        // waits for the memory-map lock that exiting workers queue for (seconds at -t 1024).
        self.reap();
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

    /// Cuts where each worker switches (`await_switch`), as for a change of settings: for a
    /// stop of the process (`stopped`: how long at least), where every worker has finished the
    /// I/O it was in when the process stopped (those carry the stop in their latency); before
    /// a reset, so that what a worker completed before it is handed over at its boundary and
    /// goes with the totals cleared (taken as of the last hand-over, the I/Os of up to 10 ms a
    /// worker still held counted after a reset the kernel's count had not: 24 more ops than
    /// the device did, on a loop device at 1,300 IOPS).
    fn cut_at_switch(&mut self, stopped: Option<Duration>) {
        self.control.update(|_| {});
        let generation = self.control.generation.load(Acquire);
        self.await_switch(generation);
        self.emit(Some(Cut {
            generation,
            settings: self.settings,
            paused: self.paused,
            stopped,
        }));
    }

    /// Waits until every live worker has switched to `generation`, or `SWITCH_WAIT` passed (a
    /// worker in a slow I/O switches after it; what it completes under the old settings after
    /// the cut is counted apart as `after_switch`, never in the next interval).
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
            Command::Reset | Command::Sync(_) | Command::Stop => {}
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
    }
}
