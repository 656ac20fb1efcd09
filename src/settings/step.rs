//! Moving one setting a step, as the TUI's sliders do: threads, queue depth and block size
//! halve and double (threads and depth also move by one), percentages move by 5 or 10, the
//! rate walks fractions of what the disk does unpaced (`rate_by_fraction`; a 1-2-5 ladder,
//! 100 … 10M IOPS, before that is known) with "unlimited" above its top and moves by a
//! tenth with +/-; every result stays within the limits, and lowering read % or raising
//! trim % needs writes allowed.

use super::{MAX_BS, MAX_IODEPTH, MAX_RATE_IOPS, MAX_THREADS, Settings};

/// Smallest block size the slider offers.
pub const MIN_BS: u64 = 512;

/// One slider of the run screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Knob {
    Threads,
    QueueDepth,
    BlockSize,
    ReadPct,
    RandomPct,
    /// How skewed random offsets are (`skew`): uniform at the left end.
    Skew,
    /// Share of I/Os that discard their block (`--trim`).
    TrimPct,
    /// Total I/Os per second asked (0: unlimited); the last, one ↑ from the first.
    Rate,
}

impl Knob {
    /// The sliders, top to bottom.
    pub const ALL: [Knob; 8] = [
        Knob::Threads,
        Knob::QueueDepth,
        Knob::BlockSize,
        Knob::ReadPct,
        Knob::RandomPct,
        Knob::Skew,
        Knob::TrimPct,
        Knob::Rate,
    ];

    fn index(self) -> usize {
        Knob::ALL.iter().position(|k| *k == self).unwrap_or(0)
    }

    /// The slider below (wrapping).
    pub fn next(self) -> Knob {
        Knob::ALL[(self.index() + 1) % Knob::ALL.len()]
    }

    /// The slider above (wrapping).
    pub fn prev(self) -> Knob {
        Knob::ALL[(self.index() + Knob::ALL.len() - 1) % Knob::ALL.len()]
    }

    /// The slider's label.
    pub fn label(self) -> &'static str {
        match self {
            Knob::Threads => "threads",
            Knob::QueueDepth => "queue depth",
            Knob::BlockSize => "block size",
            Knob::ReadPct => "read %",
            Knob::RandomPct => "random %",
            Knob::Skew => "skew",
            Knob::Rate => "rate IOPS",
            Knob::TrimPct => "trim %",
        }
    }
}

/// How a slider moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// ←: halve (threads, block size) or one step down (percentages).
    Down,
    /// →: double or one step up.
    Up,
    /// -: one thread fewer, else like ←.
    Minus,
    /// +: one thread more, else like →.
    Plus,
}

/// The settings after moving `knob` by `step`; `Err` says why it cannot move.
pub fn stepped(
    s: Settings,
    knob: Knob,
    step: Step,
    write_allowed: bool,
) -> Result<Settings, String> {
    let up = matches!(step, Step::Up | Step::Plus);
    let mut n = s;
    match knob {
        Knob::Threads => {
            n.threads = match step {
                Step::Down => s.threads / 2,
                Step::Up => s.threads.saturating_mul(2),
                Step::Minus => s.threads.saturating_sub(1),
                Step::Plus => s.threads + 1,
            }
            .clamp(1, MAX_THREADS);
        }
        Knob::QueueDepth => {
            n.iodepth = match step {
                Step::Down => s.iodepth / 2,
                Step::Up => s.iodepth.saturating_mul(2),
                Step::Minus => s.iodepth.saturating_sub(1),
                Step::Plus => s.iodepth + 1,
            }
            .clamp(1, MAX_IODEPTH);
        }
        Knob::BlockSize => {
            n.bs = if up {
                if s.bs.is_power_of_two() {
                    s.bs * 2
                } else {
                    s.bs.next_power_of_two()
                }
            } else if s.bs.is_power_of_two() {
                s.bs / 2
            } else {
                s.bs.next_power_of_two() / 2
            }
            .clamp(MIN_BS, MAX_BS);
        }
        Knob::ReadPct => {
            n.read_pct = if up {
                s.read_pct.saturating_add(5).min(100)
            } else {
                s.read_pct.saturating_sub(5)
            };
            if n.read_pct < 100 && !write_allowed {
                return Err("writes are off: start with --allow-write to lower read % (it destroys data on the target)".into());
            }
        }
        Knob::RandomPct => {
            n.random_pct = if up {
                s.random_pct.saturating_add(10).min(100)
            } else {
                s.random_pct.saturating_sub(10)
            };
        }
        Knob::Skew => {
            let fine = matches!(step, Step::Plus | Step::Minus);
            n.random_distribution = super::skew_step(s.random_distribution, up, fine);
        }
        Knob::Rate => n.rate_iops = stepped_rate(s.rate_iops, step),
        Knob::TrimPct => {
            n.trim_pct = if up {
                s.trim_pct.saturating_add(5).min(100)
            } else {
                s.trim_pct.saturating_sub(5)
            };
            if n.trim_pct > 0 && !write_allowed {
                return Err(super::position::TRIMS_OFF.into());
            }
        }
    }
    Ok(n)
}

/// Lowest rate on the slider's ladder.
const RATE_LADDER_MIN: u64 = 100;
/// Highest rate on the slider's ladder; one step above it is unlimited.
const RATE_LADDER_MAX: u64 = 10_000_000;

/// The 1-2-5 ladder value at or below `v` (at least `RATE_LADDER_MIN`).
pub fn rate_ladder_at_or_below(v: u64) -> u64 {
    let mut best = RATE_LADDER_MIN;
    let mut decade = RATE_LADDER_MIN;
    while decade <= RATE_LADDER_MAX {
        for m in [1, 2, 5] {
            let x = decade * m;
            if x <= v && x <= RATE_LADDER_MAX {
                best = x;
            }
        }
        decade *= 10;
    }
    best
}

/// The rate after one step: ←/→ along the 1-2-5 ladder (from unlimited, ← lands on the
/// ladder's top; above it, → is unlimited), -/+ by a tenth (at least one I/O per second).
/// 0 is unlimited.
fn stepped_rate(rate: u64, step: Step) -> u64 {
    match (rate, step) {
        (0, Step::Up | Step::Plus) => 0,
        (0, Step::Down | Step::Minus) => RATE_LADDER_MAX,
        (r, Step::Up) if r >= RATE_LADDER_MAX => 0,
        (r, Step::Up) => {
            let below = rate_ladder_at_or_below(r);
            let mut next = below;
            while next <= r {
                next = next_ladder(next);
            }
            next
        }
        (r, Step::Down) => {
            let below = rate_ladder_at_or_below(r);
            if below < r { below } else { prev_ladder(r) }
        }
        (r, Step::Plus) => (r + (r / 10).max(1)).min(MAX_RATE_IOPS),
        (r, Step::Minus) => r.saturating_sub((r / 10).max(1)).max(1),
    }
}

/// The fractions of the disk's measured IOPS the rate slider's ←/→ step through, in percent.
pub const RATE_FRACTIONS: [u64; 13] = [1, 2, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100];

/// The rate after one ←/→ step when the disk's unpaced IOPS `base` is known: along
/// `RATE_FRACTIONS` of it (from unlimited, ← is 90%; from 100% and above, → is unlimited;
/// below 1%, ← halves down to one I/O per second). 0 is unlimited.
pub fn rate_by_fraction(rate: u64, base: u64, up: bool) -> u64 {
    let of = |pct: u64| (base * pct).div_ceil(100).max(1);
    if rate == 0 {
        return if up { 0 } else { of(90) };
    }
    let pct = rate as f64 * 100.0 / base.max(1) as f64;
    // A rate within half a percent of a fraction counts as it.
    let near = |p: u64| (pct - p as f64).abs() < 0.5;
    if up {
        RATE_FRACTIONS
            .iter()
            .find(|p| **p as f64 > pct && !near(**p))
            .map_or(0, |p| of(*p))
    } else {
        RATE_FRACTIONS
            .iter()
            .rev()
            .find(|p| (**p as f64) < pct && !near(**p))
            .map_or((rate / 2).max(1), |p| of(*p))
    }
}

/// The ladder value after `v` (a ladder value): 1 → 2 → 5 → 10.
fn next_ladder(v: u64) -> u64 {
    let lead = v / 10u64.pow(v.ilog10());
    if lead == 2 { v / 2 * 5 } else { v * 2 }
}

/// The ladder value before `v` (a ladder value), at least `RATE_LADDER_MIN`.
fn prev_ladder(v: u64) -> u64 {
    let lead = v / 10u64.pow(v.ilog10());
    let p = if lead == 5 { v / 5 * 2 } else { v / 2 };
    p.max(RATE_LADDER_MIN)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_halves_doubles_and_steps_by_one_within_limits() {
        let d = |iodepth, step| {
            let s = Settings {
                iodepth,
                ..Settings::default()
            };
            stepped(s, Knob::QueueDepth, step, false).map(|n| n.iodepth)
        };
        assert_eq!(d(1, Step::Down), Ok(1));
        assert_eq!(d(32, Step::Up), Ok(64));
        assert_eq!(d(32, Step::Plus), Ok(33));
        assert_eq!(d(256, Step::Up), Ok(256));
        assert_eq!(d(256, Step::Minus), Ok(255));
    }

    #[test]
    fn threads_halve_double_and_step_by_one_within_limits() {
        let s = Settings {
            threads: 1,
            ..Settings::default()
        };
        let t = |s, step| stepped(s, Knob::Threads, step, false).map(|n| n.threads);
        assert_eq!(t(s, Step::Down), Ok(1));
        assert_eq!(t(s, Step::Up), Ok(2));
        assert_eq!(t(s, Step::Plus), Ok(2));
        let s = Settings { threads: 1024, ..s };
        assert_eq!(t(s, Step::Up), Ok(1024));
        assert_eq!(t(s, Step::Plus), Ok(1024));
        assert_eq!(t(s, Step::Minus), Ok(1023));
        assert_eq!(t(s, Step::Down), Ok(512));
    }

    #[test]
    fn block_size_moves_by_powers_of_two_from_any_start() {
        let b = |bs, step| {
            stepped(
                Settings {
                    bs,
                    ..Settings::default()
                },
                Knob::BlockSize,
                step,
                false,
            )
            .map(|n| n.bs)
        };
        assert_eq!(b(4096, Step::Up), Ok(8192));
        assert_eq!(b(4096, Step::Down), Ok(2048));
        assert_eq!(b(512, Step::Down), Ok(512));
        assert_eq!(b(MAX_BS, Step::Up), Ok(MAX_BS));
        assert_eq!(b(3072, Step::Up), Ok(4096));
        assert_eq!(b(3072, Step::Down), Ok(2048));
    }

    #[test]
    fn rate_walks_the_ladder_with_unlimited_above_it() {
        let r = |rate_iops, step| {
            let s = Settings {
                rate_iops,
                ..Settings::default()
            };
            stepped(s, Knob::Rate, step, false).map(|n| n.rate_iops)
        };
        assert_eq!(r(0, Step::Up), Ok(0));
        assert_eq!(r(0, Step::Down), Ok(10_000_000));
        assert_eq!(r(10_000_000, Step::Up), Ok(0));
        assert_eq!(r(1000, Step::Up), Ok(2000));
        assert_eq!(r(2000, Step::Up), Ok(5000));
        assert_eq!(r(5000, Step::Up), Ok(10_000));
        assert_eq!(r(5000, Step::Down), Ok(2000));
        assert_eq!(r(2000, Step::Down), Ok(1000));
        assert_eq!(r(1000, Step::Down), Ok(500));
        assert_eq!(r(100, Step::Down), Ok(100));
        // Off the ladder (typed, or after +/-): the next ladder value either way.
        assert_eq!(r(3300, Step::Up), Ok(5000));
        assert_eq!(r(3300, Step::Down), Ok(2000));
        assert_eq!(r(1000, Step::Plus), Ok(1100));
        assert_eq!(r(1000, Step::Minus), Ok(900));
        assert_eq!(r(5, Step::Minus), Ok(4));
        assert_eq!(r(1, Step::Minus), Ok(1));
        assert_eq!(rate_ladder_at_or_below(31_000), 20_000);
        assert_eq!(rate_ladder_at_or_below(50), 100);
    }

    #[test]
    fn rate_steps_are_fractions_of_what_the_disk_does() {
        let f = rate_by_fraction;
        assert_eq!(f(0, 14_000, false), 12_600, "unlimited, ← is 90%");
        assert_eq!(f(12_600, 14_000, false), 11_200);
        assert_eq!(f(12_600, 14_000, true), 14_000);
        assert_eq!(f(14_000, 14_000, true), 0, "100%, → is unlimited");
        assert_eq!(f(20_000, 14_000, true), 0);
        assert_eq!(f(140, 14_000, false), 70, "below 1% halves");
        assert_eq!(f(1, 14_000, false), 1);
        assert_eq!(
            f(1000, 14_000, true),
            1400,
            "between fractions: the next one"
        );
        assert_eq!(f(1000, 14_000, false), 700);
    }

    #[test]
    fn read_below_100_needs_writes_allowed() {
        let s = Settings::default();
        assert!(stepped(s, Knob::ReadPct, Step::Down, false).is_err());
        assert_eq!(
            stepped(s, Knob::ReadPct, Step::Down, true).map(|n| n.read_pct),
            Ok(95)
        );
        assert_eq!(
            stepped(s, Knob::RandomPct, Step::Down, false).map(|n| n.random_pct),
            Ok(90)
        );
    }
}
