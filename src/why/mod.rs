//! Why, live: the findings and the steady-state check kept up to date one second at a time,
//! for the TUI's run screen and the headless printer alike. A consumer hands in each second of
//! running time (`Second`: the engine's figures, the run's period it lies in, and the
//! target's second from `sensors`); the `Tracker` turns it into the detectors' `findings::Interval`, feeds the
//! rolling `SteadyCheck` and `SlowdownDetector`, judges the queue's limits whenever the
//! settings change, and says what is new (`News`) so it can be shown as it appears. At the
//! end, `report` gives every finding in reading order and the steady state for the JSON.
//!
//! This module owns that bookkeeping only: the rules and their sentences are `findings`', the
//! reads are `sensors`' and the target's; nothing here reads a clock or a file, and paused or
//! stopped time is never fed (the consumers skip it). The key the findings and the steady
//! check compare within is the run's period (`stats::PeriodTracker::current_id`): a new one
//! begins at every settings change, resume and reset, so a steady window and a period have
//! the same boundaries.

pub mod health;
pub mod live;
mod report;
pub mod steps;

use std::collections::VecDeque;

use crate::findings::conditions::{Conditions, Detector, Device, Pacing, ask};
use crate::findings::link::{LinkInput, link_below_max, link_bound_in};
use crate::findings::queue::{Observed, QueueLimits, QueueSettings, queue_findings};
use crate::findings::slowdown::{SlowdownDetector, SlowdownParams};
use crate::findings::steady::{SteadyCheck, SteadyParams};
use crate::findings::thermal::thermal_throttling;
use crate::findings::{Finding, Interval, kind};
use crate::model::ConfigReport;
use crate::model::why::SteadyChange;
use crate::settings::Settings;
use crate::stats::{Counts, Latency};

pub use live::Live;
pub use steps::step_findings;

/// Seconds of the series kept for the findings judged over a whole run (link at its
/// ceiling, throttling): the last six hours; the live detectors see every second.
pub const SERIES_LEN: usize = 6 * 3600;
/// Seconds of one key looked at when throttling is judged live, every `THERMAL_EVERY`.
const THERMAL_LIVE_LEN: usize = 600;
const THERMAL_EVERY: u64 = 5;
/// Seconds of one key's random reads before their latency is held against the rotational
/// flag: a few, so one slow second does not decide it.
const ROTATIONAL_MIN_SECONDS: usize = 5;

/// What the run knows of its disk, for the findings that judge the settings and figures
/// against it.
#[derive(Debug, Clone, Default)]
pub struct WhyFacts {
    pub link: Option<LinkInput>,
    pub limits: Option<QueueLimits>,
    /// The drive's warning temperature (hwmon temp1_max), °C.
    pub temp_warn_c: Option<f64>,
    pub span_bytes: Option<u64>,
    /// `--fsync N`.
    pub fsync_every: u32,
    /// What the run is (O_DIRECT, the device behind the target, targets side by side); the
    /// pace and the rows are each second's and each period's.
    pub conditions: Conditions,
}

impl WhyFacts {
    /// The facts a run's description carries (`config.disk`, the span, `--fsync`).
    pub fn of(config: &ConfigReport) -> WhyFacts {
        let disk = &config.disk;
        WhyFacts {
            link: Some(LinkInput::of(&disk.link)),
            limits: Some(disk.queue_limits.clone()),
            temp_warn_c: disk.temperature.thresholds.warn_c,
            span_bytes: Some(config.target.span_bytes),
            fsync_every: config.durability.fsync_every,
            conditions: Conditions {
                direct: config.target.direct,
                device: Device::of(disk.link.kind),
                ..Conditions::default()
            },
        }
    }

    /// The conditions of one second (or step) of `settings` whose timetable counts are
    /// `counts`, the `rows`-th of its setting.
    pub fn conditions_of(&self, settings: &Settings, counts: &Counts, rows: usize) -> Conditions {
        let pacing = Pacing::of(
            settings.rate_iops,
            counts.due,
            counts.issued,
            settings.threads,
        );
        self.conditions.paced(pacing).with_rows(rows)
    }
}

/// One second of running time as a consumer measured it.
#[derive(Debug, Clone, Copy)]
pub struct Second<'a> {
    /// Seconds into the run at its end (wall clock, stops included).
    pub t_s: f64,
    /// Its real running length, seconds.
    pub elapsed_s: f64,
    /// The id of the run's period it lies in (`stats::PeriodTracker::current_id`): the
    /// findings and the steady check compare only seconds of one period.
    pub key: u64,
    pub settings: Settings,
    pub counts: Counts,
    /// Its latency histogram where the consumer keeps one: the steady window's latency is
    /// merged from these.
    pub latency: Option<&'a Latency>,
    /// Median latency of its I/Os, ns.
    pub p50_ns: Option<f64>,
    /// The drive's temperature, and the kernel's queue size and %util over the second.
    pub temp_c: Option<f64>,
    pub kernel_queue: Option<f64>,
    pub util_pct: Option<f64>,
}

/// What a second brought: findings said for the first time, and a change of the steady
/// state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct News {
    pub findings: Vec<Finding>,
    pub steady: Option<SteadyChange>,
}

/// The live state of the findings and the steady-state check over one run.
#[derive(Debug, Clone)]
pub struct Tracker {
    facts: WhyFacts,
    steady: SteadyCheck,
    slowdown: SlowdownDetector,
    series: VecDeque<Interval>,
    /// (start_s, end_s, histogram) of the seconds that can fall in the steady window.
    recent: VecDeque<(f64, f64, Latency)>,
    written_bytes: u64,
    /// Every finding said live, in the order said.
    said: Vec<Finding>,
    /// The queue's findings for every settings run, deduplicated.
    queue: Vec<Finding>,
    key: Option<u64>,
    seconds_in_key: u64,
    /// This key's seconds' median latencies while it reads at random only.
    read_p50s: Vec<f64>,
    steady_changes: Vec<SteadyChange>,
}

impl Tracker {
    pub fn new(facts: WhyFacts, params: SteadyParams) -> Tracker {
        let slowdown = SlowdownDetector::new(SlowdownParams {
            temp_warn_c: facts.temp_warn_c,
            ..SlowdownParams::default()
        });
        Tracker {
            facts,
            steady: SteadyCheck::new(params),
            slowdown,
            series: VecDeque::new(),
            recent: VecDeque::new(),
            written_bytes: 0,
            said: Vec::new(),
            queue: Vec::new(),
            key: None,
            seconds_in_key: 0,
            read_p50s: Vec::new(),
            steady_changes: Vec::new(),
        }
    }

    /// Takes in one second; says what is new.
    pub fn push(&mut self, sec: Second) -> News {
        let mut news = self.settings_ran(sec.key, &sec.settings, &sec.counts);
        self.seconds_in_key += 1;
        self.written_bytes += sec.counts.write_bytes;
        let iv = self.interval(&sec);
        if !iv.usable() {
            return news;
        }
        let c = self.conditions(&sec);
        self.keep(iv, &sec, &c);
        let was_steady = self.steady.reached();
        self.steady.push(&iv);
        if self.steady.reached() != was_steady {
            let change = SteadyChange {
                t_s: iv.t_s,
                steady: self.steady.reached(),
                text: self.steady.text(),
            };
            self.steady_changes.push(change.clone());
            news.steady = Some(change);
        }
        if c.with_rows(usize::MAX).allows(Detector::Slowdown) {
            let before = self.slowdown.findings().len();
            self.slowdown.push(&iv);
            for f in self.slowdown.findings().into_iter().skip(before) {
                self.say(f, &mut news);
            }
        }
        for f in self.live_judgements(&sec, &c) {
            self.say(f, &mut news);
        }
        news
    }

    /// A second of `settings` ran in the period `key`, with these timetable counts: the link's
    /// training once, and the queue's findings for the settings, which need no rows. A
    /// run's last row (cut by its end, not fed as a second) comes here too, so a one-row run
    /// gets what the settings alone say.
    pub fn settings_ran(&mut self, key: u64, settings: &Settings, counts: &Counts) -> News {
        let mut news = News::default();
        if self.key.is_none() {
            let c = self.facts.conditions;
            let link = self.facts.link.clone();
            let found = ask(&c, Detector::LinkBelowMax, || {
                link.as_ref().and_then(link_below_max)
            });
            for f in found {
                self.say(f, &mut news);
            }
        }
        if self.key != Some(key) {
            self.key = Some(key);
            self.seconds_in_key = 0;
            self.read_p50s.clear();
        }
        let c = self
            .facts
            .conditions_of(settings, counts, self.seconds_in_key as usize);
        for f in self.judge_queue(settings, None, &c) {
            if f.kind != kind::ROTATIONAL_FLAG {
                self.say(f, &mut news);
            }
        }
        news
    }

    /// The conditions of this second, the `seconds_in_key`-th of its period.
    fn conditions(&self, sec: &Second) -> Conditions {
        self.facts
            .conditions_of(&sec.settings, &sec.counts, self.seconds_in_key as usize)
    }

    fn interval(&self, sec: &Second) -> Interval {
        Interval {
            t_s: sec.t_s,
            elapsed_s: sec.elapsed_s,
            key: sec.key,
            ops: sec.counts.ops,
            bytes: sec.counts.bytes,
            write_bytes: sec.counts.write_bytes,
            written_bytes: self.written_bytes,
            write_pct: 100 - sec.settings.read_pct.min(100),
            sequential: sec.settings.random_pct == 0,
            temp_c: sec.temp_c,
            kernel_queue: sec.kernel_queue,
            util_pct: sec.util_pct,
        }
    }

    /// Keeps the interval for the whole-run findings (only where the disk set the pace: the
    /// series is what the link's ceiling and throttling judge) and its histogram for the
    /// steady window.
    fn keep(&mut self, iv: Interval, sec: &Second, c: &Conditions) {
        if c.pacing.disk_limited() {
            if self.series.len() == SERIES_LEN {
                self.series.pop_front();
            }
            self.series.push_back(iv);
        }
        if let Some(l) = sec.latency {
            self.recent.push_back((iv.start_s(), iv.t_s, l.clone()));
            let p = self.steady.params();
            let keep_s = p.round_s * (p.rounds + 1) as f64;
            while self
                .recent
                .front()
                .is_some_and(|(start, _, _)| *start < iv.t_s - keep_s)
            {
                self.recent.pop_front();
            }
        }
        let random_reads = sec.settings.random_pct == 100 && sec.settings.read_pct == 100;
        if let (true, Some(p50)) = (random_reads, sec.p50_ns) {
            self.read_p50s.push(p50);
        }
    }

    /// What is judged each second beyond the drops: the link's ceiling over this key's last
    /// window, throttling now and then, the rotational flag once its latency is known.
    fn live_judgements(&mut self, sec: &Second, c: &Conditions) -> Vec<Finding> {
        let mut out = Vec::new();
        let this_key: Vec<Interval> = self
            .series
            .iter()
            .rev()
            .take_while(|iv| iv.key == sec.key)
            .take(THERMAL_LIVE_LEN)
            .copied()
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        if let Some(link) = &self.facts.link {
            let tail = &this_key[this_key.len().saturating_sub(12)..];
            out.extend(ask(c, Detector::LinkBound, || link_bound_in(link, tail)));
        }
        if self.seconds_in_key.is_multiple_of(THERMAL_EVERY) {
            out.extend(ask(c, Detector::Thermal, || {
                thermal_throttling(&this_key, self.facts.temp_warn_c, None)
            }));
        }
        if self.read_p50s.len() == ROTATIONAL_MIN_SECONDS {
            let p50 = crate::findings::series::median(&self.read_p50s);
            out.extend(
                self.judge_queue(&sec.settings, Some(p50), c)
                    .into_iter()
                    .filter(|f| f.kind == kind::ROTATIONAL_FLAG),
            );
        }
        out
    }

    /// The queue's findings for `settings` (with the random reads' median latency, once
    /// known), added to the run's list.
    fn judge_queue(
        &mut self,
        settings: &Settings,
        read_p50_ns: Option<f64>,
        c: &Conditions,
    ) -> Vec<Finding> {
        let Some(limits) = &self.facts.limits else {
            return Vec::new();
        };
        let qs = QueueSettings {
            bs_bytes: settings.bs,
            threads: settings.threads as u32,
            iodepth: settings.iodepth as u32,
            write_pct: 100 - settings.read_pct.min(100),
            random_pct: settings.random_pct,
            fsync_every: self.facts.fsync_every,
        };
        let observed = Observed {
            read_latency_p50_ns: read_p50_ns,
            span_bytes: self.facts.span_bytes,
        };
        let found = queue_findings(limits, &qs, &observed, c);
        for f in &found {
            if !self.queue.iter().any(|q| q.text == f.text) {
                self.queue.push(f.clone());
            }
        }
        found
    }

    /// Says `f` unless it was said already: by its words, or for the link's ceiling (whose
    /// figure moves every second) by its kind within the key.
    fn say(&mut self, f: Finding, news: &mut News) {
        let again = self.said.iter().any(|s| {
            s.text == f.text
                || (f.kind == kind::THERMAL_THROTTLING && s.kind == f.kind && s.at_s == f.at_s)
                || (matches!(f.kind.as_str(), kind::LINK_BOUND | kind::ABOVE_LINK)
                    && s.kind == f.kind)
        });
        if !again {
            self.said.push(f.clone());
            news.findings.push(f);
        }
    }

    /// The rolling steady-state check.
    pub fn steady(&self) -> &SteadyCheck {
        &self.steady
    }

    /// Bytes written in the seconds fed so far.
    pub fn written_bytes(&self) -> u64 {
        self.written_bytes
    }

    /// Every finding said live so far, oldest first.
    pub fn said(&self) -> &[Finding] {
        &self.said
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
#[path = "conditions_tests.rs"]
mod conditions_tests;
