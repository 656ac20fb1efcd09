//! The interactive TUI: pick a target, watch it run, move the sliders, quit to a summary.
//!
//! One event channel carries everything the screen reacts to: keys (from an input thread
//! blocked in crossterm's `read`), the engine's snapshots (sent by the sampler itself, through
//! a `SnapshotSink`), and the scratch layout's progress. The loop waits on that channel and redraws only
//! when something arrived, so between snapshots the UI sleeps; it never does I/O on the
//! target and never waits for a worker (settings changes go through `Engine::apply`, which
//! only talks to the sampler). It also wakes every 250 ms to notice SIGTERM/SIGHUP/SIGINT.
//!
//! The rooms: `event` (the channel's events, the input thread), `session` (the controller,
//! carrying out `action`s), `state` (one file per screen; `series` the state machine a sweep
//! and a suite share), `keys` (each screen's key table → action; `keymap` the tables' kind,
//! which the `?` overlay reads too), `ui` (drawing per screen, a pure function of the state),
//! `widgets` and `fleet` (the fleet screen's loop).
//!
//! `event_loop` is generic over ratatui's `Backend`, so tests drive it with a `TestBackend`.

pub mod action;
pub(crate) mod event;
pub(crate) mod fleet;
mod kernel;
pub(crate) mod keymap;
pub(crate) mod keys;
pub(crate) mod session;
pub mod state;
pub(crate) mod terminal;
pub(crate) mod ui;
pub(crate) mod widgets;

pub use event::Event;
pub use session::{Outcome, Session};

use std::io::Write;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::Duration;

use anyhow::{Result, anyhow};
use ratatui::Terminal;
use ratatui::backend::{Backend, ClearType};

use crate::cli::Config;
use crate::exit::ExitStatus;
use crate::render::baseline::BaselineFile;
use crate::render::final_text::final_text;
use crate::signals;
use event::spawn_input;
use state::App;

/// The loop wakes at least this often to poll the signal flag.
const SIGNAL_POLL: Duration = Duration::from_millis(250);

/// Runs the TUI until the user quits; prints the summary on the normal screen afterwards.
pub fn run(config: Config) -> Result<ExitStatus> {
    signals::install();
    // Before the screen is taken, so a wrong path fails as a plain message.
    let baseline = config
        .baseline
        .as_deref()
        .map(BaselineFile::load)
        .transpose()?;
    let color = std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let (tx, rx) = mpsc::channel();
    let (mut term, guard) = terminal::init()?;
    spawn_input(tx.clone())?;
    let mut session = Session::new(config.clone(), tx);
    let mut app = session.first_screen(color);
    app.baseline = baseline.as_ref().map(|b| b.baseline.clone());
    let outcome = event_loop(&mut term, &mut app, &rx, &mut session, &mut || {
        terminal::suspend().map_err(anyhow::Error::from)
    });
    drop(guard);
    let code = match outcome? {
        Outcome::Left(code) => code,
        Outcome::Finished {
            report,
            sweep,
            suite,
        } => {
            // Not println!: stdout may be gone (SIGHUP), and that must not panic.
            let mut out = std::io::stdout().lock();
            let _ = write!(
                out,
                "{}",
                final_text(&report, sweep.as_deref(), baseline.as_ref())
            );
            let _ = out.flush();
            if let Some(card) = &suite {
                let _ = write!(out, "{}", crate::render::card::card(card));
                let _ = out.flush();
            }
            let saved = match (&suite, &sweep) {
                (Some(c), _) => crate::render::save::save_suite(&config.files, c),
                (None, Some(s)) => crate::render::save::save_sweep(&config.files, s),
                (None, None) => crate::render::save::save_run(&config.files, &report),
            };
            if let Err(e) = saved {
                let _ = writeln!(std::io::stderr(), "diskscope: {e:#}");
            }
            ExitStatus::after_run(report.had_io_errors())
        }
    };
    drop(session);
    Ok(code)
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
