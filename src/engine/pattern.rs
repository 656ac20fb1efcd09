//! Where each I/O goes: block-aligned offsets, random or sequential, mixed by a percentage.
//!
//! Random offsets come from the run's distribution (`offsets`: uniform, Zipf, Pareto, a hot
//! band), over the whole blocks of the span, drawn from a 64-bit generator per thread
//! (uniform ones by Lemire's unbiased range reduction inside `random_range`), so a span of
//! many terabytes is covered evenly — a `rand()/RAND_MAX` float reaches only about 2^24
//! positions.
//! Sequential offsets walk the thread's own stripe of the span and wrap at its end, so N threads
//! read N streams that never overlap. Nothing here does I/O or reads a clock.

use rand::{Rng, RngExt};

use super::offsets::{Heat, Sampler};
use crate::settings::Distribution;

/// The offsets of one worker thread.
#[derive(Debug, Clone)]
pub struct OffsetGen {
    bs: u64,
    random_pct: u32,
    sampler: Sampler,
    stripe_start: u64,
    stripe_len: u64,
    next_in_stripe: u64,
}

impl OffsetGen {
    /// A generator for thread `index` of `threads` over `span` bytes with block size `bs`
    /// (`0 < bs <= span`), sending `random_pct`% of the I/Os to random blocks drawn from `dist`.
    pub fn new(
        span: u64,
        bs: u64,
        random_pct: u8,
        dist: Distribution,
        index: usize,
        threads: usize,
    ) -> Self {
        assert!(bs > 0 && bs <= span, "block size must be within the span");
        let blocks = span / bs;
        let threads = threads.max(1) as u64;
        let index = (index as u64).min(threads - 1);
        let (stripe_start, stripe_len) = if blocks >= threads {
            let start = index * blocks / threads;
            (start, (index + 1) * blocks / threads - start)
        } else {
            // More threads than blocks: threads share single-block stripes.
            (index % blocks, 1)
        };
        OffsetGen {
            bs,
            random_pct: u32::from(random_pct.min(100)),
            sampler: Sampler::new(blocks, dist),
            stripe_start,
            stripe_len,
            next_in_stripe: 0,
        }
    }

    /// The byte offset of the next I/O: a multiple of `bs`, at most `span - bs`.
    #[inline]
    pub fn next_offset<R: Rng>(&mut self, rng: &mut R) -> u64 {
        self.next(rng).0
    }

    /// The byte offset of the next I/O and, for a random one, how hot its block is.
    #[inline]
    pub fn next<R: Rng>(&mut self, rng: &mut R) -> (u64, Option<Heat>) {
        let random = match self.random_pct {
            100 => true,
            0 => false,
            pct => rng.random_range(0..100u32) < pct,
        };
        let (block, heat) = if random {
            let (block, heat) = self.sampler.next(rng);
            (block, Some(heat))
        } else {
            let b = self.stripe_start + self.next_in_stripe;
            self.next_in_stripe += 1;
            if self.next_in_stripe == self.stripe_len {
                self.next_in_stripe = 0;
            }
            (b, None)
        };
        (block * self.bs, heat)
    }

    /// The first block and the number of blocks of this thread's sequential stripe.
    pub fn stripe(&self) -> (u64, u64) {
        (self.stripe_start, self.stripe_len)
    }
}

#[cfg(test)]
mod tests {
    use super::OffsetGen;
    use crate::settings::Distribution;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    #[test]
    fn random_offsets_are_aligned_and_in_range() {
        let mut rng = SmallRng::seed_from_u64(1);
        for (span, bs) in [
            (1 << 20, 4096),
            (10_000 * 512 + 100, 512),
            (8192, 8192),
            (1 << 40, 1 << 20),
        ] {
            let mut g = OffsetGen::new(span, bs, 100, Distribution::Uniform, 0, 1);
            for _ in 0..10_000 {
                let off = g.next_offset(&mut rng);
                assert_eq!(off % bs, 0);
                assert!(off + bs <= span, "{off} + {bs} > {span}");
            }
        }
    }

    #[test]
    fn random_offsets_reach_beyond_2_pow_24_blocks() {
        // 2^40 blocks of 512 bytes: a float-based generator would only ever produce 2^24
        // distinct positions, all multiples of 2^16 blocks.
        let span = 512u64 << 40;
        let mut g = OffsetGen::new(span, 512, 100, Distribution::Uniform, 0, 1);
        let mut rng = SmallRng::seed_from_u64(7);
        let odd = (0..1000)
            .filter(|_| !(g.next_offset(&mut rng) / 512).is_multiple_of(65536))
            .count();
        assert!(odd > 990, "only {odd} offsets off the 2^16-block grid");
    }

    /// Pearson's chi-square over 64 equal buckets of the span: with 63 degrees of freedom
    /// the 99.9th percentile of the distribution is about 103.4.
    #[test]
    fn random_offsets_are_uniform() {
        let buckets = 64u64;
        let blocks = 64 * 1000u64;
        let n = 640_000u64;
        let mut counts = vec![0u64; buckets as usize];
        let mut g = OffsetGen::new(blocks * 4096, 4096, 100, Distribution::Uniform, 0, 1);
        let mut rng = SmallRng::seed_from_u64(42);
        for _ in 0..n {
            let block = g.next_offset(&mut rng) / 4096;
            counts[(block * buckets / blocks) as usize] += 1;
        }
        let expected = (n / buckets) as f64;
        let chi2: f64 = counts
            .iter()
            .map(|&c| (c as f64 - expected).powi(2) / expected)
            .sum();
        assert!(
            chi2 < 103.4,
            "chi-square {chi2:.1} over 63 dof: not uniform"
        );
    }

    #[test]
    fn sequential_threads_cover_their_own_stripes_and_wrap() {
        let blocks = 1000u64;
        let threads = 3;
        let mut rng = SmallRng::seed_from_u64(3);
        let mut seen = vec![0u32; blocks as usize];
        for i in 0..threads {
            let mut g = OffsetGen::new(blocks * 512, 512, 0, Distribution::Uniform, i, threads);
            let (start, len) = g.stripe();
            for k in 0..len * 2 {
                let b = g.next_offset(&mut rng) / 512;
                assert_eq!(b, start + k % len, "thread {i} left its stripe");
                seen[b as usize] += 1;
            }
        }
        // Every block read exactly twice: stripes tile the span with no overlap and no gap.
        assert!(seen.iter().all(|&s| s == 2));
    }

    #[test]
    fn more_threads_than_blocks_still_stay_in_range() {
        let mut rng = SmallRng::seed_from_u64(5);
        for i in 0..8 {
            let mut g = OffsetGen::new(3 * 4096, 4096, 0, Distribution::Uniform, i, 8);
            for _ in 0..5 {
                assert!(g.next_offset(&mut rng) <= 2 * 4096);
            }
        }
    }

    #[test]
    fn mixed_pattern_follows_the_percentage() {
        let mut rng = SmallRng::seed_from_u64(9);
        let mut g = OffsetGen::new(1 << 30, 4096, 30, Distribution::Uniform, 0, 1);
        let mut last = None;
        let mut sequential_steps = 0;
        let n = 100_000;
        for _ in 0..n {
            let off = g.next_offset(&mut rng);
            if let Some(prev) = last
                && off == prev + 4096
            {
                sequential_steps += 1;
            }
            last = Some(off);
        }
        // A sequential I/O follows the previous *sequential* one, so consecutive pairs are both
        // sequential with probability 0.7 * 0.7 = 0.49 (random ones land adjacent only by chance).
        let frac = sequential_steps as f64 / n as f64;
        assert!((frac - 0.49).abs() < 0.02, "{frac}");
    }
}
