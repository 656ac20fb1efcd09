//! Where a setting sits on its slider, from 0 (the left end) to 1 (the right), and the
//! setting at a point of the slider — one mapping both ways, so a bar drawn from a value
//! and a click on that bar agree. Threads, queue depth, block size and rate are on log
//! scales (each halving the same length of bar), the percentages linear; the rate's right
//! end is "unlimited".

use super::{Knob, MAX_BS, MAX_IODEPTH, MAX_THREADS, MIN_BS, Settings};

/// The rate's log scale: 100 to 10M IOPS; the right end is unlimited.
const RATE_LOW: f64 = 100.0;
const RATE_HIGH: f64 = 10_000_000.0;
/// Where the highest limited rate is drawn, short of "unlimited".
const RATE_TOP: f64 = 0.97;

/// Why read % cannot go below 100 on a run without writes.
pub const WRITES_OFF: &str =
    "writes are off: start with --allow-write to lower read % (it destroys data on the target)";

/// Why trim % cannot rise above 0 on a run without writes.
pub const TRIMS_OFF: &str =
    "writes are off: start with --allow-write to raise trim % (a trim destroys the block's data)";

fn log_position(v: f64, lo: f64, hi: f64) -> f64 {
    let (v, lo, hi) = (v.max(1.0).log2(), lo.log2(), hi.log2());
    if hi > lo {
        ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

fn log_value(p: f64, lo: f64, hi: f64) -> f64 {
    (lo.log2() + p.clamp(0.0, 1.0) * (hi.log2() - lo.log2())).exp2()
}

/// Where `knob`'s value in `s` sits on its slider.
pub fn position(s: &Settings, knob: Knob) -> f64 {
    match knob {
        Knob::Threads => log_position(s.threads as f64, 1.0, MAX_THREADS as f64),
        Knob::QueueDepth => log_position(s.iodepth as f64, 1.0, MAX_IODEPTH as f64),
        Knob::BlockSize => log_position(s.bs as f64, MIN_BS as f64, MAX_BS as f64),
        Knob::ReadPct => f64::from(s.read_pct) / 100.0,
        Knob::RandomPct => f64::from(s.random_pct) / 100.0,
        Knob::Skew => super::skew_position(s.random_distribution),
        Knob::TrimPct => f64::from(s.trim_pct) / 100.0,
        Knob::Rate if s.rate_iops == 0 => 1.0,
        Knob::Rate => log_position(s.rate_iops as f64, RATE_LOW, RATE_HIGH).min(RATE_TOP),
    }
}

/// `s` with `knob` set to the value at `p` of its slider (0: the left end, 1: the right):
/// threads and depth whole numbers, block sizes powers of two, percentages in steps of 5,
/// rates to two significant digits, the right end of the rate unlimited. `Err` says why
/// not (read % below 100 without writes allowed).
pub fn at_position(
    s: Settings,
    knob: Knob,
    p: f64,
    write_allowed: bool,
) -> Result<Settings, String> {
    let p = p.clamp(0.0, 1.0);
    let pct = |p: f64| ((p * 20.0).round() * 5.0) as u8;
    let mut n = s;
    match knob {
        Knob::Threads => {
            n.threads =
                (log_value(p, 1.0, MAX_THREADS as f64).round() as usize).clamp(1, MAX_THREADS)
        }
        Knob::QueueDepth => {
            n.iodepth =
                (log_value(p, 1.0, MAX_IODEPTH as f64).round() as usize).clamp(1, MAX_IODEPTH)
        }
        Knob::BlockSize => {
            let v = log_value(p, MIN_BS as f64, MAX_BS as f64);
            n.bs = (1u64 << v.log2().round() as u32).clamp(MIN_BS, MAX_BS);
        }
        Knob::ReadPct => {
            n.read_pct = pct(p);
            if n.read_pct < 100 && !write_allowed {
                return Err(WRITES_OFF.into());
            }
        }
        Knob::RandomPct => n.random_pct = pct(p),
        Knob::TrimPct => {
            n.trim_pct = pct(p);
            if n.trim_pct > 0 && !write_allowed {
                return Err(TRIMS_OFF.into());
            }
        }
        Knob::Skew => n.random_distribution = super::at_skew(s.random_distribution, p),
        Knob::Rate if p >= 1.0 => n.rate_iops = 0,
        Knob::Rate => {
            let v = log_value(p, RATE_LOW, RATE_HIGH);
            // Two significant digits: 12k, not 12,345.
            let unit = 10f64.powi(v.log10().floor() as i32 - 1).max(1.0);
            n.rate_iops = ((v / unit).round() * unit) as u64;
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ends_of_a_slider_are_its_limits_and_a_value_maps_back_to_itself() {
        let s = Settings::default();
        for knob in Knob::ALL {
            let lo = at_position(s, knob, 0.0, true).unwrap();
            let hi = at_position(s, knob, 1.0, true).unwrap();
            assert!(position(&lo, knob) < 0.01, "{knob:?} {lo:?}");
            assert!(position(&hi, knob) > 0.99, "{knob:?} {hi:?}");
        }
        let hi = at_position(s, Knob::Threads, 1.0, true).unwrap();
        assert_eq!(hi.threads, MAX_THREADS);
        assert_eq!(at_position(s, Knob::Rate, 1.0, true).unwrap().rate_iops, 0);
        let samples = [
            (Knob::Threads, Settings { threads: 48, ..s }),
            (Knob::QueueDepth, Settings { iodepth: 32, ..s }),
            (Knob::BlockSize, Settings { bs: 65536, ..s }),
            (Knob::ReadPct, Settings { read_pct: 70, ..s }),
            (
                Knob::RandomPct,
                Settings {
                    random_pct: 25,
                    ..s
                },
            ),
            (
                Knob::Rate,
                Settings {
                    rate_iops: 12_000,
                    ..s
                },
            ),
            (Knob::TrimPct, Settings { trim_pct: 15, ..s }),
        ];
        for (knob, v) in samples {
            let back = at_position(s, knob, position(&v, knob), true).unwrap();
            assert_eq!(back, v, "{knob:?}");
        }
    }

    #[test]
    fn a_click_cannot_lower_read_pct_without_writes() {
        let s = Settings::default();
        assert_eq!(
            at_position(s, Knob::ReadPct, 0.5, false),
            Err(WRITES_OFF.to_string())
        );
        assert_eq!(
            at_position(s, Knob::ReadPct, 1.0, false).unwrap().read_pct,
            100
        );
        assert_eq!(
            at_position(s, Knob::TrimPct, 0.2, false),
            Err(TRIMS_OFF.to_string())
        );
        assert_eq!(
            at_position(s, Knob::TrimPct, 0.0, false).unwrap().trim_pct,
            0
        );
    }
}
