//! The run screen's state: the settings in force, the graphs' history at every time scale
//! (`stats::timeline`, bounded however long the run) with a mark where each period begins
//! and the scale shown (`z`), the recent-latency histogram,
//! the kernel's counters beside the app's rates, the run's periods (`stats::PeriodTracker`,
//! the one headless feeds too), and the one-second rows kept for `e` and `--json FILE`
//! (`rows`: cut where a period ends).

use std::collections::VecDeque;
use std::time::Duration;

use super::marks::{Marks, change_label};
use super::rows::Rows;
use super::sweep::{SweepRun, View};
use super::why::WhyView;
use crate::diskstats::KernelRates;
use crate::diskstats::members::Member;
use crate::model::{ConfigReport, Meta, RunReport};
use crate::settings::{Knob, Settings};
use crate::stats::seconds::Seconds;
use crate::stats::timeline::{Sample, Timeline, Zoom};
use crate::stats::{Began, Boundary, IoErrorRecord, Log2Histogram, PeriodTracker, Snapshot};
use crate::sweep::DEFAULT_STEP_TIME;

/// Snapshots merged into the latency histogram: about 2 s at 10 Hz.
pub const RECENT_LATENCY_LEN: usize = 20;
/// The test seam's variable: seconds of made-up graph history (`Run::pretend_history`).
pub const HISTORY_ENV: &str = "DISKSCOPE_TEST_HISTORY";
/// Rows kept for export (`rows::KEPT`): the last hour.
pub const KEPT_INTERVALS: usize = super::rows::KEPT;

/// The app's own rates over the same stretch of time as the kernel's sample.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AppRates {
    pub r_per_s: f64,
    pub w_per_s: f64,
    pub r_bytes_per_s: f64,
    pub w_bytes_per_s: f64,
    /// Trims per second and bytes they discarded per second.
    pub t_per_s: f64,
    pub t_bytes_per_s: f64,
    /// Mean latency of the app's I/Os, in ns (0 when none).
    pub mean_latency_ns: f64,
    /// Worker threads; times `iodepth`, the most I/Os the app can have in flight.
    pub threads: usize,
    pub iodepth: usize,
    /// The app's I/Os in flight on average over the window (the threads' sum): at most
    /// threads × depth.
    pub in_flight: f64,
    /// With a rate, I/Os due and not yet issued at the window's end (the threads' sum):
    /// behind schedule, not in flight.
    pub behind: u64,
}

/// The kernel's view of the target's device beside the app's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KernelView {
    /// The device's name in /proc/diskstats; `None` when the target has none (e.g. tmpfs).
    pub device: Option<String>,
    pub kernel: Option<KernelRates>,
    pub app: Option<AppRates>,
    /// The devices under an md or dm target, with their rates over the same second (None
    /// before the second reading, or when the kernel no longer lists one).
    pub members: Vec<(Member, Option<KernelRates>)>,
    /// Whether the pane shows the members instead of the kernel-vs-app comparison (`m`).
    pub show_members: bool,
}

/// The state of the run screen.
#[derive(Debug, Clone)]
pub struct Run {
    /// What is tested and how (target, span, mode, warnings).
    pub info: ConfigReport,
    /// The settings in force (as last accepted by the engine).
    pub settings: Settings,
    pub focus: Knob,
    pub paused: bool,
    /// The latest snapshot.
    pub last: Option<Snapshot>,
    /// The graphs' history: IOPS, bandwidth, latency lines and the heatmap's histograms,
    /// at every time scale.
    pub timeline: Timeline,
    /// The time scale the graphs show (`z`), kept for the whole run.
    pub zoom: Zoom,
    /// Added to the engine's clock on the graphs: the length of the made-up history of the
    /// test seam (`pretend_history`), else zero.
    pub clock_shift: Duration,
    /// One-second windows of running time: "now", peak, average and the thread rows.
    pub seconds: Seconds,
    /// Log2 histograms of the most recent snapshots.
    recent: VecDeque<Log2Histogram>,
    /// `recent` merged: what the histogram pane shows.
    pub latency: Log2Histogram,
    /// The latency pane shows the heatmap instead of the distribution (`d`).
    pub show_heatmap: bool,
    pub kernel: KernelView,
    /// The steady state, the findings, the temperature and the link (`why`).
    pub why: WhyView,
    /// First row of the thread table.
    pub thread_scroll: usize,
    /// An error or notice for the status line (e.g. a refused setting).
    pub message: Option<String>,
    /// Set once quitting began; the screen waits for the final snapshot.
    pub stopping: bool,
    /// A notice for the status line that is not an error (e.g. where a file was saved).
    pub notice: Option<String>,
    /// `s` was pressed: the next key picks the sweep's dimension.
    pub sweep_prompt: bool,
    /// The running or the last sweep.
    pub sweep: Option<SweepRun>,
    /// The running or the last suite (`c`).
    pub suite: Option<super::suite::SuiteRun>,
    /// Passes, time per pass and pause of a suite started with `c`.
    pub suite_timing: crate::suite::Timing,
    /// The machine's RAM, the yardstick of a card's cache note (read by the session).
    pub ram_bytes: Option<u64>,
    /// Measured time per sweep step (`-T`, default 3 s).
    pub step_time: Duration,
    /// What the screen shows: the live run or the last sweep's chart.
    pub view: View,
    /// One row per second of running time (the last `KEPT_INTERVALS`), for `e` and `--json
    /// FILE`, each tagged with its period's id (`PeriodTracker::current_id`).
    pub rows: Rows,
    /// The run told setting by setting; `periods.current_id()` is the period running now.
    pub periods: PeriodTracker,
    /// Where the sparklines mark a period's start.
    pub marks: Marks,
    /// What made this run, when (stamped by the session as the engine starts).
    pub meta: Meta,
    /// The settings the run started with: what `0` puts every slider back to.
    pub start_settings: Settings,
    /// IOPS the disk did in the last whole second run unpaced (or, paced, below the rate
    /// asked): what the rate slider's steps are fractions of.
    pub rate_base: Option<u64>,
    /// Quitting after a minute asks first (false where stdout is not a terminal, and in
    /// tests that drive the state).
    pub ask_before_quit: bool,
    /// `q` was pressed once after a minute: `q` or `y` now quits, another key goes on.
    pub quit_asked: bool,
}

/// How long a run goes before quitting it asks first.
pub const ASK_AFTER: Duration = Duration::from_secs(60);

impl Run {
    /// A run screen with no data yet.
    pub fn new(info: ConfigReport, settings: Settings, kernel_device: Option<String>) -> Run {
        Run {
            why: WhyView::new(&info),
            info,
            settings,
            focus: Knob::Threads,
            paused: false,
            last: None,
            timeline: Timeline::default(),
            zoom: Zoom::default(),
            clock_shift: Duration::ZERO,
            seconds: Seconds::default(),
            recent: VecDeque::with_capacity(RECENT_LATENCY_LEN),
            latency: Log2Histogram::default(),
            show_heatmap: false,
            kernel: KernelView {
                device: kernel_device,
                ..KernelView::default()
            },
            thread_scroll: 0,
            message: None,
            stopping: false,
            notice: None,
            sweep_prompt: false,
            sweep: None,
            suite: None,
            suite_timing: crate::suite::Timing::default(),
            ram_bytes: None,
            step_time: DEFAULT_STEP_TIME,
            view: View::Live,
            rows: Rows::default(),
            periods: PeriodTracker::default(),
            marks: Marks::default(),
            meta: Meta::default(),
            start_settings: settings,
            rate_base: None,
            ask_before_quit: false,
            quit_asked: false,
        }
    }

    /// The run's clock: how long it has gone.
    pub fn elapsed(&self) -> Duration {
        self.last.as_ref().map_or(Duration::ZERO, |s| s.at)
    }

    /// Follows what the disk does unpaced, from the last whole second at one setting: the
    /// rate slider steps in fractions of it.
    fn follow_rate_base(&mut self) {
        let Some(now) = self.seconds.now.as_ref() else {
            return;
        };
        if now.mixed_settings || now.iops < 1.0 || self.paused {
            return;
        }
        let iops = now.iops.round() as u64;
        let rate = now.settings.rate_iops;
        // Paced, the disk shows what it can only when it falls short of the rate.
        if rate == 0 || (iops as f64) < rate as f64 * 0.95 {
            self.rate_base = Some(iops);
        }
    }

    /// Takes in one snapshot from the engine.
    pub fn push(&mut self, s: Snapshot) {
        let boundary = self.follow_periods(&s);
        // An interval the process was stopped in is not a rate (the engine leaves it out).
        if s.stopped.is_none() {
            let lat = s.interval_latency.summary();
            let buckets = Log2Histogram::of(&s.interval_latency);
            self.timeline.push(&Sample {
                at: s.at + self.clock_shift,
                elapsed: s.interval_elapsed,
                ops: s.interval.ops,
                bytes: s.interval.bytes,
                p50_ns: lat.p50,
                p99_ns: lat.p99,
                latency: buckets.clone(),
            });
            push_bounded(&mut self.recent, buckets, RECENT_LATENCY_LEN);
        }
        let mut merged = Log2Histogram::default();
        for h in &self.recent {
            merged.add(h);
        }
        self.latency = merged;
        let windows = self.seconds.windows;
        self.seconds.push(&s);
        if self.seconds.windows != windows {
            self.follow_rate_base();
        }
        // The last temperature read, as the screen's last second closed (at most 1 s old), is
        // the one a row closing now carries.
        let temp_c = self.why.temp_c;
        self.rows
            .push(&s, boundary, self.periods.current_id(), temp_c);
        self.last = Some(s);
    }

    /// Feeds the period tracker; where a period begins, marks the sparklines, restarts the
    /// headline's peak and average, and after a reset forgets the rows before it.
    fn follow_periods(&mut self, s: &Snapshot) -> Boundary {
        let before = self.periods.current_settings();
        let boundary = self.periods.push(s);
        // Where the interval lies on the graphs' clock (as `Sample::middle` files it).
        let at = (s.at + self.clock_shift).saturating_sub(s.interval_elapsed / 2);
        match boundary {
            Boundary::Within => {}
            Boundary::Pauses => self.marks.mark(at, "pause".into()),
            Boundary::Begins(began) => {
                self.seconds.restart();
                match began {
                    Began::Start => {}
                    // Those rows' figures went with the engine's totals.
                    Began::Reset => self.rows.clear(),
                    Began::Change | Began::Resume => {
                        self.marks.mark(at, change_label(before, s.settings));
                    }
                }
            }
        }
        boundary
    }

    /// The run so far as `--json` reports it (`None` before the first snapshot). The partial
    /// second at the end is its last interval.
    pub fn run_report(&self) -> Option<RunReport> {
        let last = self.last.as_ref()?;
        let mut intervals = self.rows.rows();
        // Ids to the report's indices (merged periods share a row).
        for row in &mut intervals {
            row.period = row.period.and_then(|id| self.periods.index_of(id));
        }
        let mut report = RunReport::new(self.info.clone(), last, intervals)
            .with_meta(self.meta.clone())
            .with_periods(self.periods.report());
        report.why = self.why.report.clone();
        Some(report)
    }

    /// The fio equivalent of what the screen shows: the suite's whole plan on its card,
    /// else the settings in force.
    pub fn fio_overlay(&self) -> super::FioOverlay {
        use crate::fio::job::FioJob;
        let job = match (&self.view, &self.suite) {
            (View::Suite, Some(suite)) => FioJob::suite(&self.suite_config(), suite.runner.plan()),
            _ => FioJob::run(&self.current_config()),
        };
        super::FioOverlay {
            command_line: job.command_line(),
            job_file: job.job_file(),
        }
    }

    /// The run's description with the settings now in force, for the fio overlay.
    pub fn current_config(&self) -> ConfigReport {
        self.info.clone().with_settings(self.settings)
    }

    /// Takes in a kernel sample read as the last one-second window closed: the app's column
    /// is that same window ("IOPS now"), so both columns cover the same second.
    pub fn set_kernel(&mut self, kernel: Option<KernelRates>) {
        self.kernel.kernel = kernel;
        self.kernel.app = self.seconds.now.as_ref().map(|w| {
            let per_s = |n: u64| crate::stats::snapshot::per_second(n, w.elapsed);
            AppRates {
                r_per_s: per_s(w.counts.read_ops),
                w_per_s: per_s(w.counts.write_ops),
                r_bytes_per_s: per_s(w.counts.read_bytes),
                w_bytes_per_s: per_s(w.counts.write_bytes),
                t_per_s: per_s(w.counts.trim_ops),
                t_bytes_per_s: per_s(w.counts.trim_bytes),
                mean_latency_ns: w.latency.mean,
                threads: w.settings.threads,
                iodepth: w.settings.iodepth,
                in_flight: w.threads.iter().map(|t| t.in_flight).sum(),
                behind: w.threads.iter().map(|t| t.behind).sum(),
            }
        });
    }

    /// Test seam (`HISTORY_ENV`): gives the graphs `secs` of made-up history before the
    /// engine's first snapshot — 100 ms intervals of a steady load whose threads double
    /// every ten minutes, marked where they do — so the whole-run view of a long run can be
    /// drawn, and timed, without waiting for one. The engine's own figures are untouched.
    pub fn pretend_history(&mut self, secs: u64) {
        let tick = Duration::from_millis(100);
        for i in 0..secs * 10 {
            let at = tick * (i as u32 + 1);
            if i > 0 && i % 6000 == 0 {
                self.marks
                    .mark(at - tick / 2, format!("T{}", 1u64 << (i / 6000)));
            }
            let ops = 1000 + (i * 37) % 200;
            let mut latency = Log2Histogram::default();
            latency.counts[16] = ops * 4 / 5;
            latency.counts[20] = ops / 5;
            self.timeline.push(&Sample {
                at,
                elapsed: tick,
                ops,
                bytes: ops * 4096,
                p50_ns: 70_000,
                p99_ns: 1_500_000 + (i % 600) * 1000,
                latency,
            });
        }
        self.clock_shift = Duration::from_secs(secs);
    }

    /// Forgets the history, as the engine's statistics were reset.
    pub fn clear_history(&mut self) {
        self.timeline = Timeline::default();
        self.recent.clear();
        self.latency = Log2Histogram::default();
        self.seconds = Seconds::default();
        self.marks.clear();
        // The saved rows and the periods restart when the engine's totals do: the tracker
        // sees it in the first snapshot after the reset (`follow_periods`).
    }

    /// The first failed or short I/Os kept so far.
    pub fn first_errors(&self) -> Vec<IoErrorRecord> {
        self.last
            .as_ref()
            .map(|s| s.first_errors.clone())
            .unwrap_or_default()
    }

    /// Active threads in the latest snapshot.
    pub fn thread_rows(&self) -> usize {
        self.last.as_ref().map_or(0, |s| s.threads.len())
    }
}

fn push_bounded<T>(q: &mut VecDeque<T>, v: T, cap: usize) {
    if q.len() == cap {
        q.pop_front();
    }
    q.push_back(v);
}
