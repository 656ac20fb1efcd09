//! What a headless run prints as it goes, beside the figures: each one-second row, read with
//! the target's second and fed to the run's `why` (its new findings and steady-state changes
//! printed under the row), and each sweep step with how `--until-steady` ended it.

use std::io::Write;

use crate::cli::Output;
use crate::output;
use crate::render::baseline::Baseline;
use crate::render::compare::compare_step;
use crate::render::{csv, sweep as sweep_text, text, why as why_text};
use crate::stats::{IntervalFigures, Window};
use crate::sweep::SweepRunner;
use crate::why::Live;

/// The one-second rows of a run: printed as they close, kept for the report, and each read
/// beside the target's second and fed to the run's `why`.
pub(super) struct Rows {
    pub output: Output,
    pub intervals: Vec<IntervalFigures>,
    pub live: Live,
}

impl Rows {
    /// Closes the row in `window` (`last`: the run's end cut it, so it is printed and kept
    /// but not judged); returns true when `--until-steady` ends the run now.
    pub fn emit(
        &mut self,
        window: &mut Window,
        out: &mut output::Stdout,
        run_s: f64,
        last: bool,
    ) -> bool {
        let w = window.take();
        let mut row = w.figures();
        let news = self.live.on_row_judged(&mut row, &w.latency, !last);
        match self.output {
            Output::Text => {
                let _ = writeln!(out, "{}", text::interval_line(&row));
                for line in why_text::news_lines(&news) {
                    let _ = writeln!(out, "{line}");
                }
            }
            Output::Csv => {
                let _ = writeln!(out, "{}", csv::row(&row));
            }
            Output::Quiet | Output::Json => {}
        }
        let _ = out.flush();
        self.intervals.push(row);
        self.live.should_end(run_s)
    }
}

/// Prints a sweep's step `measured` as it is measured (and, with `--until-steady`, how it
/// ended).
pub(super) fn step_lines(
    out: &mut output::Stdout,
    output: Output,
    runner: &SweepRunner,
    measured: usize,
    baseline: Option<&Baseline>,
) {
    let Some(r) = runner.results().get(measured) else {
        return;
    };
    let dimension = runner.spec().dimension;
    let _ = match output {
        Output::Text => writeln!(
            out,
            "{}{}",
            sweep_text::step_line(dimension, r),
            baseline
                .map(|b| compare_step(b, dimension, r))
                .unwrap_or_default()
        ),
        Output::Csv => writeln!(out, "{}", csv::step_row(measured, r)),
        Output::Quiet | Output::Json => Ok(()),
    };
    if let (Output::Text, Some(u)) = (output, runner.steadies().get(measured)) {
        let _ = writeln!(out, "  {}", u.text);
    }
    let _ = out.flush();
}
