//! The run screen's keys, in its three views: the live view (sliders, the sweep and suite
//! keys), the sweep's chart and the suite's card. Each view's table is declared here once;
//! `run_key` looks a key up in the table of the view showing and carries the command out.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use super::series;
use crate::settings::Step;
use crate::suite::SuiteName;
use crate::sweep::Dimension;
use crate::tui::action::Action;
use crate::tui::keymap::{Binding, Key, When, is_prefix, lookup, one_line};
use crate::tui::state::{FioOverlay, Run, View};

/// What a key does on the run screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmd {
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
    /// Every slider back to the settings the run started with.
    StartValues,
    /// Esc with nothing to close or cancel: says that the run goes on.
    Esc,
    Quit,
}

impl Cmd {
    /// Commands refused while a sweep runs: they would change what it measures.
    fn locked_by_sweep(self) -> bool {
        matches!(
            self,
            Cmd::Step(_) | Cmd::Sweep(_) | Cmd::Suite | Cmd::Unlimited | Cmd::StartValues
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

fn table(view: View) -> &'static [Binding<Cmd, Run>] {
    match view {
        View::Live => LIVE,
        View::Sweep => SWEEP_VIEW,
        View::Suite => SUITE_VIEW,
    }
}

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
        Cmd::Esc => {
            run.notice =
                Some("Esc goes back; nothing to close here, the run goes on (q quits)".into());
        }
        Cmd::Quit => return super::slide::quit(run),
    }
    Action::None
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
