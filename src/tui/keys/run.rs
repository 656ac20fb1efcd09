//! The run screen's keys, in its three views: the live view (sliders, the sweep and suite
//! keys), the sweep's chart and the suite's card. Each view's table is declared once, in
//! `run_table`; `run_key` looks a key up in the table of the view showing and carries the
//! command out.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::run_table::{Cmd, table};
use super::series;
use crate::suite::SuiteName;
use crate::tui::action::Action;
use crate::tui::keymap::{is_prefix, lookup, one_line};
use crate::tui::state::{FioOverlay, Run, View};

/// The rows of `view`'s keys, for the overlay.
pub(super) fn rows(view: View) -> Vec<(String, &'static str)> {
    table(view).iter().map(|b| (b.label(), b.help)).collect()
}

/// The hint line's entries of the view showing.
pub(super) fn hints(run: &Run) -> Vec<(String, &'static str)> {
    crate::tui::keymap::hints(table(run.view), run)
}

/// The run screen's other views' keys, a line each (all three when no run shows).
pub(super) fn other_views(view: Option<View>) -> Vec<String> {
    [
        (View::Live, "run"),
        (View::Sweep, "sweep chart"),
        (View::Suite, "suite card"),
    ]
    .into_iter()
    .filter(|(v, _)| Some(*v) != view)
    .map(|(v, name)| format!("{name}: {}", one_line(table(v))))
    .collect()
}

/// Handles a key on the run screen.
pub(super) fn run_key(
    run: &mut Run,
    key: KeyEvent,
    help: &mut bool,
    fio: &mut Option<FioOverlay>,
) -> Action {
    let prefix = run.sweep_prompt.then_some('s');
    if run.view == View::Live && prefix.is_some() {
        run.sweep_prompt = false;
    }
    // A notice lasts until the next key (the log keeps it).
    run.notice = None;
    let cmd = lookup(table(run.view), &key, prefix, run);
    if std::mem::take(&mut run.quit_asked) {
        // Asked once: q or y quits, any other key goes on (and does what it does).
        run.message = None;
        if cmd == Some(Cmd::Quit) {
            return Action::Quit;
        }
    }
    match (cmd, key.code) {
        (Some(cmd), _) => apply(run, cmd, help, fio),
        (None, KeyCode::Char(c)) if prefix.is_none() && is_prefix(table(run.view), c) => {
            series::sweep_prompt(run)
        }
        (None, _) if prefix.is_some() => {
            run.notice = None;
            Action::None
        }
        (None, _) if run.view == View::Suite && run.suite_running() => {
            run.message = Some("a suite is running: Esc cancels it, q quits".into());
            Action::None
        }
        (None, _) => Action::None,
    }
}

/// Carries out `cmd`; what needs the engine or the disk goes out as the action.
fn apply(run: &mut Run, cmd: Cmd, help: &mut bool, fio: &mut Option<FioOverlay>) -> Action {
    if run.sweeping() && cmd.locked_by_sweep() {
        return series::locked(run);
    }
    match cmd {
        Cmd::FocusNext => run.focus = run.focus.next(),
        Cmd::FocusPrev => run.focus = run.focus.prev(),
        Cmd::Step(s) => return super::slide::step(run, s),
        Cmd::Pause => {
            run.paused = !run.paused;
            return Action::Pause(run.paused);
        }
        Cmd::Reset => {
            run.clear_history();
            return Action::ResetStats;
        }
        Cmd::ScrollUp => run.thread_scroll = run.thread_scroll.saturating_sub(8),
        Cmd::ScrollDown => {
            run.thread_scroll = (run.thread_scroll + 8).min(run.thread_rows().saturating_sub(1));
        }
        Cmd::Members => {
            // Only an md or dm target has members to show.
            let k = &mut run.kernel;
            k.show_members = !k.show_members && !k.members.is_empty();
        }
        Cmd::Heatmap => run.show_heatmap = !run.show_heatmap,
        Cmd::Zoom => run.zoom = run.zoom.next(),
        Cmd::Mouse => return Action::ToggleMouse,
        Cmd::Sweep(d) => return series::start_sweep(run, d),
        Cmd::CancelSweep => return run.cancel_sweep("cancelled", "Esc"),
        Cmd::CancelSuite => return run.cancel_suite(),
        Cmd::Suite => return run.start_suite(SuiteName::Standard, run.suite_timing, run.ram_bytes),
        Cmd::ShowLast => series::show_last(run),
        Cmd::Back => run.view = View::Live,
        Cmd::Export => return Action::Export,
        Cmd::Surface => return super::surface::from_run(run),
        Cmd::Fio => *fio = Some(series::fio_overlay(run)),
        Cmd::Help => *help = true,
        Cmd::Log => return Action::ShowLog,
        Cmd::Unlimited => {
            return super::slide::apply_settings(run, super::slide::rate_unlimited(run));
        }
        Cmd::StartValues => return super::slide::apply_settings(run, run.start_settings),
        Cmd::Poll => return super::slide::toggle_polling(run),
        Cmd::Esc => {
            run.notice =
                Some("Esc goes back; nothing to close here, the run goes on (q quits)".into());
        }
        Cmd::Quit => return super::slide::quit(run),
    }
    Action::None
}
