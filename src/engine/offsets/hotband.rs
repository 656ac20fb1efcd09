//! A hot band: `io_pct` % of the I/Os on the hottest `span_pct` % of the blocks, uniform
//! within it, the rest uniform over the others (vdbench's `hotband`, fio's two-zone `zoned`).

use rand::{Rng, RngExt};

use crate::settings::promise::hot_band_blocks;

/// A hot-band sampler over ranks `0..n`, the band being ranks `0..hot`.
#[derive(Debug, Clone)]
pub struct HotBand {
    n: u64,
    hot: u64,
    io_pct: u32,
}

impl HotBand {
    pub fn new(n: u64, io_pct: u8, span_pct: u8) -> HotBand {
        let n = n.max(1);
        HotBand {
            n,
            hot: hot_band_blocks(n, span_pct),
            io_pct: u32::from(io_pct.min(100)),
        }
    }

    /// The next rank, the band first.
    #[inline]
    pub fn sample<R: Rng>(&self, rng: &mut R) -> u64 {
        if self.hot == self.n || rng.random_range(0..100u32) < self.io_pct {
            rng.random_range(0..self.hot)
        } else {
            rng.random_range(self.hot..self.n)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HotBand;
    use crate::settings::Distribution;
    use crate::settings::promise::share_of_top;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    #[test]
    fn the_band_gets_its_share_and_everything_stays_in_range() {
        let n = 10_000u64;
        let b = HotBand::new(n, 90, 10);
        let mut rng = SmallRng::seed_from_u64(2);
        let draws = 100_000;
        let mut on_band = 0;
        for _ in 0..draws {
            let r = b.sample(&mut rng);
            assert!(r < n);
            on_band += u32::from(r < 1000);
        }
        let got = f64::from(on_band) / draws as f64;
        assert!((got - 0.9).abs() < 0.005, "{got}");
        let d = Distribution::HotBand {
            io_pct: 90,
            span_pct: 10,
        };
        assert!((share_of_top(d, n, 1000) - 0.9).abs() < 1e-12);
        assert!((share_of_top(d, n, 100) - 0.09).abs() < 1e-12);
        let tiny = HotBand::new(1, 90, 10);
        assert_eq!(tiny.sample(&mut rng), 0);
    }
}
