//! The engine: a pool of worker threads doing positional I/O on one target, and a sampler
//! that turns their counters into `Snapshot`s. It can be reconfigured while it runs — thread
//! count, queue depth, block size, read %, random % — without restarting the run or losing
//! its history. Workers drive the disk with pread/pwrite (psync, one I/O in flight each) or
//! with one io_uring each (`uring`, `iodepth` in flight; `flight` its error paths); `ioengine`
//! says which the kernel allows. The engine knows nothing of terminals, reports or the CLI: it
//! takes an `IoOpener` (how to get a descriptor on the target), the target's `Geometry` and
//! `Settings`, and hands out snapshots on a channel. Commands go to the sampler thread, which cuts an interval at every
//! change so that no snapshot spans two settings, and at every stop of the process (`stops`),
//! so a SIGSTOP or Ctrl-Z is left out of the figures rather than counted as run time.

mod account;
mod apply;
pub use apply::Prepared;
pub mod buffer;
pub mod check;
mod control;
pub mod discard;
mod fit;
mod flight;
mod handover;
pub mod io;
pub mod ioengine;
pub mod memory;
pub mod niceness;
pub mod offsets;
pub mod op;
mod pace;
pub use fit::{check_depth, check_poll};
pub mod pattern;
mod ring;
pub mod ring_fault;
mod sampler;
pub mod stops;
mod uring;
mod worker;

use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::settings::{IoEngine, MAX_BS, MAX_IODEPTH, MAX_THREADS, Settings};
use crate::stats::Snapshot;
use io::{BlockIo, IoOpener};

/// The default sampling interval.
pub const DEFAULT_TICK: Duration = Duration::from_millis(100);

/// How the engine runs, beyond the live `Settings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// The sampling interval.
    pub tick: Duration,
    /// fdatasync after every this many writes of each worker (`--fsync`; 0: never), its time
    /// in the latency of the write that triggered it.
    pub fsync_every: u32,
    /// How the workers drive the disk; with psync the depth must stay 1. Resolve it with
    /// `ioengine::resolve` (which probes the kernel) before choosing io_uring.
    pub ioengine: IoEngine,
    /// The target's queue was checked to poll (`target::poll`): only then may the settings
    /// turn `hipri` on (each io_uring ring set up with `IORING_SETUP_IOPOLL`).
    pub poll: bool,
    /// `--trim`: the target was checked to discard (`target::trim`) and writes are allowed;
    /// without it no trim is ever drawn, whatever the settings' `trim_pct`.
    pub trim: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            tick: DEFAULT_TICK,
            fsync_every: 0,
            ioengine: IoEngine::Psync,
            poll: false,
            trim: false,
        }
    }
}

/// What the engine needs to know of the target to validate settings and align buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Bytes of the target the offsets cover, from 0.
    pub span: u64,
    /// The device's logical block size; with O_DIRECT the block size must be a multiple.
    pub logical_block_size: u32,
    /// Whether the target was opened with O_DIRECT.
    pub direct: bool,
    /// Whether writes are allowed (read % below 100).
    pub write_allowed: bool,
}

impl Geometry {
    /// Checks settings against the target; the message says what is wrong and what to do.
    pub fn validate(&self, s: &Settings) -> Result<(), String> {
        if s.threads == 0 || s.threads > MAX_THREADS {
            return Err(format!("{} threads: use 1 to {MAX_THREADS}", s.threads));
        }
        if s.bs == 0 {
            return Err("block size 0: use at least the logical block size (e.g. 4k)".into());
        }
        if s.bs > MAX_BS {
            return Err(format!("block size {} is above the 16 MiB maximum", s.bs));
        }
        let lbs = u64::from(self.logical_block_size);
        if self.direct && !s.bs.is_multiple_of(lbs) {
            return Err(format!(
                "block size {} bytes is not a multiple of the logical block size ({lbs} bytes), \
                 which O_DIRECT requires; use a multiple of {lbs} or --buffered",
                s.bs
            ));
        }
        if s.bs > self.span {
            return Err(format!(
                "block size {} bytes is larger than the span tested ({} bytes)",
                s.bs, self.span
            ));
        }
        if s.iodepth == 0 || s.iodepth > MAX_IODEPTH {
            return Err(format!("queue depth {}: use 1 to {MAX_IODEPTH}", s.iodepth));
        }
        memory::buffer_limit().check(s.threads, s.iodepth, s.bs)?;
        if s.read_pct > 100 || s.random_pct > 100 || s.trim_pct > 100 {
            return Err("percentages must be 0 to 100".into());
        }
        if (s.read_pct < 100 || s.trim_pct > 0) && !self.write_allowed {
            let what = match s.trim_pct {
                0 => format!("read {}% means writing", s.read_pct),
                t => format!("trim {t}% means discarding blocks"),
            };
            return Err(format!(
                "{what}, which is off; add --allow-write to write to the target"
            ));
        }
        Ok(())
    }
}

/// Where the sampler delivers snapshots.
pub trait SnapshotSink: Send {
    /// Takes one snapshot; false when nobody listens any more.
    fn send(&mut self, snapshot: Snapshot) -> bool;
    /// Called once after the last snapshot.
    fn done(&mut self) {}
}

/// The plain channel behind `Engine::snapshots()`: it closes when the sampler ends.
impl SnapshotSink for Sender<Snapshot> {
    fn send(&mut self, snapshot: Snapshot) -> bool {
        Sender::send(self, snapshot).is_ok()
    }
}

enum Command {
    Apply(
        Settings,
        Vec<Box<dyn BlockIo>>,
        Sender<Result<(), (usize, String)>>,
    ),
    Pause(bool),
    Reset,
    /// Answered once every command sent before it has taken effect.
    Sync(Sender<()>),
    Stop,
}

/// A running benchmark.
pub struct Engine {
    opener: Arc<dyn IoOpener>,
    geometry: Geometry,
    options: Options,
    settings: Settings,
    paused: bool,
    commands: Sender<Command>,
    snapshots: Receiver<Snapshot>,
    sampler: Option<JoinHandle<()>>,
}

impl Engine {
    /// Starts `settings.threads` workers on the target and a sampler emitting a snapshot
    /// every `tick` on the channel `snapshots()`. Fails, with nothing left running, if the
    /// settings do not fit the target or a descriptor cannot be opened.
    pub fn start(
        opener: Arc<dyn IoOpener>,
        geometry: Geometry,
        settings: Settings,
        tick: Duration,
    ) -> Result<Engine, String> {
        let options = Options {
            tick,
            ..Options::default()
        };
        Self::start_with(opener, geometry, settings, options)
    }

    /// Like `start`, with all the options.
    pub fn start_with(
        opener: Arc<dyn IoOpener>,
        geometry: Geometry,
        settings: Settings,
        options: Options,
    ) -> Result<Engine, String> {
        Self::start_checked(opener, geometry, settings, options, None)
    }

    /// Like `start_with`, with `--verify`'s checker: writes are stamped and read back.
    pub fn start_checked(
        opener: Arc<dyn IoOpener>,
        geometry: Geometry,
        settings: Settings,
        options: Options,
        checker: Option<Arc<dyn check::Checker>>,
    ) -> Result<Engine, String> {
        let (snapshot_tx, snapshots) = mpsc::channel();
        Self::start_inner(
            opener,
            geometry,
            settings,
            options,
            (Box::new(snapshot_tx), checker),
            snapshots,
        )
    }

    /// Like `start`, but the sampler hands each snapshot straight to `sink` (a UI's own event
    /// channel, say) instead of a channel the caller would have to forward from; `snapshots()`
    /// stays empty.
    pub fn start_with_sink(
        opener: Arc<dyn IoOpener>,
        geometry: Geometry,
        settings: Settings,
        options: Options,
        sink: Box<dyn SnapshotSink>,
    ) -> Result<Engine, String> {
        Self::start_with_sink_checked(opener, geometry, settings, options, sink, None)
    }

    /// `start_with_sink` with `--verify`'s checker.
    pub fn start_with_sink_checked(
        opener: Arc<dyn IoOpener>,
        geometry: Geometry,
        settings: Settings,
        options: Options,
        sink: Box<dyn SnapshotSink>,
        checker: Option<Arc<dyn check::Checker>>,
    ) -> Result<Engine, String> {
        let (_, closed) = mpsc::channel();
        Self::start_inner(opener, geometry, settings, options, (sink, checker), closed)
    }

    fn start_inner(
        opener: Arc<dyn IoOpener>,
        geometry: Geometry,
        settings: Settings,
        options: Options,
        (sink, checker): (Box<dyn SnapshotSink>, Option<Arc<dyn check::Checker>>),
        snapshots: Receiver<Snapshot>,
    ) -> Result<Engine, String> {
        geometry.validate(&settings)?;
        check_depth(options.ioengine, &settings)?;
        check_poll(&options, &settings)?;
        raise_open_file_limit();
        stops::install();
        let ios = open_many(&*opener, settings.threads)?;
        let (commands, command_rx) = mpsc::channel();
        let sampler = sampler::spawn(geometry, settings, options, command_rx, (sink, checker))?;
        let mut engine = Engine {
            opener,
            geometry,
            options,
            settings: Settings {
                threads: 0,
                ..settings
            },
            paused: false,
            commands,
            snapshots,
            sampler: Some(sampler),
        };
        engine.send_apply(settings, ios)?;
        Ok(engine)
    }

    /// The settings in force.
    pub fn settings(&self) -> Settings {
        self.settings
    }

    /// The target's geometry.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// How the workers drive the disk.
    pub fn ioengine(&self) -> IoEngine {
        self.options.ioengine
    }

    /// Pauses or resumes all workers; paused time does not count in cumulative rates.
    pub fn set_paused(&mut self, paused: bool) {
        if paused != self.paused && self.commands.send(Command::Pause(paused)).is_ok() {
            self.paused = paused;
        }
    }

    /// Waits (at most `timeout`) until every command sent so far has taken effect: after
    /// `set_paused(true)`, until the workers are parked and the interval before is cut.
    pub fn settle(&self, timeout: Duration) {
        let (tx, rx) = std::sync::mpsc::channel();
        if self.commands.send(Command::Sync(tx)).is_ok() {
            let _ = rx.recv_timeout(timeout);
        }
    }

    /// Whether the workers are paused.
    pub fn paused(&self) -> bool {
        self.paused
    }

    /// Zeroes the cumulative statistics (totals, latency, per-thread, kept errors).
    pub fn reset_stats(&self) {
        let _ = self.commands.send(Command::Reset);
    }

    /// Asks the engine to stop: workers finish their current I/O, a last snapshot is sent and
    /// the snapshot channel closes.
    pub fn request_stop(&self) {
        let _ = self.commands.send(Command::Stop);
    }

    /// The snapshots, in order; the channel closes after the last one.
    pub fn snapshots(&self) -> &Receiver<Snapshot> {
        &self.snapshots
    }

    /// Stops (if not yet asked) and waits for the sampler to finish.
    pub fn join(mut self) {
        self.finish();
    }

    /// Stops and waits like `join`, then opens a fresh handle on the target for what comes
    /// after the I/O: how much written data the page cache still holds, the final sync.
    pub fn join_with_handle(mut self) -> Result<Box<dyn BlockIo>, String> {
        self.finish();
        self.opener
            .open_io()
            .map_err(|e| format!("opening the target after the run: {e}"))
    }

    fn finish(&mut self) {
        self.request_stop();
        if let Some(handle) = self.sampler.take() {
            let _ = handle.join();
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Opens `n` independent descriptors, or says why one could not be opened.
fn open_many(opener: &dyn IoOpener, n: usize) -> Result<Vec<Box<dyn BlockIo>>, String> {
    (0..n)
        .map(|i| {
            opener.open_io().map_err(|e| {
                if e.raw_os_error() == Some(nix::libc::EMFILE) {
                    format!(
                        "opening descriptor {}: too many open files; raise `ulimit -n`",
                        i + 1
                    )
                } else {
                    format!("opening descriptor {}: {e}", i + 1)
                }
            })
        })
        .collect()
}

/// Each worker holds its own descriptor: raise the soft open-file limit to the hard one so
/// 1024 threads fit (the usual soft limit is exactly 1024).
fn raise_open_file_limit() {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE)
        && soft < hard
    {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
}
