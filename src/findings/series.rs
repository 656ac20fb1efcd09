//! The plain input every time-based detector reads — one `Interval` per sampled window — and
//! the arithmetic they share: which figure is judged (`Metric`), medians, the 10-s windows of
//! the slowdown rule and where a change began. Pure: no clock, no engine, no I/O; a consumer
//! fills `Interval` from whatever it sampled (the engine's interval figures, /proc/diskstats,
//! hwmon) and the detectors never see where it came from.

use serde::{Deserialize, Serialize};

use super::words;

/// One sampled window of a run, as the detectors read it. Fill what is known; the optional
/// facts stay `None` when there is no sensor or counter, and are then never guessed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Seconds into the run at the window's end (wall clock since the start, stops included).
    pub t_s: f64,
    /// The window's real length, seconds (not the nominal tick).
    pub elapsed_s: f64,
    /// Changes whenever the settings change, the run is paused or resumed, or the statistics
    /// are reset: figures are only ever compared within one key.
    pub key: u64,
    /// I/Os completed in the window, reads and writes.
    pub ops: u64,
    /// Bytes moved in the window, reads and writes.
    pub bytes: u64,
    /// Bytes written in the window.
    pub write_bytes: u64,
    /// Bytes written since the run began, through this window's end.
    pub written_bytes: u64,
    /// The settings' write share, 0–100.
    pub write_pct: u8,
    /// True when the settings are purely sequential (random 0%).
    pub sequential: bool,
    /// The drive's temperature at the window's end, °C.
    pub temp_c: Option<f64>,
    /// The kernel's average queue size over the window (/proc/diskstats, as iostat's aqu-sz).
    pub kernel_queue: Option<f64>,
    /// The kernel's %util over the window (time the device had I/O in flight).
    pub util_pct: Option<f64>,
}

impl Interval {
    /// Seconds into the run at the window's start.
    pub fn start_s(&self) -> f64 {
        self.t_s - self.elapsed_s
    }

    /// False for a window no detector can use: a length that is not a positive finite
    /// number, or a time that is not finite. Such windows are skipped, never a panic.
    pub fn usable(&self) -> bool {
        self.t_s.is_finite() && self.elapsed_s.is_finite() && self.elapsed_s > 0.0
    }
}

/// Which figure a detector judges, named in its sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// I/Os per second, reads and writes.
    Iops,
    /// Bytes per second, reads and writes.
    Bandwidth,
    /// Bytes written per second.
    WriteBandwidth,
}

impl Metric {
    /// For drops: write bandwidth whenever the settings write (a write cache shows there),
    /// else bandwidth for sequential work and IOPS for random.
    pub fn for_drops(iv: &Interval) -> Metric {
        if iv.write_pct > 0 {
            Metric::WriteBandwidth
        } else if iv.sequential {
            Metric::Bandwidth
        } else {
            Metric::Iops
        }
    }

    /// The figure's rate over one window (per real second).
    pub fn rate(self, iv: &Interval) -> f64 {
        let amount = match self {
            Metric::Iops => iv.ops,
            Metric::Bandwidth => iv.bytes,
            Metric::WriteBandwidth => iv.write_bytes,
        };
        amount as f64 / iv.elapsed_s
    }

    /// The figure's name in a sentence: "IOPS", "bandwidth", "write bandwidth".
    pub fn name(self) -> &'static str {
        match self {
            Metric::Iops => "IOPS",
            Metric::Bandwidth => "bandwidth",
            Metric::WriteBandwidth => "write bandwidth",
        }
    }

    /// A value of the figure with its unit: "12.3k IOPS", "2.10 GB/s".
    pub fn format(self, value: f64) -> String {
        match self {
            Metric::Iops => format!("{} IOPS", crate::units::format_count_rate(value)),
            Metric::Bandwidth | Metric::WriteBandwidth => words::bytes_per_s(value),
        }
    }
}

/// The median of `values` (the mean of the two middle ones for an even count); 0 for none.
/// NaNs sort last and are not expected: callers only pass rates of usable intervals.
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let n = sorted.len();
    if n % 2 == 1 {
        sorted[n / 2]
    } else {
        (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
    }
}

/// One usable interval reduced to what the window arithmetic needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Point {
    pub start_s: f64,
    pub end_s: f64,
    pub rate: f64,
}

impl Point {
    pub(crate) fn of(iv: &Interval, metric: Metric) -> Point {
        Point {
            start_s: iv.start_s(),
            end_s: iv.t_s,
            rate: metric.rate(iv),
        }
    }

    fn mid_s(&self) -> f64 {
        (self.start_s + self.end_s) / 2.0
    }
}

/// The window of `window_s` seconds ending with `points[last]`: the index of its first point,
/// or None while the points (one key's, oldest first, `points[0]` its first) do not yet cover
/// `window_s`. A point belongs to the window when its middle lies within the last `window_s`
/// seconds, so 1.0003-s and 0.9998-s samples both give ten to a 10-s window; the window is
/// full once the key's data reach back `window_s` less half a sample.
pub(crate) fn window_start(
    points: &[Point],
    last: usize,
    window_s: f64,
    key_start_s: f64,
) -> Option<usize> {
    let end = points[last];
    if end.end_s - key_start_s < window_s - 0.5 * (end.end_s - end.start_s) {
        return None;
    }
    let from = end.end_s - window_s;
    let mut first = last;
    while first > 0 && points[first - 1].mid_s() > from {
        first -= 1;
    }
    Some(first)
}

/// The median rate of `points[first..=last]`.
pub(crate) fn window_median(points: &[Point], first: usize, last: usize) -> f64 {
    let rates: Vec<f64> = points[first..=last].iter().map(|p| p.rate).collect();
    median(&rates)
}

/// Where a change began inside a window whose median has crossed to one side: the earliest
/// point from which, at every later point of the window, at least as many points lie on that
/// side as off it — so one stray dip before a cliff does not move the onset earlier. With the
/// running balance S (on side +1, off side −1, S = 0 before `first`), that is the point just
/// after the first minimum of S. Returns an index into `points` in first..=last.
pub(crate) fn onset(
    points: &[Point],
    first: usize,
    last: usize,
    on_side: impl Fn(f64) -> bool,
) -> usize {
    let (mut balance, mut lowest, mut after_lowest) = (0i64, 0i64, 0usize);
    for (k, p) in points[first..=last].iter().enumerate() {
        balance += if on_side(p.rate) { 1 } else { -1 };
        if balance < lowest {
            lowest = balance;
            after_lowest = k + 1;
        }
    }
    // Past the end only when no point is on the side, which a crossed median rules out.
    (first + after_lowest).min(last)
}

/// The usable intervals cut at every settings change (or clock that went back).
pub(crate) fn segments(series: &[Interval]) -> Vec<Vec<Interval>> {
    let mut out: Vec<Vec<Interval>> = Vec::new();
    let mut last: Option<&Interval> = None;
    for iv in series.iter().filter(|iv| iv.usable()) {
        if last.is_none_or(|l| l.key != iv.key || iv.t_s < l.t_s) {
            out.push(Vec::new());
        }
        out.last_mut().expect("pushed above").push(*iv);
        last = Some(iv);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points(elapsed_s: f64, rates: &[f64]) -> Vec<Point> {
        let at = |i: usize| i as f64 * elapsed_s;
        let point = |(i, &rate): (usize, &f64)| Point {
            start_s: at(i),
            end_s: at(i + 1),
            rate,
        };
        rates.iter().enumerate().map(point).collect()
    }

    #[test]
    fn a_ten_second_window_holds_ten_samples_whatever_their_jitter() {
        for elapsed_s in [0.9998, 1.0, 1.0003] {
            let p = points(elapsed_s, &[1.0; 30]);
            assert_eq!(
                window_start(&p, 8, 10.0, 0.0),
                None,
                "9 samples do not cover 10 s"
            );
            assert_eq!(window_start(&p, 9, 10.0, 0.0), Some(0), "{elapsed_s}");
            assert_eq!(window_start(&p, 29, 10.0, 0.0), Some(20), "{elapsed_s}");
        }
    }

    #[test]
    fn the_onset_skips_a_stray_point_before_the_run() {
        // low, high, high, low, low, low, high, low: the run that stays low begins at 3.
        let p = points(1.0, &[1.0, 9.0, 9.0, 1.0, 1.0, 1.0, 9.0, 1.0]);
        assert_eq!(onset(&p, 0, 7, |r| r < 5.0), 3);
        assert_eq!(onset(&p, 4, 7, |r| r < 5.0), 4);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn segments_cut_at_a_new_key_or_a_clock_that_went_back() {
        let iv = |t_s: f64, key: u64| Interval {
            t_s,
            elapsed_s: 1.0,
            key,
            ..Interval::default()
        };
        let series = [
            iv(1.0, 1),
            iv(2.0, 1),
            iv(3.0, 2),
            iv(1.0, 2),
            iv(f64::NAN, 2),
        ];
        let lens: Vec<usize> = segments(&series).iter().map(Vec::len).collect();
        assert_eq!(lens, [2, 1, 1]);
    }
}
