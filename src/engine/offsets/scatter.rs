//! The scatter bijection: rank → block, one to one over exactly the span's blocks, so the
//! hottest ranks land all over the span rather than in one contiguous run (a cache would
//! otherwise see a sequential hot band, and a drive's hot zone would be its first tracks). It
//! is keyed by constants, not by the run's seed: the hottest block of a span is the same in
//! every run, so runs compare (fio's moved with the seed until its PR 1155).
//!
//! A Feistel network over the ⌈log₂ n⌉ bits of the rank, its two halves (of unequal width
//! when the bit count is odd) each xor-ed in turn with a mix of the other — each step undoes
//! itself, so the whole is a permutation of `0..2^bits` — and cycle-walking: a result at or
//! above `n` is permuted again until it falls below. That restricts the permutation to
//! `0..n` (the walk from a rank below n returns below n before it could come back to the rank),
//! and as `2^bits < 2n` it takes fewer than two rounds of the network on average.

/// Round keys: fixed, so the hot spot does not move with the seed.
const KEYS: [u64; 4] = [
    0x9e37_79b9_7f4a_7c15,
    0xbf58_476d_1ce4_e5b9,
    0x94d0_49bb_1331_11eb,
    0x2545_f491_4f6c_dd1d,
];

/// A permutation of `0..n`.
#[derive(Debug, Clone)]
pub struct Scatter {
    n: u64,
    low_bits: u32,
    low_mask: u64,
    high_mask: u64,
}

impl Scatter {
    pub fn new(n: u64) -> Scatter {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(2);
        let low_bits = bits / 2;
        Scatter {
            n,
            low_bits,
            low_mask: (1u64 << low_bits) - 1,
            high_mask: (1u64 << (bits - low_bits)) - 1,
        }
    }

    /// The block of `rank` (`rank < n`).
    #[inline]
    pub fn block(&self, rank: u64) -> u64 {
        if self.n <= 1 {
            return 0;
        }
        let mut x = rank;
        loop {
            x = self.permute(x);
            if x < self.n {
                return x;
            }
        }
    }

    /// One pass of the network over `0..2^bits`.
    #[inline]
    fn permute(&self, x: u64) -> u64 {
        let mut lo = x & self.low_mask;
        let mut hi = x >> self.low_bits;
        for (i, key) in KEYS.iter().enumerate() {
            if i % 2 == 0 {
                hi ^= mix(lo ^ key) & self.high_mask;
            } else {
                lo ^= mix(hi ^ key) & self.low_mask;
            }
        }
        (hi << self.low_bits) | lo
    }
}

/// SplitMix64's finalizer: every input bit moves about half the output bits.
#[inline]
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::Scatter;

    #[test]
    fn is_a_permutation_of_exactly_the_span() {
        for n in [1u64, 2, 3, 5, 64, 100, 1000, 4097, 65_535] {
            let s = Scatter::new(n);
            let mut seen = vec![false; n as usize];
            for r in 0..n {
                let b = s.block(r);
                assert!(b < n, "n {n}: rank {r} → {b}");
                assert!(!seen[b as usize], "n {n}: block {b} twice");
                seen[b as usize] = true;
            }
        }
    }

    #[test]
    fn hot_ranks_are_spread_not_a_run() {
        // The hottest 1 % of a million blocks: how many of the 100 hundredths of the span
        // they fall into. A contiguous run would touch 1 or 2.
        let n = 1_000_000u64;
        let s = Scatter::new(n);
        let mut parts = [false; 100];
        for r in 0..n / 100 {
            parts[(s.block(r) * 100 / n) as usize] = true;
        }
        assert_eq!(parts.iter().filter(|p| **p).count(), 100);
        // And the same span always puts rank 0 on the same block.
        assert_eq!(s.block(0), Scatter::new(n).block(0));
    }
}
