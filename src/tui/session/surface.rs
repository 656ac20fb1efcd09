//! The surface screen's controller: opening it (from the picker: the target prepared
//! read-only, whatever `--allow-write` says; from the run screen: the run paused, its target
//! scanned), the scan on a thread of its own sending its report ~10 times a second, pausing
//! (the scan stops; a full one is kept in the state directory and resumes from there),
//! going back, and leaving with the report printed on the normal screen.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::anyhow;

use super::{Outcome, Session};
use crate::model::Meta;
use crate::model::surface::{ScanKind, SurfaceDoc};
use crate::surface::session::{Outcome as ScanOutcome, SurfaceAsk, ready};
use crate::target::open::Target;
use crate::tui::action::SurfaceAct;
use crate::tui::event::Event;
use crate::tui::state::{App, Screen, SurfaceView};
use crate::units::format_bytes;

impl Session {
    /// Carries out a surface key.
    pub(super) fn surface_act(&mut self, app: &mut App, act: SurfaceAct) {
        match act {
            SurfaceAct::Open(target) => {
                // Read-only: the scan never writes, so no confirmation and no O_EXCL.
                self.surface_write = Some(self.config.allow_write.take());
                self.bare_write = false;
                self.surface_next = true;
                self.start(app, target);
            }
            SurfaceAct::OpenHere => self.surface_here(app),
            SurfaceAct::Pause => {
                if let Screen::Surface(v) = &mut app.screen
                    && v.scanning
                {
                    v.paused = true;
                    self.stop_scan();
                }
            }
            SurfaceAct::Scan(ask) => self.scan(app, ask),
            SurfaceAct::Back => self.surface_back(app),
        }
    }

    /// `S` on the run screen: the run paused, the surface screen over it.
    fn surface_here(&mut self, app: &mut App) {
        let Some(prepared) = &self.prepared else {
            return;
        };
        if let Some(engine) = &mut self.engine {
            engine.set_paused(true);
        }
        let path = prepared.target.path.display().to_string();
        let previous = std::mem::replace(
            &mut app.screen,
            Screen::Surface(Box::new(SurfaceView::scanning_screen(path, ScanKind::Full))),
        );
        if let (Screen::Surface(v), Screen::Run(run)) = (&mut app.screen, previous) {
            v.from_run = Some(run);
        }
        self.scan(app, SurfaceAsk::Full);
    }

    /// The target of a picker's `S` is ready: the surface screen, scanning.
    pub(super) fn surface_prepared(&mut self, app: &mut App) {
        self.surface_next = false;
        let Some(prepared) = &self.prepared else {
            return;
        };
        let path = prepared.target.path.display().to_string();
        let mut view = SurfaceView::scanning_screen(path, ScanKind::Full);
        view.from_picker = self.picker.is_some();
        app.screen = Screen::Surface(Box::new(view));
        // `--surface=quick` (or `restart`) in a terminal asks the first scan's kind.
        let ask = self.config.surface.take().unwrap_or(SurfaceAsk::Full);
        self.scan(app, ask);
    }

    /// Starts a scan of the prepared target on its own thread.
    fn scan(&mut self, app: &mut App, ask: SurfaceAsk) {
        let (Some(prepared), Screen::Surface(v)) = (&self.prepared, &mut app.screen) else {
            return;
        };
        // A burn-in on the screen starts no scan; nor does one over a running one.
        if !v.scans || (v.scanning && self.surface_stop.is_some()) {
            return;
        }
        let target: Arc<Target> = prepared.target.clone();
        // -b and -Q as typed on the command line, not the sliders' values of the moment.
        let asked = &self.asked_settings;
        let shape = (
            self.config.gave("bs").then_some(asked.bs),
            self.config.gave("iodepth").then_some(asked.iodepth),
        );
        let request = crate::surface::session::request(ask, shape);
        let ready = match ready(&target, request) {
            Ok(r) => r,
            Err(e) => {
                v.scanning = false;
                v.message = Some(format!("{e:#}"));
                return;
            }
        };
        v.kind = request.kind;
        v.scanning = true;
        v.paused = false;
        v.findings.clear();
        v.message = (ready.resumed.as_ref())
            .map(|(_, at)| format!("resumed at {} (R starts over)", format_bytes(*at)))
            .or_else(|| ready.not_resumed.clone());
        let stop = Arc::new(AtomicBool::new(false));
        self.surface_stop = Some(stop.clone());
        let tx = self.events.clone();
        let spawned = std::thread::Builder::new()
            .name("surface-scan".into())
            .spawn(move || {
                crate::signals::leave_to_main();
                let mut tick = |report: &crate::model::surface::SurfaceReport, p: &_| {
                    let sent = tx.send(Event::SurfaceProgress(Box::new(report.clone()), *p));
                    sent.is_ok() && !stop.load(Ordering::Relaxed)
                };
                let result = ready.run(&target, &mut tick);
                let _ = tx.send(Event::SurfaceDone(result));
            });
        if let Err(e) = spawned {
            v.scanning = false;
            v.message = Some(format!("starting the scan's thread: {e}"));
        }
    }

    /// Asks the running scan to stop (it drains what is in flight, then reports).
    fn stop_scan(&mut self) {
        if let Some(stop) = &self.surface_stop {
            stop.store(true, Ordering::Relaxed);
        }
    }

    /// The scan's progress.
    pub(super) fn surface_progress(
        &mut self,
        app: &mut App,
        report: crate::model::surface::SurfaceReport,
        progress: crate::surface::scan::Progress,
    ) {
        if let Screen::Surface(v) = &mut app.screen {
            v.update(report, progress);
        }
    }

    /// The scan stopped or ended: its findings, where it is kept, and, when leaving was asked,
    /// the way out.
    pub(super) fn surface_done(&mut self, app: &mut App, result: anyhow::Result<ScanOutcome>) {
        self.surface_stop = None;
        let Screen::Surface(v) = &mut app.screen else {
            return;
        };
        match result {
            Ok(outcome) => {
                let found = match &self.prepared {
                    Some(p) => crate::surface::judge::findings(&outcome.report, &p.target),
                    None => Vec::new(),
                };
                v.message = match (&outcome.kept, &outcome.keep_error) {
                    (_, Some(e)) => Some(format!("the scan could not be kept to resume: {e}")),
                    (Some(_), None) => Some(format!(
                        "paused at {}; p resumes (kept in the state directory)",
                        format_bytes(outcome.report.bytes_read)
                    )),
                    // Done: the status line says so; the message line is the findings'.
                    (None, None) if outcome.report.complete => None,
                    (None, None) => v.message.take(),
                };
                v.finished(outcome.report, found);
            }
            Err(e) => {
                v.scanning = false;
                v.message = Some(format!("{e:#}"));
            }
        }
        if v.quitting {
            self.surface_leave(app);
        }
    }

    /// Esc: the scan stopped, back to the run screen (still paused) or the picker.
    fn surface_back(&mut self, app: &mut App) {
        let Screen::Surface(v) = &mut app.screen else {
            return;
        };
        self.stop_scan();
        if let Some(run) = v.from_run.take() {
            let kept = doc_of(v);
            let saved = if kept.is_some() {
                "saved with the run's results, under surface"
            } else {
                "nothing read yet"
            };
            self.surface_of_run = kept.or(self.surface_of_run.take());
            app.screen = Screen::Run(run);
            if let Some(r) = app.run_mut() {
                r.notice = Some(format!(
                    "back from the surface scan ({saved}); the run is paused (space resumes)"
                ));
            }
            return;
        }
        if !v.from_picker {
            return;
        }
        // Kept for q in the picker: the scan is printed and saved as q on its screen does.
        self.surface_kept = doc_of(v);
        if let Some(mut picker) = self.picker.take() {
            picker.message = v.report.as_ref().map(crate::render::surface::header);
            app.screen = Screen::Picker(picker);
            self.prepared = None;
            if let Some(write) = self.surface_write.take() {
                self.config.allow_write = write;
                self.bare_write = self
                    .config
                    .allow_write
                    .as_ref()
                    .is_some_and(|a| a.is_empty());
            }
        }
    }

    /// q on the surface screen: stop the scan, then leave (through the run's own quit when
    /// it was opened from a run).
    pub(super) fn surface_quit(&mut self, app: &mut App) {
        let Screen::Surface(v) = &mut app.screen else {
            return;
        };
        v.quitting = true;
        if v.scanning {
            self.stop_scan();
        } else {
            self.surface_leave(app);
        }
    }

    /// The scan has stopped and leaving was asked: the run's quit, or the report printed.
    pub(super) fn surface_leave(&mut self, app: &mut App) {
        if self.burn_in_leave() {
            return;
        }
        let Screen::Surface(v) = &mut app.screen else {
            return;
        };
        if let Some(run) = v.from_run.take() {
            self.surface_of_run = doc_of(v).or(self.surface_of_run.take());
            app.screen = Screen::Run(run);
            let key = self.quit_key.clone();
            self.quit(app, key);
            return;
        }
        self.outcome = Some(match doc_of(v) {
            Some(doc) => Ok(Outcome::Surface(doc)),
            None => Err(anyhow!("the surface scan stopped before its first read")),
        });
    }
}

/// The screen's scan as `--surface --json` writes it; `None` before its first read.
fn doc_of(v: &SurfaceView) -> Option<Box<SurfaceDoc>> {
    v.report.clone().map(|surface| {
        Box::new(SurfaceDoc {
            meta: Meta::now(),
            surface,
            findings: v.findings.clone(),
            resume_file: None,
        })
    })
}
