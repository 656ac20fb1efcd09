//! One clock for many engines, and the seconds cut on it. Each engine's sampler stamps its
//! snapshots with the time since *that* engine started; engines start one after another, so
//! their clocks differ by the time it took to start the ones before. `Clock` puts every
//! snapshot on the group's clock: an engine's start is the earliest (hand-over time − `at`)
//! any of its snapshots implies, which is at most the hand-over delay late.
//!
//! `SharedSeconds` cuts that clock into seconds: second k holds each target's snapshots that
//! end in (k−1, k] seconds, with half a tick of slack as the headless printer allows, so the
//! k-th row of every target covers the same wall-clock second to within one sampling tick.
//! A second is handed out once every target has moved past it (or ended), with each target's
//! own `Window` for it: counts exactly as the engine counted them, rates over the window's
//! real running time. Paused time is not running time: a paused interval adds its counts
//! (normally none) but not its length. Nothing is dropped, so each target's rows add up to
//! its totals. It reads no clock itself: the hand-over time comes with each snapshot.
//!
//! Each lane also follows its target's periods (`stats::PeriodTracker`): where one begins (a
//! settings change, a pause, a resume) the lane's row is cut and its seconds are counted
//! again from there, as a single run's rows are, so no row of any target mixes two settings
//! and each row names its period. Every engine sees a slider's change within one sampling
//! tick of the others, so the rows still line up to within one tick.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::stats::{Began, Boundary, PeriodTracker, Snapshot, Window};

/// Length of a shared second.
pub const SECOND: Duration = Duration::from_secs(1);
/// A snapshot ending this little past a second's end still counts in it (half the 100-ms
/// tick, as the headless rows allow for timer jitter).
pub const SLACK: Duration = Duration::from_millis(50);

/// Every engine's snapshots on the group's clock.
#[derive(Debug, Clone)]
pub struct Clock {
    origin: Instant,
    /// Each engine's start, as an offset from `origin` (`None` before its first snapshot).
    starts: Vec<Option<Duration>>,
}

impl Clock {
    /// A clock from `origin` (taken before the first engine started) for `targets` engines.
    pub fn new(origin: Instant, targets: usize) -> Clock {
        Clock {
            origin,
            starts: vec![None; targets],
        }
    }

    /// When snapshot `s` of engine `i`, handed over at `received`, ended on the group's clock.
    pub fn end_of(&mut self, i: usize, s: &Snapshot, received: Instant) -> Duration {
        let implied = received
            .saturating_duration_since(self.origin)
            .saturating_sub(s.at);
        let start = match self.starts[i] {
            Some(known) => known.min(implied),
            None => implied,
        };
        self.starts[i] = Some(start);
        start + s.at
    }
}

/// The k-th second (from 1) a snapshot ending at `end` belongs to.
pub fn second_of(end: Duration) -> u64 {
    let past = end.saturating_sub(SLACK).as_nanos();
    let len = SECOND.as_nanos();
    (past.div_ceil(len) as u64).max(1)
}

/// One shared second: each target's window of it (empty where a target had none) and, per
/// target, where its last snapshot in it ended on the group's clock.
#[derive(Debug, Clone)]
pub struct Second {
    /// 1, 2, 3 … from the group's start.
    pub index: u64,
    pub windows: Vec<Window>,
    pub ends: Vec<Option<Duration>>,
    /// Per target, the id of the period its window belongs to (`PeriodTracker::current_id`).
    pub periods: Vec<Option<usize>>,
}

#[derive(Debug, Clone, Default)]
struct Lane {
    window: Window,
    /// The group-clock end of the window's last snapshot.
    end: Option<Duration>,
    /// The second the window is filling (1-based).
    second: u64,
    /// Closed windows not yet handed out, oldest first, with their period's id.
    closed: VecDeque<(u64, Window, Option<Duration>, usize)>,
    done: bool,
    /// The target's periods, and the id of the one the open window belongs to.
    periods: PeriodTracker,
    period: usize,
    /// Where the lane's seconds are counted from (the group-clock start of its period), and
    /// the row that period began in.
    base: Duration,
    base_second: u64,
}

impl Lane {
    fn close(&mut self) {
        let w = self.window.take();
        self.closed
            .push_back((self.second, w, self.end.take(), self.period));
        self.second += 1;
    }

    /// Follows `s` (ending at `end` on the group's clock) into the lane's periods; where a
    /// period begins or pauses, the row in progress closes and seconds count from there.
    fn follow(&mut self, s: &Snapshot, end: Duration) {
        let boundary = self.periods.push(s);
        // A reset is cut by `SharedSeconds::reset`; the start needs no cut.
        let cuts = matches!(
            boundary,
            Boundary::Pauses | Boundary::Begins(Began::Change | Began::Resume)
        );
        if cuts {
            if self.window.snapshots > 0 {
                self.close();
            }
            self.base = end.saturating_sub(s.interval_elapsed);
            self.base_second = self.second;
        }
        self.period = self.periods.current_id();
    }
}

/// The group's seconds, cut as snapshots arrive.
#[derive(Debug, Clone)]
pub struct SharedSeconds {
    pub clock: Clock,
    lanes: Vec<Lane>,
    /// The next second to hand out.
    next: u64,
    /// Once stopping, no new second opens: the engines' last snapshots join the current one,
    /// so the run does not end in a sliver of a second.
    closing: bool,
}

impl SharedSeconds {
    pub fn new(clock: Clock, targets: usize) -> SharedSeconds {
        let lane = Lane {
            second: 1,
            base_second: 1,
            ..Lane::default()
        };
        SharedSeconds {
            clock,
            lanes: vec![lane; targets],
            next: 1,
            closing: false,
        }
    }

    /// Takes in snapshot `s` of target `i`, handed over at `received`; returns the group-clock
    /// end of it and the seconds that it completed, in order.
    pub fn push(&mut self, i: usize, s: &Snapshot, received: Instant) -> (Duration, Vec<Second>) {
        let end = self.clock.end_of(i, s, received);
        let lane = &mut self.lanes[i];
        lane.follow(s, end);
        let mut k = lane.base_second + second_of(end.saturating_sub(lane.base)) - 1;
        if self.closing {
            k = k.min(lane.second);
        }
        while lane.second < k {
            lane.close();
        }
        // Paused time is not running time (`Window::push` leaves it out); any I/O that
        // completed in it still counts.
        lane.window.push(s);
        lane.end = Some(end);
        (end, self.ready())
    }

    /// Target `i`'s periods so far.
    pub fn periods(&self, i: usize) -> &PeriodTracker {
        &self.lanes[i].periods
    }

    /// No new second opens from now on (the engines are being stopped).
    pub fn close(&mut self) {
        self.closing = true;
    }

    /// Target `i` sent its last snapshot: its window closes; returns the seconds that
    /// completes.
    pub fn done(&mut self, i: usize) -> Vec<Second> {
        let lane = &mut self.lanes[i];
        if !lane.done {
            if lane.window.snapshots > 0 {
                lane.close();
            }
            lane.done = true;
        }
        self.ready()
    }

    /// Forgets every second not handed out yet (the engines' statistics were reset); the
    /// seconds go on being numbered from where they were.
    pub fn reset(&mut self) {
        let from = self.lanes.iter().map(|l| l.second).max().unwrap_or(1);
        for lane in &mut self.lanes {
            lane.window = Window::default();
            lane.end = None;
            lane.closed.clear();
            lane.second = from;
        }
        self.next = from;
    }

    /// The seconds every target has moved past (or ended), in order.
    fn ready(&mut self) -> Vec<Second> {
        let mut out = Vec::new();
        loop {
            let k = self.next;
            let all_past = self.lanes.iter().all(|l| l.done || l.second > k);
            let any_left = self
                .lanes
                .iter()
                .any(|l| !l.done || l.closed.iter().any(|(s, ..)| *s >= k));
            if !all_past || !any_left {
                return out;
            }
            let mut second = Second {
                index: k,
                windows: Vec::with_capacity(self.lanes.len()),
                ends: Vec::with_capacity(self.lanes.len()),
                periods: Vec::with_capacity(self.lanes.len()),
            };
            for lane in &mut self.lanes {
                match lane.closed.front() {
                    Some((s, ..)) if *s == k => {
                        let (_, w, end, period) = lane.closed.pop_front().unwrap_or_default();
                        second.windows.push(w);
                        second.ends.push(end);
                        second.periods.push(Some(period));
                    }
                    _ => {
                        second.windows.push(Window::default());
                        second.ends.push(None);
                        second.periods.push(None);
                    }
                }
            }
            self.next += 1;
            out.push(second);
        }
    }
}

#[cfg(test)]
#[path = "clock_tests.rs"]
mod tests;
