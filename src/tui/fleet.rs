//! The fleet screen's loop: the fleet runs in a thread of its own (`fleet::run`), its events
//! come over a channel into `FleetScreen`, keys come from the input thread, and the screen is
//! redrawn at most ten times a second. `q` (or Esc, Ctrl-C, a signal) asks every host's fio
//! to stop early — each still reports what it did — and once the report is in, `q` leaves.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use anyhow::{Result, anyhow};

use super::event::{Event, spawn_input};
use super::keymap::lookup;
use super::keys::FLEET;
use super::state::fleet::FleetScreen;
use super::terminal;
use crate::fleet::live::Board;
use crate::fleet::{FleetEvent, FleetReport, FleetSpec};
use crate::render::baseline::Baseline;
use crate::{output, signals};

/// Runs the fleet with its screen; returns the report once the user leaves.
pub fn run(spec: &FleetSpec, _baseline: Option<&Baseline>) -> Result<FleetReport> {
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let header = crate::render::fleet::short_header(&spec.fleet_config());
    let mut screen = FleetScreen::new(header, Board::new(&spec.hosts), color);
    screen.ascii = !crate::locale::utf8();
    let (keys_tx, keys) = mpsc::channel();
    let (mut term, guard) = terminal::init()?;
    spawn_input(keys_tx)?;
    let stop = AtomicBool::new(false);
    let (tx, fleet_events) = mpsc::channel::<FleetEvent>();
    let result = std::thread::scope(|s| -> Result<FleetReport> {
        let stop_asked = || stop.load(Ordering::Relaxed) || signals::received().is_some();
        let mut worker = Some(s.spawn(move || {
            crate::fleet::run(spec, &stop_asked, &mut |e| {
                let _ = tx.send(e.clone());
            })
        }));
        loop {
            while let Ok(e) = fleet_events.try_recv() {
                screen.apply(&e);
            }
            if worker.as_ref().is_some_and(|w| w.is_finished())
                && let Some(w) = worker.take()
            {
                let mut report = w
                    .join()
                    .map_err(|_| anyhow!("the fleet thread panicked"))?
                    .map_err(anyhow::Error::msg)?;
                report.interrupted_by = signals::received().map(|s| format!("{s:?}"));
                screen.report = Some(report);
            }
            // A terminal that went away is not an error of the fleet: stop drawing, stop
            // the hosts, and hand back what they did (saved where --json FILE asked).
            if output::lost().is_none()
                && let Err(e) = term.draw(|f| f.render_widget(&screen, f.area()))
            {
                stop.store(true, Ordering::Relaxed);
                let how = output::gone_after_failed_draw(Some(&e)).ok_or(e)?;
                output::note_lost(how);
            }
            let done = screen.report.is_some();
            let quit = match keys.recv_timeout(Duration::from_millis(100)) {
                // Esc leaves a finished fleet; only q and Ctrl-C stop one running.
                Ok(Event::Key(k)) => lookup(FLEET, &k, None, &()).is_some_and(|stop| stop || done),
                Ok(Event::InputClosed) => true,
                Ok(_) | Err(RecvTimeoutError::Timeout) => false,
                Err(RecvTimeoutError::Disconnected) => true,
            } || signals::received().is_some();
            if quit {
                if let Some(r) = screen.report.take() {
                    return Ok(r);
                }
                stop.store(true, Ordering::Relaxed);
                screen.stopping = true;
            }
        }
    });
    // Not dropped: see `tui::run` (its drop's eprintln! panics when stderr is gone).
    drop(guard);
    std::mem::forget(term);
    result
}
