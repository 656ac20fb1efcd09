//! The controller: carries out the `Action`s keys ask for on the engine and the target —
//! preparing a target on a background thread, the write confirmation for a bare
//! `--allow-write` on a block device, starting the engine, applying settings (a sweep's steps
//! go through the same `Action::Apply` path as the sliders), `e`'s export (the only place the
//! TUI reads the system clock, for the file's name) — and decides how the session ends.

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::{Duration, SystemTime};

use anyhow::{Result, anyhow};

use super::action::Action;
use super::event::{Event, EventSink};
use super::kernel::KernelSampler;
use super::state::{App, Confirm, Picker, Preparing, Run, Screen};
use crate::cli::{Config, DEFAULT_SCRATCH_SIZE, SCRATCH_NAME};
use crate::diskstats::devmap;
use crate::engine::{DEFAULT_TICK, Engine};
use crate::exit::ExitStatus;
use crate::report::export::{Export, write_export};
use crate::report::{ConfigReport, RunReport, SweepReport};
use crate::signals;
use crate::stats::Snapshot;
use crate::suite::SuiteReport;
use crate::sweep::DEFAULT_STEP_TIME;
use crate::target::discover::{Roots, discover, visible};
use crate::target::prepare::{Prepared, config_report};
use crate::target::safety;
use crate::units::format_bytes;

/// How a session ended.
pub enum Outcome {
    /// Left from the picker (or before a run started): nothing to print.
    Left(ExitStatus),
    /// A run ended: print its summary (the sweep's, when a sweep ran last; the card, when
    /// a suite finished).
    Finished {
        report: Box<RunReport>,
        sweep: Option<Box<SweepReport>>,
        suite: Option<Box<SuiteReport>>,
    },
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
    pub(super) outcome: Option<Result<Outcome>>,
    /// `--allow-write` was given without naming a device: a device needs confirming.
    bare_write: bool,
    /// The settings asked for on the command line (read % is forced to 100 when a device
    /// runs read-only after the confirmation was declined).
    asked_settings: crate::settings::Settings,
    /// The device whose write confirmation was accepted for the current start.
    confirmed: Option<PathBuf>,
}

impl Session {
    /// A session that will send its background events (progress, snapshots) on `events`.
    pub fn new(config: Config, events: Sender<Event>) -> Session {
        Session {
            bare_write: config.allow_write.as_deref() == Some(""),
            asked_settings: config.settings,
            confirmed: None,
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
                let result = crate::target::prepare::prepare(&config, &mut progress);
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
                self.outcome = Some(Ok(Outcome::Left(ExitStatus::left())));
            }
            _ => self.outcome = Some(Err(error)),
        }
    }

    /// The target is ready: start the engine and show the run screen.
    fn prepared(&mut self, app: &mut App, result: Result<Prepared>) {
        let prepared = match result {
            Ok(p) if !self.cancelled && signals::received().is_none() => p,
            Ok(_) => {
                self.outcome = Some(Ok(Outcome::Left(ExitStatus::left())));
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
                tick: DEFAULT_TICK,
                ioengine: self.config.ioengine.unwrap_or_default(),
                ..crate::engine::Options::default()
            },
            Box::new(EventSink(self.events.clone())),
        ) {
            Ok(e) => e,
            Err(e) => return self.fail(app, anyhow!("{}: {e}", target.path.display())),
        };
        let mut report = config_report(&self.config, &prepared);
        if self.config.sweep.is_some() {
            // -T is the step time here; the run itself goes on until quit.
            report.duration_s = None;
        }
        let device = devmap::device_of(&target.path, Path::new("/proc"));
        self.kernel = Some(KernelSampler::new(
            device.clone(),
            Path::new("/proc"),
            &crate::sys::sysfs_root(),
        ));
        let mut run = Run::new(report.clone(), engine.settings(), device);
        run.step_time = self.config.duration.unwrap_or(DEFAULT_STEP_TIME);
        run.suite_timing = self.config.suite_timing;
        run.ram_bytes = crate::engine::memory::ram_bytes();
        // `--sweep` in a terminal: the sweep starts at once (its steps are checked against
        // the target first, as headless does).
        let sweep = self.config.sweep.take();
        let mut first = Action::None;
        if let Some(spec) = sweep {
            if let Err(e) = spec.check_steps(self.config.settings, &target.geometry()) {
                engine.request_stop();
                engine.join();
                return self.fail(app, anyhow!("{}: {e}", target.path.display()));
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
    pub(super) fn quit(&mut self, app: &mut App) {
        match &mut app.screen {
            Screen::Picker(_) => self.outcome = Some(Ok(Outcome::Left(ExitStatus::Success))),
            Screen::Preparing(_) => {
                if !self.cancelled {
                    self.cancelled = true;
                    // The layout polls the signal flag to stop early and remove its partial
                    // file; Ctrl-C in raw mode is a key, so raise the signal it would have been.
                    let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGINT);
                }
            }
            Screen::Confirm(_) => self.outcome = Some(Ok(Outcome::Left(ExitStatus::Success))),
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
            Action::ApplyPaused(settings, p) => {
                if let Some(engine) = &mut self.engine {
                    engine.set_paused(p);
                    let result = engine.apply(settings);
                    app.applied(result, engine.settings());
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
                    Export::Run(_) => "run",
                    Export::Sweep(_) => "sweep",
                    Export::Suite(_) => "card",
                };
                run.notice = Some(format!("saved the {what} to {}", path.display()));
            }
            Err(e) => run.message = Some(format!("{e:#}")),
        }
    }

    fn on_snapshot(&mut self, app: &mut App, s: Snapshot) {
        // `-T` is the run's length, unless a sweep ran: then it is the time per step.
        let out_of_time = self.config.duration.is_some_and(|d| s.at >= d)
            && app
                .run()
                .is_some_and(|r| r.sweep.is_none() && r.suite.is_none());
        let mut next = Action::None;
        if let Some(run) = app.run_mut() {
            run.push(s.clone());
            if let Some(k) = &mut self.kernel {
                k.on_snapshot(&s, run);
            }
            if !run.stopping {
                next = match run.advance_sweep(&s) {
                    Action::None => run.advance_suite(&s),
                    a => a,
                };
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
        let suite = app.run().and_then(Run::suite_report).map(Box::new);
        self.outcome = Some(Ok(Outcome::Finished {
            report: Box::new(report),
            sweep,
            suite,
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
