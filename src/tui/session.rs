//! The controller: carries out the `Action`s keys ask for on the engine and the target —
//! getting to the run screen (`start`: the picker, the write confirmation for a bare
//! `--allow-write` on a block device, preparing the target, starting the engine), applying settings (a sweep's steps
//! go through the same `Action::Apply` path as the sliders), `e`'s export (the only place the
//! TUI reads the system clock, for the file's name) — and decides how the session ends.

use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::time::{Duration, SystemTime};

use anyhow::{Result, anyhow};

use super::action::Action;
use super::event::Event;
use super::kernel::KernelSampler;
use super::state::{App, Picker, Run, Screen};
use crate::cli::Config;
use crate::engine::Engine;
use crate::exit::ExitStatus;
use crate::model::{ConfigReport, RunReport, SweepReport};
use crate::render::export::{Export, write_export, write_export_chart};
use crate::signals;
use crate::stats::Snapshot;
use crate::suite::SuiteReport;
use crate::target::prepare::Prepared;

mod start;

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

    /// `e`: the run (or the last sweep or card) as JSON in the current directory and its
    /// chart beside it; the status line names both, or says why not.
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
                let saved = format!("saved the {what} to {}", path.display());
                match write_export_chart(&path, &export) {
                    Ok(svg) => {
                        run.notice = Some(format!("{saved} and its chart to {}", svg.display()))
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
        let mut report = run_report.unwrap_or_else(|| {
            let meta = app.run().map(|r| r.meta.clone()).unwrap_or_default();
            RunReport::new(config, last, vec![]).with_meta(meta)
        });
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
