//! Did the disk just slow down? A sustained drop at unchanged settings — the median of the
//! last 10 s below 60% of the best earlier 10-s median, held 10 s (`thresholds`) — becomes a
//! finding: a write-cache cliff when only writes run, else a slowdown with the temperature,
//! the kernel's queue and %util beside it so heat, another tenant or the link can be told
//! apart. A recovery is a finding too. Only intervals of one `Interval::key` are compared: a
//! settings change is never a slowdown, and an open drop ends with the settings.
//!
//! Live (`push` one interval at a time) and over a finished series (`slowdowns`, the same
//! fold) the results are the same; the live state keeps only the last few windows. Pure: no
//! clock, no I/O; the thermal *verdict* is `thermal`'s, this only reports the temperature.

mod text;

pub use text::slowdown_finding;

use super::Finding;
use super::series::{Interval, Metric, Point, median, onset, window_median, window_start};
use super::thresholds::{SLOWDOWN_FRACTION, SLOWDOWN_HOLD_S, SLOWDOWN_WINDOW_S};
use text::recovered_finding;

/// The rule's numbers (defaults from `thresholds`) and the drive's warning temperature.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SlowdownParams {
    pub window_s: f64,
    pub fraction: f64,
    pub hold_s: f64,
    /// The drive's warning temperature (hwmon temp1_max), °C: a drop at or near it is not
    /// blamed on a write cache.
    pub temp_warn_c: Option<f64>,
}

impl Default for SlowdownParams {
    fn default() -> SlowdownParams {
        SlowdownParams {
            window_s: SLOWDOWN_WINDOW_S,
            fraction: SLOWDOWN_FRACTION,
            hold_s: SLOWDOWN_HOLD_S,
            temp_warn_c: None,
        }
    }
}

/// What the kernel and the sensor said over one interval.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Facts {
    pub temp_c: Option<f64>,
    pub kernel_queue: Option<f64>,
    pub util_pct: Option<f64>,
}

impl Facts {
    fn of(iv: &Interval) -> Facts {
        Facts {
            temp_c: iv.temp_c,
            kernel_queue: iv.kernel_queue,
            util_pct: iv.util_pct,
        }
    }
}

/// How a drop ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SlowdownEnd {
    /// Still low at the last interval.
    Open,
    /// Back at ≥ the fraction of the figure before, from `at_s`, held.
    Recovered { at_s: f64 },
    /// The settings changed (or the run paused or reset) at `at_s` while it was low.
    SettingsChanged { at_s: f64 },
}

/// One sustained drop.
#[derive(Debug, Clone, PartialEq)]
pub struct Slowdown {
    pub metric: Metric,
    /// Seconds into the run where the drop began.
    pub at_s: f64,
    /// The best earlier 10-s median.
    pub before: f64,
    /// The settings' write share (100: writes only).
    pub write_pct: u8,
    /// Bytes written when it began.
    pub written_bytes: u64,
    /// The interval before the drop, and the one where it had held long enough to count.
    pub facts_before: Option<Facts>,
    pub facts_after: Facts,
    pub end: SlowdownEnd,
    /// (start_s, rate) of every interval while low.
    rates: Vec<(f64, f64)>,
}

impl Slowdown {
    /// The median while low: the level it fell to.
    pub fn after(&self) -> f64 {
        median(&self.rates.iter().map(|r| r.1).collect::<Vec<_>>())
    }
}

/// One kept interval.
#[derive(Debug, Clone, Copy)]
struct Kept {
    point: Point,
    written_before: u64,
    facts: Facts,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Normal,
    /// The window's median below since the window ending `since_s`, dropping from `onset_s`;
    /// not yet held.
    Falling {
        onset_s: f64,
        since_s: f64,
    },
    /// A confirmed drop, the last of `drops`.
    Low,
    /// The window's median back above since the window ending `since_s`, rising from
    /// `onset_s`; not yet held.
    Rising {
        onset_s: f64,
        since_s: f64,
    },
}

/// The live detector. Feed it with `push`; read `drops` or `findings`.
#[derive(Debug, Clone)]
pub struct SlowdownDetector {
    params: SlowdownParams,
    key: Option<u64>,
    last_t_s: f64,
    key_start_s: f64,
    metric: Metric,
    write_pct: u8,
    kept: Vec<Kept>,
    /// Medians of full windows not yet wholly before the current window: (end_s, median).
    pending: Vec<(f64, f64)>,
    best: Option<f64>,
    phase: Phase,
    drops: Vec<Slowdown>,
}

impl SlowdownDetector {
    pub fn new(params: SlowdownParams) -> SlowdownDetector {
        SlowdownDetector {
            params,
            key: None,
            last_t_s: f64::NEG_INFINITY,
            key_start_s: 0.0,
            metric: Metric::Iops,
            write_pct: 0,
            kept: Vec::new(),
            pending: Vec::new(),
            best: None,
            phase: Phase::Normal,
            drops: Vec::new(),
        }
    }

    /// Feeds one interval. A new key (or time running backwards) closes what is open and
    /// starts comparing afresh; an unusable interval is skipped.
    pub fn push(&mut self, iv: &Interval) {
        if !iv.usable() {
            return;
        }
        if self.key != Some(iv.key) || iv.t_s < self.last_t_s {
            self.restart(iv);
        }
        self.last_t_s = iv.t_s;
        let point = Point::of(iv, self.metric);
        self.kept.push(Kept {
            point,
            written_before: iv.written_bytes.saturating_sub(iv.write_bytes),
            facts: Facts::of(iv),
        });
        if matches!(self.phase, Phase::Low | Phase::Rising { .. })
            && let Some(open) = self.drops.last_mut()
        {
            open.rates.push((point.start_s, point.rate));
        }
        self.judge();
        self.trim();
    }

    fn restart(&mut self, iv: &Interval) {
        if matches!(self.phase, Phase::Low | Phase::Rising { .. })
            && let Some(open) = self.drops.last_mut()
        {
            open.end = SlowdownEnd::SettingsChanged { at_s: iv.start_s() };
        }
        self.key = Some(iv.key);
        self.key_start_s = iv.start_s();
        self.metric = Metric::for_drops(iv);
        self.write_pct = iv.write_pct;
        self.kept.clear();
        self.pending.clear();
        self.best = None;
        self.phase = Phase::Normal;
    }

    fn judge(&mut self) {
        let points: Vec<Point> = self.kept.iter().map(|k| k.point).collect();
        let last = points.len() - 1;
        let Some(first) = window_start(&points, last, self.params.window_s, self.key_start_s)
        else {
            return;
        };
        // Windows that ended before this one began are "earlier": fold them into the best.
        let window_from = points[first].start_s;
        let (earlier, later): (Vec<_>, Vec<_>) = self
            .pending
            .iter()
            .partition(|(end, _)| *end <= window_from + 1e-9);
        for (_, m) in earlier {
            self.best = Some(self.best.map_or(m, |b| b.max(m)));
        }
        self.pending = later;
        let m = window_median(&points, first, last);
        self.pending.push((points[last].end_s, m));
        if let Some(best) = self.best {
            self.step(&points, first, last, m, best);
        }
    }

    /// One step of the rule: the window's median `m` is on one side of the line (below
    /// `fraction` × the best earlier median, or back above it after a drop), and that must
    /// hold for `hold_s` of windows in a row before it counts; the change is placed at its
    /// onset, not at the moment it was confirmed.
    fn step(&mut self, points: &[Point], first: usize, last: usize, m: f64, best: f64) {
        let now = points[last];
        let held = |since_s: f64| {
            now.end_s - since_s >= self.params.hold_s - 0.5 * (now.end_s - now.start_s)
        };
        let low = matches!(self.phase, Phase::Low | Phase::Rising { .. });
        let line = self.params.fraction
            * if low {
                self.drops.last().map_or(best, |d| d.before)
            } else {
                best
            };
        let crossed = if low { m >= line } else { m < line };
        if !crossed {
            self.phase = if low { Phase::Low } else { Phase::Normal };
            return;
        }
        let (onset_s, since_s) = match self.phase {
            Phase::Falling { onset_s, since_s } | Phase::Rising { onset_s, since_s } => {
                (onset_s, since_s)
            }
            _ if low => (
                points[onset(points, first, last, |r| r >= line)].start_s,
                now.end_s,
            ),
            _ => (
                points[onset(points, first, last, |r| r < line)].start_s,
                now.end_s,
            ),
        };
        self.phase = match (low, held(since_s)) {
            (false, true) => {
                self.open_drop(onset_s, best);
                Phase::Low
            }
            (false, false) => Phase::Falling { onset_s, since_s },
            (true, true) => self.close_drop(onset_s),
            (true, false) => Phase::Rising { onset_s, since_s },
        };
    }

    fn open_drop(&mut self, onset_s: f64, before: f64) {
        let from = self
            .kept
            .iter()
            .position(|k| k.point.start_s >= onset_s - 1e-9)
            .unwrap_or(self.kept.len() - 1);
        let at = self.kept[from];
        self.drops.push(Slowdown {
            metric: self.metric,
            at_s: onset_s,
            before,
            write_pct: self.write_pct,
            written_bytes: at.written_before,
            facts_before: from.checked_sub(1).map(|i| self.kept[i].facts),
            facts_after: self.kept[self.kept.len() - 1].facts,
            end: SlowdownEnd::Open,
            rates: self.kept[from..]
                .iter()
                .map(|k| (k.point.start_s, k.point.rate))
                .collect(),
        });
    }

    fn close_drop(&mut self, onset_s: f64) -> Phase {
        if let Some(open) = self.drops.last_mut() {
            open.rates.retain(|(start_s, _)| *start_s < onset_s - 1e-9);
            open.end = SlowdownEnd::Recovered { at_s: onset_s };
        }
        Phase::Normal
    }

    /// Keeps what the next judgements can reach: two windows and two holds back.
    fn trim(&mut self) {
        let keep_s = 2.0 * (self.params.window_s + self.params.hold_s);
        let now = self.last_t_s;
        let old = self
            .kept
            .iter()
            .take_while(|k| k.point.end_s < now - keep_s)
            .count();
        self.kept.drain(..old);
    }

    /// Every sustained drop so far, oldest first.
    pub fn drops(&self) -> &[Slowdown] {
        &self.drops
    }

    /// The findings so far: each drop, and each recovery after it.
    pub fn findings(&self) -> Vec<Finding> {
        let mut out = Vec::new();
        for d in &self.drops {
            out.push(slowdown_finding(d, self.params.temp_warn_c));
            if let SlowdownEnd::Recovered { at_s } = d.end {
                out.push(recovered_finding(d, at_s));
            }
        }
        out
    }
}

/// The drops of a finished series, as findings: the same as feeding it live.
pub fn slowdowns(series: &[Interval], params: SlowdownParams) -> Vec<Finding> {
    let mut detector = SlowdownDetector::new(params);
    for iv in series {
        detector.push(iv);
    }
    detector.findings()
}

#[cfg(test)]
mod tests;
