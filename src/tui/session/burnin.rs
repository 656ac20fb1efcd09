//! `--burn-in` in a terminal: once the target is ready (and the write confirmed), the burn-in
//! runs on a thread of its own and the surface screen shows it live — its map painted from
//! the burn-in's shared cells (verified, bad in its worst state, not yet), its progress and
//! ETA — ten times a second. `p` pauses it (its threads wait at their next block) and `p`
//! again resumes it; it never starts a surface scan. `q` and `Esc` stop it (a stopped burn-in
//! says so) and leave, printing the burn-in's report on the normal screen, as a headless
//! burn-in does.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use anyhow::anyhow;

use super::{Outcome, Session};
use crate::cli::Config;
use crate::exit::ExitStatus;
use crate::model::surface::{RegionStat, ScanKind, SurfaceReport};
use crate::model::verify::VerifyReport;
use crate::surface::scan::Progress;
use crate::tui::action::SurfaceAct;
use crate::tui::event::Event;
use crate::tui::state::{App, Screen, SurfaceView};
use crate::verify::burnin::{self, Ask, Half, Job};
use crate::verify::live::Live;
use crate::{output, signals};

impl Session {
    /// The target is ready: the burn-in starts and the surface screen shows it.
    pub(super) fn burn_in_start(&mut self, app: &mut App) {
        let Some(prepared) = &self.prepared else {
            return;
        };
        let target = prepared.target.clone();
        let v = &self.config.verify;
        let ask = Ask {
            half: v.burn_in.unwrap_or(Half::Both),
            bs: burnin::block_size(self.config.scan_shape().0),
            threads: self.config.settings.threads,
            passes: v.passes,
            state: v.state.clone(),
            seed: rand::random::<u64>() | 1,
        };
        let (job, state, notes) = match burnin::plan(&ask, &target) {
            Ok(p) => p,
            Err(e) => return self.fail(app, anyhow!(e)),
        };
        let mut view = SurfaceView::new(target.path.display().to_string(), ScanKind::Full);
        view.message = Some(notes.first().cloned().unwrap_or_else(|| {
            format!(
                "{}: stamped blocks written, then read back and checked",
                ask.half.mode()
            )
        }));
        app.screen = Screen::Surface(Box::new(view));
        let stop = Arc::new(AtomicBool::new(false));
        self.surface_stop = Some(stop.clone());
        let paused = self.burn_in_paused.clone();
        let tx = self.events.clone();
        let spawned = std::thread::Builder::new()
            .name("burn-in".into())
            .spawn(move || {
                crate::signals::leave_to_main();
                let live = Live::new(job.plan.span, job.plan.bs);
                let ended = || stop.load(Relaxed) || signals::received().is_some();
                // Paused: every thread waits here, at its next block, until resumed or ended.
                let stopped = || {
                    while paused.is_on() && !ended() {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    // The time held paused is left out of the write and verify times.
                    live.paused_ns.store(paused.total_ns(), Relaxed);
                    ended()
                };
                let done = AtomicBool::new(false);
                let result = std::thread::scope(|s| {
                    s.spawn(|| feed(&tx, &live, &job, &done));
                    let r = burnin::run(&*target, &job, &live, &stopped);
                    done.store(true, Relaxed);
                    r
                });
                // The summary printed on leaving names the state file.
                let result = result.and_then(|mut r| {
                    burnin::keep_state(&mut r, &job, state.as_deref()).map(|_| r)
                });
                let _ = tx.send(Event::BurnInDone(Box::new(result)));
            });
        if let Err(e) = spawned {
            self.fail(app, anyhow!("starting the burn-in's thread: {e}"));
        }
    }

    /// A key of the surface screen while it shows the burn-in: `p` pauses and resumes it,
    /// `Esc` leaves as `q` does (there is nothing behind it to go back to), and nothing starts
    /// a surface scan.
    pub(super) fn burn_in_act(&mut self, app: &mut App, act: SurfaceAct) {
        let Screen::Surface(v) = &mut app.screen else {
            return;
        };
        match act {
            SurfaceAct::Back => self.surface_quit(app),
            SurfaceAct::Pause | SurfaceAct::Scan(_) if v.scanning => {
                let pause = self.burn_in_paused.toggle();
                v.paused = pause;
                v.message = Some(if pause {
                    "burn-in paused: p resumes it, q stops it and prints its report".into()
                } else {
                    "burn-in resumed".into()
                });
            }
            SurfaceAct::Pause | SurfaceAct::Scan(_) => {
                v.message = Some("the burn-in has ended: q prints its report".into());
            }
            SurfaceAct::Open(_) | SurfaceAct::OpenHere => {}
        }
    }

    /// The burn-in stopped or ended: its map and findings on the screen, its report kept for
    /// the way out.
    pub(super) fn burn_in_done(&mut self, app: &mut App, result: Result<VerifyReport, String>) {
        self.surface_stop = None;
        let Screen::Surface(v) = &mut app.screen else {
            return;
        };
        match result {
            Ok(r) => {
                if let Some(map) = &r.map {
                    let mut shown = v.report.clone().unwrap_or_else(|| surface_of(&r.target, 0));
                    shown.map = map.clone();
                    shown.complete = r.complete;
                    v.finished(shown, r.findings.clone());
                } else {
                    v.scanning = false;
                }
                v.message = r.findings.first().map(|f| f.text.clone());
                self.burn_in = Some(Box::new(r));
            }
            Err(e) => {
                v.scanning = false;
                v.message = Some(e);
            }
        }
        if v.quitting {
            self.surface_leave(app);
        }
    }

    /// Leaving after a burn-in: its report is what is printed.
    pub(super) fn burn_in_leave(&mut self) -> bool {
        match self.burn_in.take() {
            Some(r) => {
                self.outcome = Some(Ok(Outcome::Verify(r)));
                true
            }
            None => false,
        }
    }
}

/// A surface report for the screen: the burn-in's map, no curve (a burn-in measures no
/// latency per region).
fn surface_of(target: &str, bs: u64) -> SurfaceReport {
    let map = crate::model::surface::RegionMap::new(1, 1, 1);
    SurfaceReport {
        kind: ScanKind::Full,
        target: target.into(),
        block_bytes: bs,
        depth: 1,
        regions: vec![RegionStat::default(); map.len()],
        map,
        errors: Vec::new(),
        bytes_read: 0,
        elapsed_s: 0.0,
        resumed_from: None,
        complete: false,
    }
}

/// Sends the burn-in's map and progress to the screen ten times a second until `done`.
fn feed(tx: &std::sync::mpsc::Sender<Event>, live: &Live, job: &Job, done: &AtomicBool) {
    let start = Instant::now();
    let total = job.total_bytes();
    while !done.load(Relaxed) {
        std::thread::sleep(Duration::from_millis(100));
        let moved = live.written.load(Relaxed) + live.verified.load(Relaxed);
        let mut report = surface_of(&job.target, job.plan.bs);
        report.map = live.map();
        report.regions = vec![RegionStat::default(); report.map.len()];
        report.bytes_read = live.verified.load(Relaxed);
        report.elapsed_s = start.elapsed().as_secs_f64();
        // In bytes of the span, as the screen counts a scan: the passes and halves scaled in.
        let span = job.plan.span;
        let progress = Progress {
            done_bytes: (u128::from(moved.min(total)) * u128::from(span) / u128::from(total.max(1)))
                as u64,
            total_bytes: span,
            elapsed_s: report.elapsed_s,
            resume_offset: 0,
        };
        if tx
            .send(Event::SurfaceProgress(Box::new(report), progress))
            .is_err()
        {
            return;
        }
    }
}

/// After the screen: the burn-in's report on the normal screen, saved to `--json FILE`.
pub fn finish_burn_in(config: &Config, report: &VerifyReport) -> ExitStatus {
    output::print(&crate::render::verify::summary(report));
    if let Some(path) = &config.files.json {
        let text = serde_json::json!({ "verify": report });
        let text = serde_json::to_string_pretty(&text).unwrap_or_default() + "\n";
        let kind = crate::results::file::Kind::Json;
        if let Err(e) = crate::results::file::write_result(kind, path, &text) {
            output::say(&e);
            return ExitStatus::Failure;
        }
    }
    ExitStatus::after_run(report.any_bad())
}
