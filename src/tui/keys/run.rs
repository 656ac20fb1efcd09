//! The run screen's keys, in its three views: the live view (sliders, the sweep and suite
//! keys), the sweep's chart and the suite's card. Each view's table is declared here once;
//! `run_key` looks a key up in the table of the view showing and carries the command out.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use crate::settings::{Knob, Settings, Step, rate_ladder_at_or_below, stepped};
use crate::suite::SuiteName;
use crate::sweep::{Dimension, SWEEP_IODEPTH, SWEEP_THREADS, default_sweep, psync_refusal};
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
    ShowLast,
    Back,
    Export,
    Fio,
    Help,
    Quit,
}

impl Cmd {
    /// Commands refused while a sweep runs: they would change what it measures.
    fn locked_by_sweep(self) -> bool {
        matches!(self, Cmd::Step(_) | Cmd::Sweep(_) | Cmd::Suite)
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
);
const HELP: Binding<Cmd, Run> = Binding::always(
    &[(Key::Char('?'), Cmd::Help)],
    "this help (arrows and PgUp/PgDn scroll it)",
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
        "threads/depth/block size: halve/double; %: one step; rate: 1-2-5 ladder",
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
    ),
    Binding::always(
        &[(Key::Then('s', 'r'), Cmd::Sweep(Dimension::Rate))],
        "latency vs load: unlimited, then 10..100% of it",
    ),
    Binding::when(
        &[(Key::Code(KeyCode::Esc), Cmd::CancelSweep)],
        SWEEPING,
        "cancel the sweep; the run goes on",
    ),
    Binding::always(
        &[(Key::Char('c'), Cmd::Suite)],
        "run the standard suite: the card (Esc cancels)",
    ),
    Binding::always(
        &[(Key::Char('v'), Cmd::ShowLast)],
        "show the last sweep's chart or card (Enter/Esc: back)",
    ),
    Binding::always(
        &[(Key::Char('e'), Cmd::Export)],
        "save the run, or the sweep or card running or last, as diskscope-*.json and its chart as .svg",
    ),
    FIO,
    HELP,
    Binding::always(
        &[
            (Key::Char('q'), Cmd::Quit),
            (Key::Code(KeyCode::Esc), Cmd::Quit),
            (Key::Ctrl('c'), Cmd::Quit),
        ],
        "quit and print the summary",
    ),
];

/// The sweep's chart.
const SWEEP_VIEW: &[Binding<Cmd, Run>] = &[
    Binding::always(
        &[
            (Key::Code(KeyCode::Enter), Cmd::Back),
            (Key::Code(KeyCode::Esc), Cmd::Back),
        ],
        "back to the run (it goes on)",
    ),
    Binding::always(&[(Key::Char('e'), Cmd::Export)], "save the sweep"),
    FIO,
    HELP,
    Binding::always(
        &[(Key::Char('q'), Cmd::Quit), (Key::Ctrl('c'), Cmd::Quit)],
        "quit",
    ),
];

/// The suite's card: while it runs, Esc cancels it; other keys but q, ? and f say so.
const SUITE_VIEW: &[Binding<Cmd, Run>] = &[
    Binding::when(
        &[(Key::Code(KeyCode::Esc), Cmd::CancelSuite)],
        SUITE_RUNNING,
        "cancel the suite; the run goes on",
    ),
    Binding::always(
        &[
            (Key::Code(KeyCode::Enter), Cmd::Back),
            (Key::Code(KeyCode::Esc), Cmd::Back),
        ],
        "back to the run",
    ),
    Binding::when(
        &[(Key::Char(' '), Cmd::Pause)],
        SUITE_DONE,
        "pause / resume",
    ),
    Binding::always(
        &[(Key::Char('e'), Cmd::Export)],
        "save the card (as it stands while it runs)",
    ),
    Binding::always(
        &[(Key::Char('f'), Cmd::Fio)],
        "the fio job of the whole suite",
    ),
    HELP,
    Binding::always(
        &[(Key::Char('q'), Cmd::Quit), (Key::Ctrl('c'), Cmd::Quit)],
        "quit",
    ),
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
    let cmd = lookup(table(run.view), &key, prefix, run);
    match (cmd, key.code) {
        (Some(cmd), _) => apply(run, cmd, help, fio),
        (None, KeyCode::Char(c)) if prefix.is_none() && is_prefix(table(run.view), c) => {
            sweep_prompt(run)
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

/// `s`: the next key picks the sweep's dimension.
fn sweep_prompt(run: &mut Run) -> Action {
    if run.sweeping() {
        return locked(run);
    }
    run.sweep_prompt = true;
    run.message = None;
    run.notice = Some(format!(
        "sweep: t threads {}..{} · b block size 512..4M · q depth 1..{} · r latency curve · {:.1} s/step · other keys cancel",
        SWEEP_THREADS.0,
        SWEEP_THREADS.1,
        SWEEP_IODEPTH.1,
        run.step_time.as_secs_f64()
    ));
    Action::None
}

pub(super) fn locked(run: &mut Run) -> Action {
    run.message = Some("a sweep is running: the sliders are locked (Esc cancels the sweep)".into());
    Action::None
}

/// Carries out `cmd`; what needs the engine or the disk goes out as the action.
fn apply(run: &mut Run, cmd: Cmd, help: &mut bool, fio: &mut Option<FioOverlay>) -> Action {
    if run.sweeping() && cmd.locked_by_sweep() {
        return locked(run);
    }
    match cmd {
        Cmd::FocusNext => run.focus = run.focus.next(),
        Cmd::FocusPrev => run.focus = run.focus.prev(),
        Cmd::Step(s) => return step(run, s),
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
        Cmd::Sweep(d) => return start_sweep(run, d),
        Cmd::CancelSweep => run.cancel_sweep("cancelled", "Esc"),
        Cmd::CancelSuite => return run.cancel_suite(),
        Cmd::Suite => return run.start_suite(SuiteName::Standard, run.suite_timing, run.ram_bytes),
        Cmd::ShowLast => show_last(run),
        Cmd::Back => run.view = View::Live,
        Cmd::Export => return Action::Export,
        Cmd::Fio => *fio = Some(run.fio_overlay()),
        Cmd::Help => *help = true,
        Cmd::Quit => return Action::Quit,
    }
    Action::None
}

/// `v`: the last card when a suite ran and no sweep, else the last sweep's chart.
fn show_last(run: &mut Run) {
    if run.suite.is_some() && run.sweep.is_none() {
        run.view = View::Suite;
    } else if run.sweep.is_some() {
        run.view = View::Sweep;
    }
}

/// Starts the default sweep of `d`, or says why there is none.
fn start_sweep(run: &mut Run, d: Dimension) -> Action {
    match default_sweep(d, &run.info) {
        Ok(spec) => run.start_sweep(spec),
        Err(e) => {
            run.message = Some(e);
            Action::None
        }
    }
}

fn step(run: &mut Run, step: Step) -> Action {
    if run.focus == Knob::QueueDepth
        && let Err(why) = psync_refusal(&run.info)
    {
        run.message = Some(why);
        return Action::None;
    }
    let next = match (run.focus, run.settings.rate_iops, step) {
        // Leaving "unlimited": the ladder value below what the disk does now, so the first
        // step is a load it can carry rather than the ladder's top.
        (Knob::Rate, 0, Step::Down | Step::Minus) => Ok(Settings {
            rate_iops: run
                .seconds
                .now
                .as_ref()
                .filter(|n| n.iops >= 1.0)
                .map_or(10_000_000, |n| rate_ladder_at_or_below(n.iops as u64)),
            ..run.settings
        }),
        _ => stepped(run.settings, run.focus, step, run.info.target.write_allowed),
    };
    super::sliders::propose(run, next)
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
