//! What is printed on the normal screen after the TUI closes: the run's summary, or the
//! sweep's table and finding, each with the baseline's comparison when one was given.

use super::baseline::Baseline;
use super::compare::{compare_run, compare_step};
use super::{sweep, text};
use crate::model::{RunReport, SweepReport};

/// What is printed on the normal screen after the TUI: the run's summary, or when a sweep ran
/// last the sweep's table and finding; with a baseline, the comparison.
pub fn final_text(
    report: &RunReport,
    sweep: Option<&SweepReport>,
    baseline: Option<&Baseline>,
) -> String {
    let Some(sweep) = sweep else {
        let mut out = text::summary(report, true);
        if let Some(b) = baseline {
            out.push_str(&compare_run(b, report));
            out.push('\n');
        }
        return out;
    };
    let mut out = format!("{}\n", text::header(&sweep.config));
    out.push_str(&format!(
        "sweep of {} over {} steps, {:.1}s each after a {:.1}s ramp\n",
        sweep.dimension.name(),
        sweep.steps.len(),
        sweep.step_time_s,
        crate::sweep::RAMP.as_secs_f64()
    ));
    out.push_str(&sweep::step_header(sweep.dimension));
    out.push('\n');
    for step in &sweep.steps {
        out.push_str(&sweep::step_line(sweep.dimension, step));
        if let Some(b) = baseline {
            out.push_str(&compare_step(b, sweep.dimension, step));
        }
        out.push('\n');
    }
    out.push_str(&sweep::sweep_summary(sweep));
    out
}
