//! What a sweep and a suite on the running engine have in common: each is a series of steps
//! (`sweep::StepRunner` underneath) that runs, is done or is cancelled; fed the engine's
//! snapshots while it runs, its runner decides what the engine does next (`Next`), and the
//! session carries that out as an `Action`. `Series` is that state machine once; the sweep
//! and the suite say only what is their own (their runner, what happens when they are done).

use crate::settings::Settings;
use crate::stats::Snapshot;
use crate::sweep::Next;
use crate::tui::action::Action;

/// Where a sweep or a suite is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepState {
    Running,
    /// Every step was measured.
    Done,
    /// Cancelled with Esc, or a step's settings were refused.
    Cancelled,
}

/// A series on the running engine, as the run screen holds it.
pub trait Series {
    fn state(&self) -> SweepState;
    fn set_state(&mut self, state: SweepState);
    /// The runner's decision after `s`.
    fn next(&mut self, s: &Snapshot) -> Next;
    /// The settings from before the series.
    fn base(&self) -> Settings;

    /// True while it runs (the sliders are locked).
    fn running(&self) -> bool {
        self.state() == SweepState::Running
    }

    /// Feeds `s` to a running series: the runner's decision, `None` when it does not run.
    /// After the last step it is done.
    fn advance(&mut self, s: &Snapshot) -> Option<Next> {
        if !self.running() {
            return None;
        }
        let next = self.next(s);
        if next == Next::Done {
            self.set_state(SweepState::Done);
        }
        Some(next)
    }

    /// Stops it if it runs.
    fn cancel(&mut self) {
        if self.running() {
            self.set_state(SweepState::Cancelled);
        }
    }
}

/// `Series` for a struct with `runner` (whose `on_snapshot` decides), `state` and `base`.
macro_rules! series {
    ($t:ty) => {
        impl $crate::tui::state::series::Series for $t {
            fn state(&self) -> $crate::tui::state::series::SweepState {
                self.state
            }
            fn set_state(&mut self, state: $crate::tui::state::series::SweepState) {
                self.state = state;
            }
            fn next(&mut self, s: &$crate::stats::Snapshot) -> $crate::sweep::Next {
                self.runner.on_snapshot(s)
            }
            fn base(&self) -> $crate::settings::Settings {
                self.base
            }
        }
    };
}
pub(super) use series;

/// What the engine must do for a runner's decision (`Done` is the series' own to handle).
pub fn action_of(next: Next) -> Action {
    match next {
        Next::Continue | Next::Done => Action::None,
        Next::Apply(s) => Action::Apply(s),
        Next::Rest(s) => Action::ApplyPaused(s, true),
        Next::Resume => Action::Pause(false),
    }
}
