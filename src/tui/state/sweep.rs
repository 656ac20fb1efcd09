//! A sweep on the running engine, as the run screen holds it: `SweepRunner` decides the
//! steps, the session applies them; when done the screen shows the sweep's chart.

use std::time::Duration;

use super::run::Run;
use super::series::{Series, SweepState, action_of, series};
use crate::model::{ConfigReport, SweepReport};
use crate::results::export::Export;
use crate::settings::Settings;
use crate::stats::{IntervalFigures, Snapshot};
use crate::sweep::{Dimension, LatencyCurve, Next, Saturation, SweepRunner, SweepSpec, findings};
use crate::tui::action::Action;

/// What the run screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Sliders, graphs, histogram, threads.
    Live,
    /// The last sweep: chart, table and saturation (Enter/Esc goes back).
    Sweep,
    /// A suite's card filling in above the live graphs (Esc cancels or goes back).
    Suite,
}

/// A sweep on the running engine: `SweepRunner` decides, the run loop applies.
#[derive(Debug, Clone)]
pub struct SweepRun {
    pub runner: SweepRunner,
    pub state: SweepState,
    /// The settings the steps vary from.
    pub base: Settings,
    pub step_time: Duration,
    /// Found when the sweep is done.
    pub saturation: Option<Saturation>,
    /// Found when a rate sweep is done: its latency-vs-load curve.
    pub curve: Option<LatencyCurve>,
    /// Set when a manual setting change came after the sweep: it is then no longer the last
    /// thing that ran, and `e` and the summary are about the run.
    pub superseded: bool,
    /// What stopped it before its last step ("Esc", "the q key", "SIGTERM"), if anything.
    pub stopped_by: Option<String>,
}

series!(SweepRun);

impl SweepRun {
    pub fn dimension(&self) -> Dimension {
        self.runner.spec().dimension
    }

    /// Steps measured so far.
    pub fn results(&self) -> &[IntervalFigures] {
        self.runner.results()
    }
}

impl Run {
    /// Starts a sweep of `spec` from the current settings; the action applies its first step.
    pub fn start_sweep(&mut self, spec: SweepSpec) -> Action {
        let runner = SweepRunner::new(spec, self.settings, self.step_time);
        let first = runner.first();
        self.sweep = Some(SweepRun {
            runner,
            state: SweepState::Running,
            base: self.settings,
            step_time: self.step_time,
            saturation: None,
            curve: None,
            superseded: false,
            stopped_by: None,
        });
        self.sweep_prompt = false;
        self.view = View::Live;
        self.message = None;
        self.notice = None;
        Action::Apply(first)
    }

    /// Feeds a snapshot to a running sweep; the action applies the next step's settings.
    /// When the last step is measured the sweep's chart is shown.
    pub fn advance_sweep(&mut self, s: &Snapshot) -> Action {
        let Some(sweep) = &mut self.sweep else {
            return Action::None;
        };
        match sweep.advance(s) {
            Some(Next::Done) => {
                (sweep.saturation, sweep.curve) =
                    findings(sweep.dimension(), sweep.results(), self.info.target.direct);
                self.view = View::Sweep;
                // As a suite does: the settings from before come back, and the screen says so.
                let base = sweep.base;
                self.notice = Some(format!(
                    "sweep done: settings back to {}, as before it",
                    crate::render::periods::period_words(&base)
                ));
                Action::Apply(base)
            }
            next => next.map_or(Action::None, action_of),
        }
    }

    /// Stops a running sweep (`why`: "cancelled", "stopped"; `by`: what did, for its
    /// report); the run goes on. The action puts back the settings from before the sweep
    /// (the caller applies it, or, after a refused step, leaves the engine as it is).
    pub fn cancel_sweep(&mut self, why: &str, by: &str) -> Action {
        let Some(sweep) = self.sweep.as_mut().filter(|w| w.running()) else {
            return Action::None;
        };
        sweep.cancel();
        sweep.stopped_by = Some(by.to_string());
        // A notice, not a message: the message line is cleared when the engine takes the
        // settings back.
        let base = sweep.base;
        self.notice = Some(format!(
            "sweep {why} after {} of {} steps: settings back to {}",
            sweep.results().len(),
            sweep.runner.steps().len(),
            crate::render::periods::period_words(&base)
        ));
        if base == self.settings {
            return Action::None;
        }
        Action::Apply(base)
    }

    /// True while a sweep runs (the sliders are locked).
    pub fn sweeping(&self) -> bool {
        self.sweep.as_ref().is_some_and(SweepRun::running)
    }

    /// The finished sweep, if it is the last thing that ran.
    pub fn last_sweep(&self) -> Option<&SweepRun> {
        self.sweep
            .as_ref()
            .filter(|w| w.state == SweepState::Done && !w.superseded)
    }

    /// The sweep as `--json --sweep` reports it: finished; stopped early (the step it cut
    /// short apart, and `interrupted_by` saying by what); or as it stands while it runs
    /// (what `e` saves mid-sweep). Unfinished, its finding is of the steps measured.
    pub fn sweep_report(&self) -> Option<SweepReport> {
        let sweep = self.sweep.as_ref()?;
        let (saturation, latency_curve) = match sweep.state {
            SweepState::Done => (sweep.saturation.clone(), sweep.curve.clone()),
            _ => findings(sweep.dimension(), sweep.results(), self.info.target.direct),
        };
        let b = sweep.base;
        let config = ConfigReport {
            duration_s: Some(sweep.step_time.as_secs_f64()),
            ..self.info.clone()
        }
        .with_settings(b);
        let stopped = sweep.state != SweepState::Done && sweep.stopped_by.is_some();
        let steps = sweep.results().to_vec();
        Some(SweepReport {
            findings: crate::why::step_findings(&crate::why::WhyFacts::of(&config), &steps),
            until_steady: Vec::new(),
            health: None,
            meta: self.meta.clone(),
            config,
            dimension: sweep.dimension(),
            step_time_s: sweep.step_time.as_secs_f64(),
            steps,
            saturation,
            latency_curve,
            partial_step: sweep.runner.partial().filter(|_| stopped),
            errors: self.first_errors(),
            interrupted_by: sweep.stopped_by.clone().filter(|_| stopped),
        })
    }

    /// The sweep printed and saved when the session ends: the last finished one, or one
    /// still running (then stopped by the quit). One cancelled with Esc is not: the run
    /// went on.
    pub fn sweep_at_quit(&self) -> Option<SweepReport> {
        self.sweep
            .as_ref()
            .filter(|w| w.running() || self.last_sweep().is_some())
            .and(self.sweep_report())
    }

    /// What the summary says of the sweep and the suite that ran but are not printed whole
    /// at quit (the run went on after them): each one's verdict, a line each.
    pub fn series_notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(w) = self
            .sweep
            .as_ref()
            .filter(|_| self.sweep_at_quit().is_none())
        {
            let (saturation, curve) = match w.state {
                SweepState::Done => (w.saturation.clone(), w.curve.clone()),
                _ => findings(w.dimension(), w.results(), self.info.target.direct),
            };
            let how = match (w.state, &w.stopped_by) {
                (SweepState::Done, _) => "ran".to_string(),
                (_, Some(by)) => format!(
                    "was stopped by {by} after {} of {} steps",
                    w.results().len(),
                    w.runner.steps().len()
                ),
                _ => "was stopped".to_string(),
            };
            let verdict = curve
                .map(|c| c.summary)
                .or(saturation.map(|s| s.summary))
                .unwrap_or_else(|| "no verdict: too few steps measured".into());
            out.push(format!(
                "sweep of {} {how}: {verdict}",
                w.dimension().name()
            ));
        }
        if let Some(s) = self
            .suite
            .as_ref()
            .filter(|_| self.suite_at_quit().is_none())
        {
            out.push(format!(
                "suite {} was cancelled after {} of {} passes: no card (e saves one as it stands)",
                s.runner.plan().suite.name(),
                s.runner.passes_done(),
                s.runner.plan().passes.len()
            ));
        }
        out
    }

    /// Marks the series running as stopped by `by` (a quit): its report says so.
    pub fn stop_series(&mut self, by: &str) {
        if let Some(w) = self.sweep.as_mut().filter(|w| w.running()) {
            w.stopped_by = Some(by.to_string());
        }
        if let Some(s) = self.suite.as_mut().filter(|s| s.running()) {
            s.stopped_by = Some(by.to_string());
        }
    }

    /// What `e` saves: the card when it is showing or running (as it stands), the sweep
    /// when it is showing, running (as it stands) or ran last, else the run.
    pub fn export(&self) -> Option<Export> {
        if (self.view == View::Suite || self.suite_running())
            && let Some(r) = self.suite_report()
        {
            return Some(Export::Suite(Box::new(r)));
        }
        if (self.view == View::Sweep || self.sweeping() || self.last_sweep().is_some())
            && let Some(r) = self.sweep_report()
        {
            return Some(Export::Sweep(Box::new(r)));
        }
        self.run_report().map(|r| Export::Run(Box::new(r)))
    }
}
