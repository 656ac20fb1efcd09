//! Property tests: the size and duration parsers never panic and round-trip what they format,
//! and the offset generator stays aligned and in range for any span, block size, mix and
//! thread layout.

use std::time::Duration;

use diskscope::engine::pattern::OffsetGen;
use diskscope::settings::Distribution;
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
        shape in 0usize..4,
        skew in 1u32..1000,
    ) {
        let bs = 1u64 << bs_shift;
        prop_assume!(bs <= span);
        let index = index_seed % threads;
        // Every distribution's blocks stay on the span: Zipf over θ 0.003..3, Pareto and the
        // hot band over their whole range.
        let dist = match shape {
            0 => Distribution::Uniform,
            1 => Distribution::Zipf { theta_milli: skew * 3 },
            2 => Distribution::Pareto { h_milli: skew },
            _ => Distribution::HotBand { io_pct: (skew % 101) as u8, span_pct: (skew % 99 + 1) as u8 },
        };
        let mut g = OffsetGen::new(span, bs, random_pct, dist, index, threads);
        let mut rng = SmallRng::seed_from_u64(seed);
        for _ in 0..200 {
            let off = g.next_offset(&mut rng);
            prop_assert_eq!(off % bs, 0);
            prop_assert!(off + bs <= span, "{} + {} > {}", off, bs, span);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Text from outside (a path, a jobname, a sysfs string) at each output boundary: any string,
// control characters and markup included, leaves as well-formed XML in an SVG, as terminal
// text without a control but line feed and tab, and as a CSV field that reads back the same.
// ---------------------------------------------------------------------------------------------

/// A real run's JSON, made once by the binary on a small file.
fn saved_run() -> &'static diskscope::model::RunReport {
    static RUN: std::sync::OnceLock<diskscope::model::RunReport> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let file = dir.path().join("t.img");
        std::fs::write(&file, vec![7u8; 1 << 20]).unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_diskscope"))
            .args([file.to_str().unwrap(), "--json", "-T", "1s"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    })
}

fn no_controls_but(text: &str, allowed: &[char]) -> Result<(), TestCaseError> {
    let bad: Vec<char> = text
        .chars()
        .filter(|c| c.is_control() && !allowed.contains(c))
        .collect();
    prop_assert!(bad.is_empty(), "controls left: {:?}", bad);
    Ok(())
}

/// Any string, weighted to the characters that break outputs.
fn nasty() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            prop::char::range('\u{0}', '\u{1f}'),
            prop::char::range('\u{7f}', '\u{9f}'),
            prop::sample::select(vec!['<', '>', '&', '"', '\'', ',', '\n', '\r', ']', '$']),
            any::<char>(),
        ],
        0..24,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_chart_of_any_target_name_is_xml_without_controls(name in nasty()) {
        let mut r = saved_run().clone();
        r.config.target.path = name;
        let svg = diskscope::render::chart::plot_run(&r).unwrap();
        if let Err(e) = roxmltree::Document::parse(&svg) {
            return Err(TestCaseError::fail(format!("not XML: {e}")));
        }
        no_controls_but(&svg, &['\n', '\t', '\r'])?;
    }

    #[test]
    fn terminal_text_of_any_target_name_holds_no_control(name in nasty()) {
        let mut r = saved_run().clone();
        r.config.target.path = name;
        r.config.warnings.push(format!("of {}", r.config.target.path));
        let text = diskscope::render::text::summary(&r, false);
        no_controls_but(&diskscope::escape::terminal(&text), &['\n', '\t'])?;
    }

    #[test]
    fn terminal_text_of_any_bytes_holds_no_control(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let text = String::from_utf8_lossy(&bytes);
        no_controls_but(&diskscope::escape::terminal(&text), &['\n', '\t'])?;
    }

    #[test]
    fn a_csv_row_of_any_target_name_reads_back_the_same(name in nasty()) {
        let row = diskscope::render::disks::csv_row(&name, &saved_run().intervals[0]);
        let text = format!("{}\n{row}\n", diskscope::render::disks::csv_header());
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let records: Vec<csv::StringRecord> = reader.records().map(|r| r.unwrap()).collect();
        prop_assert_eq!(records.len(), 1);
        prop_assert_eq!(&records[0][0], name.as_str());
    }
}
