//! fio's Pareto ranks: a share `h` of the I/Os on the hottest `1 − h` of the blocks (0.8 is the
//! 80/20 rule). As in fio, a rank is `n · X` for `X = U^p` with `p = ln h / ln(1 − h)` and U
//! uniform; fio's hot end is the top when h > ½, so the draw is mirrored there to keep rank 0
//! the hottest. Exact in closed form: one logarithm and one exponential per rank.

use rand::{Rng, RngExt};

use crate::settings::promise::pareto_power;

/// A Pareto sampler over ranks `0..n` (rank 0 the hottest).
#[derive(Debug, Clone)]
pub struct Pareto {
    n: u64,
    power: f64,
}

impl Pareto {
    /// Ranks `0..n` (`n ≥ 1`) with fio's `h`, `0 < h < 1`.
    pub fn new(n: u64, h: f64) -> Pareto {
        Pareto {
            n: n.max(1),
            power: pareto_power(h),
        }
    }

    /// The next rank, 0 the hottest.
    #[inline]
    pub fn sample<R: Rng>(&self, rng: &mut R) -> u64 {
        let u = 1.0 - rng.random::<f64>(); // (0, 1]: ln u is finite
        let x = if self.power > 1.0 {
            (self.power * u.ln()).exp()
        } else {
            -(self.power * u.ln()).exp_m1()
        };
        ((x * self.n as f64) as u64).min(self.n - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::Pareto;
    use crate::settings::promise::pareto_share;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    #[test]
    fn h_of_the_io_lands_on_the_hottest_one_minus_h_of_the_blocks() {
        for h in [0.2, 0.6, 0.8, 0.95] {
            let n = 1_000_000u64;
            let p = Pareto::new(n, h);
            let mut rng = SmallRng::seed_from_u64(5);
            let draws = 200_000;
            let hot = ((1.0 - h) * n as f64) as u64;
            let on_hot = (0..draws).filter(|_| p.sample(&mut rng) < hot).count();
            let want = pareto_share(h, 1.0 - h);
            let got = on_hot as f64 / draws as f64;
            // Binomial: 5 standard deviations of 200k draws are under 0.6 points.
            assert!(
                (got - want).abs() < 0.006,
                "h {h}: {got} on the hot part, want {want}"
            );
            if h > 0.5 {
                assert!((want - h).abs() < 1e-9, "h {h}: promise {want}");
            }
        }
    }
}
