//! Charts of fio's own JSON, and of results long enough to need thinning: every fixture
//! draws and parses; json+ percentiles drawn agree with fio's own table; a client/server
//! run names its hosts; status-interval snapshots become one point per interval; an hour of
//! intervals and ten thousand fio jobs stay under a megabyte with their spikes kept. The
//! ignored test at the end times the drawing alone, inside the library (`scripts/bench-plot`
//! times the binary).

mod chart_common;

use std::time::Instant;

use chart_common::*;
use diskscope::fio::json as fio_json;
use diskscope::render::chart::{self, Provenance, style};

fn blue() -> String {
    style::Tone::Primary.hex()
}

#[test]
fn every_fio_fixture_draws() {
    let p = Provenance::default();
    for f in FIO_FIXTURES {
        let text = fixture(f);
        let svg = Svg::of(chart::fio_svg(&text, &p).unwrap_or_else(|e| panic!("{f}: {e}")));
        assert!(
            svg.has_text("fio-3.33, drawn by diskscope"),
            "{f}: provenance"
        );
        assert!(svg.has_text("randread bs=4096"), "{f}: what was tested");
        if let Some(l) = chart::fio_latency_svg(&text, &p).unwrap() {
            Svg::of(l);
        }
    }
    assert!(chart::fio_svg("not fio", &p).is_err());
    assert!(
        chart::fio_latency_svg(&fixture("plain"), &p)
            .unwrap()
            .is_none(),
        "plain json has no bins"
    );
}

/// The chart draws the jobs of the reader's final snapshots: every job, one bar each.
#[test]
fn the_chart_draws_the_readers_jobs() {
    for f in FIO_FIXTURES {
        let out = fio_json::parse(&fixture(f)).unwrap();
        let last = out.finals().len();
        assert!(last >= 1 && out.final_jobs().len() >= last, "{f}");
    }
    let out = fio_json::parse(&many_jobs(300)).unwrap();
    assert_eq!(out.final_jobs().len(), 300);
}

#[test]
fn json_plus_percentiles_agree_with_fios_own_table() {
    let text = fixture("jsonplus");
    let (bins, basis) = chart::from_fio_bins::fio_bins(&text).unwrap();
    assert_eq!(basis, "total latency (fio's lat)");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    let lat = &doc["jobs"][0]["read"]["lat_ns"];
    assert_eq!(
        bins.iter().map(|b| b.1).sum::<u64>(),
        lat["N"].as_u64().unwrap()
    );
    for (q, key) in [
        (0.5, "50.000000"),
        (0.99, "99.000000"),
        (0.999, "99.900000"),
        (0.9999, "99.990000"),
    ] {
        let fio = lat["percentile"][key].as_u64().unwrap();
        assert_eq!(
            chart::from_fio_bins::bins_percentile(&bins, q),
            fio,
            "p{key}"
        );
    }
    let svg = Svg::of(
        chart::fio_latency_svg(&text, &Provenance::default())
            .unwrap()
            .unwrap(),
    );
    assert!(svg.has_text("p99 71.2 µs"), "fio's p99 is 71168 ns");
    assert!(svg.has_text("all 45,524 I/Os"));
}

#[test]
fn a_client_server_result_is_a_bar_per_host() {
    let text = fixture("clientserver");
    let svg = Svg::of(chart::fio_svg(&text, &Provenance::default()).unwrap());
    for host in ["127.0.0.2", "127.0.0.3"] {
        assert!(svg.texts().iter().any(|t| t == host), "{host}");
    }
    // Two bars and the legend's swatch; each bar as tall as its host's IOPS.
    let out = fio_json::parse(&text).unwrap();
    let fleet = diskscope::fleet::results::from_fio(&out, diskscope::fleet::DEFAULT_OUTLIER_PCT);
    let bars = &svg.rects(&blue())[1..];
    assert_eq!(bars.len(), 2);
    let ratio = bars[0].3 / bars[1].3;
    let want = fleet.hosts[0].total.unwrap().iops / fleet.hosts[1].total.unwrap().iops;
    assert!((ratio - want).abs() < 0.01, "{ratio} vs {want}");
    let failed = Svg::of(
        chart::fio_svg(&fixture("clientserver-one-failed"), &Provenance::default()).unwrap(),
    );
    assert!(failed.has_text("127.0.0.3 failed: fio error 22"));
}

#[test]
fn status_interval_snapshots_become_one_point_per_interval() {
    let text = fixture("concatenated");
    let out = fio_json::parse(&text).unwrap();
    let sums: Vec<_> = out.snapshots.iter().map(|s| s.sum()).collect();
    let intervals = diskscope::fleet::results::intervals(&sums);
    let svg = Svg::of(chart::fio_svg(&text, &Provenance::default()).unwrap());
    let lines = svg.polylines(&blue());
    assert_eq!(lines.len(), 2, "IOPS and MB/s");
    assert_eq!(lines[0].len(), intervals.len());
    let iops: Vec<f64> = intervals.iter().map(|i| i.figures.iops).collect();
    assert_linear(&lines[0], &iops);
    assert!(svg.has_text("no interval has a p99 of its own"));
}

#[test]
fn ten_thousand_fio_jobs_are_ranked_thinned_and_keep_their_outlier() {
    let text = many_jobs(10_000);
    let svg = Svg::of(chart::fio_svg(&text, &Provenance::default()).unwrap());
    assert!(svg.text.len() < 1 << 20, "{} bytes", svg.text.len());
    assert!(svg.has_text("fio, 10,000 jobs ranked by IOPS"));
    let line = &svg.polylines(&blue())[0];
    assert!(line.len() < 10_000 && line.len() >= 1000, "{}", line.len());
    // The slow job is the last, and thinning kept it: the line's lowest point.
    let lowest = line.iter().map(|p| p.1).fold(f64::MIN, f64::max);
    assert_eq!(line.last().unwrap().1, lowest);
    assert!(svg.has_text("pixel columns"));
    // A few jobs are named bars instead.
    let few = Svg::of(chart::fio_svg(&many_jobs(12), &Provenance::default()).unwrap());
    assert!(few.texts().iter().any(|t| t == "job7"));
}

/// A rate changed every second for an hour: 3,600 periods, more than can be shaded apart.
#[test]
fn thousands_of_periods_are_said_not_shaded() {
    let mut r = hour_run();
    for (k, i) in r.intervals.iter_mut().enumerate() {
        i.settings.rate_iops = 1000 + k as u64;
    }
    let svg = Svg::of(chart::run_svg(&r, None, &Provenance::default()).unwrap());
    assert!(svg.text.len() < 1 << 20, "{} bytes", svg.text.len());
    assert!(svg.has_text("3,600 periods are more than the chart can show apart"));
    assert!(svg.lines(&style::hex(style::BOUNDARY)).is_empty());
    assert!(svg.rects(&style::hex(style::SHADE)).is_empty());
}

#[test]
fn an_hour_of_intervals_is_thinned_under_a_megabyte_and_keeps_its_stall() {
    let r = hour_run();
    let svg = Svg::of(chart::run_svg(&r, None, &Provenance::default()).unwrap());
    assert!(svg.text.len() < 1 << 20, "{} bytes", svg.text.len());
    let lines = svg.polylines(&blue());
    assert!(
        lines.iter().all(|l| l.len() < 2 * 1200),
        "thinned to the columns"
    );
    // The stall's dip in IOPS and its spike in p99 both survive.
    let iops_low = lines[0].iter().map(|p| p.1).fold(f64::MIN, f64::max);
    let stall_px = lines[0].iter().find(|p| p.1 == iops_low).unwrap().0;
    let p99 = &svg.polylines(&style::Tone::Secondary.hex())[0];
    let p99_high = p99.iter().map(|p| p.1).fold(f64::MAX, f64::min);
    let spike_px = p99.iter().find(|p| p.1 == p99_high).unwrap().0;
    assert_eq!(
        stall_px, spike_px,
        "the dip and the spike stand in one column"
    );
    assert!(svg.has_text("over 1 h 00 min"));
    assert!(svg.has_text("time into the run (min)"));
    assert!(
        svg.texts().iter().any(|t| t == "30"),
        "a tick at 30 minutes"
    );
    assert!(svg.has_text("3,600 points per series are more than the"));
}

/// Times and sizes of the drawing alone, inside the library: `cargo test --release --test
/// chart_fio -- --ignored --exact bench_plot --nocapture` (`BENCH_PARTS=1` for the parts).
#[test]
#[ignore = "a measurement, not a check: run it in release mode"]
fn bench_plot() {
    let p = Provenance::default();
    let r = hour_run();
    let fio = many_jobs(10_000);
    let time = |name: &str, f: &dyn Fn() -> String| {
        let runs = 5;
        let start = Instant::now();
        let mut bytes = 0;
        for _ in 0..runs {
            bytes = f().len();
        }
        let ms = start.elapsed().as_secs_f64() * 1e3 / runs as f64;
        println!(
            "{name:<40} {ms:>8.1} ms  {:>8.1} KiB",
            bytes as f64 / 1024.0
        );
    };
    time("run of 3,600 intervals", &|| {
        chart::run_svg(&r, None, &p).unwrap()
    });
    time("fio JSON of 10,000 jobs (incl. parsing)", &|| {
        chart::fio_svg(&fio, &p).unwrap()
    });
    let mut paced = hour_run();
    for (k, i) in paced.intervals.iter_mut().enumerate() {
        i.settings.rate_iops = 1000 + k as u64;
    }
    time("run of 3,600 intervals, each its own period", &|| {
        chart::run_svg(&paced, None, &p).unwrap()
    });
    println!(
        "fio JSON input: {:.1} MiB",
        fio.len() as f64 / (1 << 20) as f64
    );
    if std::env::var("BENCH_PARTS").is_ok() {
        let parse = || format!("{}", fio_json::parse(&fio).unwrap().snapshots.len());
        time("  of which fio_json::parse", &parse);
        let out = fio_json::parse(&fio).unwrap();
        time("  of which FioOutput::final_jobs", &|| {
            format!("{}", out.final_jobs().len())
        });
        time("  of which fio_json::documents", &|| {
            format!("{}", fio_json::documents(&fio).len())
        });
    }
}
