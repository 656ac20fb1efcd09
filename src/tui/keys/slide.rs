//! The run screen's keys that move settings or leave: a slider's step (the rate's in
//! fractions of what the disk does unpaced), the rate back to unlimited, polling on or off,
//! every slider back to its start, and `q`, which after a minute of running asks once.

use crate::settings::{Knob, Settings, Step, rate_by_fraction, rate_ladder_at_or_below, stepped};
use crate::sweep::psync_refusal;
use crate::tui::action::Action;
use crate::tui::state::Run;

/// `q`: quits, but after a minute of running asks once first (`q` or `y` again quits).
pub(super) fn quit(run: &mut Run) -> Action {
    let long = run.elapsed() >= crate::tui::state::run::ASK_AFTER;
    if run.ask_before_quit && long && !run.quit_asked && !run.stopping {
        run.quit_asked = true;
        run.message = Some(format!(
            "quit after {} of running? q or y quits, any other key goes on",
            crate::units::format_duration(run.elapsed())
        ));
        return Action::None;
    }
    Action::Quit
}

/// `u`: the settings in force with the rate unlimited.
pub(super) fn rate_unlimited(run: &Run) -> Settings {
    Settings {
        rate_iops: 0,
        ..run.settings
    }
}

/// `P`: completions polled, or back to interrupts; refused with the reason where the target's
/// queue does not poll (`target::poll`, checked at the start). The engine refuses it beside
/// trims, and the message says so.
pub(super) fn toggle_polling(run: &mut Run) -> Action {
    let next = Settings {
        hipri: !run.settings.hipri,
        ..run.settings
    };
    match &run.info.poll_refusal {
        Some(why) if next.hipri => {
            run.message = Some(why.clone());
            Action::None
        }
        _ => apply_settings(run, next),
    }
}

/// Applies `next` unless it is what is in force already (`sliders::propose`, as a click).
pub(super) fn apply_settings(run: &mut Run, next: Settings) -> Action {
    super::sliders::propose(run, Ok(next))
}

/// Why `knob` cannot move on this run: psync's depth, trims where the target cannot take them
/// (`target::trim`, checked at the start).
pub(super) fn refusal(run: &Run, knob: Knob) -> Option<String> {
    match knob {
        Knob::QueueDepth => psync_refusal(&run.info).err(),
        Knob::TrimPct => run.info.trim_refusal.clone(),
        _ => None,
    }
}

pub(super) fn step(run: &mut Run, step: Step) -> Action {
    if let Some(why) = refusal(run, run.focus) {
        run.message = Some(why);
        return Action::None;
    }
    let next = match (run.focus, run.settings.rate_iops, step, run.rate_base) {
        // ←/→ on the rate: fractions of what the disk does unpaced, once that is known.
        (Knob::Rate, rate, Step::Down | Step::Up, Some(base)) => Ok(Settings {
            rate_iops: rate_by_fraction(rate, base, step == Step::Up),
            ..run.settings
        }),
        // Leaving "unlimited": the ladder value below what the disk does now, so the first
        // step is a load it can carry rather than the ladder's top.
        (Knob::Rate, 0, Step::Down | Step::Minus, _) => Ok(Settings {
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
