//! A series of settings run one after the other on one live engine, each measured for a
//! fixed time after a ramp that is not counted, with an optional rest (the engine paused)
//! between them. Sweeps (one knob rising) and suites (a card of named tests, each measured
//! in several passes) are both such series; `StepRunner` is the one state machine behind
//! both. It is fed snapshots and says what the driver must do (`Next`); it never touches the
//! engine itself, so the headless runner and the TUI drive it the same way.
//!
//! Every measured step keeps its figures and its latency histogram (never samples), so a
//! caller can merge the histograms of several steps for a percentile over all of them.

use std::time::Duration;

use super::PartialStep;
use crate::settings::Settings;
use crate::stats::{IntervalFigures, Latency, Snapshot, Window};

/// Time after each change that is run but not counted.
pub const RAMP: Duration = Duration::from_millis(500);
/// Slack when deciding that a step has run long enough (snapshots come every ~100 ms).
const SLACK: Duration = Duration::from_millis(50);

/// What the driver should do after a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Keep running.
    Continue,
    /// A step finished: apply these settings for the next one.
    Apply(Settings),
    /// A step finished and a rest follows: pause the engine and apply these settings for the
    /// step after the rest.
    Rest(Settings),
    /// The rest is over: resume the engine.
    Resume,
    /// The last step finished.
    Done,
}

/// The step under way: its ramp so far, then its measured part.
#[derive(Debug, Clone, Default)]
struct StepWindows {
    ramp: Window,
    /// `Some` once the ramp is over.
    measure: Option<Box<Window>>,
    /// `Some` while resting before this step: the paused time so far.
    rest: Option<Duration>,
}

/// Drives a series of steps from snapshots.
#[derive(Debug, Clone)]
pub struct StepRunner {
    steps: Vec<Settings>,
    step_time: Duration,
    rest: Duration,
    index: usize,
    current: StepWindows,
    results: Vec<IntervalFigures>,
    latencies: Vec<Latency>,
}

impl StepRunner {
    /// Runs `steps` (at least one) for `step_time` each after `RAMP`, resting `rest` (the
    /// engine paused) between two steps; no rest when zero.
    pub fn new(steps: Vec<Settings>, step_time: Duration, rest: Duration) -> Self {
        assert!(!steps.is_empty(), "a series has at least one step");
        StepRunner {
            steps,
            step_time,
            rest,
            index: 0,
            current: StepWindows::default(),
            results: Vec::new(),
            latencies: Vec::new(),
        }
    }

    /// The settings to start the engine with.
    pub fn first(&self) -> Settings {
        self.steps[0]
    }

    /// Every step's settings.
    pub fn steps(&self) -> &[Settings] {
        &self.steps
    }

    /// Replaces the steps not yet begun (those after the one just measured) with `steps`: a
    /// rate curve's paced steps, known once its unlimited step is measured.
    pub fn set_later_steps(&mut self, steps: Vec<Settings>) {
        self.steps.truncate(self.index);
        self.steps.extend(steps);
    }

    /// Measured time per step.
    pub fn step_time(&self) -> Duration {
        self.step_time
    }

    /// Steps measured so far.
    pub fn results(&self) -> &[IntervalFigures] {
        &self.results
    }

    /// The latency histograms of the steps measured so far, in the same order.
    pub fn latencies(&self) -> &[Latency] {
        &self.latencies
    }

    /// (current step index, number of steps, measuring rather than ramping or resting).
    pub fn progress(&self) -> (usize, usize, bool) {
        (self.index, self.steps.len(), self.current.measure.is_some())
    }

    /// True while the engine should be paused between two steps.
    pub fn resting(&self) -> bool {
        self.current.rest.is_some()
    }

    /// The step under way, if it did any I/O yet: its measured part, or its ramp when the
    /// measurement had not begun. `None` once every step is measured.
    pub fn partial(&self) -> Option<PartialStep> {
        self.steps.get(self.index)?;
        let (w, ramp_only) = match &self.current.measure {
            Some(w) if w.snapshots > 0 => (w.as_ref(), false),
            _ => (&self.current.ramp, true),
        };
        (w.snapshots > 0).then(|| PartialStep {
            step: self.index,
            of_steps: self.steps.len(),
            ramp_only,
            figures: w.figures(),
        })
    }

    /// Takes one snapshot. Snapshots of other settings (the old step's last interval, cut at
    /// the change) and paused ones are ignored, except that a rest counts paused time.
    pub fn on_snapshot(&mut self, s: &Snapshot) -> Next {
        let Some(&current) = self.steps.get(self.index) else {
            return Next::Done;
        };
        if let Some(rested) = &mut self.current.rest {
            if s.paused {
                *rested += s.interval_elapsed;
            }
            if *rested + SLACK < self.rest {
                return Next::Continue;
            }
            self.current.rest = None;
            return Next::Resume;
        }
        if s.settings != current || s.paused {
            return Next::Continue;
        }
        let Some(w) = &mut self.current.measure else {
            self.current.ramp.push(s);
            if self.current.ramp.elapsed + SLACK >= RAMP {
                self.current.measure = Some(Box::default());
            }
            return Next::Continue;
        };
        w.push(s);
        if w.elapsed + SLACK < self.step_time {
            return Next::Continue;
        }
        self.results.push(w.figures());
        self.latencies.push(std::mem::take(&mut w.latency));
        self.index += 1;
        self.current = StepWindows::default();
        match self.steps.get(self.index) {
            Some(&next) if !self.rest.is_zero() => {
                self.current.rest = Some(Duration::ZERO);
                Next::Rest(next)
            }
            Some(&next) => Next::Apply(next),
            None => Next::Done,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Counts;

    /// A 100 ms snapshot of `ops` 4k reads at `lat_ns` each under `settings`.
    pub(crate) fn snap(settings: Settings, paused: bool, ops: u64, lat_ns: u64) -> Snapshot {
        let mut interval_latency = Latency::default();
        interval_latency.record_n(lat_ns, ops);
        Snapshot {
            seq: 0,
            at: Duration::ZERO,
            interval_elapsed: Duration::from_millis(100),
            settings,
            paused,
            interval: Counts {
                ops,
                bytes: ops * settings.bs,
                read_ops: ops,
                read_bytes: ops * settings.bs,
                ..Counts::default()
            },
            interval_latency,
            interval_service_latency: None,
            total: Counts::default(),
            total_elapsed: Duration::ZERO,
            total_latency: Default::default(),
            total_service_latency: Default::default(),
            threads: vec![],
            first_errors: vec![],
            stopped: None,
            total_left_out: Default::default(),
        }
    }

    #[test]
    fn rests_between_steps_count_paused_time_only() {
        let a = Settings::default();
        let mut r = StepRunner::new(vec![a, a], Duration::from_millis(300), RAMP * 2);
        // Ramp (5 snapshots), then 3 measured: the step is done and a rest begins.
        for _ in 0..5 {
            assert_eq!(r.on_snapshot(&snap(a, false, 10, 1000)), Next::Continue);
        }
        assert_eq!(r.on_snapshot(&snap(a, false, 10, 1000)), Next::Continue);
        assert_eq!(r.on_snapshot(&snap(a, false, 10, 1000)), Next::Continue);
        assert_eq!(r.on_snapshot(&snap(a, false, 10, 1000)), Next::Rest(a));
        assert!(r.resting());
        // The sliver cut at the pause is not rest; nine paused tenths are not enough.
        assert_eq!(r.on_snapshot(&snap(a, false, 3, 1000)), Next::Continue);
        for _ in 0..9 {
            assert_eq!(r.on_snapshot(&snap(a, true, 0, 0)), Next::Continue);
        }
        assert_eq!(r.on_snapshot(&snap(a, true, 0, 0)), Next::Resume);
        // The step after the rest ramps again before it counts.
        for _ in 0..5 {
            assert_eq!(r.on_snapshot(&snap(a, false, 20, 2000)), Next::Continue);
        }
        assert_eq!(r.progress(), (1, 2, true));
        for _ in 0..2 {
            assert_eq!(r.on_snapshot(&snap(a, false, 20, 2000)), Next::Continue);
        }
        assert_eq!(r.on_snapshot(&snap(a, false, 20, 2000)), Next::Done);
        assert_eq!(r.results()[0].counts.ops, 30);
        assert_eq!(r.results()[1].counts.ops, 60);
        // Each step keeps its own histogram.
        assert_eq!(r.latencies()[0].count(), 30);
        assert_eq!(r.latencies()[1].summary().min, 2000);
    }
}
