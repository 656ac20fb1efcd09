//! The disks screen's keys as tables, one per view — the table of every target and one
//! target's run screen opened from it — each row its keys, its command, when it applies and
//! its help. `disks` carries the commands out; the `?` overlay and the README read these rows.

use ratatui::crossterm::event::KeyCode;

use crate::settings::Step;
use crate::tui::keymap::{Binding, Key};
use crate::tui::state::disks::Disks;

/// What a key does on the disks screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmd {
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
    /// Completions polled on every target, or by interrupt (`--hipri`).
    Poll,
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

const POLL: Binding<Cmd, Disks> = Binding::always(
    &[(Key::Char('P'), Cmd::Poll)],
    "completions polled / by interrupt on every target (--hipri; where every queue polls)",
);

/// The table of every target.
pub(super) const TABLE: &[Binding<Cmd, Disks>] = &[
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
    POLL,
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
pub(super) const OPEN: &[Binding<Cmd, Disks>] = &[
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
    POLL,
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
pub(super) const PAGE: isize = 10;

pub(super) fn table(d: &Disks) -> &'static [Binding<Cmd, Disks>] {
    if d.open.is_some() { OPEN } else { TABLE }
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
