//! What a distribution promises: the share of the random I/Os that lands on its hottest
//! `m` of `n` blocks, in closed form or (Zipf) from generalized harmonic numbers summed
//! exactly over the first ranks and by Euler–Maclaurin beyond — nothing over the span. The
//! samplers (`engine::offsets`) are tested against these figures, and reports print them
//! beside the shares measured from what was issued.

use super::Distribution;

/// Ranks summed term by term before the Euler–Maclaurin tail takes over.
const EXACT_TERMS: u64 = 10_000;

/// The hottest `pct` % of `n` blocks: at least one.
pub fn top_blocks(n: u64, pct: u64) -> u64 {
    ((u128::from(n) * u128::from(pct) / 100) as u64).clamp(1, n.max(1))
}

/// The share (0..1) of random I/Os `dist` sends to its hottest `m` of `n` blocks.
pub fn share_of_top(dist: Distribution, n: u64, m: u64) -> f64 {
    let n = n.max(1);
    let m = m.min(n);
    match dist {
        Distribution::Uniform => m as f64 / n as f64,
        Distribution::Zipf { theta_milli } => {
            let theta = f64::from(theta_milli) / 1000.0;
            harmonic(m, theta) / harmonic(n, theta)
        }
        Distribution::Pareto { h_milli } => {
            pareto_share(f64::from(h_milli) / 1000.0, m as f64 / n as f64)
        }
        Distribution::HotBand { io_pct, span_pct } => {
            let hot = hot_band_blocks(n, span_pct);
            let io = f64::from(io_pct.min(100)) / 100.0;
            if hot == n {
                m as f64 / n as f64
            } else if m <= hot {
                io * m as f64 / hot as f64
            } else {
                io + (1.0 - io) * (m - hot) as f64 / (n - hot) as f64
            }
        }
    }
}

/// fio's Pareto exponent for `h`: a rank is `n · U^p` (mirrored when h > ½, so rank 0 is
/// the hottest).
pub fn pareto_power(h: f64) -> f64 {
    h.ln() / (1.0 - h).ln()
}

/// The share of Pareto draws on the hottest fraction `f` of the ranks.
pub fn pareto_share(h: f64, f: f64) -> f64 {
    let p = pareto_power(h);
    if p > 1.0 {
        f.powf(1.0 / p)
    } else {
        1.0 - (1.0 - f).powf(1.0 / p)
    }
}

/// Blocks in a hot band of `span_pct` % of `n`: at least one, and one short of all when there
/// are two or more (so the cold part is never empty).
pub fn hot_band_blocks(n: u64, span_pct: u8) -> u64 {
    let b = (u128::from(n) * u128::from(span_pct) / 100) as u64;
    if n >= 2 { b.clamp(1, n - 1) } else { 1 }
}

/// `Σ_{k=1}^{n} k^-θ`.
pub fn harmonic(n: u64, theta: f64) -> f64 {
    let head = n.min(EXACT_TERMS);
    let mut sum: f64 = (1..=head).map(|k| (k as f64).powf(-theta)).sum();
    if n > head {
        // Σ_{k=a+1}^{n} f(k) ≈ ∫_a^n f + (f(n) − f(a))/2 + (f′(n) − f′(a))/12, f = x^-θ.
        let (a, b) = (head as f64, n as f64);
        let f = |x: f64| x.powf(-theta);
        let df = |x: f64| -theta * x.powf(-theta - 1.0);
        let integral = if (theta - 1.0).abs() < 1e-12 {
            (b / a).ln()
        } else {
            (b.powf(1.0 - theta) - a.powf(1.0 - theta)) / (1.0 - theta)
        };
        sum += integral + (f(b) - f(a)) / 2.0 + (df(b) - df(a)) / 12.0;
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harmonic_numbers_match_the_plain_sum() {
        for theta in [0.5, 1.0, 1.2, 2.0] {
            let n = 300_000u64;
            let plain: f64 = (1..=n).rev().map(|k| (k as f64).powf(-theta)).sum();
            let h = harmonic(n, theta);
            assert!(
                (h - plain).abs() / plain < 1e-10,
                "θ {theta}: {h} vs {plain}"
            );
        }
    }

    #[test]
    fn shares_are_monotone_and_whole_at_the_top() {
        for d in [
            Distribution::Uniform,
            Distribution::Zipf { theta_milli: 1200 },
            Distribution::Pareto { h_milli: 800 },
            Distribution::HotBand {
                io_pct: 90,
                span_pct: 10,
            },
        ] {
            let n = 1 << 30;
            let s1 = share_of_top(d, n, top_blocks(n, 1));
            let s10 = share_of_top(d, n, top_blocks(n, 10));
            assert!(s1 <= s10 && s10 <= 1.0, "{d:?}: {s1} {s10}");
            assert!((share_of_top(d, n, n) - 1.0).abs() < 1e-9, "{d:?}");
        }
        assert_eq!(top_blocks(50, 1), 1);
        assert_eq!(top_blocks(1000, 10), 100);
    }
}
