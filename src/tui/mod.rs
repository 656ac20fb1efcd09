//! The interactive TUI: pick a target, watch it run, move the sliders, quit to a summary.
//!
//! One event channel carries everything the screen reacts to: keys (from an input thread
//! blocked in crossterm's `read`), the engine's snapshots (forwarded by a thread of their
//! own), and the scratch layout's progress. The loop waits on that channel and redraws only
//! when something arrived, so between snapshots the UI sleeps; it never does I/O on the
//! target and never waits for a worker (settings changes go through `Engine::apply`, which
//! only talks to the sampler). It also wakes every 250 ms to notice SIGTERM/SIGHUP/SIGINT.
//!
//! `event_loop` is generic over ratatui's `Backend`, so tests drive it with a `TestBackend`.

pub mod app;
pub mod devmap;
pub mod terminal;
pub mod ui;
pub mod widgets;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType};
use ratatui::crossterm::event::{self as ct, KeyEvent};

use crate::app::{EXIT_IO_ERRORS, Prepared, config_report};
use crate::cli::{Config, DEFAULT_SCRATCH_SIZE, SCRATCH_NAME};
use crate::diskstats::{self, DiskCounters};
use crate::engine::{DEFAULT_TICK, Engine};
use crate::report::{ConfigReport, RunReport, text};
use crate::signals;
use crate::stats::Snapshot;
use crate::target::discover::{Roots, discover, visible};
use crate::units::format_bytes;
use app::{Action, App, Picker, Preparing, Run, Screen};

/// How often the kernel's counters are read.
const KERNEL_EVERY: Duration = Duration::from_secs(1);
/// The loop wakes at least this often to poll the signal flag.
const SIGNAL_POLL: Duration = Duration::from_millis(250);

/// Everything the loop reacts to.
pub enum Event {
    Key(KeyEvent),
    /// The terminal changed size.
    Resize,
    /// Terminal input ended (the terminal went away).
    InputClosed,
    Snapshot(Box<Snapshot>),
    /// The engine sent its last snapshot.
    EngineDone,
    /// Scratch layout progress: bytes done, bytes total.
    Progress(u64, u64),
    /// The target is ready, or could not be prepared.
    Prepared(Result<Prepared>),
}

/// How a session ended.
pub enum Outcome {
    /// Left from the picker (or before a run started): nothing to print.
    Left(u8),
    /// A run ended: print its summary.
    Finished { report: Box<RunReport> },
}

/// Runs the TUI until the user quits; prints the summary on the normal screen afterwards.
pub fn run(config: Config) -> Result<u8> {
    signals::install();
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let (tx, rx) = mpsc::channel();
    let (mut term, guard) = terminal::init()?;
    spawn_input(tx.clone())?;
    let mut session = Session::new(config, tx);
    let mut app = session.first_screen(color);
    let outcome = event_loop(&mut term, &mut app, &rx, &mut session, &mut || {
        terminal::suspend().map_err(anyhow::Error::from)
    });
    drop(guard);
    let code = match outcome? {
        Outcome::Left(code) => code,
        Outcome::Finished { report } => {
            // Not println!: stdout may be gone (SIGHUP), and that must not panic.
            let mut out = std::io::stdout().lock();
            let _ = write!(out, "{}", text::summary(&report, true));
            let _ = out.flush();
            exit_code(&report)
        }
    };
    drop(session);
    Ok(code)
}

fn exit_code(report: &RunReport) -> u8 {
    if let Some(sig) = signals::received() {
        signals::exit_status(sig)
    } else if report.had_io_errors() {
        EXIT_IO_ERRORS
    } else {
        0
    }
}

/// Reads terminal input on its own thread and forwards keys and resizes.
fn spawn_input(tx: Sender<Event>) -> Result<()> {
    std::thread::Builder::new()
        .name("tui-input".into())
        .spawn(move || {
            loop {
                let event = match ct::read() {
                    Ok(ct::Event::Key(k)) => Event::Key(k),
                    Ok(ct::Event::Resize(..)) => Event::Resize,
                    Ok(_) => continue,
                    Err(_) => Event::InputClosed,
                };
                let closed = matches!(event, Event::InputClosed);
                if tx.send(event).is_err() || closed {
                    return;
                }
            }
        })
        .map_err(|e| anyhow!("starting the input thread: {e}"))?;
    Ok(())
}

/// The kernel's counters for the target's device, sampled about once a second.
struct KernelSampler {
    device: Option<String>,
    proc_root: PathBuf,
    prev: Option<(Instant, DiskCounters)>,
    next_at: Duration,
}

impl KernelSampler {
    /// Called on every snapshot; at most once per `KERNEL_EVERY` of engine time it reads
    /// /proc/diskstats (not the target) and hands the rates to the run screen.
    fn on_snapshot(&mut self, s: &Snapshot, run: &mut Run) {
        if s.at < self.next_at {
            return;
        }
        self.next_at = s.at + KERNEL_EVERY;
        let now = Instant::now();
        let counters = self
            .device
            .as_ref()
            .and_then(|d| diskstats::read_counters(&self.proc_root, d).ok());
        let rates = match (&self.prev, &counters) {
            (Some((t0, c0)), Some(c1)) => Some(diskstats::rates(c0, c1, now - *t0)),
            _ => None,
        };
        self.prev = counters.map(|c| (now, c));
        run.set_kernel(rates);
    }
}

/// What the loop drives: the config, the prepared target and the engine.
pub struct Session {
    config: Config,
    events: Sender<Event>,
    /// The picker to return to when a chosen target fails.
    picker: Option<Picker>,
    prepared: Option<Prepared>,
    engine: Option<Engine>,
    report: Option<ConfigReport>,
    kernel: Option<KernelSampler>,
    last: Option<Snapshot>,
    /// Quit was asked for while the target was being prepared.
    cancelled: bool,
    outcome: Option<Result<Outcome>>,
}

impl Session {
    /// A session that will send its background events (progress, snapshots) on `events`.
    pub fn new(config: Config, events: Sender<Event>) -> Session {
        Session {
            config,
            events,
            picker: None,
            prepared: None,
            engine: None,
            report: None,
            kernel: None,
            last: None,
            cancelled: false,
            outcome: None,
        }
    }

    /// The picker when no target was given; else starts preparing the target.
    pub fn first_screen(&mut self, color: bool) -> App {
        if self.config.target.is_some() {
            let mut app = App::new(
                Screen::Preparing(Preparing {
                    label: String::new(),
                    done: 0,
                    total: 0,
                }),
                color,
            );
            let target = self.config.target.clone();
            self.start(&mut app, target);
            return app;
        }
        let (devices, message) = match discover(&Roots::system()) {
            Ok(d) => (visible(d, self.config.all), None),
            Err(e) => (Vec::new(), Some(format!("cannot list devices: {e:#}"))),
        };
        let size = self.config.size.unwrap_or(DEFAULT_SCRATCH_SIZE);
        let label = format!(
            "scratch file here (./{SCRATCH_NAME}, {})",
            format_bytes(size)
        );
        let mut picker = Picker::new(label, devices);
        picker.message = message;
        App::new(Screen::Picker(picker), color)
    }

    /// Prepares `target` on a background thread (laying out the scratch file if needed).
    fn start(&mut self, app: &mut App, target: Option<PathBuf>) {
        if let Screen::Picker(p) = &app.screen {
            self.picker = Some(p.clone());
        }
        let label = match &target {
            None => format!("./{SCRATCH_NAME}"),
            Some(p) if p.is_dir() => p.join(SCRATCH_NAME).display().to_string(),
            Some(p) => p.display().to_string(),
        };
        app.screen = Screen::Preparing(Preparing {
            label,
            done: 0,
            total: 0,
        });
        self.config.target = target;
        let config = self.config.clone();
        let tx = self.events.clone();
        let spawned = std::thread::Builder::new()
            .name("tui-prepare".into())
            .spawn(move || {
                let mut last_pct = None;
                let progress_tx = tx.clone();
                let mut progress = move |done: u64, total: u64| {
                    let pct = done * 100 / total.max(1);
                    if last_pct != Some(pct) {
                        last_pct = Some(pct);
                        let _ = progress_tx.send(Event::Progress(done, total));
                    }
                };
                let result = crate::app::prepare(&config, &mut progress);
                let _ = tx.send(Event::Prepared(result));
            });
        if let Err(e) = spawned {
            self.fail(app, anyhow!("starting the preparation thread: {e}"));
        }
    }

    /// A target could not be used: back to the picker with the reason, or out.
    fn fail(&mut self, app: &mut App, error: anyhow::Error) {
        match self.picker.take() {
            Some(mut p) if !self.cancelled && signals::received().is_none() => {
                p.message = Some(format!("{error:#}"));
                app.screen = Screen::Picker(p);
            }
            _ if self.cancelled || signals::received().is_some() => {
                self.outcome = Some(Ok(Outcome::Left(
                    signals::received().map_or(0, signals::exit_status),
                )));
            }
            _ => self.outcome = Some(Err(error)),
        }
    }

    /// The target is ready: start the engine and show the run screen.
    fn prepared(&mut self, app: &mut App, result: Result<Prepared>) {
        let prepared = match result {
            Ok(p) if !self.cancelled && signals::received().is_none() => p,
            Ok(_) => {
                self.outcome = Some(Ok(Outcome::Left(
                    signals::received().map_or(0, signals::exit_status),
                )));
                return;
            }
            Err(e) => return self.fail(app, e),
        };
        let target = prepared.target.clone();
        let mut engine = match Engine::start(
            target.clone(),
            target.geometry(),
            self.config.settings,
            DEFAULT_TICK,
        ) {
            Ok(e) => e,
            Err(e) => return self.fail(app, anyhow!("{}: {e}", target.path.display())),
        };
        let snapshots = engine.take_snapshots();
        let tx = self.events.clone();
        let forwarder = std::thread::Builder::new()
            .name("tui-snapshots".into())
            .spawn(move || {
                for s in snapshots {
                    if tx.send(Event::Snapshot(Box::new(s))).is_err() {
                        return;
                    }
                }
                let _ = tx.send(Event::EngineDone);
            });
        if let Err(e) = forwarder {
            return self.fail(app, anyhow!("starting the snapshot thread: {e}"));
        }
        let report = config_report(&self.config, &prepared);
        let device = devmap::device_of(&target.path, Path::new("/proc"));
        self.kernel = Some(KernelSampler {
            device: device.clone(),
            proc_root: PathBuf::from("/proc"),
            prev: None,
            next_at: Duration::ZERO,
        });
        app.screen = Screen::Run(Box::new(Run::new(
            report.clone(),
            engine.settings(),
            device,
        )));
        self.report = Some(report);
        self.engine = Some(engine);
        self.prepared = Some(prepared);
    }

    /// Begins leaving: stops the engine (the loop then waits for its last snapshot), cancels
    /// a layout, or leaves the picker at once.
    fn quit(&mut self, app: &mut App) {
        match &mut app.screen {
            Screen::Picker(_) => self.outcome = Some(Ok(Outcome::Left(0))),
            Screen::Preparing(_) => {
                if !self.cancelled {
                    self.cancelled = true;
                    // The layout polls the signal flag to stop early and remove its partial
                    // file; Ctrl-C in raw mode is a key, so raise the signal it would have been.
                    let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGINT);
                }
            }
            Screen::Run(run) => {
                run.stopping = true;
                if let Some(engine) = &self.engine {
                    engine.request_stop();
                }
            }
        }
    }

    fn act(&mut self, app: &mut App, action: Action) {
        match action {
            Action::None | Action::Suspend => {}
            Action::Quit => self.quit(app),
            Action::Start(target) => self.start(app, target),
            Action::Apply(settings) => {
                if let Some(engine) = &mut self.engine {
                    let result = engine.apply(settings);
                    app.applied(result, engine.settings());
                }
            }
            Action::Pause(p) => {
                if let Some(engine) = &mut self.engine {
                    engine.set_paused(p);
                }
            }
            Action::ResetStats => {
                if let Some(engine) = &self.engine {
                    engine.reset_stats();
                }
            }
        }
    }

    fn on_snapshot(&mut self, app: &mut App, s: Snapshot) {
        let out_of_time = self.config.duration.is_some_and(|d| s.at >= d);
        if let Some(run) = app.run_mut() {
            if let Some(k) = &mut self.kernel {
                k.on_snapshot(&s, run);
            }
            run.push(s.clone());
        }
        self.last = Some(s);
        if out_of_time && app.run().is_some_and(|r| !r.stopping) {
            self.quit(app);
        }
    }

    fn engine_done(&mut self) {
        if let Some(engine) = self.engine.take() {
            engine.join();
        }
        let (Some(config), Some(last)) = (self.report.clone(), self.last.as_ref()) else {
            self.outcome = Some(Err(anyhow!("the engine stopped before its first snapshot")));
            return;
        };
        let mut report = RunReport::new(config, last, vec![]);
        report.interrupted_by = signals::received().map(|s| s.as_str().to_string());
        self.outcome = Some(Ok(Outcome::Finished {
            report: Box::new(report),
        }));
    }

    /// Handles one event.
    pub fn handle(
        &mut self,
        app: &mut App,
        event: Event,
        suspend: &mut dyn FnMut() -> Result<()>,
    ) -> Result<bool> {
        let mut full_redraw = false;
        match event {
            Event::Key(k) => match app.on_key(k) {
                Action::Suspend => {
                    suspend()?;
                    full_redraw = true;
                }
                action => self.act(app, action),
            },
            Event::Resize => {}
            Event::InputClosed => self.quit(app),
            Event::Snapshot(s) => self.on_snapshot(app, *s),
            Event::EngineDone => self.engine_done(),
            Event::Progress(done, total) => {
                if let Screen::Preparing(p) = &mut app.screen {
                    p.done = done;
                    p.total = total;
                }
            }
            Event::Prepared(result) => self.prepared(app, result),
        }
        Ok(full_redraw)
    }
}

/// Waits for events and redraws after each batch until the session has an outcome.
/// `suspend` is what Ctrl-Z does (the real terminal's `suspend`, or nothing in tests).
pub fn event_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    events: &Receiver<Event>,
    session: &mut Session,
    suspend: &mut dyn FnMut() -> Result<()>,
) -> Result<Outcome>
where
    B::Error: Send + Sync + 'static,
{
    terminal.draw(|f| f.render_widget(&*app, f.area()))?;
    let mut signalled = false;
    loop {
        let first = match events.recv_timeout(SIGNAL_POLL) {
            Ok(e) => Some(e),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return Err(anyhow!("the event channel closed")),
        };
        if !signalled && signals::received().is_some() {
            signalled = true;
            session.quit(app);
        }
        let mut full_redraw = false;
        let woke_by_event = first.is_some();
        if let Some(first) = first {
            full_redraw |= session.handle(app, first, suspend)?;
            // Drain what else is queued so a burst costs one redraw.
            while session.outcome.is_none() {
                match events.try_recv() {
                    Ok(e) => full_redraw |= session.handle(app, e, suspend)?,
                    Err(_) => break,
                }
            }
        }
        if let Some(outcome) = session.outcome.take() {
            return outcome;
        }
        if !woke_by_event && !signalled {
            continue;
        }
        if full_redraw {
            // Not `Terminal::clear`: it asks the terminal for the cursor position, which waits
            // on the input thread's reader. Clearing the screen and dropping both buffers
            // forces the same full redraw without a query.
            terminal.backend_mut().clear_region(ClearType::All)?;
            terminal.swap_buffers();
        }
        terminal.draw(|f| f.render_widget(&*app, f.area()))?;
    }
}
