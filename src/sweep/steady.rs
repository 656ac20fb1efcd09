//! `--until-steady` for the steps of a series (a sweep step, a suite pass): the step's
//! measured snapshots are merged into one-second windows, fed to the SNIA PTS steady-state
//! check (`findings::steady`), and the step ends once steady — its figures are then those of
//! the steady window, as PTS quotes a measurement window — or at MAX, saying it never
//! settled. Time here is the step's own measured time (the ramp is not counted); a step is
//! one setting, so the check never starts over inside it.

use std::collections::VecDeque;
use std::time::Duration;

use crate::findings::Interval;
use crate::findings::steady::{SteadyCheck, SteadyParams};
use crate::model::why::UntilSteadyReport;
use crate::stats::{Snapshot, Window};

/// Length of the windows fed to the check (as the run's rows).
const SECOND: Duration = Duration::from_secs(1);
/// Slack when closing a second (snapshots come every ~100 ms).
const SLACK: Duration = Duration::from_millis(50);

/// How each step ends: once steady by `params`, or at `max` of measured time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UntilSteady {
    pub params: SteadyParams,
    pub max: Duration,
}

/// One step's check.
#[derive(Debug, Clone)]
pub struct StepSteady {
    check: SteadyCheck,
    second: Window,
    /// Closed seconds that can fall in the window: (start_s, end_s, window).
    seconds: VecDeque<(f64, f64, Window)>,
    measured_s: f64,
}

impl StepSteady {
    pub fn new(params: SteadyParams) -> StepSteady {
        StepSteady {
            check: SteadyCheck::new(params),
            second: Window::default(),
            seconds: VecDeque::new(),
            measured_s: 0.0,
        }
    }

    /// Adds one measured snapshot; true once the step is steady.
    pub fn push(&mut self, s: &Snapshot) -> bool {
        self.second.push(s);
        if self.second.elapsed + SLACK < SECOND {
            return false;
        }
        let w = self.second.take();
        let elapsed_s = w.elapsed.as_secs_f64();
        let start_s = self.measured_s;
        self.measured_s += elapsed_s;
        let settings = w.settings.unwrap_or_default();
        self.check.push(&Interval {
            t_s: self.measured_s,
            elapsed_s,
            key: 0,
            ops: w.counts.ops,
            bytes: w.counts.bytes,
            write_bytes: w.counts.write_bytes,
            written_bytes: 0,
            write_pct: 100 - settings.read_pct.min(100),
            sequential: settings.random_pct == 0,
            ..Interval::default()
        });
        self.seconds.push_back((start_s, self.measured_s, w));
        let p = self.check.params();
        let keep_s = p.round_s * (p.rounds + 1) as f64;
        while self
            .seconds
            .front()
            .is_some_and(|(start, _, _)| *start < self.measured_s - keep_s)
        {
            self.seconds.pop_front();
        }
        self.check.reached()
    }

    /// The steady window's seconds merged into one window, once steady.
    pub fn window(&self) -> Option<Window> {
        let (from, to) = self.check.window_span_s()?;
        let mut merged = Window::default();
        let inside = self
            .seconds
            .iter()
            .filter(|(start, end, _)| *start >= from - 1e-6 && *end <= to + 1e-6);
        for (_, _, w) in inside {
            merge(&mut merged, w);
        }
        (merged.snapshots > 0).then_some(merged)
    }

    /// How the step ended, `measured_s` seconds in.
    pub fn report(&self, max: Duration) -> UntilSteadyReport {
        let settled = self.check.reached();
        UntilSteadyReport {
            max_s: max.as_secs_f64(),
            settled,
            text: if settled {
                self.check.text()
            } else {
                self.check.never_settled_text(self.measured_s)
            },
        }
    }
}

/// Adds `w` to `into`: sums of counts and time, histograms merged (never averaged).
fn merge(into: &mut Window, w: &Window) {
    into.end = into.end.max(w.end);
    into.elapsed += w.elapsed;
    into.counts.add(&w.counts);
    into.latency.add(&w.latency);
    into.service_latency.add(&w.service_latency);
    into.left_out.merge(&w.left_out);
    into.mixed_settings |= w.mixed_settings || into.settings.is_some_and(|s| Some(s) != w.settings);
    into.settings = w.settings.or(into.settings);
    into.snapshots += w.snapshots;
}
