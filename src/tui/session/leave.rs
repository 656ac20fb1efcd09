//! How a session ends, and what it says when it does. Every way out goes through `quit`:
//! a key (q, Esc, Ctrl-C), a signal the loop noticed, the terminal going away (its input
//! closed, a draw failed: treated as the hang-up it is, SIGHUP), or `-T` running out.
//!
//! - Before a run started (the picker, the write confirmation, the layout or the opening of
//!   a target) the session is `Left` with one line saying what happened and what was
//!   removed: "cancelled while laying out ./diskscope.scratch (12 MiB of 64 MiB); the partial
//!   file was removed". A key is no failure (exit 0); a signal ends with 128 + its number.
//! - On the run screen the engine stops and the session is `Finished` with the run, and with
//!   a sweep or a suite when one was the last thing running — a series cut short included,
//!   marked as stopped early by what stopped it ("the q key", "SIGTERM"), as a headless run
//!   stopped by a signal is.

use std::path::Path;

use anyhow::anyhow;
use nix::sys::signal::Signal;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Outcome, Session};
use crate::exit::ExitStatus;
use crate::model::RunReport;
use crate::output;
use crate::signals;
use crate::target::shell::quote_path;
use crate::tui::state::{App, Run, Screen};
use crate::units::format_bytes;

/// "the q key", "Esc", "Ctrl-C": a key that quit, as "stopped early by …" says it.
pub fn key_name(k: &KeyEvent) -> String {
    match k.code {
        KeyCode::Char(c) if k.modifiers.contains(KeyModifiers::CONTROL) => {
            format!("Ctrl-{}", c.to_ascii_uppercase())
        }
        KeyCode::Char(c) => format!("the {c} key"),
        KeyCode::Esc => "Esc".into(),
        other => format!("{other:?}"),
    }
}

impl Session {
    /// Begins leaving, because of `key` (its name) or, without one, a signal or the end of
    /// `-T`: leaves the picker or the confirmation at once, stops a layout (the session
    /// leaves when the preparing thread has cleaned up), or stops the engine and any series
    /// running on it (the loop then waits for its last snapshot).
    pub(in crate::tui) fn quit(&mut self, app: &mut App, key: Option<String>) {
        if self.quit_key.is_none() && key.is_some() && signals::received().is_none() {
            self.quit_key.clone_from(&key);
        }
        let (status, cause) = self.cause();
        match &mut app.screen {
            Screen::Picker(_) => match self.surface_kept.take() {
                // A scan left with Esc: printed and saved as leaving its screen does.
                Some(doc) => self.outcome = Some(Ok(super::Outcome::Surface(doc))),
                None => self.leave(status, format!("{cause} in the picker; nothing was run")),
            },
            Screen::Confirm(c) => {
                let device = quote_path(&c.device);
                let line =
                    format!("{cause} at the write confirmation for {device}; nothing was run");
                self.leave(status, line);
            }
            Screen::Preparing(_) => {
                if !self.cancelled {
                    self.cancelled = true;
                    // The layout polls the signal flag to stop early and remove its partial
                    // file; a key in raw mode is no signal, so note the one Ctrl-C would be.
                    signals::note(Signal::SIGINT);
                }
            }
            Screen::Run(run) => {
                run.stopping = true;
                if let Some(by) = self.stopped_by() {
                    run.stop_series(&by);
                }
                if let Some(engine) = &self.engine {
                    engine.request_stop();
                }
            }
            Screen::Disks(_) => {
                self.disks_act(app, &super::Action::Quit);
            }
            Screen::Surface(_) => self.surface_quit(app),
        }
    }

    /// The terminal went away (its input closed, or drawing failed with EIO): the hang-up
    /// the kernel would have signalled, so the run ends as SIGHUP ends it.
    pub(in crate::tui) fn terminal_gone(&mut self, app: &mut App, how: output::Lost) {
        output::note_lost(how);
        signals::note(Signal::SIGHUP);
        self.quit(app, None);
    }

    /// How the session ends and the word for it: a key ("quit", exit 0), else the signal.
    fn cause(&self) -> (ExitStatus, String) {
        match (&self.quit_key, signals::received()) {
            (Some(_), _) | (None, None) => (ExitStatus::Success, "quit".into()),
            (None, Some(sig)) => (ExitStatus::Signal(sig), sig.as_str().to_string()),
        }
    }

    /// What stopped a series early, for "stopped early by …": the key or the signal.
    fn stopped_by(&self) -> Option<String> {
        self.quit_key
            .clone()
            .or_else(|| signals::received().map(|s| s.as_str().to_string()))
    }

    fn leave(&mut self, status: ExitStatus, line: String) {
        self.outcome = Some(Ok(Outcome::Left(status, line)));
    }

    /// Leaves after the preparing thread stopped because of a quit: says what was being
    /// prepared and what became of it. A scratch file that was being laid out is gone
    /// (the layout removes its partial file; a finished one is removed with `Prepared`).
    pub(super) fn leave_prepared(&mut self, app: &App) {
        let (status, cause) = self.cause();
        let cause = if self.quit_key.is_some() {
            "cancelled".to_string()
        } else {
            cause
        };
        let path = self.preparing.clone().unwrap_or_default();
        let shown = quote_path(&path);
        let line = match &app.screen {
            Screen::Preparing(p) if p.total > 0 => {
                let progress = format!("{} of {}", format_bytes(p.done), format_bytes(p.total));
                let fate = if Path::new(&path).exists() {
                    format!("{shown} is still there")
                } else {
                    "the partial file was removed".into()
                };
                format!("{cause} while laying out {shown} ({progress}); {fate}; nothing was run")
            }
            _ => format!("{cause} while opening {shown}; nothing was run"),
        };
        self.leave(status, line);
    }

    /// Leaves after the preparing thread of several targets stopped because of a quit: each
    /// target's partial scratch file was removed by its layout (`disks::prepare`).
    pub(super) fn leave_many(&mut self, n: usize) {
        let (status, cause) = self.cause();
        let cause = if self.quit_key.is_some() {
            "cancelled".to_string()
        } else {
            cause
        };
        let line = format!(
            "{cause} while preparing {n} targets; any partial scratch file was removed; nothing was run"
        );
        self.leave(status, line);
    }

    /// The engine sent its last snapshot: the session is finished, with the run and the
    /// sweep or the suite that ran last (cut short or not).
    pub(super) fn engine_done(&mut self, app: &App) {
        if let Some(engine) = self.engine.take() {
            engine.join();
        }
        let run_report = app.run().and_then(Run::run_report);
        let (Some(config), Some(last)) = (self.report.clone(), self.last.as_ref()) else {
            self.outcome = Some(Err(anyhow!("the engine stopped before its first snapshot")));
            return;
        };
        let mut report = run_report.unwrap_or_else(|| {
            let meta = app.run().map(|r| r.meta.clone()).unwrap_or_default();
            RunReport::new(config, last, vec![]).with_meta(meta)
        });
        report.interrupted_by = signals::received().map(|s| s.as_str().to_string());
        report.surface = self.surface_of_run.take();
        if let (Some(d), Some(p)) = (&self.during, &self.prepared) {
            d.attach(&mut report, &quote_path(&p.target.path));
        }
        if let Some(k) = &mut self.kernel {
            let run_s = last.at.as_secs_f64();
            report.why.health = k.finish_health(run_s, &mut report.why.findings);
        }
        let run = app.run();
        self.outcome = Some(Ok(Outcome::Finished {
            report: Box::new(report),
            sweep: run.and_then(Run::sweep_at_quit).map(Box::new),
            suite: run.and_then(Run::suite_at_quit).map(Box::new),
            notes: run.map(Run::series_notes).unwrap_or_default(),
            width: app.viewport.width,
        }));
    }
}
