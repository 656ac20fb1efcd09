//! Sweeps: run the same load at a series of thread counts, block sizes or queue depths, one after the other
//! on the same engine (reconfigured live, no restart), and find where the disk saturates —
//! vdbench's forthreads, iops(1)'s block-size ladder, seekmark at 1, 2 and 4 threads.
//!
//! `SweepRunner` is a state machine fed with snapshots, so the headless runner and the TUI
//! drive it the same way: it says when to apply the next step's settings and collects each
//! step's figures after a ramp that is not counted, and keeps what the step under way did so
//! far, so a stop in the middle of a step still reports its I/O. It never touches the engine
//! itself. The series machinery is `steps::StepRunner` (suites run on it too); parsing
//! `--sweep` lives in `spec`, the saturation finder in `saturation`.

pub mod curve;
mod defaults;
mod saturation;
mod spec;
pub mod steady;
pub mod steps;

pub use curve::{CURVE_PCTS, curve_rates, latency_curve};
pub use defaults::{SWEEP_BS, SWEEP_IODEPTH, SWEEP_THREADS, default_sweep, psync_refusal};
pub use saturation::{GAIN_THRESHOLD, saturation};
pub use spec::SweepSpec;
pub use steady::UntilSteady;
pub use steps::{Next, RAMP, StepRunner};

pub use crate::model::sweep::{
    CurvePoint, Dimension, LatencyCurve, PartialStep, Saturation, Verdict,
};

use std::time::Duration;

use crate::settings::Settings;
use crate::stats::{IntervalFigures, Snapshot};

/// Default measured time per step.
pub const DEFAULT_STEP_TIME: Duration = Duration::from_secs(3);
/// What a sweep found: where a threads, block-size or depth sweep saturates, or a rate
/// sweep's latency-vs-load curve.
/// `direct`: the sweep ran with O_DIRECT (a `--buffered` curve is the page cache's, and
/// names no saturation point).
pub fn findings(
    d: Dimension,
    steps: &[IntervalFigures],
    direct: bool,
) -> (Option<Saturation>, Option<LatencyCurve>) {
    let base = crate::findings::conditions::Conditions {
        direct,
        ..Default::default()
    };
    match d {
        Dimension::Rate => (None, latency_curve(steps)),
        _ => (saturation(d, steps, &base), None),
    }
}

/// Drives a sweep from snapshots: the steps of `spec` on a `StepRunner`, with no rest
/// between them.
#[derive(Debug, Clone)]
pub struct SweepRunner {
    spec: SweepSpec,
    steps: StepRunner,
    /// A curve's paced steps were set from its unlimited step.
    paced_set: bool,
}

impl SweepRunner {
    /// A runner over `spec`'s steps from `base`. A curve (`rate=curve`) starts with its
    /// unlimited step; the paced steps' rates are set once it is measured (until then they
    /// stand as unlimited too, and are never applied so).
    pub fn new(spec: SweepSpec, base: Settings, step_time: Duration) -> Self {
        let mut steps = spec.steps(base);
        if spec.curve {
            // Placeholders until the unlimited step has found the maximum (never applied).
            let unlimited = steps[0];
            steps.extend(CURVE_PCTS.iter().map(|_| unlimited));
        }
        let steps = StepRunner::new(steps, step_time, Duration::ZERO);
        SweepRunner {
            spec,
            steps,
            paced_set: false,
        }
    }

    /// Ends each step once steady or at MAX (`--until-steady`).
    pub fn until_steady(mut self, until: Option<UntilSteady>) -> Self {
        self.steps = self.steps.until_steady(until);
        self
    }

    /// How each measured step ended under `--until-steady` (empty without it).
    pub fn steadies(&self) -> &[crate::model::why::UntilSteadyReport] {
        self.steps.steadies()
    }

    pub fn spec(&self) -> &SweepSpec {
        &self.spec
    }

    /// The settings to start the engine with.
    pub fn first(&self) -> Settings {
        self.steps.first()
    }

    /// Every step's settings.
    pub fn steps(&self) -> &[Settings] {
        self.steps.steps()
    }

    /// Steps measured so far.
    pub fn results(&self) -> &[IntervalFigures] {
        self.steps.results()
    }

    /// (current step index, number of steps, measuring rather than ramping).
    pub fn progress(&self) -> (usize, usize, bool) {
        self.steps.progress()
    }

    /// The step under way, if it did any I/O yet (see `StepRunner::partial`).
    pub fn partial(&self) -> Option<PartialStep> {
        self.steps.partial()
    }

    /// Takes one snapshot (see `StepRunner::on_snapshot`).
    pub fn on_snapshot(&mut self, s: &Snapshot) -> Next {
        let next = self.steps.on_snapshot(s);
        if self.spec.curve && !self.paced_set && self.results().len() == 1 {
            // The unlimited step found the maximum: the paced steps are shares of it.
            self.paced_set = true;
            let max = self.results()[0].iops;
            if max <= 0.0 {
                return Next::Done;
            }
            let first = self.steps.first();
            let paced: Vec<Settings> = curve_rates(max)
                .into_iter()
                .map(|r| Dimension::Rate.with(first, r))
                .collect();
            let next_step = paced[0];
            self.steps.set_later_steps(paced);
            return Next::Apply(next_step);
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Counts, Latency, LatencySummary};

    /// A 100 ms snapshot of `ops` 4k reads under `settings`.
    fn snap(settings: Settings, at_ms: u64, ops: u64) -> Snapshot {
        Snapshot {
            seq: at_ms / 100,
            at: Duration::from_millis(at_ms),
            interval_elapsed: Duration::from_millis(100),
            settings,
            paused: false,
            interval: Counts {
                ops,
                bytes: ops * 4096,
                read_ops: ops,
                read_bytes: ops * 4096,
                ..Counts::default()
            },
            interval_latency: Latency::default(),
            interval_service_latency: None,
            total: Counts::default(),
            total_elapsed: Duration::from_millis(at_ms),
            total_latency: LatencySummary::default(),
            total_service_latency: LatencySummary::default(),
            threads: vec![],
            first_errors: vec![],
            stopped: None,
            total_left_out: Default::default(),
            sides: Default::default(),
        }
    }

    #[test]
    fn a_step_cut_short_keeps_its_figures() {
        let spec = SweepSpec::parse("threads=1,2").unwrap();
        let mut r = SweepRunner::new(spec, Settings::default(), Duration::from_secs(5));
        let first = r.first();
        assert_eq!(r.partial(), None);
        // 0.3 s into the ramp: the partial step is the ramp's.
        for i in 1..=3 {
            assert_eq!(r.on_snapshot(&snap(first, i * 100, 50)), Next::Continue);
        }
        let p = r.partial().unwrap();
        assert!(p.ramp_only);
        assert_eq!((p.step, p.of_steps, p.figures.counts.ops), (0, 2, 150));
        // 2 s later, measuring: the partial step is the measured part only.
        for i in 4..=25 {
            assert_eq!(r.on_snapshot(&snap(first, i * 100, 100)), Next::Continue);
        }
        let p = r.partial().unwrap();
        assert!(!p.ramp_only);
        assert_eq!(p.figures.counts.ops, 100 * (25 - 5));
        assert!((p.figures.iops - 1000.0).abs() < 1e-6, "{}", p.figures.iops);
        assert!(r.results().is_empty());
    }
}
