//! Is the figure on the screen steady yet? The SNIA PTS steady-state check, rolling: fed one
//! interval at a time (live) or a finished series (the same fold), it groups intervals into
//! rounds of `round_s` seconds of real elapsed time and judges the last `rounds` rounds by the
//! PTS criteria (see `thresholds`). A new `Interval::key` — a settings change, a pause, a
//! reset — starts it over, so a window never spans two settings.
//!
//! It judges IOPS, or bandwidth for purely sequential work. Within one key the block size is
//! fixed, so both give the same verdict; the metric decides which mean is quoted first. Pure:
//! no clock (time is the intervals' own), no I/O, no rendering beyond its own sentences.

use std::collections::VecDeque;

use super::series::Interval;
use super::thresholds::{
    STEADY_MAX_EXCURSION_PCT, STEADY_MAX_SLOPE_PCT, STEADY_ROUND_HEADLESS_S, STEADY_ROUND_TUI_S,
    STEADY_ROUNDS,
};
use super::words;
pub use crate::model::why::{SteadyMetric, SteadyState};

/// How the check is run: round length, window and the two PTS limits (flags may change them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteadyParams {
    /// Seconds of real elapsed time per round.
    pub round_s: f64,
    /// Rounds in the judged window.
    pub rounds: usize,
    /// Largest max − min across the window, % of its mean.
    pub max_excursion_pct: f64,
    /// Largest excursion of the least-squares line across the window, % of its mean.
    pub max_slope_pct: f64,
}

impl SteadyParams {
    /// The PTS defaults with rounds of `round_s` seconds. A round that is not a positive
    /// finite number falls back to the headless default rather than dividing by it.
    pub fn with_round(round_s: f64) -> SteadyParams {
        let round_s = if round_s.is_finite() && round_s > 0.0 {
            round_s
        } else {
            STEADY_ROUND_HEADLESS_S
        };
        SteadyParams {
            round_s,
            rounds: STEADY_ROUNDS,
            max_excursion_pct: STEADY_MAX_EXCURSION_PCT,
            max_slope_pct: STEADY_MAX_SLOPE_PCT,
        }
    }

    /// The TUI's defaults (2-s rounds).
    pub fn tui() -> SteadyParams {
        SteadyParams::with_round(STEADY_ROUND_TUI_S)
    }

    /// Headless defaults (5-s rounds).
    pub fn headless() -> SteadyParams {
        SteadyParams::with_round(STEADY_ROUND_HEADLESS_S)
    }
}

/// One finished round.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct Round {
    start_s: f64,
    end_s: f64,
    elapsed_s: f64,
    ops: u64,
    bytes: u64,
}

/// The PTS figures of a run of rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowStats {
    /// Rounds judged (the window's length, or fewer while the check is young).
    pub rounds: usize,
    pub mean_iops: f64,
    pub mean_bw_bytes_per_s: f64,
    pub excursion_pct: f64,
    pub slope_pct: f64,
    /// The line's slope per round, % of the mean, signed: the trend while settling.
    pub trend_pct_per_round: f64,
}

/// The rolling check. Feed it with `push`; read it with `state`, `text` and `reached`.
#[derive(Debug, Clone)]
pub struct SteadyCheck {
    params: SteadyParams,
    key: Option<u64>,
    last_t_s: f64,
    metric: SteadyMetric,
    partial: Option<Round>,
    rounds: VecDeque<Round>,
    since_s: Option<f64>,
}

impl SteadyCheck {
    pub fn new(params: SteadyParams) -> SteadyCheck {
        SteadyCheck {
            params,
            key: None,
            last_t_s: f64::NEG_INFINITY,
            metric: SteadyMetric::Iops,
            partial: None,
            rounds: VecDeque::new(),
            since_s: None,
        }
    }

    /// The check after feeding a whole finished series: the same as feeding it live.
    pub fn over(series: &[Interval], params: SteadyParams) -> SteadyCheck {
        let mut check = SteadyCheck::new(params);
        for iv in series {
            check.push(iv);
        }
        check
    }

    /// Feeds one interval. A new key, or time running backwards, starts the check over;
    /// an unusable interval (no real length) is skipped.
    pub fn push(&mut self, iv: &Interval) {
        if !iv.usable() {
            return;
        }
        if self.key != Some(iv.key) || iv.t_s < self.last_t_s {
            self.restart(iv);
        }
        self.last_t_s = iv.t_s;
        let round = self.partial.get_or_insert(Round {
            start_s: iv.start_s(),
            ..Round::default()
        });
        round.end_s = iv.t_s;
        round.elapsed_s += iv.elapsed_s;
        round.ops += iv.ops;
        round.bytes += iv.bytes;
        // The round ends at the interval edge nearest to round_s, so 1.0003-s samples
        // still make 2-s rounds of two, not of three.
        if round.elapsed_s >= self.params.round_s - 0.5 * iv.elapsed_s {
            let done = *round;
            self.partial = None;
            self.close(done);
        }
    }

    fn restart(&mut self, iv: &Interval) {
        self.key = Some(iv.key);
        self.metric = if iv.sequential {
            SteadyMetric::Bandwidth
        } else {
            SteadyMetric::Iops
        };
        self.partial = None;
        self.rounds.clear();
        self.since_s = None;
    }

    fn close(&mut self, round: Round) {
        self.rounds.push_back(round);
        while self.rounds.len() > self.params.rounds.max(1) {
            self.rounds.pop_front();
        }
        let passes = self.window().is_some_and(|w| self.passes(&w));
        if !passes {
            self.since_s = None;
        } else if self.since_s.is_none() {
            self.since_s = Some(self.rounds[0].start_s);
        }
    }

    fn passes(&self, w: &WindowStats) -> bool {
        w.excursion_pct <= self.params.max_excursion_pct && w.slope_pct <= self.params.max_slope_pct
    }

    /// The PTS figures of the full window, None until the key has that many rounds (or
    /// while nothing completes, when there is no mean to measure against).
    pub fn window(&self) -> Option<WindowStats> {
        if self.rounds.len() < self.params.rounds.max(1) {
            return None;
        }
        self.recent()
    }

    /// The PTS figures of the rounds so far at these settings (at most a window's worth);
    /// None before the first round or with no I/O completed.
    pub fn recent(&self) -> Option<WindowStats> {
        let values: Vec<f64> = self.rounds.iter().map(|r| self.value(r)).collect();
        let (mean, excursion, slope) = pts_figures(&values)?;
        let n = values.len();
        let elapsed: f64 = self.rounds.iter().map(|r| r.elapsed_s).sum();
        let mean_of =
            |f: fn(&Round) -> u64| self.rounds.iter().map(f).sum::<u64>() as f64 / elapsed;
        Some(WindowStats {
            rounds: n,
            mean_iops: mean_of(|r| r.ops),
            mean_bw_bytes_per_s: mean_of(|r| r.bytes),
            excursion_pct: excursion / mean * 100.0,
            slope_pct: (slope * (n - 1) as f64).abs() / mean * 100.0,
            trend_pct_per_round: slope / mean * 100.0,
        })
    }

    fn value(&self, r: &Round) -> f64 {
        match self.metric {
            SteadyMetric::Iops => r.ops as f64 / r.elapsed_s,
            SteadyMetric::Bandwidth => r.bytes as f64 / r.elapsed_s,
        }
    }

    /// Steady now: the last full window meets both PTS limits.
    pub fn reached(&self) -> bool {
        self.since_s.is_some()
    }

    /// Seconds into the run where the current steady stretch began.
    pub fn since_s(&self) -> Option<f64> {
        self.since_s
    }

    /// The judged window's start and end, seconds into the run, once steady: what a summary
    /// quotes as the result ("what PTS would quote").
    pub fn window_span_s(&self) -> Option<(f64, f64)> {
        let (first, last) = (self.rounds.front()?, self.rounds.back()?);
        self.reached().then_some((first.start_s, last.end_s))
    }

    pub fn metric(&self) -> SteadyMetric {
        self.metric
    }

    pub fn params(&self) -> SteadyParams {
        self.params
    }

    /// The `steady_state` JSON object.
    pub fn state(&self) -> SteadyState {
        let w = self.window().filter(|_| self.reached());
        SteadyState {
            reached: self.reached(),
            metric: self.metric,
            since_s: self.since_s,
            round_s: self.params.round_s,
            rounds: self.params.rounds,
            mean_iops: w.map(|w| w.mean_iops),
            mean_bw_bytes_per_s: w.map(|w| w.mean_bw_bytes_per_s),
            excursion_pct: w.map(|w| w.excursion_pct),
            slope_pct: w.map(|w| w.slope_pct),
            window_start_s: self.window_span_s().map(|w| w.0),
            window_end_s: self.window_span_s().map(|w| w.1),
            latency_mean_ns: None,
            latency_p99_ns: None,
        }
    }

    /// The live line: "steady since 0:42 (5 × 2 s: range 14%, slope 3% of the mean)", or
    /// while settling what stands in the way: "settling: −9% per round", "settling: range
    /// 34% of the mean (steady: ≤ 20%)", "settling: 3 of 5 rounds, +2% per round".
    pub fn text(&self) -> String {
        let n = self.params.rounds;
        match (self.since_s, self.recent()) {
            (Some(since), Some(w)) => format!(
                "steady since {} ({n} × {}: range {:.0}%, slope {:.0}% of the mean)",
                words::clock(since),
                round_words(self.params.round_s),
                w.excursion_pct,
                w.slope_pct
            ),
            (_, None) if self.rounds.is_empty() => format!("settling: 0 of {n} rounds"),
            (_, None) => "settling: no I/O completed".into(),
            (None, Some(w)) if w.rounds < 2 => format!("settling: 1 of {n} rounds"),
            (None, Some(w)) if w.rounds < n => format!(
                "settling: {} of {n} rounds, {} per round",
                w.rounds,
                signed_pct(w.trend_pct_per_round)
            ),
            (None, Some(w)) if w.slope_pct > self.params.max_slope_pct => {
                format!("settling: {} per round", signed_pct(w.trend_pct_per_round))
            }
            (None, Some(w)) => format!(
                "settling: range {:.0}% of the mean (steady: ≤ {:.0}%)",
                w.excursion_pct, self.params.max_excursion_pct
            ),
        }
    }

    /// The summary's line for a run that ended unsteady: "never settled in 60 s (last 5 × 2 s:
    /// range 34%, slope 18% of the mean; steady: ≤ 20% and ≤ 10%)".
    pub fn never_settled_text(&self, run_s: f64) -> String {
        let p = self.params;
        let detail = match self.window() {
            Some(w) => format!(
                "last {} × {}: range {:.0}%, slope {:.0}% of the mean; steady: ≤ {:.0}% and ≤ {:.0}%",
                p.rounds,
                round_words(p.round_s),
                w.excursion_pct,
                w.slope_pct,
                p.max_excursion_pct,
                p.max_slope_pct
            ),
            None => format!(
                "only {} of {} rounds of {} at the last settings",
                self.rounds.len(),
                p.rounds,
                round_words(p.round_s)
            ),
        };
        format!("never settled in {:.0} s ({detail})", run_s.max(0.0))
    }
}

/// `--until-steady`: what a headless run should do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UntilSteady {
    /// Keep going.
    Running,
    /// Steady: end the run and quote the steady window.
    Steady,
    /// MAX reached without settling: end the run and say so (`never_settled_text`).
    NeverSettled,
}

/// Is a `--until-steady[=MAX]` run done, `run_s` seconds in?
pub fn until_steady(check: &SteadyCheck, run_s: f64, max_s: f64) -> UntilSteady {
    if check.reached() {
        UntilSteady::Steady
    } else if run_s >= max_s {
        UntilSteady::NeverSettled
    } else {
        UntilSteady::Running
    }
}

/// Mean, max − min and least-squares slope per round of `values` (rounds 0, 1, …); None for
/// no values or a mean that is not positive (no I/O: nothing to be steady about).
pub fn pts_figures(values: &[f64]) -> Option<(f64, f64, f64)> {
    let n = values.len();
    let mean = values.iter().sum::<f64>() / n as f64;
    if n == 0 || !mean.is_finite() || mean <= 0.0 {
        return None;
    }
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    let min = values.iter().copied().fold(f64::MAX, f64::min);
    let x_mean = (n - 1) as f64 / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, y) in values.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (y - mean);
        sxx += dx * dx;
    }
    let slope = if sxx > 0.0 { sxy / sxx } else { 0.0 };
    Some((mean, max - min, slope))
}

/// "2 s", "2.5 s".
fn round_words(round_s: f64) -> String {
    let text = format!("{round_s:.1}");
    format!("{} s", text.trim_end_matches(".0"))
}

/// "+4%", "−9%" (a true minus sign), "0%".
fn signed_pct(pct: f64) -> String {
    let rounded = pct.round();
    if rounded > 0.0 {
        format!("+{rounded:.0}%")
    } else if rounded < 0.0 {
        format!("−{:.0}%", -rounded)
    } else {
        "0%".into()
    }
}

#[cfg(test)]
#[path = "steady_tests.rs"]
mod tests;
