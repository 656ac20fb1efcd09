//! The skew slider: one knob over the run's distribution family, from uniform at its left
//! end to the family's most skewed at its right — Zipf's θ from 0 to 3, Pareto's h from ½
//! (where it is uniform) to 0.99, a hot band's share of I/Os from its share of the span (where
//! it is uniform) to 100 %. ←/→ move θ by 0.1, h by 0.05 and the band's share by 5 points,
//! -/+ by a tenth of that; reaching the left end is uniform, and from uniform → starts Zipf.

use super::Distribution;

/// Where `d` sits on the skew slider, 0 (uniform) to 1.
pub fn skew_position(d: Distribution) -> f64 {
    match d {
        Distribution::Uniform => 0.0,
        Distribution::Zipf { theta_milli } => f64::from(theta_milli) / 3000.0,
        Distribution::Pareto { h_milli } => (f64::from(h_milli) - 500.0) / 490.0,
        Distribution::HotBand { io_pct, span_pct } => {
            f64::from(io_pct.saturating_sub(span_pct)) / f64::from(100 - span_pct.min(99))
        }
    }
    .clamp(0.0, 1.0)
}

/// The distribution of `d`'s family at `p` of the slider (Zipf from uniform): θ to 0.05,
/// h to 0.01, the band's share to whole percents; the left end uniform.
pub fn at_skew(d: Distribution, p: f64) -> Distribution {
    let p = p.clamp(0.0, 1.0);
    let n = match d {
        Distribution::Uniform | Distribution::Zipf { .. } => Distribution::Zipf {
            theta_milli: ((p * 60.0).round() * 50.0) as u32,
        },
        Distribution::Pareto { .. } => Distribution::Pareto {
            h_milli: 500 + ((p * 49.0).round() * 10.0) as u32,
        },
        Distribution::HotBand { span_pct, .. } => Distribution::HotBand {
            io_pct: span_pct + ((100 - span_pct) as f64 * p).round() as u8,
            span_pct,
        },
    };
    uniform_at_the_left_end(n)
}

/// `d` one step more skewed (`up`) or less; `fine` is a tenth of a step.
pub fn skew_step(d: Distribution, up: bool, fine: bool) -> Distribution {
    let by = |step: i64| if up { step } else { -step };
    let n = match d {
        Distribution::Uniform if !up => Distribution::Uniform,
        Distribution::Uniform => Distribution::Zipf {
            theta_milli: if fine { 10 } else { 100 },
        },
        Distribution::Zipf { theta_milli } => Distribution::Zipf {
            theta_milli: (i64::from(theta_milli) + by(if fine { 10 } else { 100 }))
                .clamp(0, i64::from(super::MAX_ZIPF_MILLI)) as u32,
        },
        Distribution::Pareto { h_milli } => Distribution::Pareto {
            h_milli: (i64::from(h_milli) + by(if fine { 5 } else { 50 })).clamp(0, 990) as u32,
        },
        Distribution::HotBand { io_pct, span_pct } => Distribution::HotBand {
            io_pct: (i64::from(io_pct) + by(if fine { 1 } else { 5 })).clamp(0, 100) as u8,
            span_pct,
        },
    };
    uniform_at_the_left_end(n)
}

/// Zipf at θ 0, Pareto at h ½ or below and a band no hotter than the span are uniform.
fn uniform_at_the_left_end(d: Distribution) -> Distribution {
    match d {
        Distribution::Zipf { theta_milli: 0 } => Distribution::Uniform,
        Distribution::Pareto { h_milli } if h_milli <= 500 => Distribution::Uniform,
        Distribution::HotBand { io_pct, span_pct } if io_pct <= span_pct => Distribution::Uniform,
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Distribution::*;

    #[test]
    fn steps_walk_the_family_and_end_uniform_on_the_left() {
        let mut d = Uniform;
        d = skew_step(d, true, false);
        assert_eq!(d, Zipf { theta_milli: 100 });
        d = skew_step(skew_step(d, true, false), true, true);
        assert_eq!(d, Zipf { theta_milli: 210 });
        for _ in 0..3 {
            d = skew_step(d, false, false);
        }
        assert_eq!(d, Uniform);
        assert_eq!(skew_step(Uniform, false, false), Uniform);
        assert_eq!(
            skew_step(Zipf { theta_milli: 3000 }, true, false),
            Zipf { theta_milli: 3000 }
        );
        assert_eq!(
            skew_step(Pareto { h_milli: 800 }, true, false),
            Pareto { h_milli: 850 }
        );
        assert_eq!(skew_step(Pareto { h_milli: 550 }, false, false), Uniform);
        assert_eq!(
            skew_step(Pareto { h_milli: 990 }, true, false),
            Pareto { h_milli: 990 }
        );
        let band = HotBand {
            io_pct: 90,
            span_pct: 10,
        };
        assert_eq!(
            skew_step(band, true, false),
            HotBand {
                io_pct: 95,
                span_pct: 10
            }
        );
        assert_eq!(
            skew_step(
                HotBand {
                    io_pct: 12,
                    span_pct: 10
                },
                false,
                true
            ),
            HotBand {
                io_pct: 11,
                span_pct: 10
            }
        );
        assert_eq!(
            skew_step(
                HotBand {
                    io_pct: 11,
                    span_pct: 10
                },
                false,
                true
            ),
            Uniform
        );
    }

    #[test]
    fn a_position_maps_back_to_itself() {
        for d in [
            Zipf { theta_milli: 1200 },
            Pareto { h_milli: 800 },
            HotBand {
                io_pct: 90,
                span_pct: 10,
            },
        ] {
            assert_eq!(at_skew(d, skew_position(d)), d, "{d:?}");
            assert_eq!(at_skew(d, 0.0), Uniform);
        }
        assert_eq!(at_skew(Uniform, 1.0), Zipf { theta_milli: 3000 });
        assert_eq!(skew_position(Uniform), 0.0);
    }
}
