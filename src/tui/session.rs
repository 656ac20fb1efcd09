//! The controller: carries out the `Action`s keys ask for on the engine and the target —
//! getting to the run screen (`start`: the picker, the write confirmation for a bare
//! `--allow-write` on a block device, preparing the target, starting the engine), applying settings (a sweep's steps
//! go through the same `Action::Apply` path as the sliders), `e`'s export (the only place the
//! TUI reads the system clock, for the file's name) — and decides how the session ends.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::{Duration, SystemTime};

use anyhow::Result;

use super::action::Action;
use super::event::Event;
use super::kernel::KernelSampler;
use super::state::{App, Picker, Screen};
use crate::cli::Config;
use crate::engine::Engine;
use crate::exit::ExitStatus;
use crate::model::{ConfigReport, RunReport, SweepReport};
use crate::render::files;
use crate::results::export::{Export, write_export, write_export_chart};
use crate::stats::Snapshot;
use crate::suite::SuiteReport;
use crate::target::prepare::Prepared;
use crate::target::shell::quote_path;

pub mod burnin;
mod disks;
mod leave;
mod start;
mod surface;

/// How a session ended.
pub enum Outcome {
    /// Left before a run started (the picker, the write confirmation, the layout): how the
    /// process ends, and the one line that says what happened.
    Left(ExitStatus, String),
    /// A run ended: print its summary (the sweep's, when a sweep ran last; the card, when
    /// a suite finished).
    Finished {
        report: Box<RunReport>,
        sweep: Option<Box<SweepReport>>,
        suite: Option<Box<SuiteReport>>,
        /// The verdicts of a sweep or suite that ran but is not printed whole (the run
        /// went on after it), a line each.
        notes: Vec<String>,
        /// The terminal's width at the end: the summary fits it (80 columns at least).
        width: u16,
    },
    /// A run on several targets ended: print its table.
    Disks(Box<crate::model::disks::DisksReport>),
    /// A surface scan opened from the picker ended: print its map and findings.
    Surface(Box<crate::model::surface::SurfaceDoc>),
    /// A burn-in ended: print its report.
    Verify(Box<crate::model::verify::VerifyReport>),
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
    /// The key that quit ("the q key", "Ctrl-C"), when a key did (not a signal).
    quit_key: Option<String>,
    /// What is being prepared: the scratch file's path or the target's.
    preparing: Option<PathBuf>,
    /// A notice for the run screen when it comes (the picker shows it already).
    notice: Option<String>,
    pub(super) outcome: Option<Result<Outcome>>,
    /// `--allow-write` was given without naming a device: a device needs confirming.
    bare_write: bool,
    /// The settings asked for on the command line (read % is forced to 100 when a device
    /// runs read-only after the confirmation was declined).
    asked_settings: crate::settings::Settings,
    /// The device whose write confirmation was accepted for the current start.
    confirmed: Option<PathBuf>,
    /// The engines and clock of a run on several targets.
    disks: Option<disks::DisksSession>,
    /// Whether an event since the last frame changed what is drawn: every event but a
    /// snapshot of a target the disks screen draws only once a second.
    redraw: bool,
    /// Tells the terminal to capture the mouse or not (`None` with no real terminal).
    pub mouse_switch: Option<fn(bool)>,
    /// The running surface scan's stop flag.
    surface_stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The target being prepared is for a surface scan, not a run.
    surface_next: bool,
    /// `--allow-write` as given, while a surface scan from the picker runs read-only.
    surface_write: Option<Option<std::ffi::OsString>>,
    /// `--burn-in`: its report once it stopped or ended, for the way out.
    burn_in: Option<Box<crate::model::verify::VerifyReport>>,
    /// The last surface scan left with Esc for the picker: q there prints and saves it.
    surface_kept: Option<Box<crate::model::surface::SurfaceDoc>>,
    /// The last surface scan started from the run screen: saved with the run's results.
    surface_of_run: Option<Box<crate::model::surface::SurfaceDoc>>,
    /// `--burn-in`: set while `p` holds it paused (its threads wait at their next block).
    burn_in_paused: std::sync::Arc<crate::verify::live::Pause>,
    /// `--verify`: the run's checker, whose findings join the run's report at the end.
    during: Option<std::sync::Arc<crate::verify::during::During>>,
}

impl Session {
    /// A session that will send its background events (progress, snapshots) on `events`.
    pub fn new(mut config: Config, events: Sender<Event>) -> Session {
        // `--surface` in a terminal: the scan reads only, whatever --allow-write says.
        let config_surface = config.surface.is_some();
        if config_surface {
            config.allow_write = None;
        }
        Session {
            bare_write: config.allow_write.as_ref().is_some_and(|a| a.is_empty()),
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
            quit_key: None,
            preparing: None,
            notice: None,
            outcome: None,
            disks: None,
            redraw: true,
            mouse_switch: None,
            surface_stop: None,
            surface_next: config_surface,
            surface_write: None,
            burn_in: None,
            surface_kept: None,
            surface_of_run: None,
            during: None,
            burn_in_paused: Default::default(),
        }
    }

    /// Whether to draw a frame for the events handled since the last call.
    pub fn take_redraw(&mut self) -> bool {
        std::mem::take(&mut self.redraw)
    }

    /// Shows `notice` on the first screen: the picker's line, or the run screen's status
    /// line once the run starts.
    pub fn show_notice(&mut self, app: &mut App, notice: Option<String>) {
        match &mut app.screen {
            Screen::Picker(p) => p.notice = notice,
            _ => self.notice = notice,
        }
    }

    /// `M`: the mouse captured or given back, and the screen says what that means.
    fn toggle_mouse(&mut self, app: &mut App) {
        app.mouse.on = !app.mouse.on;
        if let Some(switch) = self.mouse_switch {
            switch(app.mouse.on);
        }
        let said = if app.mouse.on {
            "mouse on: click or drag a slider, wheel scrolls · Shift-drag selects text · M: off"
        } else {
            "mouse off: the terminal selects text · M: on"
        };
        match &mut app.screen {
            Screen::Picker(p) => p.notice = Some(said.into()),
            Screen::Run(r) => r.notice = Some(said.into()),
            _ => {}
        }
    }

    fn act(&mut self, app: &mut App, action: Action) {
        if self.disks_act(app, &action) {
            return;
        }
        match action {
            Action::None | Action::Suspend | Action::ShowLog => {}
            Action::Quit => self.quit(app, None),
            Action::Start(target) => self.start(app, target),
            Action::StartMany(targets) => self.start_many(app, targets),
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
            Action::ToggleMouse => self.toggle_mouse(app),
            Action::Surface(act) if self.config.verify.burn_in.is_some() => {
                self.burn_in_act(app, act);
            }
            Action::Surface(act) => self.surface_act(app, act),
        }
    }

    /// `e`: the run, or the sweep or the card running (as it stands) or last, as JSON in
    /// the current directory and its chart beside it; the status line names both, or says
    /// why not.
    fn export(&mut self, app: &mut App) {
        let Some(run) = app.run_mut() else {
            return;
        };
        let Some(export) = run.export() else {
            run.message = Some("nothing to save yet: no snapshot has arrived".into());
            return;
        };
        let so_far = run.sweeping() || run.suite_running();
        match write_export(Path::new("."), &export, SystemTime::now()) {
            Ok(path) => {
                run.message = None;
                let what = match export {
                    Export::Run(_) => "run",
                    Export::Sweep(_) if so_far => "sweep so far",
                    Export::Sweep(_) => "sweep",
                    Export::Suite(_) if so_far => "card so far",
                    Export::Suite(_) => "card",
                    Export::Disks(_) => "run on several targets",
                };
                let saved = format!("saved the {what} to {}", quote_path(&path));
                match write_export_chart(&path, &export, &files::EXPORT) {
                    Ok(svg) => {
                        let svg = quote_path(&svg);
                        run.notice = Some(format!("{saved} and its chart to {svg}"));
                    }
                    Err(e) => {
                        run.notice = Some(saved);
                        run.message = Some(format!("the chart was not saved: {e:#}"));
                    }
                }
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
            self.quit(app, None);
        }
    }

    /// Handles one event.
    pub fn handle(
        &mut self,
        app: &mut App,
        event: Event,
        suspend: &mut dyn FnMut() -> Result<()>,
    ) -> Result<bool> {
        let mut full_redraw = false;
        if !matches!(event, Event::DiskSnapshot(..)) {
            self.redraw = true;
        }
        match event {
            Event::Key(k) => match app.on_key(k) {
                Action::Quit if matches!(app.screen, Screen::Surface(_)) => {
                    self.quit_key = Some(leave::key_name(&k));
                    self.surface_quit(app);
                }
                Action::Quit => self.quit(app, Some(leave::key_name(&k))),
                Action::Suspend => {
                    // A suspended run is a paused one: no I/O waits out the stop and comes
                    // back as a latency of seconds. It resumes on `fg` unless paused before.
                    let engine = self.engine.as_mut().filter(|e| !e.paused());
                    let resume = engine.is_some();
                    if let Some(e) = engine {
                        e.set_paused(true);
                        e.settle(Duration::from_millis(500));
                    }
                    let resume_disks = self.disks_suspend(app, true);
                    let result = suspend();
                    if let Some(e) = self.engine.as_mut().filter(|_| resume) {
                        e.set_paused(false);
                    }
                    if resume_disks {
                        self.disks_suspend(app, false);
                    }
                    result?;
                    full_redraw = true;
                }
                action => self.act(app, action),
            },
            Event::Mouse(m, at) => {
                let action = app.on_mouse(m, at);
                self.act(app, action);
            }
            Event::Resize => {}
            Event::InputClosed => self.terminal_gone(app, crate::output::Lost::InputClosed),
            Event::Snapshot(s) => self.on_snapshot(app, *s),
            Event::EngineDone => self.engine_done(app),
            Event::Progress(done, total) => {
                if let Screen::Preparing(p) = &mut app.screen {
                    p.done = done;
                    p.total = total;
                }
            }
            Event::Prepared(result) => self.prepared(app, result),
            Event::DiskSnapshot(i, s, at) => {
                self.redraw |= self.disk_snapshot(app, i, *s, at);
            }
            Event::DiskDone(i) => self.disk_done(app, i),
            Event::PreparedMany(result) => self.prepared_many(app, result),
            Event::SurfaceProgress(report, p) => self.surface_progress(app, *report, p),
            Event::SurfaceDone(result) => self.surface_done(app, result),
            Event::BurnInDone(result) => self.burn_in_done(app, *result),
        }
        app.note_messages();
        Ok(full_redraw)
    }
}
