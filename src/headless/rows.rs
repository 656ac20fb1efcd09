//! What a headless run prints as it goes, beside the figures: each one-second row, cut where
//! a period ends and tagged with it (`stats::PeriodTracker`, fed every snapshot as the TUI
//! feeds it), read with the target's second and fed to the run's `why` under that period
//! (its new findings and steady-state changes printed under the row), and each sweep step
//! with how `--until-steady` ended it.

use std::io::Write;

use crate::cli::Output;
use crate::output;
use crate::render::baseline::Baseline;
use crate::render::compare::compare_step;
use crate::render::{csv, sweep as sweep_text, text, why as why_text};
use crate::stats::{IntervalFigures, PeriodTracker, Snapshot, Window};
use crate::sweep::SweepRunner;
use crate::why::{Live, News};

/// The one-second rows of a run: printed as they close, kept for the report, and each read
/// beside the target's second and fed to the run's `why`.
pub(super) struct Rows {
    pub output: Output,
    pub intervals: Vec<IntervalFigures>,
    pub live: Live,
    /// The run told setting by setting.
    pub periods: PeriodTracker,
    /// The period of the row being gathered (a row never spans two).
    row_period: usize,
    /// The row whose judging ended the run (`--until-steady`), held back so that what the
    /// engine does while it stops joins it instead of printing as a sliver of a row.
    held: Option<(Window, IntervalFigures, News)>,
}

impl Rows {
    pub fn new(output: Output, live: Live) -> Rows {
        Rows {
            output,
            intervals: Vec::new(),
            live,
            periods: PeriodTracker::default(),
            row_period: 0,
            held: None,
        }
    }

    /// Takes snapshot `s` into the periods and the row in `window`, closing the row first
    /// where a period begins or pauses (`run_s` seconds into the run); returns true when
    /// `--until-steady` ends the run now.
    pub fn take_in(
        &mut self,
        s: &Snapshot,
        window: &mut Window,
        out: &mut output::Stdout,
        run_s: f64,
    ) -> bool {
        let mut end = false;
        if self.periods.push(s).cuts() && window.snapshots > 0 {
            end = self.emit(window, out, run_s, false);
        }
        if window.snapshots == 0 {
            self.row_period = self.periods.current_id();
        }
        window.push(s);
        end
    }

    /// Closes the row in `window` (`last`: the run's end cut it, so it is printed and kept
    /// but not judged); returns true when `--until-steady` ends the run now.
    pub fn emit(
        &mut self,
        window: &mut Window,
        out: &mut output::Stdout,
        run_s: f64,
        last: bool,
    ) -> bool {
        self.release(&mut Window::default(), out);
        let w = window.take();
        let mut row = IntervalFigures {
            period: Some(self.row_period),
            ..w.figures()
        };
        let news = self.live.on_row_judged(&mut row, &w.latency, !last);
        let end = self.live.should_end(run_s);
        if end && !last {
            self.held = Some((w, row, news));
        } else {
            self.keep(row, &news, out);
        }
        end
    }

    /// Prints and keeps the row held when `--until-steady` ended the run, with `tail` (what
    /// came after it, as the engine stopped) joined to it; returns false when none was held.
    pub fn release(&mut self, tail: &mut Window, out: &mut output::Stdout) -> bool {
        let Some((mut w, judged, news)) = self.held.take() else {
            return false;
        };
        w.absorb(tail.take());
        let row = IntervalFigures {
            period: judged.period,
            temp_c: judged.temp_c,
            ..w.figures()
        };
        self.keep(row, &news, out);
        true
    }

    /// Prints `row` (and what was found with it) as the output asks, and keeps it.
    fn keep(&mut self, row: IntervalFigures, news: &News, out: &mut output::Stdout) {
        match self.output {
            Output::Text => {
                let _ = writeln!(out, "{}", text::interval_line(&row));
                for line in why_text::news_lines(news) {
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
    if let (Output::Text, Some(sides)) = (output, sweep_text::step_sides_line(r)) {
        let _ = writeln!(out, "{sides}");
    }
    if let (Output::Text, Some(u)) = (output, runner.steadies().get(measured)) {
        let _ = writeln!(out, "  {}", u.text);
    }
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::steady::SteadyParams;
    use crate::model::ConfigReport;
    use crate::sensors::Sensors;
    use crate::settings::Settings;
    use crate::stats::fake::FakeEngine;

    /// Headless's rows over a pretend engine, with a why that reads no device.
    struct Run {
        rows: Rows,
        engine: FakeEngine,
        window: Window,
        out: output::Stdout,
    }

    impl Run {
        fn new() -> Run {
            let none = std::path::Path::new("/nonexistent");
            let sensors = Sensors::new(None, none, none, None);
            let params = SteadyParams::with_round(1.0);
            let live = Live::new(&ConfigReport::example(), sensors, params, None);
            Run {
                rows: Rows::new(Output::Quiet, live),
                engine: FakeEngine::default(),
                window: Window::default(),
                out: output::stdout(),
            }
        }

        /// `secs` seconds of ticks under `s` (paused: no I/O), a row closed each second as
        /// `headless::run` closes them.
        fn seconds(&mut self, s: Settings, secs: usize, paused: bool) {
            for _ in 0..secs {
                for _ in 0..10 {
                    let snap = self.engine.tick(s, if paused { 0 } else { 1000 }, paused);
                    self.rows
                        .take_in(&snap, &mut self.window, &mut self.out, 0.0);
                }
                self.rows.emit(&mut self.window, &mut self.out, 0.0, false);
            }
        }

        fn steady(&self) -> bool {
            self.rows.live.tracker.steady().reached()
        }

        /// The report headless builds at the end, saved as `--json FILE` writes it.
        fn saved(
            &mut self,
            dir: &std::path::Path,
        ) -> (crate::model::RunReport, std::path::PathBuf) {
            let last = self.engine.tick(Settings::default(), 0, true);
            let intervals = std::mem::take(&mut self.rows.intervals);
            let why = self.rows.live.finish(last.at.as_secs_f64(), &intervals);
            let mut report =
                crate::model::RunReport::new(ConfigReport::example(), &last, intervals)
                    .with_meta(crate::model::Meta::now())
                    .with_periods(self.rows.periods.report());
            report.why = why;
            let f = crate::model::finding::Finding::new("slowdown", "IOPS fell 60%".into());
            report.why.findings.push(f.at(3.0));
            let path = dir.join("run.json");
            let text = serde_json::to_string_pretty(&report).unwrap();
            std::fs::write(&path, text + "\n").unwrap();
            (report, path)
        }

        fn last_period(&self) -> Option<usize> {
            self.rows.intervals.last().and_then(|r| r.period)
        }
    }

    /// A settings change, a pause and its resume, and a reset each begin a period, and the
    /// steady check starts over with it: its window never spans two periods.
    #[test]
    fn every_new_period_starts_the_steady_check_over() {
        let mut r = Run::new();
        let s = Settings::default();
        r.seconds(s, 6, false);
        assert!(r.steady(), "five even rounds of one period are steady");
        assert_eq!(r.last_period(), Some(0));
        let t2 = Settings { threads: 2, ..s };
        r.seconds(t2, 1, false);
        assert_eq!(r.last_period(), Some(1), "a change begins a period");
        assert!(!r.steady(), "and the check starts over with it");
        r.seconds(t2, 5, false);
        assert!(r.steady());
        r.seconds(t2, 2, true);
        r.seconds(t2, 1, false);
        assert_eq!(r.last_period(), Some(2), "a resume begins a period");
        assert!(!r.steady());
        r.seconds(t2, 5, false);
        assert!(r.steady());
        r.engine.reset();
        r.seconds(t2, 1, false);
        assert_eq!(r.last_period(), Some(3), "a reset begins a period");
        assert!(!r.steady());
        // The steady window found after the reset lies wholly in its period.
        r.seconds(t2, 5, false);
        let since_s = r.rows.live.tracker.steady().since_s();
        let start_s = r.rows.periods.report().list.last().map(|p| p.start_s);
        assert!(
            since_s.zip(start_s).is_some_and(|(a, b)| a >= b),
            "{since_s:?} {start_s:?}"
        );
    }

    /// What a run's JSON says of its periods, its provenance, its findings and its steady
    /// state survives reading it back: into the model (`--show --plot`), through the typed
    /// reader (`--baseline`, `--show`), and drawn.
    #[test]
    fn a_saved_run_reads_back_with_its_periods_meta_and_why() {
        let mut r = Run::new();
        let s = Settings::default();
        r.seconds(s, 6, false);
        r.seconds(Settings { threads: 2, ..s }, 6, false);
        let dir = tempfile::tempdir().unwrap();
        let (report, path) = r.saved(dir.path());
        assert_eq!(report.periods.list.len(), 2);
        assert!(report.why.steady_state.as_ref().is_some_and(|s| s.reached));
        let text = std::fs::read_to_string(&path).unwrap();
        let back: crate::model::RunReport = serde_json::from_str(&text).unwrap();
        assert_eq!(back.why, report.why);
        assert_eq!(back.meta, report.meta);
        assert_eq!(back.periods.list, report.periods.list);
        assert_eq!(serde_json::to_string_pretty(&back).unwrap() + "\n", text);
        let b = crate::render::baseline::BaselineFile::load(&path).unwrap();
        assert_eq!(b.meta, report.meta);
        let iops: Vec<f64> = b.periods.iter().map(|p| p.figures.iops).collect();
        let want: Vec<f64> = report.periods.list.iter().map(|p| p.iops).collect();
        assert_eq!(iops, want);
        assert_eq!(b.periods[1].settings.map(|s| s.threads), Some(2));
        let shown = crate::show::show(&path).unwrap();
        assert!(shown.starts_with("saved by diskscope "), "{shown}");
        let svg = dir.path().join("run.svg");
        crate::show::plot(&path, &svg).unwrap();
        assert!(
            std::fs::read_to_string(&svg)
                .unwrap()
                .contains("<desc>diskscope chart: ")
        );
    }
}
