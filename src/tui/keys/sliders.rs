//! What a slider and the thread table do when pointed at, and where a slider's new
//! settings go whether a key or the mouse moved it: a mouse press focuses a slider (as Tab
//! does) or, on its bar, sets the value at that point of its scale (`settings::at_position`),
//! refused as a key's step is (a sweep's lock, psync's depth, read % without writes); the
//! wheel scrolls the thread table. `propose` is the one way new settings leave a slider.

use crate::settings::{Knob, Settings};
use crate::tui::action::Action;
use crate::tui::state::Run;

/// A mouse press on `knob`'s slider, off its bar: the slider is focused, as Tab would.
pub(in crate::tui) fn focus(run: &mut Run, knob: Knob) -> Action {
    run.focus = knob;
    Action::None
}

/// A mouse press or drag at `p` (0: left end, 1: right) of `knob`'s bar: the slider is
/// focused and set to the value there, refused as a key's step would be (a sweep's lock,
/// psync's depth, read % without writes).
pub(in crate::tui) fn set_slider(run: &mut Run, knob: Knob, p: f64) -> Action {
    if run.sweeping() {
        return super::series::locked(run);
    }
    run.focus = knob;
    if let Some(why) = super::slide::refusal(run, knob) {
        run.message = Some(why);
        return Action::None;
    }
    let next = crate::settings::at_position(run.settings, knob, p, run.info.target.write_allowed);
    propose(run, next)
}

/// The wheel over the thread table: `by` rows down (up when negative).
pub(in crate::tui) fn scroll_threads(run: &mut Run, by: isize) -> Action {
    let last = run.thread_rows().saturating_sub(1);
    run.thread_scroll = run.thread_scroll.saturating_add_signed(by).min(last);
    Action::None
}

/// New settings from a slider (a key's step or a click): applied when they differ from
/// those in force, else nothing; a refusal goes to the message line.
pub(super) fn propose(run: &mut Run, next: Result<Settings, String>) -> Action {
    match next {
        Ok(n) if n == run.settings => Action::None,
        Ok(n) => {
            run.message = None;
            if let Some(sweep) = &mut run.sweep {
                sweep.superseded = true;
            }
            Action::Apply(n)
        }
        Err(msg) => {
            run.message = Some(msg);
            Action::None
        }
    }
}
