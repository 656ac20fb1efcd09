//! The disks screen's keys, in its two views: the table of every target (move, open a row,
//! change the order, move the sliders of every target at once, pause, reset, save) and one
//! target's run screen opened from it (the run screen's sliders and panes, Esc back). Each
//! view's table is declared here once; `disks_key` looks a key up in the table of the view
//! showing and carries the command out. A slider moved in either view changes every target.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use crate::settings::{Knob, Settings, Step, rate_ladder_at_or_below, stepped};
use crate::tui::action::Action;
use crate::tui::keymap::{Binding, Key, lookup};
use crate::tui::state::disks::{Disks, Order};

/// What a key does on the disks screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmd {
    Up,
    Down,
    PageUp,
    PageDown,
    First,
    Last,
    Open,
    Back,
    Order,
    FocusNext,
    FocusPrev,
    Step(Step),
    Pause,
    Reset,
    Export,
    ScrollUp,
    ScrollDown,
    Heatmap,
    Members,
    Help,
    Log,
    /// `y` when quitting was asked.
    QuitAsked,
    /// Esc on the table: nothing to go back to; the run goes on.
    Esc,
    Quit,
}

const HELP: Binding<Cmd, Disks> =
    Binding::always(&[(Key::Char('?'), Cmd::Help)], "this help (any key closes)").hint("help");
const LOG: Binding<Cmd, Disks> = Binding::always(
    &[(Key::Char('L'), Cmd::Log)],
    "the message log: every message whole",
)
.hint("log");
const QUIT_ASKED: Binding<Cmd, Disks> = Binding::when(
    &[(Key::Char('y'), Cmd::QuitAsked)],
    crate::tui::keymap::When {
        name: "asked",
        holds: |d| d.quit_asked,
    },
    "quit, when asked",
);
const QUIT: Binding<Cmd, Disks> = Binding::always(
    &[(Key::Char('q'), Cmd::Quit), (Key::Ctrl('c'), Cmd::Quit)],
    "quit and print the table (after a minute, q asks once: q or y again)",
)
.hint("quit");

const SLIDE: Binding<Cmd, Disks> = Binding::always(
    &[
        (Key::Code(KeyCode::Left), Cmd::Step(Step::Down)),
        (Key::Code(KeyCode::Right), Cmd::Step(Step::Up)),
        (Key::Char('h'), Cmd::Step(Step::Down)),
        (Key::Char('l'), Cmd::Step(Step::Up)),
    ],
    "change the slider on every target: halve/double, or a step",
);
const SLIDE_ONE: Binding<Cmd, Disks> = Binding::always(
    &[
        (Key::Char('+'), Cmd::Step(Step::Plus)),
        (Key::Char('='), Cmd::Step(Step::Plus)),
        (Key::Char('-'), Cmd::Step(Step::Minus)),
        (Key::Char('_'), Cmd::Step(Step::Minus)),
    ],
    "threads/depth: one more/fewer on every target; others: one step",
);

/// The table of every target.
const TABLE: &[Binding<Cmd, Disks>] = &[
    Binding::always(
        &[
            (Key::Code(KeyCode::Up), Cmd::Up),
            (Key::Code(KeyCode::Down), Cmd::Down),
            (Key::Char('k'), Cmd::Up),
            (Key::Char('j'), Cmd::Down),
            (Key::Code(KeyCode::PageUp), Cmd::PageUp),
            (Key::Code(KeyCode::PageDown), Cmd::PageDown),
            (Key::Code(KeyCode::Home), Cmd::First),
            (Key::Code(KeyCode::End), Cmd::Last),
        ],
        "choose a target (the table scrolls)",
    ),
    Binding::always(
        &[(Key::Code(KeyCode::Enter), Cmd::Open)],
        "open the target's own run screen (Esc comes back)",
    )
    .hint("open"),
    Binding::always(
        &[(Key::Char('o'), Cmd::Order)],
        "order: as given / slowest first",
    )
    .hint("order"),
    Binding::always(
        &[
            (Key::Code(KeyCode::Tab), Cmd::FocusNext),
            (Key::Code(KeyCode::BackTab), Cmd::FocusPrev),
        ],
        "move between sliders",
    ),
    SLIDE,
    SLIDE_ONE,
    Binding::always(
        &[(Key::Char(' '), Cmd::Pause)],
        "pause / resume every target",
    )
    .hint("pause"),
    Binding::always(
        &[(Key::Char('r'), Cmd::Reset)],
        "reset every target's statistics",
    ),
    Binding::always(
        &[(Key::Char('e'), Cmd::Export)],
        "save every target's run so far as diskscope-*.json and its chart as .svg",
    )
    .hint("save"),
    Binding::always(
        &[(Key::Code(KeyCode::Esc), Cmd::Esc)],
        "back: closes what is open; never ends the run",
    ),
    LOG,
    HELP,
    QUIT_ASKED,
    QUIT,
];

/// One target's run screen, opened from the table.
const OPEN: &[Binding<Cmd, Disks>] = &[
    Binding::always(
        &[
            (Key::Code(KeyCode::Esc), Cmd::Back),
            (Key::Code(KeyCode::Enter), Cmd::Back),
        ],
        "back to every target",
    )
    .hint("back"),
    Binding::always(
        &[
            (Key::Code(KeyCode::Tab), Cmd::FocusNext),
            (Key::Code(KeyCode::BackTab), Cmd::FocusPrev),
            (Key::Code(KeyCode::Up), Cmd::FocusPrev),
            (Key::Code(KeyCode::Down), Cmd::FocusNext),
            (Key::Char('j'), Cmd::FocusNext),
            (Key::Char('k'), Cmd::FocusPrev),
        ],
        "move between sliders",
    ),
    SLIDE,
    SLIDE_ONE,
    Binding::always(
        &[(Key::Char(' '), Cmd::Pause)],
        "pause / resume every target",
    )
    .hint("pause"),
    Binding::always(
        &[(Key::Char('r'), Cmd::Reset)],
        "reset every target's statistics",
    ),
    Binding::always(
        &[(Key::Char('e'), Cmd::Export)],
        "save every target's run so far as diskscope-*.json and its chart as .svg",
    )
    .hint("save"),
    Binding::always(
        &[
            (Key::Char('['), Cmd::ScrollUp),
            (Key::Char(']'), Cmd::ScrollDown),
            (Key::Code(KeyCode::PageUp), Cmd::ScrollUp),
            (Key::Code(KeyCode::PageDown), Cmd::ScrollDown),
        ],
        "scroll the thread table",
    ),
    Binding::always(
        &[(Key::Char('d'), Cmd::Heatmap)],
        "latency distribution / heatmap",
    )
    .hint("heatmap"),
    Binding::always(
        &[(Key::Char('m'), Cmd::Members)],
        "md/dm target: its member disks in the kernel pane",
    ),
    LOG,
    HELP,
    QUIT_ASKED,
    QUIT,
];

/// Rows a page key moves.
const PAGE: isize = 10;

fn table(d: &Disks) -> &'static [Binding<Cmd, Disks>] {
    if d.open.is_some() { OPEN } else { TABLE }
}

/// The rows of the view showing, for the overlay.
pub(super) fn rows(d: &Disks) -> Vec<(String, &'static str)> {
    table(d).iter().map(|b| (b.label(), b.help)).collect()
}

/// Both views' rows, for the README's key reference: the table, then one target opened.
#[cfg(test)]
pub(super) fn all_rows() -> [(&'static str, Vec<(String, &'static str)>); 2] {
    let rows = |t: &[Binding<Cmd, Disks>]| t.iter().map(|b| (b.label(), b.help)).collect();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_key_of_a_view_is_taken_by_an_earlier_row() {
        assert_eq!(crate::tui::keymap::shadowed(TABLE), None);
        assert_eq!(crate::tui::keymap::shadowed(OPEN), None);
        for t in [TABLE, OPEN] {
            assert!(t.iter().any(|b| b.label().contains("Ctrl-C")));
        }
    }
}
