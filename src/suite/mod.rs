//! Suites: the card of figures everyone quotes (CrystalDiskMark, KDiskMark) — sequential 1 MiB
//! and random 4 KiB at deep and shallow queues, reads and writes — measured by diskscope's
//! own engine. A suite is a fixed list of tests named in the familiar notation ("RND4K
//! Q32T1": 4 KiB random, 32 in flight per thread, 1 thread); each test runs its reads, then
//! its writes when writing is allowed, each in several passes of `-T` after an uncounted
//! ramp, with the engine paused between passes.
//!
//! This module owns the definitions and the `Plan` (every pass in order, with its settings);
//! `runner` drives a plan on a live engine through the same `StepRunner` as sweeps, and
//! `card` turns the passes into the card's rows (`model::suite`: the median with the min–max
//! spread, the best pass beside it for comparison with the tools that keep only the best,
//! and percentiles from the passes' merged histograms). Nothing here does I/O or draws.

pub mod card;
pub mod runner;

pub use crate::model::suite::{
    Direction, DirectionResult, Spread, SuiteName, SuiteReport, TestResult,
};
pub use runner::{SuiteProgress, SuiteRunner};

use std::time::Duration;

use crate::model::{ConfigReport, TargetKind};
use crate::settings::{IoEngine, Settings};
use crate::units::format_bytes;

/// Passes per test and direction, like CrystalDiskMark's default count.
pub const DEFAULT_PASSES: usize = 3;
/// Measured time per pass (`-T`), like CrystalDiskMark's default.
pub const DEFAULT_PASS_TIME: Duration = Duration::from_secs(5);
/// The engine rests this long between two passes (`--pause`): long enough for a drive's
/// queue to drain, short enough that the standard card with writes takes about 2.5 minutes.
pub const DEFAULT_PAUSE: Duration = Duration::from_secs(1);
/// Most passes `--passes` accepts.
pub const MAX_PASSES: usize = 100;

/// The tests of `suite`, in the order they run.
pub fn tests(suite: SuiteName) -> &'static [TestSpec] {
    const SEQ1M_Q8T1: TestSpec = TestSpec::seq(1 << 20, 8, 1);
    const SEQ1M_Q1T1: TestSpec = TestSpec::seq(1 << 20, 1, 1);
    const SEQ128K_Q32T1: TestSpec = TestSpec::seq(128 << 10, 32, 1);
    const RND4K_Q32T1: TestSpec = TestSpec::rnd(4 << 10, 32, 1);
    const RND4K_Q32T16: TestSpec = TestSpec::rnd(4 << 10, 32, 16);
    const RND4K_Q1T1: TestSpec = TestSpec::rnd(4 << 10, 1, 1);
    match suite {
        SuiteName::Standard => &[SEQ1M_Q8T1, SEQ1M_Q1T1, RND4K_Q32T1, RND4K_Q1T1],
        SuiteName::Nvme => &[SEQ1M_Q8T1, SEQ128K_Q32T1, RND4K_Q32T16, RND4K_Q1T1],
        SuiteName::Peak => &[SEQ1M_Q8T1, RND4K_Q32T1],
        SuiteName::Real => &[SEQ1M_Q1T1, RND4K_Q1T1],
    }
}

/// One test of a suite: block size, depth per thread, threads, random or sequential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TestSpec {
    pub bs: u64,
    pub iodepth: usize,
    pub threads: usize,
    pub random: bool,
}

impl TestSpec {
    const fn seq(bs: u64, iodepth: usize, threads: usize) -> TestSpec {
        TestSpec {
            bs,
            iodepth,
            threads,
            random: false,
        }
    }

    const fn rnd(bs: u64, iodepth: usize, threads: usize) -> TestSpec {
        TestSpec {
            bs,
            iodepth,
            threads,
            random: true,
        }
    }

    /// "SEQ1M Q8T1", "RND4K Q32T16", "SEQ128K Q32T1".
    pub fn name(&self) -> String {
        let size = match self.bs {
            b if b >= 1 << 20 && b.is_multiple_of(1 << 20) => format!("{}M", b >> 20),
            b if b >= 1 << 10 && b.is_multiple_of(1 << 10) => format!("{}K", b >> 10),
            b => b.to_string(),
        };
        let kind = if self.random { "RND" } else { "SEQ" };
        format!("{kind}{size} Q{}T{}", self.iodepth, self.threads)
    }
}

/// How long each pass runs and how many there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    pub passes: usize,
    /// Measured time per pass, after the uncounted ramp.
    pub pass_time: Duration,
    /// The engine rests (paused) this long between two passes.
    pub pause: Duration,
}

impl Default for Timing {
    fn default() -> Self {
        Timing {
            passes: DEFAULT_PASSES,
            pass_time: DEFAULT_PASS_TIME,
            pause: DEFAULT_PAUSE,
        }
    }
}

/// One pass of the plan: which test, which direction, which pass (0-based).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassId {
    pub test: usize,
    pub direction: Direction,
    pub pass: usize,
}

/// Every pass of a suite on one target, in order: each test's read passes, then its write
/// passes when writing is allowed.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub suite: SuiteName,
    pub timing: Timing,
    /// Why the writes are not run; `None` when they are.
    pub write_refusal: Option<String>,
    /// The engine; on psync every test runs at depth 1.
    pub ioengine: IoEngine,
    pub passes: Vec<PassId>,
    /// Every pass polls for its completions (`--hipri`, or the TUI's `P` as the card began).
    pub hipri: bool,
}

impl Plan {
    pub fn new(
        suite: SuiteName,
        timing: Timing,
        write_refusal: Option<String>,
        ioengine: IoEngine,
    ) -> Plan {
        let directions: &[Direction] = if write_refusal.is_none() {
            &[Direction::Read, Direction::Write]
        } else {
            &[Direction::Read]
        };
        let passes = (0..tests(suite).len())
            .flat_map(|test| {
                directions.iter().flat_map(move |&direction| {
                    (0..timing.passes.max(1)).map(move |pass| PassId {
                        test,
                        direction,
                        pass,
                    })
                })
            })
            .collect();
        Plan {
            suite,
            timing,
            write_refusal,
            ioengine,
            passes,
            hipri: false,
        }
    }

    /// The same plan with every pass polled for its completions, or not.
    pub fn polled(self, hipri: bool) -> Plan {
        Plan { hipri, ..self }
    }

    pub fn tests(&self) -> &'static [TestSpec] {
        tests(self.suite)
    }

    /// The depth `t` really runs at: its own with io_uring, 1 on psync.
    pub fn depth_run(&self, t: &TestSpec) -> usize {
        match self.ioengine {
            IoEngine::IoUring => t.iodepth,
            IoEngine::Psync => 1,
        }
    }

    /// The engine settings of a test in a direction.
    pub fn settings(&self, test: usize, direction: Direction) -> Settings {
        let t = &self.tests()[test];
        Settings {
            threads: t.threads,
            iodepth: self.depth_run(t),
            bs: t.bs,
            read_pct: if direction == Direction::Read { 100 } else { 0 },
            random_pct: if t.random { 100 } else { 0 },
            hipri: self.hipri,
            ..Settings::default()
        }
    }

    /// Every pass's settings, in order.
    pub fn step_settings(&self) -> Vec<Settings> {
        self.passes
            .iter()
            .map(|p| self.settings(p.test, p.direction))
            .collect()
    }
}

/// Why a card's writes are not run, in the words its write column shows; `None` when they
/// are (writing is allowed on the target `c` describes, by the usual rules).
pub fn write_refusal(c: &ConfigReport) -> Option<String> {
    if c.target.write_allowed {
        return None;
    }
    Some(match c.target.kind {
        TargetKind::BlockDevice => format!("not run: add --allow-write={}", c.target.path),
        _ => "not run: add --allow-write".to_string(),
    })
}

/// What the card on the target `c` describes must say about what it measured, beyond the
/// figures: the page cache under `--buffered`; on a file, a span smaller than `ram_bytes`
/// (RAM is the yardstick: the largest page cache there can be, and no smaller than what a VM
/// host's or a filesystem's cache under the file is likely to hold); and Q>1 tests run at
/// depth 1 on psync.
pub fn notes(c: &ConfigReport, ram_bytes: Option<u64>) -> Vec<String> {
    let mut notes = Vec::new();
    if !c.target.direct {
        notes.push(
            "--buffered: this card measured the page cache (memory), not the disk; drop \
             --buffered for the disk's figures"
                .to_string(),
        );
    }
    let file = c.target.kind != TargetKind::BlockDevice;
    if file && let Some(ram) = ram_bytes.filter(|&r| c.target.span_bytes < r) {
        notes.push(format!(
            "the span ({}) is smaller than this machine's RAM ({}), the yardstick for what a \
             cache could hold: a cache under the file (a filesystem that ignores O_DIRECT, a VM \
             host's page cache, a RAID controller) may have served it; --size above {} rules \
             that out",
            format_bytes(c.target.span_bytes),
            format_bytes(ram),
            format_bytes(ram)
        ));
    }
    if c.ioengine == IoEngine::Psync {
        let why = c.ioengine_fallback.as_deref().unwrap_or("--ioengine psync");
        notes.push(format!(
            "io_uring is not in use ({why}): psync keeps one I/O in flight per thread, so the \
             Q>1 tests ran at Q1 and are marked so"
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suites_list_their_tests_in_order() {
        let names = |s: SuiteName| tests(s).iter().map(TestSpec::name).collect::<Vec<_>>();
        assert_eq!(
            names(SuiteName::Standard),
            ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]
        );
        assert_eq!(
            names(SuiteName::Nvme),
            ["SEQ1M Q8T1", "SEQ128K Q32T1", "RND4K Q32T16", "RND4K Q1T1"]
        );
        assert_eq!(names(SuiteName::Peak), ["SEQ1M Q8T1", "RND4K Q32T1"]);
        assert_eq!(names(SuiteName::Real), ["SEQ1M Q1T1", "RND4K Q1T1"]);
        assert_eq!(SuiteName::parse("NVMe"), Ok(SuiteName::Nvme));
        assert!(
            SuiteName::parse("fast")
                .unwrap_err()
                .contains("standard, nvme")
        );
    }

    #[test]
    fn plans_read_then_write_each_test_and_cap_depth_on_psync() {
        let t = Timing {
            passes: 2,
            ..Timing::default()
        };
        let p = Plan::new(SuiteName::Peak, t, None, IoEngine::IoUring);
        let order: Vec<_> = p.passes.iter().map(|x| (x.test, x.direction)).collect();
        use Direction::*;
        assert_eq!(
            order,
            [
                (0, Read),
                (0, Read),
                (0, Write),
                (0, Write),
                (1, Read),
                (1, Read),
                (1, Write),
                (1, Write)
            ]
        );
        let s = p.step_settings();
        assert_eq!(
            (s[0].bs, s[0].iodepth, s[0].random_pct, s[0].read_pct),
            (1 << 20, 8, 0, 100)
        );
        assert_eq!(
            (s[7].bs, s[7].iodepth, s[7].random_pct, s[7].read_pct),
            (4096, 32, 100, 0)
        );
        let ro = Plan::new(SuiteName::Peak, t, Some("no".into()), IoEngine::Psync);
        assert_eq!(ro.passes.len(), 4);
        assert!(
            ro.step_settings()
                .iter()
                .all(|s| s.iodepth == 1 && s.read_pct == 100)
        );
    }
}
