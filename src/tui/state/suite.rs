//! A suite on the running engine, as the run screen holds it: `SuiteRunner` decides each
//! pass, the session applies it (pausing the engine between passes), and the card fills in
//! row by row while the graphs go on. When the card is done the settings from before the
//! suite come back, paused; Esc cancels a running suite back to the sliders.

use super::run::Run;
use super::series::{Series, SweepState, action_of, series};
use super::sweep::View;
use crate::model::ConfigReport;
use crate::settings::Settings;
use crate::stats::Snapshot;
use crate::suite::{
    Plan, SuiteName, SuiteReport, SuiteRunner, TestResult, Timing, notes, write_refusal,
};
use crate::sweep::{Next, RAMP};
use crate::tui::action::Action;

/// A suite on the running engine.
#[derive(Debug, Clone)]
pub struct SuiteRun {
    pub runner: SuiteRunner,
    pub state: SweepState,
    /// The settings before the suite, restored after it.
    pub base: Settings,
    /// What the card must say beyond its figures (page cache, a small span, Q1 on psync).
    pub notes: Vec<String>,
    /// What stopped it before its last pass ("Esc", "the q key", "SIGTERM"), if anything.
    pub stopped_by: Option<String>,
}

series!(SuiteRun);

impl SuiteRun {
    /// The card as it stands: rows not measured yet say so.
    pub fn card(&self) -> Vec<TestResult> {
        let pending = match self.state {
            SweepState::Running => "…",
            SweepState::Done => "not run",
            SweepState::Cancelled => "not run: cancelled",
        };
        self.runner.card(pending)
    }
}

impl Run {
    /// Starts the `name` suite with `timing` from the current settings; the action resumes
    /// the engine (if paused) on the first pass. `ram` is the machine's RAM, for the notes.
    pub fn start_suite(&mut self, name: SuiteName, timing: Timing, ram: Option<u64>) -> Action {
        let plan = Plan::new(name, timing, write_refusal(&self.info), self.info.ioengine)
            .polled(self.settings.hipri);
        let runner = SuiteRunner::new(plan);
        let first = runner.first();
        self.suite = Some(SuiteRun {
            notes: notes(&self.info, ram),
            runner,
            state: SweepState::Running,
            base: self.settings,
            stopped_by: None,
        });
        self.paused = false;
        self.view = View::Suite;
        self.message = None;
        self.notice = None;
        Action::ApplyPaused(first, false)
    }

    /// Feeds a snapshot to a running suite; the action carries out the runner's decision.
    /// After the last pass the settings from before come back, paused.
    pub fn advance_suite(&mut self, s: &Snapshot) -> Action {
        let Some(suite) = &mut self.suite else {
            return Action::None;
        };
        match suite.advance(s) {
            Some(Next::Done) => {
                self.paused = true;
                self.message = None;
                self.notice = Some(
                    "the card is done; the run is paused with its earlier settings (space resumes)"
                        .into(),
                );
                Action::ApplyPaused(suite.base(), true)
            }
            next => next.map_or(Action::None, action_of),
        }
    }

    /// Esc while a suite runs: back to the sliders and the earlier settings, running.
    pub fn cancel_suite(&mut self) -> Action {
        let Some(suite) = self.suite.as_mut().filter(|w| w.running()) else {
            return Action::None;
        };
        suite.cancel();
        suite.stopped_by = Some("Esc".into());
        self.view = View::Live;
        self.paused = false;
        // A notice: the message line is cleared when the engine takes the earlier settings.
        self.message = None;
        self.notice = Some(format!(
            "suite cancelled after {} of {} passes; the run goes on",
            suite.runner.passes_done(),
            suite.runner.plan().passes.len()
        ));
        Action::ApplyPaused(suite.base(), false)
    }

    /// True while a suite runs (the sliders are locked).
    pub fn suite_running(&self) -> bool {
        self.suite.as_ref().is_some_and(SuiteRun::running)
    }

    /// The card as `--suite --json` reports it: finished, stopped early (its rows not run
    /// say by what, and so does `interrupted_by`), or as it stands while it runs (what `e`
    /// saves mid-suite).
    pub fn suite_report(&self) -> Option<SuiteReport> {
        let suite = self.suite.as_ref()?;
        let plan = suite.runner.plan();
        let (pending, interrupted_by) = match (suite.state, &suite.stopped_by) {
            (SweepState::Done, _) => ("not run".to_string(), None),
            (_, Some(by)) => (
                format!("not run: the suite was stopped by {by}"),
                Some(by.clone()),
            ),
            (_, None) => ("not run yet: saved while the suite ran".to_string(), None),
        };
        let (config, tests) = (self.suite_config(), suite.runner.card(&pending));
        Some(SuiteReport {
            findings: crate::suite::card::findings(&config, &tests),
            until_steady: Vec::new(),
            health: None,
            meta: self.meta.clone(),
            suite: plan.suite,
            config,
            passes: plan.timing.passes,
            pass_time_s: plan.timing.pass_time.as_secs_f64(),
            ramp_s: RAMP.as_secs_f64(),
            pause_s: plan.timing.pause.as_secs_f64(),
            notes: suite.notes.clone(),
            tests,
            errors: self.first_errors(),
            interrupted_by,
        })
    }

    /// The card printed and saved when the session ends: a finished one, or one still
    /// running (then stopped by the quit). One cancelled with Esc is not: the run went on.
    pub fn suite_at_quit(&self) -> Option<SuiteReport> {
        self.suite
            .as_ref()
            .filter(|s| s.state != SweepState::Cancelled)
            .and(self.suite_report())
    }

    /// The run's description as the suite ran it: its first pass's settings, `-T` per pass.
    pub fn suite_config(&self) -> ConfigReport {
        let Some(suite) = &self.suite else {
            return self.info.clone();
        };
        let plan = suite.runner.plan();
        ConfigReport {
            duration_s: Some(plan.timing.pass_time.as_secs_f64()),
            ..self.info.clone()
        }
        .with_settings(plan.settings(0, crate::suite::Direction::Read))
    }
}
