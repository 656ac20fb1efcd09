//! What one I/O does: read its block, write it, or trim it (discard it: `--trim`, fio's
//! `trim`). Drawn per I/O from the settings: first the trim share, then of the rest the read
//! share, so `--trim 20 --read 50` is 20 % trims, 40 % reads and 40 % writes. The direction
//! also rides in the latency's tag bits to the sampler (`stats::sides`).

use rand::RngExt;
use rand::rngs::SmallRng;

use crate::settings::Settings;
use crate::stats::{TRIM_TAG, WRITE_TAG};

/// One I/O's direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    /// A discard of the block (BLKDISCARD, or io_uring's block discard command).
    Trim,
}

impl Op {
    /// The next I/O's direction under `s`: a trim with `trim_pct` % (only where `may_trim`:
    /// the target was checked to discard), else a read with `read_pct` %, else a write.
    #[inline]
    pub fn draw(s: &Settings, may_trim: bool, rng: &mut SmallRng) -> Op {
        let pct = |p: u8, rng: &mut SmallRng| {
            let p = u32::from(p);
            p >= 100 || (p > 0 && rng.random_range(0..100u32) < p)
        };
        if may_trim && pct(s.trim_pct, rng) {
            Op::Trim
        } else if pct(s.read_pct, rng) {
            Op::Read
        } else {
            Op::Write
        }
    }

    /// The name in error records and messages: "read", "write", "trim".
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
        }
    }

    /// The latency `ns` tagged with this direction for the sampler.
    #[inline]
    pub fn tag(self, ns: u64) -> u64 {
        match self {
            Op::Read => ns,
            Op::Write => ns | WRITE_TAG,
            Op::Trim => ns | TRIM_TAG,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn trims_take_their_share_first_and_reads_split_the_rest() {
        let s = Settings {
            trim_pct: 20,
            read_pct: 50,
            ..Settings::default()
        };
        let mut rng = SmallRng::seed_from_u64(4);
        let n = 100_000;
        let mut seen = [0u32; 3];
        for _ in 0..n {
            seen[Op::draw(&s, true, &mut rng) as usize] += 1;
        }
        let share = seen.map(|c| f64::from(c) / f64::from(n));
        for (got, want) in share.iter().zip([0.4, 0.4, 0.2]) {
            assert!((got - want).abs() < 0.01, "{share:?}");
        }
        // A target not checked for discards never gets a trim, whatever the settings say.
        assert!((0..1000).all(|_| Op::draw(&s, false, &mut rng) != Op::Trim));
        let all = Settings { trim_pct: 100, ..s };
        assert!((0..1000).all(|_| Op::draw(&all, true, &mut rng) == Op::Trim));
    }
}
