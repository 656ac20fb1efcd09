//! The disks screen's keys, in its two views: the table of every target (move, open a row,
//! change the order, move the sliders of every target at once, pause, reset, save) and one
//! target's run screen opened from it (the run screen's sliders and panes, Esc back). Each
//! view's table is declared once, in `disks_table`; `disks_key` looks a key up in the table of
//! the view showing and carries the command out. A slider moved in either view changes every
//! target.

use ratatui::crossterm::event::KeyEvent;

use super::disks_table::{Cmd, OPEN, PAGE, TABLE, table};
use crate::settings::{Knob, Settings, Step, rate_ladder_at_or_below, stepped};
use crate::tui::action::Action;
use crate::tui::keymap::lookup;
use crate::tui::state::disks::{Disks, Order};

/// The rows of the view showing, for the overlay.
pub(super) fn rows(d: &Disks) -> Vec<(String, &'static str)> {
    table(d).iter().map(|b| (b.label(), b.help)).collect()
}

/// Both views' rows, for the README's key reference: the table, then one target opened.
#[cfg(test)]
pub(super) fn all_rows() -> [(&'static str, Vec<(String, &'static str)>); 2] {
    let rows = |t: &[crate::tui::keymap::Binding<Cmd, Disks>]| {
        t.iter().map(|b| (b.label(), b.help)).collect()
    };
    [
        ("several targets: the table", rows(TABLE)),
        ("several targets: one target opened", rows(OPEN)),
    ]
}

/// The hint line's entries of the view showing.
pub(super) fn hints(d: &Disks) -> Vec<(String, &'static str)> {
    crate::tui::keymap::hints(table(d), d)
}

/// The other view's keys, a line.
pub(super) fn other_view(d: &Disks) -> String {
    let (name, t) = if d.open.is_some() {
        ("every target", TABLE)
    } else {
        ("one target opened", OPEN)
    };
    format!("{name}: {}", crate::tui::keymap::one_line(t))
}

/// Handles a key on the disks screen.
pub(super) fn disks_key(d: &mut Disks, key: KeyEvent, help: &mut bool) -> Action {
    let cmd = lookup(table(d), &key, None, d);
    if std::mem::take(&mut d.quit_asked) {
        // Asked once: q or y quits, any other key goes on (and does what it does).
        d.message = None;
        if matches!(cmd, Some(Cmd::Quit | Cmd::QuitAsked)) {
            return Action::Quit;
        }
    }
    let Some(cmd) = cmd else {
        return Action::None;
    };
    match cmd {
        Cmd::Up => d.select(-1),
        Cmd::Down => d.select(1),
        Cmd::PageUp => d.select(-PAGE),
        Cmd::PageDown => d.select(PAGE),
        Cmd::First => d.selected = 0,
        Cmd::Last => d.selected = d.rows.len().saturating_sub(1),
        Cmd::Open => open_selected(d),
        Cmd::Back => d.open = None,
        Cmd::Order => {
            d.order = match d.order {
                Order::Given => Order::SlowestFirst,
                Order::SlowestFirst => Order::Given,
            };
        }
        Cmd::FocusNext => set_focus(d, d.focus.next()),
        Cmd::FocusPrev => set_focus(d, d.focus.prev()),
        Cmd::Step(s) => return step(d, s),
        Cmd::Poll => return poll(d),
        Cmd::Pause => {
            d.paused = !d.paused;
            for r in &mut d.rows {
                r.run.paused = d.paused;
            }
            return Action::Pause(d.paused);
        }
        Cmd::Reset => {
            d.clear_history();
            return Action::ResetStats;
        }
        Cmd::ScrollUp | Cmd::ScrollDown | Cmd::Heatmap | Cmd::Members => opened(d, cmd),
        Cmd::Export => return Action::Export,
        Cmd::Help => *help = true,
        Cmd::Log => return Action::ShowLog,
        Cmd::Esc => {
            d.message =
                Some("Esc goes back; nothing to close here, the run goes on (q quits)".into());
        }
        Cmd::Quit => return quit(d),
        Cmd::QuitAsked => {}
    }
    Action::None
}

/// `q`: quits, but after a minute of running asks once first (`q` or `y` again quits).
fn quit(d: &mut Disks) -> Action {
    if d.ask_before_quit && d.elapsed >= crate::tui::state::run::ASK_AFTER && !d.stopping {
        d.quit_asked = true;
        d.message = Some(format!(
            "quit after {} of running? q or y quits, any other key goes on",
            crate::units::format_duration(d.elapsed)
        ));
        return Action::None;
    }
    Action::Quit
}

/// The opened run screen's own keys: its thread table, heatmap and members pane.
fn opened(d: &mut Disks, cmd: Cmd) {
    let Some(run) = d.open.and_then(|i| d.rows.get_mut(i)).map(|r| &mut r.run) else {
        return;
    };
    match cmd {
        Cmd::ScrollUp => run.thread_scroll = run.thread_scroll.saturating_sub(8),
        Cmd::ScrollDown => {
            run.thread_scroll = (run.thread_scroll + 8).min(run.thread_rows().saturating_sub(1));
        }
        Cmd::Heatmap => run.show_heatmap = !run.show_heatmap,
        Cmd::Members => {
            let k = &mut run.kernel;
            k.show_members = !k.show_members && !k.members.is_empty();
        }
        _ => {}
    }
}

/// Enter: the selected row's run screen, its hint saying how to come back.
fn open_selected(d: &mut Disks) {
    let Some(&i) = d.order().get(d.selected) else {
        return;
    };
    d.open = Some(i);
    let notice = format!(
        "{} of {} targets · Esc: every target · sliders change all of them · space pause · q quit",
        d.rows[i].id.name,
        d.rows.len()
    );
    let run = &mut d.rows[i].run;
    run.focus = d.focus;
    run.notice = Some(notice);
}

fn set_focus(d: &mut Disks, knob: Knob) {
    d.focus = knob;
    for r in &mut d.rows {
        r.run.focus = knob;
    }
}

/// A slider moved: the same new settings for every target, or why not.
fn step(d: &mut Disks, step: Step) -> Action {
    // As on one target's screen (trims were checked on every target at the start).
    if let Some(why) = d
        .rows
        .first()
        .and_then(|r| super::slide::refusal(&r.run, d.focus))
    {
        d.message = Some(why);
        return Action::None;
    }
    let next = match (d.focus, d.settings.rate_iops, step) {
        // Leaving "unlimited": a rate below what the slowest target does now, so every
        // target can carry it (the rate is each target's).
        (Knob::Rate, 0, Step::Down | Step::Minus) => {
            let slowest = d
                .rows
                .iter()
                .filter_map(|r| r.now.as_ref().map(|n| n.iops))
                .filter(|&i| i >= 1.0)
                .fold(f64::INFINITY, f64::min);
            Ok(Settings {
                rate_iops: if slowest.is_finite() {
                    rate_ladder_at_or_below(slowest as u64)
                } else {
                    10_000_000
                },
                ..d.settings
            })
        }
        _ => stepped(d.settings, d.focus, step, d.write_allowed),
    };
    propose(d, next)
}

/// `P`: polling on every target, or back to interrupts; refused with the reason where a
/// target's queue does not poll (checked on every target at the start).
fn poll(d: &mut Disks) -> Action {
    let next = Settings {
        hipri: !d.settings.hipri,
        ..d.settings
    };
    let refusal = d.rows.first().and_then(|r| r.run.info.poll_refusal.clone());
    match refusal {
        Some(why) if next.hipri => propose(d, Err(why)),
        _ => propose(d, Ok(next)),
    }
}

/// New settings for every target, applied when they differ from those in force; a refusal
/// goes to the message line (and the opened target's).
fn propose(d: &mut Disks, next: Result<Settings, String>) -> Action {
    match next {
        Ok(n) if n == d.settings => Action::None,
        Ok(n) => {
            d.message = None;
            Action::Apply(n)
        }
        Err(msg) => {
            d.message = Some(msg.clone());
            if let Some(i) = d.open {
                d.rows[i].run.message = Some(msg);
            }
            Action::None
        }
    }
}
