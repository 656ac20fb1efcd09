//! Property tests: the size and duration parsers never panic and round-trip what they format,
//! and the offset generator stays aligned and in range for any span, block size, mix and
//! thread layout.

use std::time::Duration;

use diskscope::engine::pattern::OffsetGen;
use diskscope::units::{format_block_size, parse_duration, parse_size};
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::SmallRng;

proptest! {
    #[test]
    fn parse_size_never_panics(s in "\\PC{0,12}") {
        let _ = parse_size(&s);
    }

    #[test]
    fn parse_duration_never_panics(s in "\\PC{0,12}") {
        let _ = parse_duration(&s);
    }

    #[test]
    fn sizes_with_units_parse_to_the_right_bytes(n in 0u64..1_000_000, unit in 0usize..5, spelling in 0usize..3) {
        let suffix = [["", "", "b"], ["k", "K", "KiB"], ["m", "M", "MiB"], ["g", "G", "GiB"], ["t", "T", "TiB"]][unit][spelling];
        let parsed = parse_size(&format!("{n}{suffix}"));
        prop_assert_eq!(parsed, Ok(n << (10 * unit)));
    }

    #[test]
    fn formatted_block_sizes_parse_back(shift in 9u32..34, mult in 1u64..8) {
        let bytes = mult << shift;
        prop_assert_eq!(parse_size(&format_block_size(bytes)), Ok(bytes));
    }

    #[test]
    fn whole_durations_parse(n in 0u64..100_000, unit in 0usize..4) {
        let (suffix, scale_ms) = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)][unit];
        prop_assume!(n * scale_ms <= 365 * 86_400_000);
        prop_assert_eq!(parse_duration(&format!("{n}{suffix}")), Ok(Duration::from_millis(n * scale_ms)));
    }

    #[test]
    fn decimal_seconds_are_exact(whole in 0u64..1000, millis in 0u64..1000) {
        prop_assert_eq!(parse_duration(&format!("{whole}.{millis:03}s")), Ok(Duration::from_millis(whole * 1000 + millis)));
    }

    #[test]
    fn offsets_are_aligned_and_in_range(
        span in 1u64..(1 << 44),
        bs_shift in 9u32..25,
        random_pct in 0u8..=100,
        threads in 1usize..1025,
        index_seed in any::<usize>(),
        seed in any::<u64>(),
    ) {
        let bs = 1u64 << bs_shift;
        prop_assume!(bs <= span);
        let index = index_seed % threads;
        let mut g = OffsetGen::new(span, bs, random_pct, index, threads);
        let mut rng = SmallRng::seed_from_u64(seed);
        for _ in 0..200 {
            let off = g.next_offset(&mut rng);
            prop_assert_eq!(off % bs, 0);
            prop_assert!(off + bs <= span, "{} + {} > {}", off, bs, span);
        }
    }
}
