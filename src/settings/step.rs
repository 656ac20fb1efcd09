//! Moving one setting a step, as the TUI's sliders do: threads, queue depth and block size
//! halve and double (threads and depth also move by one), percentages move by 5 or 10; every result stays within
//! the limits, and lowering read % needs writes allowed.

use super::{MAX_BS, MAX_IODEPTH, MAX_THREADS, Settings};

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
}

impl Knob {
    /// The sliders, top to bottom.
    pub const ALL: [Knob; 5] = [
        Knob::Threads,
        Knob::QueueDepth,
        Knob::BlockSize,
        Knob::ReadPct,
        Knob::RandomPct,
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
    }
    Ok(n)
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
