//! The run screen's keys for its series and views: the `s` prompt and a sweep's start, the
//! lock while one runs, `v` (the last chart or card) and `f` (the fio equivalent of what the
//! screen shows).

use crate::fio::job::FioJob;
use crate::sweep::{Dimension, SWEEP_IODEPTH, SWEEP_THREADS, default_sweep};
use crate::tui::action::Action;
use crate::tui::state::{FioOverlay, Run, View};

/// `s`: the next key picks the sweep's dimension.
pub(super) fn sweep_prompt(run: &mut Run) -> Action {
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

/// `v`: the last card when a suite ran and no sweep, else the last sweep's chart.
pub(super) fn show_last(run: &mut Run) {
    if run.suite.is_some() && run.sweep.is_none() {
        run.view = View::Suite;
    } else if run.sweep.is_some() {
        run.view = View::Sweep;
    }
}

/// The fio equivalent of what the screen shows: the suite's whole plan on its card, else
/// the settings in force.
pub(super) fn fio_overlay(run: &Run) -> FioOverlay {
    let job = match (&run.view, &run.suite) {
        (View::Suite, Some(suite)) => FioJob::suite(&run.suite_config(), suite.runner.plan()),
        _ => FioJob::run(&run.current_config()),
    };
    FioOverlay {
        command_line: job.command_line(),
        job_file: job.job_file(),
    }
}

/// Starts the default sweep of `d`, or says why there is none.
pub(super) fn start_sweep(run: &mut Run, d: Dimension) -> Action {
    match default_sweep(d, &run.info) {
        Ok(spec) => run.start_sweep(spec),
        Err(e) => {
            run.message = Some(e);
            Action::None
        }
    }
}
