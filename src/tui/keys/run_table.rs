//! The run screen's keys as tables, one per view — the live view (sliders, the sweep and suite
//! keys), the sweep's chart and the suite's card — each row its keys, its command, when it
//! applies and its help. `run` carries the commands out; the `?` overlay and the README's key
//! reference read these same rows.

use ratatui::crossterm::event::KeyCode;

use crate::settings::Step;
use crate::sweep::Dimension;
use crate::tui::keymap::{Binding, Key, When};
use crate::tui::state::{Run, View};

/// What a key does on the run screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmd {
    FocusNext,
    FocusPrev,
    Step(Step),
    Pause,
    Reset,
    ScrollUp,
    ScrollDown,
    Members,
    Heatmap,
    Zoom,
    Mouse,
    Sweep(Dimension),
    CancelSweep,
    CancelSuite,
    Suite,
    Surface,
    ShowLast,
    Back,
    Export,
    Fio,
    Help,
    Log,
    /// Rate back to unlimited.
    Unlimited,
    /// Completions polled, or waited for by interrupt (`--hipri`).
    Poll,
    /// Every slider back to the settings the run started with.
    StartValues,
    /// Esc with nothing to close or cancel: says that the run goes on.
    Esc,
    Quit,
}

impl Cmd {
    /// Commands refused while a sweep runs: they would change what it measures.
    pub(super) fn locked_by_sweep(self) -> bool {
        matches!(
            self,
            Cmd::Step(_)
                | Cmd::Sweep(_)
                | Cmd::Suite
                | Cmd::Unlimited
                | Cmd::StartValues
                | Cmd::Poll
        )
    }
}

const SWEEPING: When<Run> = When {
    name: "sweeping",
    holds: Run::sweeping,
};
const SUITE_RUNNING: When<Run> = When {
    name: "running",
    holds: Run::suite_running,
};
const SUITE_DONE: When<Run> = When {
    name: "done",
    holds: |r| !r.suite_running(),
};

const FIO: Binding<Cmd, Run> = Binding::always(
    &[(Key::Char('f'), Cmd::Fio)],
    "the fio command line and job file for these settings",
)
.hint("fio");
const HELP: Binding<Cmd, Run> = Binding::always(
    &[(Key::Char('?'), Cmd::Help)],
    "this help (arrows and PgUp/PgDn scroll it)",
)
.hint("help");
const LOG: Binding<Cmd, Run> = Binding::always(
    &[(Key::Char('L'), Cmd::Log)],
    "the message log: every message whole, with its time on the run's clock",
)
.hint("log");
/// Quitting a run that went on for more than a minute asks once.
const QUIT_ASKED: When<Run> = When {
    name: "asked",
    holds: |r| r.quit_asked,
};
const CONFIRM_QUIT: Binding<Cmd, Run> = Binding::when(
    &[(Key::Char('y'), Cmd::Quit)],
    QUIT_ASKED,
    "quit, when asked",
);

/// The live view: sliders, graphs, the sweep and suite keys.
const LIVE: &[Binding<Cmd, Run>] = &[
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
    Binding::always(
        &[
            (Key::Code(KeyCode::Left), Cmd::Step(Step::Down)),
            (Key::Code(KeyCode::Right), Cmd::Step(Step::Up)),
            (Key::Char('h'), Cmd::Step(Step::Down)),
            (Key::Char('l'), Cmd::Step(Step::Up)),
        ],
        "threads/depth/block size: halve/double; %: one step; rate: fractions of the IOPS measured unlimited (90% … 1%; → from 100% is unlimited)",
    ),
    Binding::always(
        &[
            (Key::Char('+'), Cmd::Step(Step::Plus)),
            (Key::Char('='), Cmd::Step(Step::Plus)),
            (Key::Char('-'), Cmd::Step(Step::Minus)),
            (Key::Char('_'), Cmd::Step(Step::Minus)),
        ],
        "threads/depth: one more/fewer; rate: a tenth; others: one step",
    ),
    Binding::always(&[(Key::Char('u'), Cmd::Unlimited)], "rate back to unlimited").hint("unlimited"),
    Binding::always(
        &[(Key::Char('0'), Cmd::StartValues)],
        "every slider back to the value the run started with",
    )
    .hint("start"),
    Binding::always(
        &[(Key::Char('P'), Cmd::Poll)],
        "completions polled / by interrupt (fio's hipri, --hipri; where the disk's queue polls)",
    ),
    Binding::always(&[(Key::Char(' '), Cmd::Pause)], "pause / resume"),
    Binding::always(&[(Key::Char('r'), Cmd::Reset)], "reset the statistics"),
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
        &[(Key::Char('m'), Cmd::Members)],
        "md/dm target: its member disks in the kernel pane",
    ),
    Binding::always(
        &[(Key::Char('d'), Cmd::Heatmap)],
        "latency distribution / heatmap (░ ≤5% ▒ ≤25% ▓ ≤60% █ of a column's I/Os)",
    ),
    Binding::always(
        &[(Key::Char('z'), Cmd::Zoom)],
        "graphs' time per column: 0.1 s, 1 s, 10 s, whole run",
    ),
    Binding::always(
        &[(Key::Char('M'), Cmd::Mouse)],
        "mouse on/off (while on, Shift-drag selects text)",
    ),
    Binding::always(
        &[
            (Key::Then('s', 't'), Cmd::Sweep(Dimension::Threads)),
            (Key::Then('s', 'b'), Cmd::Sweep(Dimension::Bs)),
            (Key::Then('s', 'q'), Cmd::Sweep(Dimension::Iodepth)),
        ],
        "sweep threads 1..64 / block size 512..4M / depth 1..256",
    )
    .hint("sweep"),
    Binding::always(
        &[(Key::Then('s', 'r'), Cmd::Sweep(Dimension::Rate))],
        "latency vs load: unlimited, then 10..100% of it",
    ),
    Binding::when(
        &[(Key::Code(KeyCode::Esc), Cmd::CancelSweep)],
        SWEEPING,
        "cancel the sweep (its settings are put back); the run goes on",
    ),
    Binding::always(
        &[(Key::Code(KeyCode::Esc), Cmd::Esc)],
        "back: closes what is open, cancels a sweep or suite; never ends the run",
    ),
    Binding::always(
        &[(Key::Char('c'), Cmd::Suite)],
        "run the standard suite: the card (Esc cancels)",
    )
    .hint("suite"),
    Binding::always(&[(Key::Char('S'), Cmd::Surface)], super::surface::FROM_RUN),
    Binding::always(
        &[(Key::Char('v'), Cmd::ShowLast)],
        "show the last sweep's chart or card (Enter/Esc: back)",
    ),
    Binding::always(
        &[(Key::Char('e'), Cmd::Export)],
        "save the run, or the sweep or card running or last, as diskscope-*.json and its chart as .svg",
    )
    .hint("save"),
    FIO,
    LOG,
    HELP,
    CONFIRM_QUIT,
    Binding::always(
        &[(Key::Char('q'), Cmd::Quit), (Key::Ctrl('c'), Cmd::Quit)],
        "quit and print the summary (after a minute, q asks once: q or y again)",
    )
    .hint("quit"),
];

/// The sweep's chart.
const SWEEP_VIEW: &[Binding<Cmd, Run>] = &[
    Binding::when(
        &[(Key::Code(KeyCode::Esc), Cmd::CancelSweep)],
        SWEEPING,
        "cancel the sweep (its settings are put back); the run goes on",
    )
    .hint("cancel"),
    Binding::always(
        &[
            (Key::Code(KeyCode::Enter), Cmd::Back),
            (Key::Code(KeyCode::Esc), Cmd::Back),
        ],
        "back to the run (it goes on)",
    )
    .hint("back"),
    Binding::always(&[(Key::Char('e'), Cmd::Export)], "save the sweep").hint("save"),
    FIO,
    LOG,
    HELP,
    CONFIRM_QUIT,
    Binding::always(
        &[(Key::Char('q'), Cmd::Quit), (Key::Ctrl('c'), Cmd::Quit)],
        "quit",
    )
    .hint("quit"),
];

/// The suite's card: while it runs, Esc cancels it; other keys but q, ? and f say so.
const SUITE_VIEW: &[Binding<Cmd, Run>] = &[
    Binding::when(
        &[(Key::Code(KeyCode::Esc), Cmd::CancelSuite)],
        SUITE_RUNNING,
        "cancel the suite (the settings from before come back); the run goes on",
    )
    .hint("cancel"),
    Binding::always(
        &[
            (Key::Code(KeyCode::Enter), Cmd::Back),
            (Key::Code(KeyCode::Esc), Cmd::Back),
        ],
        "back to the run",
    )
    .hint("back"),
    Binding::when(
        &[(Key::Char(' '), Cmd::Pause)],
        SUITE_DONE,
        "pause / resume",
    ),
    Binding::always(
        &[(Key::Char('e'), Cmd::Export)],
        "save the card (as it stands while it runs)",
    )
    .hint("save"),
    Binding::always(
        &[(Key::Char('f'), Cmd::Fio)],
        "the fio job of the whole suite",
    )
    .hint("fio"),
    LOG,
    HELP,
    CONFIRM_QUIT,
    Binding::always(
        &[(Key::Char('q'), Cmd::Quit), (Key::Ctrl('c'), Cmd::Quit)],
        "quit",
    )
    .hint("quit"),
];

pub(super) fn table(view: View) -> &'static [Binding<Cmd, Run>] {
    match view {
        View::Live => LIVE,
        View::Sweep => SWEEP_VIEW,
        View::Suite => SUITE_VIEW,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every view's keys do what their rows say (no row hidden behind an earlier one).
    #[test]
    fn no_key_of_a_view_is_taken_by_an_earlier_row() {
        for v in [View::Live, View::Sweep, View::Suite] {
            assert_eq!(crate::tui::keymap::shadowed(table(v)), None, "{v:?}");
        }
    }
}
