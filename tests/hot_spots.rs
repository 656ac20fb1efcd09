//! Skewed offsets over a large span do what their distribution says: over 2^27 blocks, the
//! number of distinct blocks a run of draws touches and the share on the hottest 1 % match
//! the distribution's expectation (fio's Zipf touched 15.5 M of 537 M offsets in a test meant
//! to cover them, fio issue 1991: a table cut short, or hashed ranks colliding, shows here as
//! too few distinct blocks). The expectation is computed, not sampled: E[distinct] =
//! Σₖ 1 − (1 − pₖ)ᵀ over every rank k, exactly for the first 2^20 ranks and by the midpoint of
//! runs of ranks whose probability changes by under 0.1 % beyond.
//!
//! Tolerances: distinct blocks within 0.5 % (the count's own standard deviation is under
//! 0.05 % at these sizes, the midpoint sum's error far below); the hottest 1 %'s share within
//! 0.25 points (five binomial standard deviations of 2^22 draws are at most 0.13 points).

mod common;

use common::{diskscope, json, make_file, stderr, workdir};
use diskscope::engine::offsets::{Heat, Sampler};
use diskscope::settings::Distribution;
use diskscope::settings::promise::{
    harmonic, hot_band_blocks, pareto_share, share_of_top, top_blocks,
};
use rand::SeedableRng;
use rand::rngs::SmallRng;

const BLOCKS: u64 = 1 << 27;
const DRAWS: u64 = 1 << 22;

/// Σₖ 1 − (1 − pₖ)ᵀ for ranks `0..n`, `p(k)` the probability of rank k.
fn expected_distinct(n: u64, draws: u64, p: impl Fn(u64) -> f64) -> f64 {
    let hit = |pk: f64| -(draws as f64 * (-pk).ln_1p()).exp_m1();
    let exact = n.min(1 << 20);
    let mut sum: f64 = (0..exact).map(|k| hit(p(k))).sum();
    let mut k = exact;
    while k < n {
        let width = (k / 1024).clamp(1, n - k);
        sum += width as f64 * hit(p(k + width / 2));
        k += width;
    }
    sum
}

fn expected(dist: Distribution) -> f64 {
    let n = BLOCKS;
    match dist {
        Distribution::Uniform => expected_distinct(n, DRAWS, |_| 1.0 / n as f64),
        Distribution::Zipf { theta_milli } => {
            let theta = f64::from(theta_milli) / 1000.0;
            let total = harmonic(n, theta);
            expected_distinct(n, DRAWS, |k| ((k + 1) as f64).powf(-theta) / total)
        }
        Distribution::Pareto { h_milli } => {
            let h = f64::from(h_milli) / 1000.0;
            expected_distinct(n, DRAWS, |k| {
                pareto_share(h, (k + 1) as f64 / n as f64) - pareto_share(h, k as f64 / n as f64)
            })
        }
        Distribution::HotBand { io_pct, span_pct } => {
            let hot = hot_band_blocks(n, span_pct);
            let io = f64::from(io_pct) / 100.0;
            expected_distinct(n, DRAWS, |k| {
                if k < hot {
                    io / hot as f64
                } else {
                    (1.0 - io) / (n - hot) as f64
                }
            })
        }
    }
}

#[test]
fn distinct_blocks_and_the_hottest_share_match_the_distribution_over_2_pow_27_blocks() {
    let mut failures = Vec::new();
    for dist in [
        Distribution::Uniform,
        Distribution::Zipf { theta_milli: 800 },
        Distribution::Zipf { theta_milli: 1200 },
        Distribution::Pareto { h_milli: 900 },
        Distribution::HotBand {
            io_pct: 90,
            span_pct: 10,
        },
    ] {
        let sampler = Sampler::new(BLOCKS, dist);
        let mut rng = SmallRng::seed_from_u64(0x5eed);
        let mut seen = vec![0u64; (BLOCKS / 64) as usize];
        let (mut distinct, mut top1) = (0u64, 0u64);
        for _ in 0..DRAWS {
            let (block, heat) = sampler.next(&mut rng);
            assert!(block < BLOCKS, "{dist:?}: block {block} off the span");
            let (word, bit) = ((block / 64) as usize, 1u64 << (block % 64));
            distinct += u64::from(seen[word] & bit == 0);
            seen[word] |= bit;
            top1 += u64::from(heat == Heat::Top1);
        }
        let want_distinct = expected(dist);
        let share = top1 as f64 / DRAWS as f64;
        let want_share = share_of_top(dist, BLOCKS, top_blocks(BLOCKS, 1));
        let off = (distinct as f64 / want_distinct - 1.0).abs();
        let line = format!(
            "{}: {distinct} distinct blocks, expected {want_distinct:.0} ({:+.3} %); hottest 1 % got {:.3} %, promised {:.3} %",
            dist.fio_spelling(),
            (distinct as f64 / want_distinct - 1.0) * 100.0,
            share * 100.0,
            want_share * 100.0
        );
        println!("{line}");
        if off > 0.005 || (share - want_share).abs() > 0.0025 {
            failures.push(line);
        }
    }
    assert!(
        failures.is_empty(),
        "outside tolerance:\n{}",
        failures.join("\n")
    );
}

/// The hottest block is a property of the span, not of the seed: two runs with different
/// seeds agree on which blocks are hot (fio's moved with the seed until its PR 1155).
#[test]
fn the_hottest_blocks_do_not_move_with_the_seed() {
    let n = 1u64 << 30;
    let sampler = Sampler::new(n, Distribution::Zipf { theta_milli: 1500 });
    let hottest = |seed: u64| {
        let mut rng = SmallRng::seed_from_u64(seed);
        let mut counts = std::collections::HashMap::new();
        for _ in 0..20_000 {
            *counts.entry(sampler.next(&mut rng).0).or_insert(0u32) += 1;
        }
        let mut v: Vec<_> = counts.into_iter().collect();
        v.sort_by_key(|&(b, c)| (std::cmp::Reverse(c), b));
        v.into_iter().take(3).map(|(b, _)| b).collect::<Vec<_>>()
    };
    assert_eq!(hottest(1), hottest(2));
    // And they are scattered: the three hottest are not neighbours.
    let h = hottest(3);
    assert!(h.windows(2).all(|w| w[0].abs_diff(w[1]) > 1), "{h:?}");
}

/// A run says what it did: JSON carries the distribution in fio's spelling, and per period
/// the share of its random I/Os on the hottest 1 % and 10 % of blocks, measured beside
/// promised; the counts it came from add up; the text summary prints the same figures.
#[test]
fn a_run_reports_its_hot_spots_measured_beside_promised() {
    let dir = workdir();
    let file = dir.path().join("t.img");
    make_file(&file, 16 << 20);
    let path = file.to_str().unwrap();
    let args = [
        path,
        "--random-distribution",
        "zipf:1.2",
        "-T",
        "1s",
        "--buffered",
    ];
    let v = json(&diskscope(dir.path(), &[&args[..], &["--json"]].concat()));
    assert_eq!(v["config"]["random_distribution"], "zipf:1.2", "{v}");
    let h = &v["hot_spots"][0];
    assert_eq!(h["random_distribution"], "zipf:1.2", "{h}");
    assert_eq!(h["blocks"], 4096, "{h}");
    let total = &v["total"];
    let random = total["random_issued"].as_u64().unwrap();
    assert!(random > 0, "{total}");
    assert_eq!(random, total["issued"].as_u64().unwrap(), "{total}");
    assert_eq!(h["random_ios"].as_u64(), Some(random), "{h}");
    for (key, count) in [("top1", "top1_issued"), ("top10", "top10_issued")] {
        let measured = h[key]["measured"].as_f64().unwrap();
        let promised = h[key]["promised"].as_f64().unwrap();
        let issued = total[count].as_u64().unwrap() as f64;
        assert!((measured - issued / random as f64).abs() < 1e-12, "{h}");
        // Binomial: within five standard deviations of the promise, however few I/Os a
        // loaded machine issued in the second.
        let sd = (promised * (1.0 - promised) / random as f64).sqrt();
        assert!((measured - promised).abs() <= 5.0 * sd + 1e-9, "{key}: {h}");
    }
    let text = diskscope(dir.path(), &args);
    assert!(text.status.success(), "{}", stderr(&text));
    let out = String::from_utf8_lossy(&text.stdout);
    assert!(
        out.contains("4k random (zipf 1.2) read")
            && out.contains("hot spots, zipf 1.2: hottest 1 % of blocks got "),
        "{out}"
    );
}

#[test]
fn a_bad_distribution_is_one_line_saying_what_is_taken() {
    let dir = workdir();
    let out = diskscope(dir.path(), &["--random-distribution", "zipf:7", "--no-tui"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("--random-distribution") && err.contains("zipf takes θ from 0.001 to 3"),
        "{err}"
    );
}

/// `--baseline` says when the baseline's random offsets were shaped differently.
#[test]
fn a_baseline_with_another_distribution_is_said_to_differ() {
    let dir = workdir();
    let d = dir.path();
    make_file(&d.join("disk.img"), 16 << 20);
    let run = |extra: &[&str]| {
        let mut args = vec!["disk.img", "-T", "300ms", "-q"];
        args.extend_from_slice(extra);
        let out = diskscope(d, &args);
        assert!(out.status.success(), "{}", stderr(&out));
        String::from_utf8(out.stdout).unwrap()
    };
    run(&["--random-distribution", "zipf:1.2", "--json=zipf.json"]);
    let text = run(&["--baseline", "zipf.json"]);
    assert!(
        text.contains("measured something else: random offsets zipf:1.2 then, random now"),
        "{text}"
    );
    let same = run(&[
        "--random-distribution",
        "zipf:1.2",
        "--baseline",
        "zipf.json",
    ]);
    assert!(!same.contains("measured something else"), "{same}");
}
