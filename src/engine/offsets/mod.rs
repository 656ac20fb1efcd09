//! Random offsets with a shape: a rank drawn from the run's distribution (uniform, Zipf,
//! Pareto, a hot band — `settings::Distribution`), rank 0 the hottest, then sent through the
//! scatter bijection to a block. Each sampler is a few numbers fixed when the settings are
//! taken up, O(1) per I/O, nothing tabled over the span; the worker owns one. The rank a block
//! came from is known at the draw, so the share of I/Os on the hottest 1 % and 10 % of blocks
//! is counted as they are issued (`Heat`), beside what `settings::promise` says the distribution gives.

mod hotband;
mod pareto;
mod scatter;
mod zipf;

use rand::{Rng, RngExt};

pub use scatter::Scatter;

use crate::settings::{Distribution, promise};
use hotband::HotBand;
use pareto::Pareto;
use zipf::Zipf;

/// How hot the block of one random I/O is, by its rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heat {
    /// Among the hottest 1 % of blocks (and so the hottest 10 %).
    Top1,
    /// Among the hottest 10 %, not the hottest 1 %.
    Top10,
    Rest,
}

#[derive(Debug, Clone)]
enum Ranks {
    Uniform,
    Zipf(Zipf),
    Pareto(Pareto),
    HotBand(HotBand),
}

/// Draws the blocks of random I/Os over `n` blocks.
#[derive(Debug, Clone)]
pub struct Sampler {
    n: u64,
    ranks: Ranks,
    scatter: Scatter,
    top1: u64,
    top10: u64,
}

impl Sampler {
    pub fn new(n: u64, dist: Distribution) -> Sampler {
        let n = n.max(1);
        let ranks = match dist {
            Distribution::Uniform => Ranks::Uniform,
            Distribution::Zipf { theta_milli } => {
                Ranks::Zipf(Zipf::new(n, f64::from(theta_milli) / 1000.0))
            }
            Distribution::Pareto { h_milli } => {
                Ranks::Pareto(Pareto::new(n, f64::from(h_milli) / 1000.0))
            }
            Distribution::HotBand { io_pct, span_pct } => {
                Ranks::HotBand(HotBand::new(n, io_pct, span_pct))
            }
        };
        Sampler {
            n,
            ranks,
            scatter: Scatter::new(n),
            top1: promise::top_blocks(n, 1),
            top10: promise::top_blocks(n, 10),
        }
    }

    /// The next random block and how hot it is. Uniform blocks are their own ranks: every
    /// block is as hot as any other, and the draw stays what it always was.
    #[inline]
    pub fn next<R: Rng>(&self, rng: &mut R) -> (u64, Heat) {
        let rank = match &self.ranks {
            Ranks::Uniform => rng.random_range(0..self.n),
            Ranks::Zipf(z) => z.sample(rng),
            Ranks::Pareto(p) => p.sample(rng),
            Ranks::HotBand(h) => h.sample(rng),
        };
        let heat = if rank < self.top1 {
            Heat::Top1
        } else if rank < self.top10 {
            Heat::Top10
        } else {
            Heat::Rest
        };
        let block = match self.ranks {
            Ranks::Uniform => rank,
            _ => self.scatter.block(rank),
        };
        (block, heat)
    }
}
