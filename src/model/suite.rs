//! The result of a suite: the card — per test and direction the median of the passes with
//! their min–max spread and best, latency over every I/O of every pass — and which suite and
//! timing produced it. What `--suite --json` writes and `--baseline` reads back. The suites'
//! definitions and the runner live in `suite`. Read back for `--show --plot`.

use serde::{Deserialize, Serialize};

use super::finding::Finding;
use super::why::UntilSteadyReport;
use super::{ConfigReport, Meta};
use crate::stats::{Counts, IntervalFigures, IoErrorRecord, Latency, LatencySummary};

/// One of the named suites.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SuiteName {
    /// SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1.
    #[default]
    Standard,
    /// SEQ1M Q8T1, SEQ128K Q32T1, RND4K Q32T16, RND4K Q1T1.
    Nvme,
    /// SEQ1M Q8T1, RND4K Q32T1.
    Peak,
    /// SEQ1M Q1T1, RND4K Q1T1.
    Real,
}

impl SuiteName {
    pub const ALL: [SuiteName; 4] = [
        SuiteName::Standard,
        SuiteName::Nvme,
        SuiteName::Peak,
        SuiteName::Real,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SuiteName::Standard => "standard",
            SuiteName::Nvme => "nvme",
            SuiteName::Peak => "peak",
            SuiteName::Real => "real",
        }
    }

    /// "standard", "nvme", "peak" or "real"; the message lists them.
    pub fn parse(text: &str) -> Result<SuiteName, String> {
        let t = text.trim();
        SuiteName::ALL
            .into_iter()
            .find(|s| s.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| format!("'{text}': no such suite; use standard, nvme, peak or real"))
    }
}

/// Reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Read,
    Write,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Read => "read",
            Direction::Write => "write",
        }
    }
}

/// One figure over the passes: the median, the spread and the best.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// The best pass (the highest: these are rates), as tools that keep only the best report.
    pub best: f64,
}

impl Spread {
    /// The spread of `values` (none: all zero). The median of an even count is the mean of
    /// the two middle values.
    pub fn of(values: &[f64]) -> Spread {
        if values.is_empty() {
            return Spread::default();
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] + v[n / 2]) / 2.0
        };
        Spread {
            median,
            min: v[0],
            max: v[n - 1],
            best: v[n - 1],
        }
    }

    /// (max − min) / median in percent: how far the passes disagree.
    pub fn width_pct(&self) -> f64 {
        if self.median > 0.0 {
            (self.max - self.min) / self.median * 100.0
        } else {
            0.0
        }
    }
}

/// The figures of one test in one direction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DirectionResult {
    /// Decimal megabytes per second (10^6 bytes/s), as the card tools quote them.
    pub mb_per_s: Spread,
    pub iops: Spread,
    /// The median pass's bandwidth in bytes per second (`mb_per_s.median` × 10^6).
    pub bw_bytes_per_s: f64,
    /// Latency over every I/O of every pass (the passes' histograms merged).
    pub latency_ns: LatencySummary,
    /// Totals over the passes.
    #[serde(flatten)]
    pub counts: Counts,
    /// Each pass as measured.
    pub passes: Vec<IntervalFigures>,
}

impl DirectionResult {
    /// The figures of `passes`, with their latency histograms `latencies` (same order).
    pub fn of(passes: &[IntervalFigures], latencies: &[&Latency]) -> DirectionResult {
        let mb: Vec<f64> = passes.iter().map(|p| p.bw_bytes_per_s / 1e6).collect();
        let iops: Vec<f64> = passes.iter().map(|p| p.iops).collect();
        let mut merged = Latency::default();
        for l in latencies {
            merged.add(l);
        }
        let mut counts = Counts::default();
        for p in passes {
            counts.add(&p.counts);
        }
        let mb_per_s = Spread::of(&mb);
        DirectionResult {
            mb_per_s,
            iops: Spread::of(&iops),
            bw_bytes_per_s: mb_per_s.median * 1e6,
            latency_ns: merged.summary(),
            counts,
            passes: passes.to_vec(),
        }
    }
}

/// One row of the card.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TestResult {
    /// "SEQ1M Q8T1".
    pub name: String,
    pub bs: u64,
    /// The test's depth per thread, as named.
    pub iodepth: usize,
    /// The depth it ran at: 1 on psync (then `note` says so).
    pub iodepth_run: usize,
    pub threads: usize,
    pub random: bool,
    /// `None` when the reads did not run (`read_not_run` says why).
    pub read: Option<DirectionResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_not_run: Option<String>,
    /// `None` when the writes did not run (`write_not_run` says why).
    pub write: Option<DirectionResult>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_not_run: Option<String>,
    /// Said when the test did not run as named (e.g. "ran at Q1: io_uring is not in use").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl TestResult {
    /// The figures in `direction`, or why there are none.
    pub fn direction(&self, d: Direction) -> Result<&DirectionResult, &str> {
        let (fig, why) = match d {
            Direction::Read => (&self.read, &self.read_not_run),
            Direction::Write => (&self.write, &self.write_not_run),
        };
        fig.as_ref().ok_or(why.as_deref().unwrap_or("not run"))
    }
}

/// Everything a suite reports: `--json` prints it, `--baseline` reads it back.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SuiteReport {
    /// What made it, where and when (unknown in older files).
    #[serde(default)]
    pub meta: Meta,
    pub suite: SuiteName,
    pub config: ConfigReport,
    /// Passes planned per test and direction.
    pub passes: usize,
    /// Measured time per pass, after a ramp of `ramp_s` that is not counted.
    pub pass_time_s: f64,
    pub ramp_s: f64,
    /// The engine rested (paused) this long between two passes.
    pub pause_s: f64,
    /// What the figures measured beyond the disk (page cache, a small span, depth caps).
    pub notes: Vec<String>,
    pub tests: Vec<TestResult>,
    /// The first few failed or short I/Os, with offset and errno.
    pub errors: Vec<IoErrorRecord>,
    pub interrupted_by: Option<String>,
    /// Why the card looks as it does: the link, the queue's limits the tests crossed.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// `--until-steady`: how each measured pass ended, in the order run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub until_steady: Vec<UntilSteadyReport>,
    /// The drive's own health record at the start and the end of the suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub health: Option<super::health::HealthAround>,
}

impl SuiteReport {
    /// True when any I/O failed or came back short.
    pub fn had_io_errors(&self) -> bool {
        self.tests.iter().any(|t| {
            [&t.read, &t.write]
                .into_iter()
                .flatten()
                .any(|d| d.counts.errors + d.counts.short_ios > 0)
        })
    }
}
