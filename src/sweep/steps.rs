//! A series of settings run one after the other on one live engine, each measured for a
//! fixed time after a ramp that is not counted, with an optional rest (the engine paused)
//! between them. Sweeps (one knob rising) and suites (a card of named tests, each measured
//! in several passes) are both such series; `StepRunner` is the one state machine behind
//! both. It is fed snapshots and says what the driver must do (`Next`); it never touches the
//! engine itself, so the headless runner and the TUI drive it the same way.
//!
//! Every measured step keeps its figures and its latency histogram (never samples), so a
//! caller can merge the histograms of several steps for a percentile over all of them. With
//! `--until-steady` a step ends once steady (its figures are the steady window's) or at MAX.

use std::time::Duration;

use super::PartialStep;
use super::steady::{StepSteady, UntilSteady};
use crate::model::why::UntilSteadyReport;
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
    /// `--until-steady`: the step's steady-state check, once measuring.
    steady: Option<StepSteady>,
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
    /// `--until-steady`: each step ends once steady or at its MAX.
    until: Option<UntilSteady>,
    /// How each measured step ended under `--until-steady`, in step order.
    steadies: Vec<UntilSteadyReport>,
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
            until: None,
            steadies: Vec::new(),
        }
    }

    /// Ends each step once it is steady (its figures are then the steady window's), or at
    /// `until.max` of measured time, instead of at the step time.
    pub fn until_steady(mut self, until: Option<UntilSteady>) -> Self {
        self.until = until;
        self
    }

    /// How each measured step ended under `--until-steady` (empty without it).
    pub fn steadies(&self) -> &[UntilSteadyReport] {
        &self.steadies
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
        let done = match &self.until {
            None => w.elapsed + SLACK >= self.step_time,
            Some(u) => {
                let steady = self
                    .current
                    .steady
                    .get_or_insert_with(|| StepSteady::new(u.params));
                steady.push(s) || w.elapsed + SLACK >= u.max
            }
        };
        if !done {
            return Next::Continue;
        }
        let steady = self.current.steady.take();
        match (self.until, steady.as_ref().and_then(StepSteady::window)) {
            (Some(u), Some(mut window)) => {
                self.results.push(window.figures());
                self.latencies.push(std::mem::take(&mut window.latency));
                self.steadies.extend(steady.map(|s| s.report(u.max)));
            }
            (until, _) => {
                self.results.push(w.figures());
                self.latencies.push(std::mem::take(&mut w.latency));
                if let (Some(u), Some(s)) = (until, steady) {
                    self.steadies.push(s.report(u.max));
                }
            }
        }
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
            sides: Default::default(),
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

    #[test]
    fn until_steady_ends_a_step_once_steady_and_quotes_its_window_or_at_max() {
        use crate::findings::steady::SteadyParams;
        let a = Settings::default();
        let until = UntilSteady {
            params: SteadyParams::with_round(1.0),
            max: Duration::from_secs(20),
        };
        let mut r = StepRunner::new(vec![a, a], Duration::from_secs(3), Duration::ZERO)
            .until_steady(Some(until));
        for _ in 0..5 {
            assert_eq!(r.on_snapshot(&snap(a, false, 10, 1000)), Next::Continue);
        }
        // Two noisy seconds, then flat: steady once five flat one-second rounds are in (the
        // window slides past the noise), not at the 3-s step time.
        let mut n = 0;
        let mut next = Next::Continue;
        while next == Next::Continue {
            let ops = match n / 10 {
                0 => 20,
                1 => 5,
                _ => 10,
            };
            next = r.on_snapshot(&snap(a, false, ops, 1000));
            n += 1;
        }
        assert_eq!(next, Next::Apply(a));
        assert_eq!(n, 70, "2 noisy seconds and 5 flat ones");
        let step = &r.results()[0];
        assert_eq!(
            step.counts.ops, 500,
            "the steady window's 5 s, not the noise"
        );
        assert!((step.iops - 100.0).abs() < 1e-6);
        assert_eq!(r.latencies()[0].count(), 500);
        assert!(r.steadies()[0].settled, "{:?}", r.steadies());
        // A step that never settles ends at MAX, with all it measured.
        for _ in 0..5 {
            r.on_snapshot(&snap(a, false, 10, 1000));
        }
        let mut n = 0;
        while r.on_snapshot(&snap(a, false, if n / 10 % 2 == 0 { 5 } else { 20 }, 1000))
            == Next::Continue
        {
            n += 1;
        }
        assert_eq!(n + 1, 200, "20 s of measured time");
        assert!(!r.steadies()[1].settled);
        assert!(
            r.steadies()[1].text.starts_with("never settled in 20 s"),
            "{}",
            r.steadies()[1].text
        );
        assert_eq!(r.results()[1].counts.ops, 10 * 5 * 10 + 10 * 20 * 10);
    }
}
