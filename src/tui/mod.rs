//! The interactive TUI: pick a target, watch it run, move the sliders, quit to a summary.
//!
//! One event channel carries everything the screen reacts to: keys (from an input thread
//! blocked in crossterm's `read`), the engine's snapshots (sent by the sampler itself, through
//! a `SnapshotSink`), and the scratch layout's progress. The loop waits on that channel and redraws only
//! when something arrived, so between snapshots the UI sleeps; it never does I/O on the
//! target and never waits for a worker (settings changes go through `Engine::apply`, which
//! only talks to the sampler). It also wakes every 250 ms to notice SIGTERM/SIGHUP/SIGINT.
//!
//! The rooms: `event` (the channel's events, the input thread), `mouse` (a press or the
//! wheel → the same commands as keys, via `hits`, what the last frame drew where),
//! `session` (the controller,
//! carrying out `action`s), `state` (one file per screen; `series` the state machine a sweep
//! and a suite share), `keys` (each screen's key table → action; `keymap` the tables' kind,
//! which the `?` overlay reads too), `ui` (drawing per screen, a pure function of the state),
//! `widgets` and `fleet` (the fleet screen's loop).
//!
//! `event_loop` is generic over ratatui's `Backend`, so tests drive it with a `TestBackend`.

pub mod action;
pub(crate) mod event;
pub(crate) mod fleet;
pub mod hits;
mod kernel;
pub(crate) mod keymap;
pub(crate) mod keys;
pub mod mouse;
pub(crate) mod session;
pub mod state;
pub(crate) mod terminal;
pub(crate) mod ui;
pub(crate) mod widgets;

pub use event::Event;
pub use session::{Outcome, Session};

use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, SystemTime};

use anyhow::{Result, anyhow};
use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType};

use crate::cli::Config;
use crate::exit::ExitStatus;
use crate::model::disks::DisksReport;
use crate::render::baseline::BaselineFile;
use crate::render::files;
use crate::render::final_text::final_text_at;
use crate::results::export::Export;
use crate::results::save::save_export;
use crate::results::state_dir;
use crate::{output, signals};
use event::spawn_input;
use state::App;

/// The loop wakes at least this often to poll the signal flag.
const SIGNAL_POLL: Duration = Duration::from_millis(250);

/// Runs the TUI until the user quits; prints the summary on the normal screen afterwards.
/// `notice` is said on the first screen (a result kept when the last run lost its terminal).
pub fn run(config: Config, notice: Option<String>) -> Result<ExitStatus> {
    signals::install();
    // Read and checked with the arguments, before the screen is taken.
    let baseline: Option<BaselineFile> = config.baseline.clone();
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let (tx, rx) = mpsc::channel();
    let (mut term, guard) = terminal::init()?;
    spawn_input(tx.clone())?;
    let mut session = Session::new(config.clone(), tx);
    session.mouse_switch = Some(terminal::set_mouse);
    let mut app = session.first_screen(color);
    app.mouse.on = !config.no_mouse;
    terminal::set_mouse(app.mouse.on);
    app.baseline = baseline.as_ref().map(|b| b.baseline.clone());
    app.ascii = !crate::locale::utf8();
    session.show_notice(&mut app, notice);
    let outcome = event_loop(&mut term, &mut app, &rx, &mut session, &mut || {
        terminal::suspend().map_err(anyhow::Error::from)
    });
    // The guard gives the terminal back (raw mode off, main screen, cursor shown). The
    // Terminal is not dropped: its drop shows the cursor again and, when that fails, says so
    // with eprintln!, which panics when stderr went with the terminal — after a SIGHUP that
    // nothing had written into yet, that panic lost the run's result (exit 101, nothing kept).
    drop(guard);
    std::mem::forget(term);
    let code = match outcome? {
        Outcome::Left(code, line) => {
            output::say(&line);
            code
        }
        Outcome::Disks(report) => finish_disks(&config, baseline.as_ref(), report),
        Outcome::Surface(doc) => finish_surface(&config, &doc),
        Outcome::Verify(report) => session::burnin::finish_burn_in(&config, &report),
        Outcome::Finished {
            report,
            sweep,
            suite,
            notes,
            width,
        } => {
            let shown = Shown {
                notes,
                width: usize::from(width).max(crate::render::text::SUMMARY_WIDTH),
            };
            finish(&config, baseline.as_ref(), report, sweep, suite, shown)
        }
    };
    drop(session);
    Ok(code)
}

/// What the summary adds and how wide it may be.
struct Shown {
    /// The verdicts of the sweep or suite not printed whole.
    notes: Vec<String>,
    /// The terminal's columns, 80 at least: no line is wider.
    width: usize,
}

/// After a run: the summary (the sweep's, the card, the verdicts of those the run went on
/// after) on the normal screen, fitted to the terminal's width; the result saved to `--json
/// FILE` / `--csv FILE`, and kept in the state directory when the terminal went away and no
/// JSON file holds it.
fn finish(
    config: &Config,
    baseline: Option<&BaselineFile>,
    report: Box<crate::model::RunReport>,
    sweep: Option<Box<crate::model::SweepReport>>,
    suite: Option<Box<crate::suite::SuiteReport>>,
    shown: Shown,
) -> ExitStatus {
    let mut text = final_text_at(&report, sweep.as_deref(), baseline, shown.width);
    if let Some(card) = &suite {
        text.push_str(&crate::render::card::card(card));
    }
    for note in &shown.notes {
        text.push_str(note);
        text.push('\n');
    }
    let text = crate::render::final_text::fit_width(&text, shown.width);
    // Not println!: stdout may be gone (SIGHUP), and that must not panic. In ASCII where
    // the screen was (the front door told `output` so).

    output::print(&text);
    let status = ExitStatus::after_run(report.had_errors());
    let result = match (suite, sweep) {
        (Some(card), _) => Export::Suite(card),
        (None, Some(sweep)) => Export::Sweep(sweep),
        (None, None) => Export::Run(report),
    };
    let saved = save_export(&config.files, &result, &files::EXPORT);
    state_dir::keep_if_lost(true, saved.json, SystemTime::now(), || result);
    if let Err(e) = saved.into_result() {
        output::say(&format!("{e:#}"));
    }
    status
}

/// A run on several targets ended: its table and the comparison on the normal screen, the
/// result saved to `--json FILE` / `--csv FILE`, and kept in the state directory when the
/// terminal went away and no JSON file holds it — as a single run's is.
fn finish_disks(
    config: &Config,
    baseline: Option<&BaselineFile>,
    report: Box<DisksReport>,
) -> ExitStatus {
    let mut text = crate::render::disks::summary(&report);
    if let Some(b) = baseline {
        let compared = crate::render::disks_compare::compare(&b.baseline, b.periods.len(), &report);
        text.push_str(&compared);
    }
    output::print(&text);
    let status = ExitStatus::after_run(report.had_io_errors());
    let result = Export::Disks(report);
    let saved = save_export(&config.files, &result, &files::EXPORT);
    state_dir::keep_if_lost(true, saved.json, SystemTime::now(), || result);
    if let Err(e) = saved.into_result() {
        output::say(&format!("{e:#}"));
    }
    status
}

/// After a surface scan opened from the picker: its map and findings on the normal screen,
/// and the JSON saved to `--json FILE`.
fn finish_surface(config: &Config, doc: &crate::model::surface::SurfaceDoc) -> ExitStatus {
    output::print(&crate::render::surface::report(&doc.surface, &doc.findings));
    if let Some(path) = config
        .files
        .json
        .as_deref()
        .filter(|p| *p != std::path::Path::new("-"))
    {
        let text = serde_json::to_string_pretty(doc).unwrap_or_default() + "\n";
        if let Err(e) =
            crate::results::file::place(path, &text, crate::results::file::Place::Replace)
        {
            output::say(&format!("{}: cannot save: {e}", path.display()));
        }
    }
    ExitStatus::after_run(!doc.surface.errors.is_empty())
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
    draw(terminal, app, session, false)?;
    let mut signalled = false;
    loop {
        let first = match events.recv_timeout(SIGNAL_POLL) {
            Ok(e) => Some(e),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return Err(anyhow!("the event channel closed")),
        };
        if !signalled && signals::received().is_some() {
            signalled = true;
            session.quit(app, None);
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
        if !session.take_redraw() && !full_redraw && !signalled {
            // Only snapshots the screen shows once a second came (several targets).
            continue;
        }
        draw(terminal, app, session, full_redraw)?;
    }
}

/// Draws the screen (all of it when `full`); a terminal that went away (EIO) ends the
/// session as a hang-up does, and nothing is drawn from then on.
fn draw<B: Backend>(
    terminal: &mut Terminal<B>,
    app: &mut App,
    session: &mut Session,
    full: bool,
) -> Result<()>
where
    B::Error: Send + Sync + 'static,
{
    // A hang-up: the terminal is going or gone, and a draw now fails with whatever errno
    // crossterm's size query left behind (`output::gone_after_failed_draw`).
    if output::lost().is_some() || signals::received() == Some(nix::sys::signal::Signal::SIGHUP) {
        return Ok(());
    }
    let drawn = (|| {
        if full {
            // Not `Terminal::clear`: it asks the terminal for the cursor position, which
            // waits on the input thread's reader. Clearing the screen and dropping both
            // buffers forces the same full redraw without a query.
            terminal.backend_mut().clear_region(ClearType::All)?;
            terminal.swap_buffers();
        }
        terminal.draw(|f| {
            // Kept for the keys that scroll an overlay: how far it can go at this size.
            app.viewport = f.area().as_size();
            // Kept for the mouse: what this frame drew where.
            let ((), drawn) = hits::collect(|| f.render_widget(&*app, f.area()));
            app.hits = drawn;
        })?;
        Ok::<(), B::Error>(())
    })();
    let Err(e) = drawn else {
        return Ok(());
    };
    let e = anyhow::Error::from(e);
    match output::gone_after_failed_draw(e.downcast_ref::<std::io::Error>()) {
        Some(how) => {
            session.terminal_gone(app, how);
            Ok(())
        }
        None => Err(e),
    }
}
