//! The TUI's state and key handling, with no drawing and no I/O. `App` holds what the screens
//! show — the picker rows, the layout progress, and for a run the settings, bounded history of
//! the engine's snapshots, a recent-latency histogram and the kernel's counters — and turns
//! keys into `Action`s that the run loop carries out on the engine. Because nothing here
//! touches a clock, a terminal or the target, every key can be tested by feeding events in
//! and looking at the state that comes out.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Duration;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use serde::Serialize;

use crate::diskstats::KernelRates;
use crate::report::baseline::Baseline;
use crate::report::{ConfigReport, RunReport, SweepReport, fio};
use crate::settings::{IoEngine, MAX_BS, MAX_IODEPTH, MAX_THREADS, Settings};
use crate::stats::seconds::Seconds;
use crate::stats::{IntervalFigures, Latency, Snapshot, Window};
use crate::sweep::{
    DEFAULT_STEP_TIME, Dimension, Next, Saturation, SweepRunner, SweepSpec, saturation,
};
use crate::target::discover::DeviceInfo;

/// Snapshots kept for the sparklines: 60 s at the default 10 Hz.
pub const HISTORY_LEN: usize = 600;
/// Snapshots merged into the latency histogram: about 2 s at 10 Hz.
pub const RECENT_LATENCY_LEN: usize = 20;
/// Smallest block size the slider offers.
pub const MIN_BS: u64 = 512;
/// Log2 latency buckets: bucket `i` holds latencies in `[2^i, 2^(i+1))` ns.
pub const BUCKETS: usize = 64;
/// Length of a row of the intervals kept for `e` and `--json FILE` (as headless prints them).
pub const INTERVAL: Duration = Duration::from_secs(1);
/// Rows kept for export: the last hour, so a run left open for days stays the same size (the
/// totals still cover the whole run).
pub const KEPT_INTERVALS: usize = 3600;
/// The thread counts a sweep started with `s t` runs: 1 to 64, doubling.
pub const SWEEP_THREADS: (u64, u64) = (1, 64);
/// The block sizes a sweep started with `s b` runs: 512 (or the logical block size) to 4 MiB,
/// doubling.
pub const SWEEP_BS: (u64, u64) = (512, 4 << 20);
/// The queue depths a sweep started with `s q` runs: 1 to 256, doubling.
pub const SWEEP_IODEPTH: (u64, u64) = (1, MAX_IODEPTH as u64);

/// One slider of the run screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    Threads,
    QueueDepth,
    BlockSize,
    ReadPct,
    RandomPct,
}

impl Knob {
    /// The sliders, top to bottom.
    pub const ALL: [Knob; 5] = [
        Knob::Threads,
        Knob::QueueDepth,
        Knob::BlockSize,
        Knob::ReadPct,
        Knob::RandomPct,
    ];

    fn index(self) -> usize {
        Knob::ALL.iter().position(|k| *k == self).unwrap_or(0)
    }

    /// The slider below (wrapping).
    pub fn next(self) -> Knob {
        Knob::ALL[(self.index() + 1) % Knob::ALL.len()]
    }

    /// The slider above (wrapping).
    pub fn prev(self) -> Knob {
        Knob::ALL[(self.index() + Knob::ALL.len() - 1) % Knob::ALL.len()]
    }

    /// The slider's label.
    pub fn label(self) -> &'static str {
        match self {
            Knob::Threads => "threads",
            Knob::QueueDepth => "queue depth",
            Knob::BlockSize => "block size",
            Knob::ReadPct => "read %",
            Knob::RandomPct => "random %",
        }
    }
}

/// A row of the picker.
#[derive(Debug, Clone, PartialEq)]
pub enum PickerRow {
    /// The scratch file in the current directory (`label` says where and how big).
    Scratch { label: String },
    /// A discovered block device.
    Device(Box<DeviceInfo>),
    /// Type a path.
    EnterPath,
}

/// The target picker.
#[derive(Debug, Clone, PartialEq)]
pub struct Picker {
    pub rows: Vec<PickerRow>,
    pub selected: usize,
    /// The path being typed, while the "enter a path" row is being edited.
    pub input: Option<String>,
    /// Why the last choice could not start, or a discovery problem.
    pub message: Option<String>,
}

impl Picker {
    /// The scratch row first and selected, then `devices`, then "enter a path".
    pub fn new(scratch_label: String, devices: Vec<DeviceInfo>) -> Picker {
        let mut rows = vec![PickerRow::Scratch {
            label: scratch_label,
        }];
        rows.extend(devices.into_iter().map(|d| PickerRow::Device(Box::new(d))));
        rows.push(PickerRow::EnterPath);
        Picker {
            rows,
            selected: 0,
            input: None,
            message: None,
        }
    }
}

/// The scratch file being laid out (or the target being opened).
#[derive(Debug, Clone, PartialEq)]
pub struct Preparing {
    /// What is being prepared, e.g. the target's path.
    pub label: String,
    pub done: u64,
    pub total: u64,
}

/// The app's own rates over the same stretch of time as the kernel's sample.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct AppRates {
    pub r_per_s: f64,
    pub w_per_s: f64,
    pub r_bytes_per_s: f64,
    pub w_bytes_per_s: f64,
    /// Mean latency of the app's I/Os, in ns (0 when none).
    pub mean_latency_ns: f64,
    /// Worker threads; times `iodepth`, the most I/Os the app can have in flight.
    pub threads: usize,
    pub iodepth: usize,
}

/// The kernel's view of the target's device beside the app's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KernelView {
    /// The device's name in /proc/diskstats; `None` when the target has none (e.g. tmpfs).
    pub device: Option<String>,
    pub kernel: Option<KernelRates>,
    pub app: Option<AppRates>,
}

/// A log2 latency histogram: `counts[i]` is the number of latencies in `[2^i, 2^(i+1))` ns.
#[derive(Debug, Clone, PartialEq)]
pub struct Log2Histogram {
    pub counts: [u64; BUCKETS],
}

impl Default for Log2Histogram {
    fn default() -> Self {
        Log2Histogram {
            counts: [0; BUCKETS],
        }
    }
}

impl Log2Histogram {
    /// Buckets an HdrHistogram's recorded values.
    pub fn of(l: &Latency) -> Log2Histogram {
        let h = l.histogram();
        let mut out = Log2Histogram::default();
        for v in h.iter_recorded() {
            // The bucket's lowest value: its highest can cross a power of two.
            let value = h.lowest_equivalent(v.value_iterated_to()).max(1);
            let i = (63 - value.leading_zeros()) as usize;
            out.counts[i] += v.count_at_value();
        }
        out
    }

    fn add(&mut self, other: &Log2Histogram) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a += b;
        }
    }

    /// Total count.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }
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
    /// Per-snapshot interval IOPS, bytes/s, p50 and p99 (ns), oldest first.
    pub iops: VecDeque<u64>,
    pub bw: VecDeque<u64>,
    pub p50: VecDeque<u64>,
    pub p99: VecDeque<u64>,
    /// One-second windows of running time: "now", peak, average and the thread rows.
    pub seconds: Seconds,
    /// Log2 histograms of the most recent snapshots.
    recent: VecDeque<Log2Histogram>,
    /// `recent` merged: what the histogram pane shows.
    pub latency: Log2Histogram,
    kernel_window: Window,
    pub kernel: KernelView,
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
    /// Measured time per sweep step (`-T`, default 3 s).
    pub step_time: Duration,
    /// What the screen shows: the live run or the last sweep's chart.
    pub view: View,
    /// One row per second of run time (the last `KEPT_INTERVALS`), for `e` and `--json FILE`.
    pub intervals: VecDeque<IntervalFigures>,
    interval_window: Window,
    next_interval: Duration,
}

/// What the run screen shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// Sliders, graphs, histogram, threads.
    Live,
    /// The last sweep: chart, table and saturation (Enter/Esc goes back).
    Sweep,
}

/// Where a sweep is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SweepState {
    Running,
    /// Every step was measured.
    Done,
    /// Cancelled with Esc, or a step's settings were refused.
    Cancelled,
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
    /// Set when a manual setting change came after the sweep: it is then no longer the last
    /// thing that ran, and `e` and the summary are about the run.
    pub superseded: bool,
}

impl SweepRun {
    pub fn dimension(&self) -> Dimension {
        self.runner.spec().dimension
    }

    /// Steps measured so far.
    pub fn results(&self) -> &[IntervalFigures] {
        self.runner.results()
    }
}

/// What `e` saves: the run, or the sweep when one ran last. Serialized exactly as `--json`.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Export {
    Run(Box<RunReport>),
    Sweep(Box<SweepReport>),
}

/// The sweep values of `dimension` for a target with this geometry: threads 1..64, or block
/// sizes from the logical block size (at least 512) to 4 MiB that fit the span.
pub fn default_sweep(dimension: Dimension, info: &ConfigReport) -> Result<SweepSpec, String> {
    let values: Vec<u64> = match dimension {
        Dimension::Threads => {
            let (lo, hi) = SWEEP_THREADS;
            std::iter::successors(Some(lo), |v| Some(v * 2))
                .take_while(|v| *v <= hi.min(MAX_THREADS as u64))
                .collect()
        }
        Dimension::Iodepth => {
            psync_refusal(info)?;
            let (lo, hi) = SWEEP_IODEPTH;
            std::iter::successors(Some(lo), |v| Some(v * 2))
                .take_while(|v| *v <= hi)
                .collect()
        }
        Dimension::Bs => {
            let lbs = u64::from(info.logical_block_size).max(1);
            let (lo, hi) = SWEEP_BS;
            std::iter::successors(Some(lo.max(lbs).next_power_of_two()), |v| Some(v * 2))
                .take_while(|v| *v <= hi)
                .filter(|v| *v <= info.span_bytes && (!info.direct || v.is_multiple_of(lbs)))
                .collect()
        }
    };
    if values.len() < 2 {
        return Err(format!(
            "no {} sweep: fewer than two steps fit this target (span {} bytes)",
            dimension.name(),
            info.span_bytes
        ));
    }
    Ok(SweepSpec { dimension, values })
}

/// On psync the depth is fixed at 1: why, for the message line.
fn psync_refusal(info: &ConfigReport) -> Result<(), String> {
    if info.ioengine == IoEngine::IoUring {
        return Ok(());
    }
    Err(match &info.ioengine_fallback {
        Some(why) => format!("queue depth stays 1: {why}"),
        None => "queue depth stays 1 with --ioengine psync".into(),
    })
}

impl Run {
    /// A run screen with no data yet.
    pub fn new(info: ConfigReport, settings: Settings, kernel_device: Option<String>) -> Run {
        Run {
            info,
            settings,
            focus: Knob::Threads,
            paused: false,
            last: None,
            iops: VecDeque::with_capacity(HISTORY_LEN),
            bw: VecDeque::with_capacity(HISTORY_LEN),
            p50: VecDeque::with_capacity(HISTORY_LEN),
            p99: VecDeque::with_capacity(HISTORY_LEN),
            seconds: Seconds::default(),
            recent: VecDeque::with_capacity(RECENT_LATENCY_LEN),
            latency: Log2Histogram::default(),
            kernel_window: Window::default(),
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
            step_time: DEFAULT_STEP_TIME,
            view: View::Live,
            intervals: VecDeque::new(),
            interval_window: Window::default(),
            next_interval: INTERVAL,
        }
    }

    /// Takes in one snapshot from the engine.
    pub fn push(&mut self, s: Snapshot) {
        // An interval the process was stopped in is not a rate (the engine leaves it out).
        if s.stopped.is_none() {
            let lat = s.interval_latency.summary();
            push_bounded(
                &mut self.iops,
                s.interval_iops().round() as u64,
                HISTORY_LEN,
            );
            push_bounded(&mut self.bw, s.interval_bw().round() as u64, HISTORY_LEN);
            push_bounded(&mut self.p50, lat.p50, HISTORY_LEN);
            push_bounded(&mut self.p99, lat.p99, HISTORY_LEN);
            push_bounded(
                &mut self.recent,
                Log2Histogram::of(&s.interval_latency),
                RECENT_LATENCY_LEN,
            );
        }
        let mut merged = Log2Histogram::default();
        for h in &self.recent {
            merged.add(h);
        }
        self.latency = merged;
        self.seconds.push(&s);
        self.kernel_window.push(&s);
        // A row per second of run time, with headless's half-tick of slack for timer jitter.
        self.interval_window.push(&s);
        if s.at + Duration::from_millis(50) >= self.next_interval {
            push_bounded(
                &mut self.intervals,
                self.interval_window.take().figures(),
                KEPT_INTERVALS,
            );
            while self.next_interval <= s.at + Duration::from_millis(50) {
                self.next_interval += INTERVAL;
            }
        }
        self.last = Some(s);
    }

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
            superseded: false,
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
        let Some(sweep) = self
            .sweep
            .as_mut()
            .filter(|w| w.state == SweepState::Running)
        else {
            return Action::None;
        };
        match sweep.runner.on_snapshot(s) {
            Next::Continue => Action::None,
            Next::Apply(next) => Action::Apply(next),
            Next::Done => {
                sweep.state = SweepState::Done;
                sweep.saturation = saturation(sweep.dimension(), sweep.results());
                self.view = View::Sweep;
                Action::None
            }
        }
    }

    /// Stops a running sweep; the run goes on with the settings in force.
    pub fn cancel_sweep(&mut self, why: &str) {
        if let Some(sweep) = self
            .sweep
            .as_mut()
            .filter(|w| w.state == SweepState::Running)
        {
            sweep.state = SweepState::Cancelled;
            self.message = Some(format!(
                "sweep {why} after {} of {} steps; the run goes on",
                sweep.results().len(),
                sweep.runner.steps().len()
            ));
        }
    }

    /// True while a sweep runs (the sliders are locked).
    pub fn sweeping(&self) -> bool {
        self.sweep
            .as_ref()
            .is_some_and(|w| w.state == SweepState::Running)
    }

    /// The finished sweep, if it is the last thing that ran.
    pub fn last_sweep(&self) -> Option<&SweepRun> {
        self.sweep
            .as_ref()
            .filter(|w| w.state == SweepState::Done && !w.superseded)
    }

    /// The run so far as `--json` reports it (`None` before the first snapshot). The partial
    /// second at the end is its last interval.
    pub fn run_report(&self) -> Option<RunReport> {
        let last = self.last.as_ref()?;
        let mut intervals: Vec<_> = self.intervals.iter().cloned().collect();
        if self.interval_window.snapshots > 0 {
            intervals.push(self.interval_window.figures());
        }
        Some(RunReport::new(self.info.clone(), last, intervals))
    }

    /// The last finished sweep as `--json --sweep` reports it.
    pub fn sweep_report(&self) -> Option<SweepReport> {
        let sweep = self
            .sweep
            .as_ref()
            .filter(|w| w.state == SweepState::Done)?;
        let b = sweep.base;
        let config = ConfigReport {
            duration_s: Some(sweep.step_time.as_secs_f64()),
            ..self.info.clone()
        }
        .with_settings(b);
        Some(SweepReport {
            config,
            dimension: sweep.dimension(),
            step_time_s: sweep.step_time.as_secs_f64(),
            steps: sweep.results().to_vec(),
            saturation: sweep.saturation.clone(),
            partial_step: None,
            errors: self
                .last
                .as_ref()
                .map(|s| s.first_errors.clone())
                .unwrap_or_default(),
            interrupted_by: None,
        })
    }

    /// What `e` saves: the sweep when it is showing or ran last, else the run.
    pub fn export(&self) -> Option<Export> {
        if (self.view == View::Sweep || self.last_sweep().is_some())
            && let Some(r) = self.sweep_report()
        {
            return Some(Export::Sweep(Box::new(r)));
        }
        self.run_report().map(|r| Export::Run(Box::new(r)))
    }

    /// The run's description with the settings now in force, for the fio overlay.
    pub fn current_config(&self) -> ConfigReport {
        self.info.clone().with_settings(self.settings)
    }

    /// Takes in a kernel sample; the app's rates are taken over the snapshots since the last
    /// one, so both columns cover about the same time.
    pub fn set_kernel(&mut self, kernel: Option<KernelRates>) {
        let w = self.kernel_window.take();
        let per_s = |n: u64| crate::stats::snapshot::per_second(n, w.elapsed);
        self.kernel.kernel = kernel;
        self.kernel.app = Some(AppRates {
            r_per_s: per_s(w.counts.read_ops),
            w_per_s: per_s(w.counts.write_ops),
            r_bytes_per_s: per_s(w.counts.read_bytes),
            w_bytes_per_s: per_s(w.counts.write_bytes),
            mean_latency_ns: w.latency_summary().mean,
            threads: w.settings.map_or(self.settings.threads, |s| s.threads),
            iodepth: w.settings.map_or(self.settings.iodepth, |s| s.iodepth),
        });
    }

    /// Forgets the history, as the engine's statistics were reset.
    pub fn clear_history(&mut self) {
        self.iops.clear();
        self.bw.clear();
        self.p50.clear();
        self.p99.clear();
        self.recent.clear();
        self.latency = Log2Histogram::default();
        self.seconds = Seconds::default();
        // The engine's totals restart, so the saved intervals do too.
        self.intervals.clear();
        self.interval_window = Window::default();
        self.next_interval = self.last.as_ref().map_or(Duration::ZERO, |s| s.at) + INTERVAL;
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

/// Which screen is showing.
#[derive(Debug, Clone)]
pub enum Screen {
    Picker(Picker),
    /// Writing to a block device was allowed with a bare `--allow-write`: name it first.
    Confirm(Confirm),
    Preparing(Preparing),
    Run(Box<Run>),
}

/// The write confirmation for a block device: the user types its path, or Esc for read-only.
#[derive(Debug, Clone, PartialEq)]
pub struct Confirm {
    /// The device writes would go to.
    pub device: PathBuf,
    /// What has been typed.
    pub input: String,
    /// Why the last answer was not accepted, or why the device was refused.
    pub message: Option<String>,
}

/// The fio equivalent of the current settings, shown over the run screen.
#[derive(Debug, Clone, PartialEq)]
pub struct FioOverlay {
    pub command_line: String,
    pub job_file: String,
}

/// What the run loop must do after a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    None,
    /// Prepare and start on this target (`None`: the scratch file in the current directory).
    Start(Option<PathBuf>),
    /// Apply these settings to the running engine.
    Apply(Settings),
    Pause(bool),
    ResetStats,
    /// Stop (the engine, or the layout) and leave.
    Quit,
    /// Ctrl-Z: give the terminal back and stop the process until `fg`.
    Suspend,
    /// Save the run (or the last sweep) as JSON to a timestamped file.
    Export,
    /// The write confirmation was answered with this text (to be checked against the device).
    ConfirmWrite(String),
    /// The write confirmation was declined: run the device read-only.
    ReadOnly,
}

/// Everything the screens show.
#[derive(Debug, Clone)]
pub struct App {
    pub screen: Screen,
    pub help: bool,
    /// False under NO_COLOR: only bold, dim and reverse are used.
    pub color: bool,
    /// The fio overlay, while shown (any key closes it).
    pub fio: Option<FioOverlay>,
    /// A saved run or sweep (`--baseline`) drawn dimmed beside this one.
    pub baseline: Option<Baseline>,
}

impl App {
    /// An app starting on `screen`.
    pub fn new(screen: Screen, color: bool) -> App {
        App {
            screen,
            help: false,
            color,
            fio: None,
            baseline: None,
        }
    }

    /// Handles a key; the returned action is for the run loop to carry out.
    pub fn on_key(&mut self, key: KeyEvent) -> Action {
        if key.kind == KeyEventKind::Release {
            return Action::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => return Action::Quit,
            KeyCode::Char('z') if ctrl => return Action::Suspend,
            _ => {}
        }
        if self.help || self.fio.is_some() {
            match key.code {
                KeyCode::Char('q') => return Action::Quit,
                _ => {
                    self.help = false;
                    self.fio = None;
                    return Action::None;
                }
            }
        }
        match &mut self.screen {
            Screen::Picker(p) => picker_key(p, key, &mut self.help),
            Screen::Confirm(c) => confirm_key(c, key),
            Screen::Preparing(_) => match key.code {
                KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
                _ => Action::None,
            },
            Screen::Run(run) => {
                if key.code == KeyCode::Char('f') && !run.sweep_prompt {
                    let c = run.current_config();
                    self.fio = Some(FioOverlay {
                        command_line: fio::command_line(&c),
                        job_file: fio::job_file(&c),
                    });
                    return Action::None;
                }
                run_key(run, key, &mut self.help)
            }
        }
    }

    /// The run screen, if showing.
    pub fn run(&self) -> Option<&Run> {
        match &self.screen {
            Screen::Run(r) => Some(r),
            _ => None,
        }
    }

    /// The run screen, mutably, if showing.
    pub fn run_mut(&mut self) -> Option<&mut Run> {
        match &mut self.screen {
            Screen::Run(r) => Some(r),
            _ => None,
        }
    }

    /// Records the engine's answer to an `Apply`: `settings` are those now in force. A
    /// refused sweep step ends the sweep.
    pub fn applied(&mut self, result: Result<(), String>, settings: Settings) {
        if let Some(run) = self.run_mut() {
            run.settings = settings;
            match result {
                Ok(()) => run.message = None,
                Err(e) if run.sweeping() => {
                    run.cancel_sweep("stopped");
                    if let Some(m) = &mut run.message {
                        m.push_str(&format!(": {e}"));
                    }
                }
                Err(e) => run.message = Some(e),
            }
        }
    }
}

fn picker_key(p: &mut Picker, key: KeyEvent, help: &mut bool) -> Action {
    if let Some(input) = &mut p.input {
        match key.code {
            KeyCode::Enter => {
                let path = input.trim().to_string();
                if path.is_empty() {
                    p.message = Some("type the path of a device, file or directory".into());
                    return Action::None;
                }
                p.input = None;
                return Action::Start(Some(PathBuf::from(path)));
            }
            KeyCode::Esc => p.input = None,
            KeyCode::Backspace => {
                input.pop();
            }
            KeyCode::Char(c) => input.push(c),
            _ => {}
        }
        return Action::None;
    }
    let last = p.rows.len().saturating_sub(1);
    match key.code {
        KeyCode::Up | KeyCode::Char('k') => p.selected = p.selected.saturating_sub(1),
        KeyCode::Down | KeyCode::Char('j') => p.selected = (p.selected + 1).min(last),
        KeyCode::Home => p.selected = 0,
        KeyCode::End => p.selected = last,
        KeyCode::Char('?') => *help = true,
        KeyCode::Char('q') | KeyCode::Esc => return Action::Quit,
        KeyCode::Enter => match p.rows.get(p.selected) {
            Some(PickerRow::Scratch { .. }) => return Action::Start(None),
            Some(PickerRow::Device(d)) => {
                if let crate::target::discover::Access::Denied(why) = &d.access {
                    p.message = Some(format!("{}: cannot open it ({why}); try as root", d.path));
                    return Action::None;
                }
                return Action::Start(Some(PathBuf::from(&d.path)));
            }
            Some(PickerRow::EnterPath) => {
                p.input = Some(String::new());
                p.message = None;
            }
            None => {}
        },
        _ => {}
    }
    Action::None
}

fn confirm_key(c: &mut Confirm, key: KeyEvent) -> Action {
    match key.code {
        KeyCode::Enter => return Action::ConfirmWrite(c.input.trim().to_string()),
        KeyCode::Esc => return Action::ReadOnly,
        KeyCode::Backspace => {
            c.input.pop();
        }
        KeyCode::Char(ch) => c.input.push(ch),
        _ => {}
    }
    Action::None
}

/// Keys on the sweep's chart: back to the run, quit, save, help.
fn sweep_view_key(run: &mut Run, key: KeyEvent, help: &mut bool) -> Action {
    match key.code {
        KeyCode::Enter | KeyCode::Esc => run.view = View::Live,
        KeyCode::Char('q') => return Action::Quit,
        KeyCode::Char('e') => return Action::Export,
        KeyCode::Char('?') => *help = true,
        _ => {}
    }
    Action::None
}

fn run_key(run: &mut Run, key: KeyEvent, help: &mut bool) -> Action {
    if run.view == View::Sweep {
        return sweep_view_key(run, key, help);
    }
    if run.sweep_prompt {
        run.sweep_prompt = false;
        let dimension = match key.code {
            KeyCode::Char('t') => Dimension::Threads,
            KeyCode::Char('b') => Dimension::Bs,
            KeyCode::Char('q') => Dimension::Iodepth,
            _ => {
                run.notice = None;
                return Action::None;
            }
        };
        return match default_sweep(dimension, &run.info) {
            Ok(spec) => run.start_sweep(spec),
            Err(e) => {
                run.message = Some(e);
                Action::None
            }
        };
    }
    if run.sweeping() {
        let locked = matches!(
            key.code,
            KeyCode::Left | KeyCode::Right | KeyCode::Char('h' | 'l' | '-' | '_' | '+' | '=' | 's')
        );
        if locked {
            run.message =
                Some("a sweep is running: the sliders are locked (Esc cancels the sweep)".into());
            return Action::None;
        }
        if key.code == KeyCode::Esc {
            run.cancel_sweep("cancelled");
            return Action::None;
        }
    }
    match key.code {
        KeyCode::Char('q') | KeyCode::Esc => Action::Quit,
        KeyCode::Char('?') => {
            *help = true;
            Action::None
        }
        KeyCode::Char('s') => {
            run.sweep_prompt = true;
            run.message = None;
            run.notice = Some(format!(
                "sweep: t threads {}..{} · b block size 512..4M · q depth 1..{} · {:.1} s/step · other keys cancel",
                SWEEP_THREADS.0,
                SWEEP_THREADS.1,
                SWEEP_IODEPTH.1,
                run.step_time.as_secs_f64()
            ));
            Action::None
        }
        KeyCode::Char('e') => Action::Export,
        KeyCode::Char('v') if run.sweep.is_some() => {
            run.view = View::Sweep;
            Action::None
        }
        KeyCode::Char(' ') => {
            run.paused = !run.paused;
            Action::Pause(run.paused)
        }
        KeyCode::Char('r') => {
            run.clear_history();
            Action::ResetStats
        }
        KeyCode::Tab | KeyCode::Down | KeyCode::Char('j') => {
            run.focus = run.focus.next();
            Action::None
        }
        KeyCode::BackTab | KeyCode::Up | KeyCode::Char('k') => {
            run.focus = run.focus.prev();
            Action::None
        }
        KeyCode::PageDown | KeyCode::Char(']') => {
            run.thread_scroll = (run.thread_scroll + 8).min(run.thread_rows().saturating_sub(1));
            Action::None
        }
        KeyCode::PageUp | KeyCode::Char('[') => {
            run.thread_scroll = run.thread_scroll.saturating_sub(8);
            Action::None
        }
        KeyCode::Left | KeyCode::Char('h') => step(run, Step::Down),
        KeyCode::Right | KeyCode::Char('l') => step(run, Step::Up),
        KeyCode::Char('-') | KeyCode::Char('_') => step(run, Step::Minus),
        KeyCode::Char('+') | KeyCode::Char('=') => step(run, Step::Plus),
        _ => Action::None,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Step {
    /// ←: halve (threads, block size) or one step down (percentages).
    Down,
    /// →: double or one step up.
    Up,
    /// -: one thread fewer, else like ←.
    Minus,
    /// +: one thread more, else like →.
    Plus,
}

/// The settings after moving `knob` by `step`; `Err` says why it cannot move.
fn stepped(s: Settings, knob: Knob, step: Step, write_allowed: bool) -> Result<Settings, String> {
    let up = matches!(step, Step::Up | Step::Plus);
    let mut n = s;
    match knob {
        Knob::Threads => {
            n.threads = match step {
                Step::Down => s.threads / 2,
                Step::Up => s.threads.saturating_mul(2),
                Step::Minus => s.threads.saturating_sub(1),
                Step::Plus => s.threads + 1,
            }
            .clamp(1, MAX_THREADS);
        }
        Knob::QueueDepth => {
            n.iodepth = match step {
                Step::Down => s.iodepth / 2,
                Step::Up => s.iodepth.saturating_mul(2),
                Step::Minus => s.iodepth.saturating_sub(1),
                Step::Plus => s.iodepth + 1,
            }
            .clamp(1, MAX_IODEPTH);
        }
        Knob::BlockSize => {
            n.bs = if up {
                if s.bs.is_power_of_two() {
                    s.bs * 2
                } else {
                    s.bs.next_power_of_two()
                }
            } else if s.bs.is_power_of_two() {
                s.bs / 2
            } else {
                s.bs.next_power_of_two() / 2
            }
            .clamp(MIN_BS, MAX_BS);
        }
        Knob::ReadPct => {
            n.read_pct = if up {
                s.read_pct.saturating_add(5).min(100)
            } else {
                s.read_pct.saturating_sub(5)
            };
            if n.read_pct < 100 && !write_allowed {
                return Err("writes are off: start with --allow-write to lower read % (it destroys data on the target)".into());
            }
        }
        Knob::RandomPct => {
            n.random_pct = if up {
                s.random_pct.saturating_add(10).min(100)
            } else {
                s.random_pct.saturating_sub(10)
            };
        }
    }
    Ok(n)
}

fn step(run: &mut Run, step: Step) -> Action {
    if run.focus == Knob::QueueDepth
        && let Err(why) = psync_refusal(&run.info)
    {
        run.message = Some(why);
        return Action::None;
    }
    match stepped(run.settings, run.focus, step, run.info.write_allowed) {
        Ok(n) if n == run.settings => Action::None,
        Ok(n) => {
            run.message = None;
            if let Some(sweep) = &mut run.sweep {
                sweep.superseded = true;
            }
            Action::Apply(n)
        }
        Err(msg) => {
            run.message = Some(msg);
            Action::None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_halve_double_and_step_by_one_within_limits() {
        let s = Settings {
            threads: 1,
            ..Settings::default()
        };
        let t = |s, step| stepped(s, Knob::Threads, step, false).map(|n| n.threads);
        assert_eq!(t(s, Step::Down), Ok(1));
        assert_eq!(t(s, Step::Up), Ok(2));
        assert_eq!(t(s, Step::Plus), Ok(2));
        let s = Settings { threads: 1024, ..s };
        assert_eq!(t(s, Step::Up), Ok(1024));
        assert_eq!(t(s, Step::Plus), Ok(1024));
        assert_eq!(t(s, Step::Minus), Ok(1023));
        assert_eq!(t(s, Step::Down), Ok(512));
    }

    #[test]
    fn depth_halves_doubles_steps_by_one_and_stays_1_on_psync() {
        let d = |iodepth, step| {
            let s = Settings {
                iodepth,
                ..Settings::default()
            };
            stepped(s, Knob::QueueDepth, step, false).map(|n| n.iodepth)
        };
        assert_eq!(d(1, Step::Down), Ok(1));
        assert_eq!(d(32, Step::Up), Ok(64));
        assert_eq!(d(32, Step::Plus), Ok(33));
        assert_eq!(d(256, Step::Up), Ok(256));
        assert_eq!(d(256, Step::Minus), Ok(255));
        let info = ConfigReport {
            ioengine: IoEngine::Psync,
            ioengine_fallback: Some("io_uring unavailable (EPERM)".into()),
            ..ConfigReport::example()
        };
        let mut run = Run::new(info, Settings::default(), None);
        run.focus = Knob::QueueDepth;
        assert!(matches!(step(&mut run, Step::Up), Action::None));
        assert!(run.message.as_deref().unwrap().contains("EPERM"));
        assert!(default_sweep(Dimension::Iodepth, &run.info).is_err());
        run.info.ioengine = IoEngine::IoUring;
        assert!(matches!(step(&mut run, Step::Up), Action::Apply(s) if s.iodepth == 2));
        let spec = default_sweep(Dimension::Iodepth, &run.info).unwrap();
        assert_eq!(spec.values, vec![1, 2, 4, 8, 16, 32, 64, 128, 256]);
    }

    #[test]
    fn block_size_moves_by_powers_of_two_from_any_start() {
        let b = |bs, step| {
            stepped(
                Settings {
                    bs,
                    ..Settings::default()
                },
                Knob::BlockSize,
                step,
                false,
            )
            .map(|n| n.bs)
        };
        assert_eq!(b(4096, Step::Up), Ok(8192));
        assert_eq!(b(4096, Step::Down), Ok(2048));
        assert_eq!(b(512, Step::Down), Ok(512));
        assert_eq!(b(MAX_BS, Step::Up), Ok(MAX_BS));
        assert_eq!(b(3072, Step::Up), Ok(4096));
        assert_eq!(b(3072, Step::Down), Ok(2048));
    }

    #[test]
    fn read_below_100_needs_writes_allowed() {
        let s = Settings::default();
        assert!(stepped(s, Knob::ReadPct, Step::Down, false).is_err());
        assert_eq!(
            stepped(s, Knob::ReadPct, Step::Down, true).map(|n| n.read_pct),
            Ok(95)
        );
        assert_eq!(
            stepped(s, Knob::RandomPct, Step::Down, false).map(|n| n.random_pct),
            Ok(90)
        );
    }

    #[test]
    fn log2_buckets_place_values_by_power_of_two() {
        let mut h = Latency::default();
        for v in [1000u64, 1023, 1024, 5000, 1_000_000] {
            h.record(v);
        }
        let b = Log2Histogram::of(&h);
        assert_eq!(b.counts[9], 2);
        assert_eq!(b.counts[10], 1);
        assert_eq!(b.counts[12], 1);
        assert_eq!(b.counts[19], 1);
        assert_eq!(b.total(), 5);
    }
}
