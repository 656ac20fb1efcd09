//! A suite on a live engine: the plan's passes run as the steps of a `StepRunner` (the
//! machinery sweeps use: a ramp that is not counted, then `pass_time` measured, the engine
//! paused between passes), fed with snapshots by whoever drives the engine — the headless
//! runner or the TUI. It never touches the engine; it says what to do (`Next`) and can give
//! the card as it stands at any moment, so a screen can fill it in row by row.

use super::TestResult;
use super::card::rows;
use super::{Direction, PassId, Plan};
use crate::settings::Settings;
use crate::stats::Snapshot;
use crate::sweep::{Next, PartialStep, StepRunner};

/// Where a suite is, for a progress line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteProgress {
    /// "RND4K Q32T1".
    pub test: String,
    pub direction: Direction,
    /// 1-based pass number and the passes per direction.
    pub pass: usize,
    pub of_passes: usize,
    /// Passes done and planned over the whole suite.
    pub done: usize,
    pub total: usize,
    /// "ramping up", "measuring" or "pausing".
    pub phase: &'static str,
}

/// Drives a suite's plan from snapshots.
#[derive(Debug, Clone)]
pub struct SuiteRunner {
    plan: Plan,
    steps: StepRunner,
}

impl SuiteRunner {
    pub fn new(plan: Plan) -> SuiteRunner {
        let steps = StepRunner::new(
            plan.step_settings(),
            plan.timing.pass_time,
            plan.timing.pause,
        );
        SuiteRunner { plan, steps }
    }

    /// Ends each pass once steady or at MAX (`--until-steady`).
    pub fn until_steady(mut self, until: Option<crate::sweep::UntilSteady>) -> Self {
        self.steps = self.steps.until_steady(until);
        self
    }

    /// How each measured pass ended under `--until-steady` (empty without it).
    pub fn steadies(&self) -> &[crate::model::why::UntilSteadyReport] {
        self.steps.steadies()
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The settings to start the engine with.
    pub fn first(&self) -> Settings {
        self.steps.first()
    }

    /// Takes one snapshot (see `StepRunner::on_snapshot`).
    pub fn on_snapshot(&mut self, s: &Snapshot) -> Next {
        self.steps.on_snapshot(s)
    }

    /// True while the engine rests between two passes.
    pub fn resting(&self) -> bool {
        self.steps.resting()
    }

    /// Passes measured so far.
    pub fn passes_done(&self) -> usize {
        self.steps.results().len()
    }

    /// True once every pass is measured.
    pub fn done(&self) -> bool {
        self.passes_done() == self.plan.passes.len()
    }

    /// The pass under way (`None` once done).
    pub fn current(&self) -> Option<PassId> {
        self.plan.passes.get(self.passes_done()).copied()
    }

    /// The pass under way, for a progress line.
    pub fn progress(&self) -> Option<SuiteProgress> {
        let p = self.current()?;
        let (_, total, measuring) = self.steps.progress();
        Some(SuiteProgress {
            test: self.plan.tests()[p.test].name(),
            direction: p.direction,
            pass: p.pass + 1,
            of_passes: self.plan.timing.passes,
            done: self.passes_done(),
            total,
            phase: if self.resting() {
                "pausing"
            } else if measuring {
                "measuring"
            } else {
                "ramping up"
            },
        })
    }

    /// The pass a stop cut short, with what it did (not part of the card's figures).
    pub fn partial(&self) -> Option<PartialStep> {
        self.steps.partial()
    }

    /// The card as it stands: directions with no measured pass yet say `pending`.
    pub fn card(&self, pending: &str) -> Vec<TestResult> {
        rows(
            &self.plan,
            self.steps.results(),
            self.steps.latencies(),
            pending,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::IoEngine;
    use crate::stats::{Counts, Latency};
    use crate::suite::{SuiteName, Timing};
    use std::time::Duration;

    fn snap(settings: Settings, paused: bool) -> Snapshot {
        let mut l = Latency::default();
        l.record_n(1000, 10);
        Snapshot {
            seq: 0,
            at: Duration::ZERO,
            interval_elapsed: Duration::from_millis(100),
            settings,
            paused,
            interval: Counts {
                ops: 10,
                bytes: 10 * settings.bs,
                read_ops: 10,
                read_bytes: 10 * settings.bs,
                ..Counts::default()
            },
            interval_latency: l,
            interval_service_latency: None,
            total: Counts::default(),
            total_elapsed: Duration::ZERO,
            total_latency: Default::default(),
            total_service_latency: Default::default(),
            threads: vec![],
            first_errors: vec![],
            stopped: None,
            total_left_out: Default::default(),
            sides: Default::default(),
        }
    }

    /// Plays the engine: applies what the runner asks and sends snapshots of the settings
    /// in force, paused while resting.
    #[test]
    fn a_suite_runs_every_pass_in_order_with_rests_between() {
        let timing = Timing {
            passes: 2,
            pass_time: Duration::from_millis(300),
            pause: Duration::from_millis(200),
        };
        let plan = Plan::new(SuiteName::Real, timing, None, IoEngine::IoUring);
        let mut r = SuiteRunner::new(plan);
        let (mut settings, mut paused) = (r.first(), false);
        let mut seen = vec![settings];
        let mut rests = 0;
        for _ in 0..1000 {
            match r.on_snapshot(&snap(settings, paused)) {
                Next::Continue => {}
                Next::Apply(s) => {
                    settings = s;
                    seen.push(s);
                }
                Next::Rest(s) => {
                    (settings, paused) = (s, true);
                    seen.push(s);
                    rests += 1;
                }
                Next::Resume => paused = false,
                Next::Done => break,
            }
        }
        assert!(r.done());
        assert_eq!(seen, r.plan().step_settings());
        assert_eq!(rests, 7, "a rest between each two of the 8 passes");
        let card = r.card("not run yet");
        assert_eq!(card.len(), 2);
        for row in &card {
            for d in [Direction::Read, Direction::Write] {
                let f = row.direction(d).unwrap();
                assert_eq!(f.passes.len(), 2);
                // 3 measured snapshots of 10 ops per pass.
                assert_eq!(f.counts.ops, 60);
                assert_eq!(f.latency_ns.count, 60);
            }
        }
    }
}
