//! What a skewed offset distribution did, period by period: the share of the random I/Os
//! that went to the hottest 1 % and 10 % of the span's blocks, counted from what the workers
//! issued (by rank: the scatter bijection from rank to block is known, so nothing is tabled
//! over the span), beside what the distribution promises (`settings::promise`). JSON's
//! `hot_spots`; text and the TUI print the same figures.

use serde::{Deserialize, Serialize};

use crate::settings::promise::{share_of_top, top_blocks};
use crate::settings::{Distribution, Settings};
use crate::stats::Counts;
use crate::stats::periods::Period;

/// One period's hot spots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HotSpots {
    /// The period's place in `periods` (0 the first kept).
    pub period: usize,
    pub random_distribution: Distribution,
    /// Blocks of the span at the period's block size.
    pub blocks: u64,
    /// Random I/Os issued in the period (sequential ones are not drawn from the distribution).
    pub random_ios: u64,
    pub top1: HotShare,
    pub top10: HotShare,
}

/// The hottest `blocks` of the span: the share of random I/Os the distribution promises
/// them, and the share they got (`None` before any random I/O).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HotShare {
    pub blocks: u64,
    pub promised: f64,
    pub measured: Option<f64>,
}

impl HotSpots {
    /// The hot spots of the period at `index`, over `span` bytes; `None` when it ran uniform,
    /// with no random I/O, or merged periods of different settings.
    pub fn of(index: usize, p: &Period, span: u64) -> Option<HotSpots> {
        HotSpots::from_counts(index, p.settings?, &p.counts, span)
    }

    /// The same from settings and the counts made under them (the TUI's running period).
    pub fn from_counts(index: usize, s: Settings, c: &Counts, span: u64) -> Option<HotSpots> {
        if !s.random_distribution.is_skewed() || s.random_pct == 0 || s.bs == 0 {
            return None;
        }
        let blocks = (span / s.bs).max(1);
        let share = |pct: u64, issued: u64| {
            let m = top_blocks(blocks, pct);
            HotShare {
                blocks: m,
                promised: share_of_top(s.random_distribution, blocks, m),
                measured: (c.random_issued > 0).then(|| issued as f64 / c.random_issued as f64),
            }
        };
        Some(HotSpots {
            period: index,
            random_distribution: s.random_distribution,
            blocks,
            random_ios: c.random_issued,
            top1: share(1, c.top1_issued),
            top10: share(10, c.top10_issued),
        })
    }

    /// Every skewed period's.
    pub fn of_all(periods: &[Period], span: u64) -> Vec<HotSpots> {
        periods
            .iter()
            .enumerate()
            .filter_map(|(i, p)| HotSpots::of(i, p, span))
            .collect()
    }

    /// The short form the TUI has room for: `hottest 1%: 87.9% of random I/Os (promised
    /// 88.0%)`.
    pub fn short(&self) -> String {
        let got = self
            .top1
            .measured
            .map_or("–".to_string(), |v| format!("{:.1}%", v * 100.0));
        format!(
            "hottest 1%: {got} of random I/Os (promised {:.1}%)",
            self.top1.promised * 100.0
        )
    }

    /// One line: `zipf 1.2: hottest 1 % of blocks got 87.9 % of random I/Os (promised
    /// 88.0 %), hottest 10 % got 97.1 % (97.2 %)`.
    pub fn line(&self) -> String {
        let pct = |v: Option<f64>| v.map_or("–".to_string(), |v| format!("{:.1} %", v * 100.0));
        format!(
            "{}: hottest 1 % of blocks got {} of random I/Os (promised {}), hottest 10 % got {} ({})",
            self.random_distribution.label(),
            pct(self.top1.measured),
            pct(Some(self.top1.promised)),
            pct(self.top10.measured),
            pct(Some(self.top10.promised)),
        )
    }
}
