//! One run's why, as its consumer drives it: the `Tracker` and the target's `Sensors`
//! together, fed either the headless printer's one-second rows (`on_row`) or the run
//! screen's one-second windows of running time (`on_window`), each under the run's period
//! it lies in (`stats::PeriodTracker`, which both consumers feed): the period is the key the
//! findings and the steady check compare within, so a settings change, a resume and a reset
//! each start the check over, exactly where a period begins. Each feed reads the target's
//! second once (diskstats and the temperature), stamps the temperature on the row, and hands
//! the second to the tracker. A stretch in which the run was paused or stopped is never fed:
//! it restarts the kernel's count instead. A stop (SIGSTOP) begins no period, so the check
//! goes on across it, as the period's figures do: the stopped time is in neither.
//!
//! It also keeps what the run screen shows beside the figures: the latest second of the
//! device, a short temperature history, and `--until-steady`'s verdict.

use std::collections::VecDeque;
use std::path::Path;

use super::health::RunHealth;
use super::{News, Second, Tracker, WhyFacts};
use crate::findings::Finding;
use crate::findings::steady::{SteadyParams, UntilSteady, until_steady};
use crate::model::ConfigReport;
use crate::model::disk::ThermalLog;
use crate::model::health::{DeviceHealth, HealthAround};
use crate::model::why::{ThermalLogs, UntilSteadyReport, WhyReport};
use crate::sensors::{DeviceSecond, Sensors};
use crate::settings::Settings;
use crate::stats::seconds::Now;
use crate::stats::{IntervalFigures, Latency};

/// Temperatures kept for the run screen's little history (one a second).
pub const TEMP_HISTORY: usize = 60;

/// Reads the NVMe drive's thermal log (root only); `None` where it cannot.
pub type LogReader = Box<dyn Fn() -> Option<ThermalLog> + Send>;

/// One second as a consumer hands it in, before the target's second is added.
struct Fed<'a> {
    t_s: f64,
    elapsed_s: f64,
    /// The run's period it lies in: the key.
    period: usize,
    settings: Settings,
    counts: &'a crate::stats::Counts,
    latency: Option<&'a Latency>,
    p50_ns: Option<f64>,
}

/// A run's live why.
pub struct Live {
    pub tracker: Tracker,
    sensors: Sensors,
    /// The latest second of the device (the kernel pane shows it).
    pub latest: DeviceSecond,
    /// The last temperatures read, oldest first (`None`: a failed read).
    pub temps: VecDeque<Option<f64>>,
    /// `--until-steady=MAX`, seconds.
    until_steady_max_s: Option<f64>,
    read_log: Option<LogReader>,
    log_before: Option<ThermalLog>,
    /// The drive's own health record, read at the start, each minute and at the end.
    health: Option<RunHealth>,
}

impl Live {
    /// The why of a run described by `config`, reading `sensors`, with the steady-state check
    /// run by `params`; `read_log` reads the drive's thermal log now (and once more at the
    /// end).
    pub fn new(
        config: &ConfigReport,
        sensors: Sensors,
        params: SteadyParams,
        read_log: Option<LogReader>,
    ) -> Live {
        let log_before = read_log.as_ref().and_then(|r| r());
        Live {
            tracker: Tracker::new(WhyFacts::of(config), params),
            sensors,
            latest: DeviceSecond::default(),
            temps: VecDeque::with_capacity(TEMP_HISTORY),
            until_steady_max_s: None,
            read_log,
            log_before,
            health: None,
        }
    }

    /// Reads the drive's health with `health` (started already: its first read is done).
    pub fn with_health(mut self, health: RunHealth) -> Live {
        self.health = Some(health);
        self
    }

    /// The drive's health at the start, judged; `None` where it is not watched.
    pub fn health_start(&self) -> Option<DeviceHealth> {
        self.health.as_ref().map(RunHealth::start)
    }

    /// The why of a run on the target at `path` described by `config`: the machine's
    /// sensors for it (`/proc/diskstats`, the hwmon sensor under `SYSFS_PATH`) and, for an
    /// NVMe drive as root, its thermal log through `/dev`.
    pub fn for_target(config: &ConfigReport, path: &Path, params: SteadyParams) -> Live {
        let sensors = Sensors::open(path, Path::new("/proc"), &crate::sys::sysfs_root());
        let read_log = config.disk.nvme_controller.clone().map(|c| {
            Box::new(move || crate::target::nvme_log::read_thermal_log(Path::new("/dev"), &c))
                as LogReader
        });
        Live::new(config, sensors, params, read_log).with_health(RunHealth::for_target(path))
    }

    /// Ends the run once steady, or at `max_s` seconds of it (`--until-steady=MAX`).
    pub fn until_steady(mut self, max_s: Option<f64>) -> Live {
        self.until_steady_max_s = max_s;
        self
    }

    /// The device's name in /proc/diskstats.
    pub fn device(&self) -> Option<&str> {
        self.sensors.device()
    }

    /// The sensors' md/dm members.
    pub fn members(&self) -> &[crate::diskstats::members::Member] {
        self.sensors.members()
    }

    /// The run paused or stopped: the kernel's count restarts, so its next second covers
    /// running time only (the next period, which the resume begins, is the check's).
    pub fn halted(&mut self) {
        self.sensors.restart();
    }

    /// The statistics were reset: the kernel's count restarts (the period after the reset
    /// is the check's).
    pub fn reset(&mut self) {
        self.sensors.restart();
    }

    /// A headless row closed: reads the target's second, stamps the temperature on `row` and
    /// feeds it under its `period` (a row with a stop in it, or without a period, is only
    /// read and stamped).
    pub fn on_row(&mut self, row: &mut IntervalFigures, latency: &Latency) -> News {
        self.on_row_judged(row, latency, true)
    }

    /// `on_row`, judged (`judge`) or only read and stamped: the last row of a run, cut by its
    /// end while the workers wind down, is not a second the findings compare.
    pub fn on_row_judged(
        &mut self,
        row: &mut IntervalFigures,
        latency: &Latency,
        judge: bool,
    ) -> News {
        if !judge {
            self.read();
            row.temp_c = self.latest.temp_c;
            // Not a second to compare, but its settings ran: what they alone say is said
            // (a one-row run's queue findings).
            return match row.period {
                Some(p) if row.counts.issued > 0 || row.counts.ops > 0 => self
                    .tracker
                    .settings_ran(p as u64, &row.settings, &row.counts),
                _ => News::default(),
            };
        }
        if !row.left_out.is_empty() {
            self.halted();
            self.read();
            row.temp_c = self.latest.temp_c;
            return News::default();
        }
        self.read();
        row.temp_c = self.latest.temp_c;
        let Some(period) = row.period else {
            return News::default();
        };
        let p50 = (row.latency_ns.count > 0).then_some(row.latency_ns.p50 as f64);
        let sec = Fed {
            t_s: row.t_s,
            elapsed_s: row.elapsed_s,
            period,
            settings: row.settings,
            counts: &row.counts,
            latency: Some(latency),
            p50_ns: p50,
        };
        self.feed(sec)
    }

    /// The run screen closed a one-second window of running time ending `t_s` seconds into
    /// the run, in the period `period`; a window that began in an earlier period (a change,
    /// a resume or a reset fell inside it) is read but not fed.
    pub fn on_window(&mut self, now: &Now, t_s: f64, period: usize) -> News {
        self.read();
        if now.mixed_settings || now.straddles {
            return News::default();
        }
        let sec = Fed {
            t_s,
            elapsed_s: now.elapsed.as_secs_f64(),
            period,
            settings: now.settings,
            counts: &now.counts,
            latency: None,
            p50_ns: (now.latency.count > 0).then_some(now.latency.p50 as f64),
        };
        self.feed(sec)
    }

    /// Reads the target's second now (a sweep step or a suite pass just ended); returns the
    /// drive's temperature.
    pub fn read_now(&mut self) -> Option<f64> {
        self.read();
        self.latest.temp_c
    }

    fn read(&mut self) {
        self.latest = self.sensors.read();
        if self.temps.len() == TEMP_HISTORY {
            self.temps.pop_front();
        }
        self.temps.push_back(self.latest.temp_c);
    }

    fn feed(&mut self, sec: Fed) -> News {
        let kernel = self.latest.kernel;
        self.tracker.push(Second {
            t_s: sec.t_s,
            elapsed_s: sec.elapsed_s,
            key: sec.period as u64,
            settings: sec.settings,
            counts: *sec.counts,
            latency: sec.latency,
            p50_ns: sec.p50_ns,
            temp_c: self.latest.temp_c,
            kernel_queue: kernel.map(|k| k.avg_queue_depth),
            util_pct: kernel.map(|k| k.util_pct),
        })
    }

    /// `--until-steady`: whether the run should end now, `run_s` seconds in.
    pub fn should_end(&self, run_s: f64) -> bool {
        self.until_steady_max_s.is_some_and(|max| {
            until_steady(self.tracker.steady(), run_s, max) != UntilSteady::Running
        })
    }

    /// What the result says, `run_s` seconds in at the end: the findings, the steady state,
    /// `--until-steady`'s verdict, the drive's thermal log and its health record read again
    /// now (its findings first: the drive's state, then what moved, by time).
    pub fn finish(&mut self, run_s: f64) -> WhyReport {
        let logs = match (&self.read_log, self.log_before) {
            (Some(read), Some(before)) => read().map(|after| ThermalLogs { before, after }),
            _ => None,
        };
        let mut report = self.tracker.report(logs);
        let steady = self.tracker.steady();
        report.until_steady = self.until_steady_max_s.map(|max_s| {
            let settled = steady.reached();
            UntilSteadyReport {
                max_s,
                settled,
                text: if settled {
                    steady.text()
                } else {
                    steady.never_settled_text(run_s)
                },
            }
        });
        report.health = self.finish_health(run_s, &mut report.findings);
        report
    }

    /// Reads the drive's health once more at the end, `run_s` seconds in: the record around
    /// the run, its findings put into `findings` (the drive's state first, what moved last).
    pub fn finish_health(
        &mut self,
        run_s: f64,
        findings: &mut Vec<Finding>,
    ) -> Option<HealthAround> {
        Some(self.health.as_mut()?.finish_into(run_s, findings))
    }
}
