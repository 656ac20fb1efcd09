//! Sweeps: run the same load at a series of thread counts or block sizes, one after the other
//! on the same engine (reconfigured live, no restart), and find where the disk saturates —
//! vdbench's forthreads, iops(1)'s block-size ladder, seekmark at 1, 2 and 4 threads.
//!
//! `SweepRunner` is a state machine fed with snapshots, so the headless runner and the TUI
//! drive it the same way: it says when to apply the next step's settings and collects each
//! step's figures after a ramp that is not counted. It never touches the engine itself.

use std::time::Duration;

use serde::Serialize;

use crate::settings::{MAX_BS, MAX_THREADS, Settings};
use crate::stats::{IntervalFigures, Snapshot, Window};
use crate::units::{format_block_size, format_count_rate, parse_size};

/// Default measured time per step.
pub const DEFAULT_STEP_TIME: Duration = Duration::from_secs(3);
/// Time after each change that is run but not counted.
pub const RAMP: Duration = Duration::from_millis(500);
/// Slack when deciding that a step has run long enough (snapshots come every ~100 ms).
const SLACK: Duration = Duration::from_millis(50);

/// What a sweep varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dimension {
    Threads,
    Bs,
}

impl Dimension {
    pub fn name(self) -> &'static str {
        match self {
            Dimension::Threads => "threads",
            Dimension::Bs => "bs",
        }
    }

    /// The value this dimension has in `s`.
    pub fn value(self, s: &Settings) -> u64 {
        match self {
            Dimension::Threads => s.threads as u64,
            Dimension::Bs => s.bs,
        }
    }

    /// `base` with this dimension set to `v`.
    pub fn with(self, base: Settings, v: u64) -> Settings {
        match self {
            Dimension::Threads => Settings {
                threads: v as usize,
                ..base
            },
            Dimension::Bs => Settings { bs: v, ..base },
        }
    }

    /// "16 threads" / "64k".
    pub fn describe(self, v: u64) -> String {
        match self {
            Dimension::Threads if v == 1 => "1 thread".into(),
            Dimension::Threads => format!("{v} threads"),
            Dimension::Bs => format_block_size(v),
        }
    }
}

/// A parsed `--sweep`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepSpec {
    pub dimension: Dimension,
    pub values: Vec<u64>,
}

impl SweepSpec {
    /// Parses "threads=1,2,4,8", "threads=1..64" (doubling), "bs=512..4M" (doubling) or
    /// "bs=4k,64k,1M".
    pub fn parse(text: &str) -> Result<SweepSpec, String> {
        let usage = "use e.g. threads=1,2,4,8, threads=1..64 or bs=512..4M";
        let (dim, list) = text
            .split_once('=')
            .ok_or_else(|| format!("--sweep '{text}': {usage}"))?;
        let dimension = match dim.trim() {
            "threads" | "t" => Dimension::Threads,
            "bs" | "b" => Dimension::Bs,
            other => {
                return Err(format!(
                    "--sweep '{text}': unknown dimension '{other}'; {usage}"
                ));
            }
        };
        let parse_one = |v: &str| -> Result<u64, String> {
            let v = v.trim();
            let n = match dimension {
                Dimension::Threads => v
                    .parse::<u64>()
                    .map_err(|_| format!("--sweep '{text}': '{v}' is not a thread count"))?,
                Dimension::Bs => parse_size(v).map_err(|e| format!("--sweep {e}"))?,
            };
            let (lo, hi) = match dimension {
                Dimension::Threads => (1, MAX_THREADS as u64),
                Dimension::Bs => (512, MAX_BS),
            };
            if !(lo..=hi).contains(&n) {
                return Err(format!("--sweep '{text}': {v} is outside {lo}..{hi}"));
            }
            Ok(n)
        };
        let values = if let Some((a, b)) = list.split_once("..") {
            let (a, b) = (parse_one(a)?, parse_one(b)?);
            if a > b {
                return Err(format!(
                    "--sweep '{text}': the range must go up ({a} > {b})"
                ));
            }
            let mut v = Vec::new();
            let mut x = a;
            while x < b {
                v.push(x);
                x *= 2;
            }
            v.push(b);
            v
        } else {
            list.split(',')
                .map(parse_one)
                .collect::<Result<Vec<_>, _>>()?
        };
        if values.len() < 2 {
            return Err(format!(
                "--sweep '{text}': a sweep needs at least two steps; {usage}"
            ));
        }
        Ok(SweepSpec { dimension, values })
    }

    /// The settings of every step, from `base`.
    pub fn steps(&self, base: Settings) -> Vec<Settings> {
        self.values
            .iter()
            .map(|&v| self.dimension.with(base, v))
            .collect()
    }
}

/// Where the curve flattens: the smallest step reaching 90% of the best — of IOPS for a thread
/// sweep, of bandwidth for a block-size sweep (IOPS fall as blocks grow). In JSON the value
/// is keyed by the dimension: `{"step": 2, "threads": 16, "iops": …}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Saturation {
    pub step: usize,
    pub dimension: Dimension,
    pub value: u64,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    /// The finding in words.
    pub summary: String,
}

impl Serialize for Saturation {
    fn serialize<S: serde::Serializer>(&self, ser: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = ser.serialize_map(Some(5))?;
        m.serialize_entry("step", &self.step)?;
        m.serialize_entry(self.dimension.name(), &self.value)?;
        m.serialize_entry("iops", &self.iops)?;
        m.serialize_entry("bw_bytes_per_s", &self.bw_bytes_per_s)?;
        m.serialize_entry("summary", &self.summary)?;
        m.end()
    }
}

/// Finds the saturation step of `steps`; `None` for no steps or no I/O.
pub fn saturation(dimension: Dimension, steps: &[IntervalFigures]) -> Option<Saturation> {
    let metric = |s: &IntervalFigures| match dimension {
        Dimension::Threads => s.iops,
        Dimension::Bs => s.bw_bytes_per_s,
    };
    let best = steps.iter().map(metric).fold(0.0, f64::max);
    if best <= 0.0 {
        return None;
    }
    let step = steps.iter().position(|s| metric(s) >= 0.9 * best)?;
    let sat = &steps[step];
    let value = dimension.value(&sat.settings);
    let what = match dimension {
        Dimension::Threads => format!("{} IOPS", format_count_rate(sat.iops)),
        Dimension::Bs => format!("{:.0} MiB/s", sat.bw_bytes_per_s / (1 << 20) as f64),
    };
    let mut summary = format!("saturates at {} ({what})", dimension.describe(value));
    if let Some(last) = steps.last().filter(|_| step + 1 < steps.len()) {
        let gain = (metric(last) / metric(sat) - 1.0) * 100.0;
        let p99 = if sat.latency_ns.p99 > 0 {
            last.latency_ns.p99 as f64 / sat.latency_ns.p99 as f64
        } else {
            0.0
        };
        let gained = match dimension {
            Dimension::Threads => "IOPS",
            Dimension::Bs => "bandwidth",
        };
        let plural = dimension == Dimension::Threads;
        let verb = match (gain >= 0.0, plural) {
            (true, true) => "add",
            (true, false) => "adds",
            (false, true) => "lose",
            (false, false) => "loses",
        };
        summary.push_str(&format!(
            "; {} {verb} {:.0}% {gained} for {p99:.1}x the p99 latency",
            dimension.describe(dimension.value(&last.settings)),
            gain.abs(),
        ));
    }
    Some(Saturation {
        step,
        dimension,
        value,
        iops: sat.iops,
        bw_bytes_per_s: sat.bw_bytes_per_s,
        summary,
    })
}

/// What the driver of a sweep should do after a snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Keep running.
    Continue,
    /// A step finished: apply these settings for the next one.
    Apply(Settings),
    /// The last step finished.
    Done,
}

#[derive(Debug, Clone)]
enum Phase {
    Ramp(Duration),
    Measure(Box<Window>),
}

/// Drives a sweep from snapshots.
#[derive(Debug, Clone)]
pub struct SweepRunner {
    spec: SweepSpec,
    steps: Vec<Settings>,
    step_time: Duration,
    index: usize,
    phase: Phase,
    results: Vec<IntervalFigures>,
}

impl SweepRunner {
    pub fn new(spec: SweepSpec, base: Settings, step_time: Duration) -> Self {
        let steps = spec.steps(base);
        SweepRunner {
            spec,
            steps,
            step_time,
            index: 0,
            phase: Phase::Ramp(Duration::ZERO),
            results: Vec::new(),
        }
    }

    pub fn spec(&self) -> &SweepSpec {
        &self.spec
    }

    /// The settings to start the engine with.
    pub fn first(&self) -> Settings {
        self.steps[0]
    }

    /// Every step's settings.
    pub fn steps(&self) -> &[Settings] {
        &self.steps
    }

    /// Steps measured so far.
    pub fn results(&self) -> &[IntervalFigures] {
        &self.results
    }

    /// (current step index, number of steps, measuring rather than ramping).
    pub fn progress(&self) -> (usize, usize, bool) {
        (
            self.index,
            self.steps.len(),
            matches!(self.phase, Phase::Measure(_)),
        )
    }

    /// Takes one snapshot. Snapshots of other settings (the old step's last interval, cut at
    /// the change) and paused ones are ignored.
    pub fn on_snapshot(&mut self, s: &Snapshot) -> Next {
        let Some(&current) = self.steps.get(self.index) else {
            return Next::Done;
        };
        if s.settings != current || s.paused {
            return Next::Continue;
        }
        match &mut self.phase {
            Phase::Ramp(done) => {
                *done += s.interval_elapsed;
                if *done + SLACK >= RAMP {
                    self.phase = Phase::Measure(Box::default());
                }
                Next::Continue
            }
            Phase::Measure(w) => {
                w.push(s);
                if w.elapsed + SLACK < self.step_time {
                    return Next::Continue;
                }
                self.results.push(w.figures());
                self.index += 1;
                self.phase = Phase::Ramp(Duration::ZERO);
                match self.steps.get(self.index) {
                    Some(&next) => Next::Apply(next),
                    None => Next::Done,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Counts, LatencySummary};

    #[test]
    fn sweep_specs_parse() {
        let p = |t| SweepSpec::parse(t).unwrap();
        assert_eq!(p("threads=1,2,4,8").values, vec![1, 2, 4, 8]);
        assert_eq!(p("threads=1..64").values, vec![1, 2, 4, 8, 16, 32, 64]);
        assert_eq!(p("threads=1..48").values, vec![1, 2, 4, 8, 16, 32, 48]);
        let bs = p("bs=512..4M");
        assert_eq!(bs.dimension, Dimension::Bs);
        assert_eq!(bs.values.first(), Some(&512));
        assert_eq!(bs.values.last(), Some(&(4 << 20)));
        assert_eq!(bs.values.len(), 14);
        assert_eq!(p("bs=4k,64k").values, vec![4096, 65536]);
        for bad in [
            "threads",
            "disks=1,2",
            "threads=0..4",
            "threads=8..2",
            "threads=4",
            "bs=1..4k",
            "bs=4k..32M",
            "threads=a,b",
        ] {
            assert!(SweepSpec::parse(bad).is_err(), "{bad}");
        }
    }

    fn step(threads: usize, iops: f64, p99: u64) -> IntervalFigures {
        IntervalFigures {
            t_s: 0.0,
            settings: Settings {
                threads,
                ..Settings::default()
            },
            elapsed_s: 3.0,
            counts: Counts::default(),
            iops,
            bw_bytes_per_s: iops * 4096.0,
            latency_ns: LatencySummary {
                p99,
                ..LatencySummary::default()
            },
            left_out: Default::default(),
        }
    }

    #[test]
    fn saturation_is_the_first_step_at_90_percent_of_the_best() {
        let steps = vec![
            step(1, 10_000.0, 100_000),
            step(4, 35_000.0, 120_000),
            step(16, 56_000.0, 300_000),
            step(64, 60_000.0, 960_000),
        ];
        let s = saturation(Dimension::Threads, &steps).unwrap();
        assert_eq!((s.step, s.value), (2, 16));
        assert_eq!(
            s.summary,
            "saturates at 16 threads (56.0k IOPS); 64 threads add 7% IOPS for 3.2x the p99 latency"
        );
        assert!(saturation(Dimension::Threads, &[]).is_none());
    }
}
