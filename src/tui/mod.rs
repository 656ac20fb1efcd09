//! The interactive TUI: pick a target, watch it run, move the sliders, quit to a summary.
//!
//! One event channel carries everything the screen reacts to: keys (from an input thread
//! blocked in crossterm's `read`), the engine's snapshots (sent by the sampler itself, through
//! a `SnapshotSink`), and the scratch layout's progress. The loop waits on that channel and redraws only
//! when something arrived, so between snapshots the UI sleeps; it never does I/O on the
//! target and never waits for a worker (settings changes go through `Engine::apply`, which
//! only talks to the sampler). It also wakes every 250 ms to notice SIGTERM/SIGHUP/SIGINT.
//!
//! The session also carries out what keys ask for beyond the engine: a sweep's steps go
//! through the same `Action::Apply` path as the sliders (the `SweepRunner` lives in the app's
//! state, fed with the snapshots), `e` writes the JSON file (the only place the TUI reads the
//! system clock, for the file's name), and a bare `--allow-write` on a block device asks for
//! the device's name before anything is opened for writing.
//!
//! `event_loop` is generic over ratatui's `Backend`, so tests drive it with a `TestBackend`.

pub mod app;
pub mod devmap;
pub mod terminal;
pub mod ui;
pub mod widgets;

use std::io::Write;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Result, anyhow};
use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType};
use ratatui::crossterm::event::{self as ct, KeyEvent};

use crate::app::{EXIT_IO_ERRORS, Prepared, config_report};
use crate::cli::{Config, DEFAULT_SCRATCH_SIZE, SCRATCH_NAME};
use crate::diskstats::{self, DiskCounters};
use crate::engine::{Engine, SnapshotSink};
use crate::report::baseline::{Baseline, compare_run, compare_step};
use crate::report::{ConfigReport, RunReport, SweepReport, text};
use crate::signals;
use crate::stats::Snapshot;
use crate::sweep::DEFAULT_STEP_TIME;
use crate::target::discover::{Roots, discover, visible};
use crate::target::safety;
use crate::units::format_bytes;
use app::{Action, App, Confirm, Picker, Preparing, Run, Screen};

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

/// Delivers the engine's snapshots straight into the event channel, from the sampler's
/// thread: no forwarding thread to wake (that hop cost frame time beside 1024 workers).
struct EventSink(Sender<Event>);

impl SnapshotSink for EventSink {
    fn send(&mut self, snapshot: Snapshot) -> bool {
        self.0.send(Event::Snapshot(Box::new(snapshot))).is_ok()
    }
    fn done(&mut self) {
        let _ = self.0.send(Event::EngineDone);
    }
}

/// How a session ended.
pub enum Outcome {
    /// Left from the picker (or before a run started): nothing to print.
    Left(u8),
    /// A run ended: print its summary (the sweep's, when a sweep ran last).
    Finished {
        report: Box<RunReport>,
        sweep: Option<Box<SweepReport>>,
    },
}

/// Runs the TUI until the user quits; prints the summary on the normal screen afterwards.
pub fn run(config: Config) -> Result<u8> {
    signals::install();
    // Before the screen is taken, so a wrong path fails as a plain message.
    let baseline = config.baseline.as_deref().map(Baseline::load).transpose()?;
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let (tx, rx) = mpsc::channel();
    let (mut term, guard) = terminal::init()?;
    spawn_input(tx.clone())?;
    let mut session = Session::new(config.clone(), tx);
    let mut app = session.first_screen(color);
    app.baseline = baseline.clone();
    let outcome = event_loop(&mut term, &mut app, &rx, &mut session, &mut || {
        terminal::suspend().map_err(anyhow::Error::from)
    });
    drop(guard);
    let code = match outcome? {
        Outcome::Left(code) => code,
        Outcome::Finished { report, sweep } => {
            // Not println!: stdout may be gone (SIGHUP), and that must not panic.
            let mut out = std::io::stdout().lock();
            let _ = write!(
                out,
                "{}",
                final_text(&report, sweep.as_deref(), baseline.as_ref())
            );
            let _ = out.flush();
            let saved = match &sweep {
                Some(s) => crate::app::save_sweep(&config, s),
                None => crate::app::save_run(&config, &report),
            };
            if let Err(e) = saved {
                let _ = writeln!(std::io::stderr(), "diskscope: {e:#}");
            }
            exit_code(&report)
        }
    };
    drop(session);
    Ok(code)
}

/// What is printed on the normal screen after the TUI: the run's summary, or when a sweep ran
/// last the sweep's table and finding; with a baseline, the comparison.
pub fn final_text(
    report: &RunReport,
    sweep: Option<&SweepReport>,
    baseline: Option<&Baseline>,
) -> String {
    let Some(sweep) = sweep else {
        let mut out = text::summary(report, true);
        if let Some(b) = baseline {
            out.push_str(&compare_run(b, report));
            out.push('\n');
        }
        return out;
    };
    let mut out = format!("{}\n", text::header(&sweep.config));
    out.push_str(&format!(
        "sweep of {} over {} steps, {:.1}s each after a {:.1}s ramp\n",
        sweep.dimension.name(),
        sweep.steps.len(),
        sweep.step_time_s,
        crate::sweep::RAMP.as_secs_f64()
    ));
    out.push_str(&text::step_header(sweep.dimension));
    out.push('\n');
    for step in &sweep.steps {
        out.push_str(&text::step_line(sweep.dimension, step));
        if let Some(b) = baseline {
            out.push_str(&compare_step(b, sweep.dimension, step));
        }
        out.push('\n');
    }
    out.push_str(&text::sweep_summary(sweep));
    out
}

/// `diskscope-YYYYmmdd-HHMMSS.json` for a time (UTC: no time zone database is read).
pub fn export_file_name(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rest) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "diskscope-{y:04}{m:02}{d:02}-{:02}{:02}{:02}.json",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Writes `export` as pretty JSON to a new file named for `now` in `dir`; returns its path.
pub fn write_export(dir: &Path, export: &app::Export, now: SystemTime) -> Result<PathBuf> {
    let name = export_file_name(now);
    let text = serde_json::to_string_pretty(export)? + "\n";
    // Two presses in one second get a suffix rather than overwrite the first file.
    let stem = name.trim_end_matches(".json").to_string();
    for n in 1.. {
        let path = if n == 1 {
            dir.join(&name)
        } else {
            dir.join(format!("{stem}-{n}.json"))
        };
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(text.as_bytes())
                    .map_err(|e| anyhow!("{}: cannot write it: {e}", path.display()))?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && n < 100 => continue,
            Err(e) => return Err(anyhow!("{}: cannot create it: {e}", path.display())),
        }
    }
    unreachable!("the loop returns")
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
    /// `--allow-write` was given without naming a device: a device needs confirming.
    bare_write: bool,
    /// The settings asked for on the command line (read % is forced to 100 when a device
    /// runs read-only after the confirmation was declined).
    asked_settings: crate::settings::Settings,
    /// The device whose write confirmation was accepted for the current start.
    confirmed: Option<PathBuf>,
    /// io_uring or psync, and why psync when io_uring was not refused by the user.
    ioengine: crate::engine::ioengine::Resolved,
}

impl Session {
    /// A session that will send its background events (progress, snapshots) on `events`.
    pub fn new(config: Config, events: Sender<Event>) -> Session {
        Session {
            bare_write: config.allow_write.as_deref() == Some(""),
            asked_settings: config.settings,
            confirmed: None,
            ioengine: crate::engine::ioengine::resolve(config.ioengine).unwrap_or_else(|why| {
                crate::engine::ioengine::Resolved {
                    engine: crate::settings::IoEngine::Psync,
                    fallback: Some(why),
                }
            }),
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

    /// Starts on `target`: asks for the write confirmation first when a bare
    /// `--allow-write` meets a block device, else prepares it.
    fn start(&mut self, app: &mut App, target: Option<PathBuf>) {
        if let Screen::Picker(p) = &app.screen {
            self.picker = Some(p.clone());
        }
        self.confirmed = None;
        let is_device = target
            .as_deref()
            .is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device()));
        if self.bare_write && is_device {
            app.screen = Screen::Confirm(Confirm {
                device: target.unwrap_or_default(),
                input: String::new(),
                message: None,
            });
            return;
        }
        if self.bare_write {
            // A device declined or confirmed earlier does not carry over to this target.
            self.config.allow_write = Some(String::new());
            self.config.settings = self.asked_settings;
        }
        self.begin(app, target);
    }

    /// The confirmation was answered: the device's path (or another path to it) allows
    /// writes; anything else asks again.
    fn confirm_write(&mut self, app: &mut App, typed: String) {
        let Screen::Confirm(c) = &mut app.screen else {
            return;
        };
        if typed.is_empty() || !safety::names_device(&typed, &c.device) {
            c.message = Some(format!(
                "'{typed}' is not {}: type its path exactly, or Esc to run read-only",
                c.device.display()
            ));
            c.input.clear();
            return;
        }
        let device = c.device.clone();
        self.config.allow_write = Some(typed);
        self.config.settings = self.asked_settings;
        self.confirmed = Some(device.clone());
        self.begin(app, Some(device));
    }

    /// The confirmation was declined: the device runs read-only, read % at 100.
    fn read_only(&mut self, app: &mut App) {
        let Screen::Confirm(c) = &app.screen else {
            return;
        };
        let device = c.device.clone();
        self.config.allow_write = None;
        self.config.settings = crate::settings::Settings {
            read_pct: 100,
            ..self.asked_settings
        };
        self.begin(app, Some(device));
    }

    /// Prepares `target` on a background thread (laying out the scratch file if needed).
    fn begin(&mut self, app: &mut App, target: Option<PathBuf>) {
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

    /// A target could not be used: back to the picker with the reason, or out. A device
    /// refused after its write confirmation (mounted, in use) goes back to the confirmation
    /// with the reason when there is no picker, so Esc can still run it read-only.
    fn fail(&mut self, app: &mut App, error: anyhow::Error) {
        if let Some(device) = self.confirmed.take()
            && self.picker.is_none()
            && !self.cancelled
            && signals::received().is_none()
        {
            app.screen = Screen::Confirm(Confirm {
                device,
                input: String::new(),
                message: Some(format!("{error:#}")),
            });
            return;
        }
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
        let engine = match Engine::start_with_sink(
            target.clone(),
            target.geometry(),
            self.config.settings,
            crate::engine::Options {
                ioengine: self.ioengine.engine,
                ..crate::engine::Options::default()
            },
            Box::new(EventSink(self.events.clone())),
        ) {
            Ok(e) => e,
            Err(e) => return self.fail(app, anyhow!("{}: {e}", target.path.display())),
        };
        let mut report = config_report(&self.config, &prepared, &self.ioengine);
        if self.config.sweep.is_some() {
            // -T is the step time here; the run itself goes on until quit.
            report.duration_s = None;
        }
        let device = devmap::device_of(&target.path, Path::new("/proc"));
        self.kernel = Some(KernelSampler {
            device: device.clone(),
            proc_root: PathBuf::from("/proc"),
            prev: None,
            next_at: Duration::ZERO,
        });
        let mut run = Run::new(report.clone(), engine.settings(), device);
        run.step_time = self.config.duration.unwrap_or(DEFAULT_STEP_TIME);
        // `--sweep` in a terminal: the sweep starts at once (its steps are checked against
        // the target first, as headless does).
        let sweep = self.config.sweep.take();
        let mut first = Action::None;
        if let Some(spec) = sweep {
            let geometry = target.geometry();
            for (i, s) in spec.steps(self.config.settings).iter().enumerate() {
                if let Err(e) = geometry.validate(s) {
                    engine.request_stop();
                    engine.join();
                    return self.fail(
                        app,
                        anyhow!(
                            "{}: sweep step {} ({}): {e}",
                            target.path.display(),
                            i + 1,
                            spec.dimension.describe(spec.dimension.value(s))
                        ),
                    );
                }
            }
            first = run.start_sweep(spec);
        }
        app.screen = Screen::Run(Box::new(run));
        self.report = Some(report);
        self.engine = Some(engine);
        self.prepared = Some(prepared);
        self.confirmed = None;
        self.act(app, first);
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
            Screen::Confirm(_) => self.outcome = Some(Ok(Outcome::Left(0))),
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
            Action::Export => self.export(app),
            Action::ConfirmWrite(typed) => self.confirm_write(app, typed),
            Action::ReadOnly => self.read_only(app),
        }
    }

    /// `e`: the run (or the last sweep) as JSON in the current directory; the status line
    /// says where, or why not.
    fn export(&mut self, app: &mut App) {
        let Some(run) = app.run_mut() else {
            return;
        };
        let Some(export) = run.export() else {
            run.message = Some("nothing to save yet: no snapshot has arrived".into());
            return;
        };
        match write_export(Path::new("."), &export, SystemTime::now()) {
            Ok(path) => {
                run.message = None;
                let what = match export {
                    app::Export::Run(_) => "run",
                    app::Export::Sweep(_) => "sweep",
                };
                run.notice = Some(format!("saved the {what} to {}", path.display()));
            }
            Err(e) => run.message = Some(format!("{e:#}")),
        }
    }

    fn on_snapshot(&mut self, app: &mut App, s: Snapshot) {
        // `-T` is the run's length, unless a sweep ran: then it is the time per step.
        let out_of_time = self.config.duration.is_some_and(|d| s.at >= d)
            && app.run().is_some_and(|r| r.sweep.is_none());
        let mut next = Action::None;
        if let Some(run) = app.run_mut() {
            if let Some(k) = &mut self.kernel {
                k.on_snapshot(&s, run);
            }
            run.push(s.clone());
            if !run.stopping {
                next = run.advance_sweep(&s);
            }
        }
        self.last = Some(s);
        self.act(app, next);
        if out_of_time && app.run().is_some_and(|r| !r.stopping) {
            self.quit(app);
        }
    }

    fn engine_done(&mut self, app: &App) {
        if let Some(engine) = self.engine.take() {
            engine.join();
        }
        let run_report = app.run().and_then(Run::run_report);
        let (Some(config), Some(last)) = (self.report.clone(), self.last.as_ref()) else {
            self.outcome = Some(Err(anyhow!("the engine stopped before its first snapshot")));
            return;
        };
        let interrupted_by = signals::received().map(|s| s.as_str().to_string());
        let mut report = run_report.unwrap_or_else(|| RunReport::new(config, last, vec![]));
        report.interrupted_by.clone_from(&interrupted_by);
        let sweep = app
            .run()
            .filter(|r| r.last_sweep().is_some())
            .and_then(Run::sweep_report)
            .map(|mut s| {
                s.interrupted_by = interrupted_by;
                Box::new(s)
            });
        self.outcome = Some(Ok(Outcome::Finished {
            report: Box::new(report),
            sweep,
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
                    // A suspended run is a paused one: no I/O waits out the stop and comes
                    // back as a latency of seconds. It resumes on `fg` unless paused before.
                    let engine = self.engine.as_mut().filter(|e| !e.paused());
                    let resume = engine.is_some();
                    if let Some(e) = engine {
                        e.set_paused(true);
                        e.settle(Duration::from_millis(500));
                    }
                    let result = suspend();
                    if let Some(e) = self.engine.as_mut().filter(|_| resume) {
                        e.set_paused(false);
                    }
                    result?;
                    full_redraw = true;
                }
                action => self.act(app, action),
            },
            Event::Resize => {}
            Event::InputClosed => self.quit(app),
            Event::Snapshot(s) => self.on_snapshot(app, *s),
            Event::EngineDone => self.engine_done(app),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_names_carry_the_utc_date_and_time() {
        let at = |secs: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(secs);
        assert_eq!(export_file_name(at(0)), "diskscope-19700101-000000.json");
        // 2000-02-29 (a leap day of a century year) 23:59:59.
        assert_eq!(
            export_file_name(at(951_868_799)),
            "diskscope-20000229-235959.json"
        );
        assert_eq!(
            export_file_name(at(1_700_000_000)),
            "diskscope-20231114-221320.json"
        );
        assert_eq!(
            export_file_name(at(4_102_444_800)),
            "diskscope-21000101-000000.json"
        );
    }

    #[test]
    fn exports_never_overwrite_an_earlier_file() {
        let dir = tempfile::tempdir().expect("temp dir");
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let export = app::Export::Sweep(Box::new(SweepReport {
            config: ConfigReport {
                duration_s: Some(3.0),
                ..ConfigReport::example()
            },
            dimension: crate::sweep::Dimension::Threads,
            step_time_s: 3.0,
            steps: vec![],
            saturation: None,
            partial_step: None,
            errors: vec![],
            interrupted_by: None,
        }));
        let a = write_export(dir.path(), &export, now).expect("first");
        let b = write_export(dir.path(), &export, now).expect("second");
        assert_eq!(a.file_name().unwrap(), "diskscope-20231114-221320.json");
        assert_eq!(b.file_name().unwrap(), "diskscope-20231114-221320-2.json");
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
        assert!(v["steps"].is_array());
    }
}
