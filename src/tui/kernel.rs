//! The kernel's view and the why beside the app's figures: each time the run screen closes a
//! one-second window of running time, the run's live `why` reads the target's second once
//! (/proc/diskstats, not the target, and the drive's temperature) and is fed that window, so
//! the kernel's column and the app's ("IOPS now") cover the same second and the findings and
//! the steady mark move with them, each window under the run's period (the run screen's
//! `PeriodTracker`), so the findings and the steady check start over where a period begins:
//! a settings change, a resume, a reset. A pause or a stop restarts the kernel's count, so
//! it spans no time the app leaves out; a reset of the statistics (the screen's windows
//! start over) does the same.

use super::state::Run;
use crate::stats::Snapshot;
use crate::why::Live;

/// The run's live why, sampled about once a second.
pub struct KernelSampler {
    live: Live,
    /// The run screen's window count at the last reading.
    windows: u64,
}

impl KernelSampler {
    pub fn new(live: Live) -> KernelSampler {
        KernelSampler { live, windows: 0 }
    }

    /// The run ended `run_s` seconds in: the drive's health read once more, its findings put
    /// into `findings` (`None` where it is not read).
    pub fn finish_health(
        &mut self,
        run_s: f64,
        findings: &mut Vec<crate::findings::Finding>,
    ) -> Option<crate::model::health::HealthAround> {
        self.live.finish_health(run_s, findings)
    }

    /// Called after the run screen took in snapshot `s`: when that closed a window it reads
    /// the target's second and hands the kernel's rates, the members' and the why to the run
    /// screen.
    pub fn on_snapshot(&mut self, s: &Snapshot, run: &mut Run) {
        run.why.written_bytes += s.interval.write_bytes;
        if s.paused || s.stopped.is_some() {
            self.live.halted();
            return;
        }
        if run.stopping {
            // The workers are winding down: what is left of the run is not a second of it.
            return;
        }
        if run.seconds.windows < self.windows {
            // The statistics were reset: the screen's windows start over.
            self.live.reset();
        }
        if run.seconds.windows == self.windows {
            return;
        }
        self.windows = run.seconds.windows;
        let Some(now) = run.seconds.now.clone() else {
            return;
        };
        let period = run.periods.current_id();
        let news = self.live.on_window(&now, s.at.as_secs_f64(), period);
        run.set_kernel(self.live.latest.kernel);
        run.kernel.members = self.live.latest.members.clone();
        run.why.update(&self.live, &news.findings);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::findings::steady::SteadyParams;
    use crate::model::ConfigReport;
    use crate::sensors::Sensors;
    use crate::settings::Settings;
    use crate::stats::fake::FakeEngine;

    /// The run screen and its sampler over a pretend engine, with a why that reads no device.
    struct Screen {
        run: Run,
        sampler: KernelSampler,
        engine: FakeEngine,
    }

    impl Screen {
        fn new() -> Screen {
            let none = std::path::Path::new("/nonexistent");
            let sensors = Sensors::new(None, none, none, None);
            let info = ConfigReport::example();
            let live = Live::new(&info, sensors, SteadyParams::with_round(1.0), None);
            Screen {
                run: Run::new(info, Settings::default(), None),
                sampler: KernelSampler::new(live),
                engine: FakeEngine::default(),
            }
        }

        /// `secs` seconds of ticks under `s` (paused: no I/O), each taken in as the session
        /// takes a snapshot: the screen first, then the sampler.
        fn seconds(&mut self, s: Settings, secs: usize, paused: bool) {
            for _ in 0..secs * 10 {
                let snap = self.engine.tick(s, if paused { 0 } else { 1000 }, paused);
                self.run.push(snap.clone());
                self.sampler.on_snapshot(&snap, &mut self.run);
            }
        }

        fn steady(&self) -> bool {
            self.sampler.live.tracker.steady().reached()
        }
    }

    /// A settings change, a pause and its resume, and a reset (`r`: the screen's history is
    /// cleared and the engine's totals start over) each begin a period on the run screen,
    /// and the steady check starts over with it.
    #[test]
    fn every_new_period_starts_the_steady_check_over() {
        let mut sc = Screen::new();
        let s = Settings::default();
        sc.seconds(s, 6, false);
        assert!(sc.steady(), "five even rounds of one period are steady");
        assert_eq!(sc.run.periods.current_id(), 0);
        let t2 = Settings { threads: 2, ..s };
        sc.seconds(t2, 2, false);
        assert_eq!(sc.run.periods.current_id(), 1, "a change begins a period");
        assert!(!sc.steady(), "and the check starts over with it");
        sc.seconds(t2, 6, false);
        assert!(sc.steady());
        sc.seconds(t2, 2, true);
        sc.seconds(t2, 2, false);
        assert_eq!(sc.run.periods.current_id(), 2, "a resume begins a period");
        assert!(!sc.steady());
        sc.seconds(t2, 6, false);
        assert!(sc.steady());
        sc.run.clear_history();
        sc.engine.reset();
        sc.seconds(t2, 2, false);
        assert_eq!(sc.run.periods.current_id(), 3, "a reset begins a period");
        assert!(!sc.steady());
        sc.seconds(t2, 6, false);
        let since_s = sc.sampler.live.tracker.steady().since_s();
        let start_s = sc.run.periods.report().list.last().map(|p| p.start_s);
        assert!(
            since_s.zip(start_s).is_some_and(|(a, b)| a >= b),
            "{since_s:?} {start_s:?}"
        );
    }
}
