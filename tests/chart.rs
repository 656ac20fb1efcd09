//! The charts as a person and a parser read them: every SVG parses as XML, holds one point
//! per interval or step where nothing was thinned, draws each value where the axis says it
//! is, names its axes with units, says what was tested in the title, and marks the periods,
//! the saturation step and the knee. Synthetic results stand in for runs (the report types
//! are built, not deserialized); fio's JSON is read from the real fixtures.

use std::time::Duration;

use diskscope::chart::{self, Provenance, style};
use diskscope::fleet::results::{self, Figures, HostResult, HostState};
use diskscope::fleet::{FleetConfig, FleetReport};
use diskscope::report::{
    ConfigReport, RunReport, SweepReport, TargetFacts, TargetKind, TotalReport,
};
use diskscope::settings::{IoEngine, Settings};
use diskscope::stats::{Counts, IntervalFigures, Latency, LeftOut, Log2Histogram};
use diskscope::suite::{DirectionResult, SuiteName, SuiteReport, TestResult};
use diskscope::sweep::{Dimension, latency_curve, saturation};

fn settings(threads: usize, bs: u64) -> Settings {
    Settings {
        threads,
        iodepth: 32,
        bs,
        ..Settings::default()
    }
}

fn config(s: Settings) -> ConfigReport {
    let facts = TargetFacts {
        path: "/dev/nvme0n1".into(),
        kind: TargetKind::BlockDevice,
        size_bytes: 1 << 40,
        device_bytes: Some(1 << 40),
        span_bytes: 1 << 40,
        logical_block_size: 512,
        direct: true,
        write_allowed: false,
    };
    ConfigReport::new(facts, s, Some(Duration::from_secs(60)))
        .with_engine(Some(IoEngine::IoUring), None)
}

/// One interval ending at `t_s` of `elapsed_s`, at `iops` with every I/O taking `lat_ns`
/// (a tenth of them 4× as long, so p99 differs from p50).
fn interval(t_s: f64, elapsed_s: f64, s: Settings, iops: f64, lat_ns: u64) -> IntervalFigures {
    let ops = (iops * elapsed_s).round() as u64;
    let mut l = Latency::default();
    l.record_n(lat_ns, ops - ops / 10);
    l.record_n(lat_ns * 4, ops / 10);
    let bytes = ops * s.bs;
    IntervalFigures {
        t_s,
        elapsed_s,
        settings: s,
        counts: Counts {
            ops,
            bytes,
            read_ops: ops,
            read_bytes: bytes,
            ..Counts::default()
        },
        iops: ops as f64 / elapsed_s,
        bw_bytes_per_s: bytes as f64 / elapsed_s,
        latency_ns: l.summary(),
        service_latency_ns: l.summary(),
        left_out: LeftOut::default(),
    }
}

fn run(intervals: Vec<IntervalFigures>) -> RunReport {
    let first = intervals[0].settings;
    let last = intervals[intervals.len() - 1].settings;
    let mut counts = Counts::default();
    for i in &intervals {
        counts.add(&i.counts);
    }
    let elapsed_s: f64 = intervals.iter().map(|i| i.elapsed_s).sum();
    RunReport {
        config: config(first),
        total: TotalReport {
            elapsed_s,
            counts,
            iops: counts.ops as f64 / elapsed_s,
            bw_bytes_per_s: counts.bytes as f64 / elapsed_s,
            latency_ns: intervals[0].latency_ns,
            service_latency_ns: intervals[0].latency_ns,
        },
        threads: Vec::new(),
        intervals,
        final_settings: last,
        errors: Vec::new(),
        left_out: LeftOut::default(),
        writeback: None,
        interrupted_by: None,
        cpu: None,
    }
}

/// An admin's demonstration: 1 thread, then 2, then 4, ten one-second intervals each.
fn demo_run() -> RunReport {
    let mut iv = Vec::new();
    for (k, threads) in [1usize, 2, 4].into_iter().enumerate() {
        for j in 0..10 {
            let t = (k * 10 + j + 1) as f64;
            let wobble = 1.0 + 0.02 * ((j * 7 % 5) as f64 - 2.0);
            iv.push(interval(
                t,
                1.0,
                settings(threads, 4096),
                150.0 * threads as f64 * wobble,
                6_000_000 + 40_000 * j as u64,
            ));
        }
    }
    run(iv)
}

fn sweep(dimension: Dimension, steps: Vec<IntervalFigures>) -> SweepReport {
    SweepReport {
        config: config(steps[0].settings),
        dimension,
        step_time_s: 5.0,
        saturation: saturation(dimension, &steps),
        latency_curve: latency_curve(&steps),
        steps,
        partial_step: None,
        errors: Vec::new(),
        interrupted_by: None,
    }
}

/// Threads 1 to 64 on a disk that stops scaling at 8.
fn thread_sweep() -> SweepReport {
    let steps = [1usize, 2, 4, 8, 16, 32, 64]
        .iter()
        .enumerate()
        .map(|(k, &t)| {
            let iops = 20_000.0 * (t.min(8) as f64) * (1.0 + 0.01 * k as f64);
            let lat = (1e9 * t as f64 * 32.0 / iops) as u64;
            interval(5.0 * (k + 1) as f64, 5.0, settings(t, 4096), iops, lat)
        })
        .collect();
    sweep(Dimension::Threads, steps)
}

/// `--sweep rate=curve` on a disk that does 30k IOPS: p99 flat, then the hockey stick.
fn curve_sweep() -> SweepReport {
    let unlimited = interval(5.0, 5.0, settings(4, 4096), 30_000.0, 4_000_000);
    let mut steps = vec![unlimited];
    for (k, rate) in diskscope::sweep::curve_rates(30_000.0)
        .into_iter()
        .enumerate()
    {
        let load = rate as f64 / 30_000.0;
        let lat = (120_000.0 / (1.0 - load.min(0.97)).powf(1.5)) as u64;
        let s = Settings {
            rate_iops: rate,
            ..settings(4, 4096)
        };
        let mut step = interval(10.0 + 5.0 * k as f64, 5.0, s, rate as f64 * 0.999, lat);
        let mut svc = Latency::default();
        svc.record_n(lat.min(600_000), step.counts.ops);
        step.service_latency_ns = svc.summary();
        steps.push(step);
    }
    sweep(Dimension::Rate, steps)
}

/// One test of a card: three passes per direction around `mb` MB/s (writes at 60% of
/// reads), or writes not run.
fn card_test(name: &str, bs: u64, random: bool, mb: f64, writes: bool) -> TestResult {
    let s = Settings {
        bs,
        random_pct: if random { 100 } else { 0 },
        ..Settings::default()
    };
    let direction = |scale: f64| {
        let passes: Vec<IntervalFigures> = [0.93, 1.0, 1.04]
            .iter()
            .enumerate()
            .map(|(k, f)| {
                interval(
                    5.0 * (k + 1) as f64,
                    5.0,
                    s,
                    mb * scale * f * 1e6 / bs as f64,
                    90_000,
                )
            })
            .collect();
        let lats: Vec<Latency> = passes
            .iter()
            .map(|p| {
                let mut l = Latency::default();
                l.record_n(90_000, p.counts.ops);
                l
            })
            .collect();
        DirectionResult::of(&passes, &lats.iter().collect::<Vec<_>>())
    };
    TestResult {
        name: name.into(),
        bs,
        iodepth: 1,
        iodepth_run: 1,
        threads: 1,
        random,
        read: Some(direction(1.0)),
        read_not_run: None,
        write: writes.then(|| direction(0.6)),
        write_not_run: (!writes).then(|| "not run: add --allow-write".into()),
        note: None,
    }
}

fn card() -> SuiteReport {
    SuiteReport {
        suite: SuiteName::Standard,
        config: config(Settings::default()),
        passes: 3,
        pass_time_s: 5.0,
        ramp_s: 1.0,
        pause_s: 1.0,
        notes: vec!["the span is 1 GiB: a cache of that size holds all of it".into()],
        tests: vec![
            card_test("SEQ1M Q8T1", 1 << 20, false, 3400.0, true),
            card_test("SEQ1M Q1T1", 1 << 20, false, 1900.0, true),
            card_test("RND4K Q32T1", 4096, true, 1400.0, true),
            card_test("RND4K Q1T1", 4096, true, 60.0, false),
        ],
        errors: Vec::new(),
        interrupted_by: None,
    }
}

/// Twelve hosts: one slow (an outlier), one failed.
fn fleet() -> FleetReport {
    let mut hosts: Vec<HostResult> = (0..12)
        .map(|k| {
            let iops = match k {
                7 => 11_000.0,
                _ => 20_000.0 + 300.0 * k as f64,
            };
            HostResult {
                host: format!("db-{k:02}.example.net"),
                port: 8765,
                state: HostState::Done,
                reason: None,
                total: Some(Figures {
                    elapsed_s: 30.0,
                    ops: (iops * 30.0) as u64,
                    bytes: (iops * 30.0) as u64 * 4096,
                    iops,
                    bw_bytes_per_s: iops * 4096.0,
                    lat_mean_ns: 1e9 / iops,
                    lat_p50_ns: None,
                    lat_p99_ns: None,
                }),
                intervals: Vec::new(),
                outlier: false,
            }
        })
        .collect();
    hosts[11].state = HostState::Failed;
    hosts[11].total = None;
    hosts[11].reason = Some("fio: connect to db-11.example.net:8765 refused".into());
    let aggregate = results::aggregate(&mut hosts, 20.0);
    results::sort_hosts(&mut hosts);
    FleetReport {
        fleet: FleetConfig {
            target: "/dev/sdb".into(),
            hosts: Vec::new(),
            settings: settings(1, 4096),
            ioengine: IoEngine::IoUring,
            direct: true,
            duration_s: 30.0,
            write_allowed: false,
            outlier_pct: 20.0,
            fio_version: Some("fio-3.33".into()),
            latency_basis: String::new(),
        },
        intervals: results::fleet_intervals(&hosts),
        outliers: hosts
            .iter()
            .filter(|h| h.outlier)
            .map(|h| h.host.clone())
            .collect(),
        hosts,
        aggregate,
        job_file: String::new(),
        interrupted_by: None,
    }
}

/// A run whose whole-run histogram is known: most I/Os near 90 µs, a tail to 20 ms.
fn run_with_histogram() -> (RunReport, Log2Histogram) {
    let mut r = demo_run();
    let mut l = Latency::default();
    let mut x: u64 = 12345;
    for _ in 0..20_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let u = (x >> 11) as f64 / (1u64 << 53) as f64;
        // Exponential service around 90 µs, with one I/O in 200 stalled 5–20 ms.
        let ns = if u < 0.005 {
            5e6 + u * 3e9
        } else {
            60_000.0 - 30_000.0 * (1.0 - u).ln()
        };
        l.record(ns as u64);
    }
    r.total.latency_ns = l.summary();
    (r, Log2Histogram::of(&l))
}

/// Parsed SVG with the questions the tests ask of it.
struct Svg {
    text: String,
}

impl Svg {
    fn of(text: String) -> Svg {
        roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("not XML: {e}"));
        Svg { text }
    }

    fn doc(&self) -> roxmltree::Document<'_> {
        roxmltree::Document::parse(&self.text).unwrap()
    }

    /// The text of every `<text>` element.
    fn texts(&self) -> Vec<String> {
        self.doc()
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or("").to_string())
            .collect()
    }

    fn has_text(&self, want: &str) -> bool {
        self.texts().iter().any(|t| t.contains(want))
    }

    /// Each polyline of stroke `colour`, as its points.
    fn polylines(&self, colour: &str) -> Vec<Vec<(f64, f64)>> {
        self.doc()
            .descendants()
            .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour))
            .map(|n| {
                n.attribute("points")
                    .unwrap_or("")
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect()
    }
}

/// Checks that pixel heights are one linear function of `values` (to a pixel): the chart
/// draws each value where its axis says it is.
fn assert_linear(pixels: &[(f64, f64)], values: &[f64]) {
    assert_eq!(pixels.len(), values.len());
    let (lo, hi) = (
        0,
        (0..values.len())
            .max_by(|&a, &b| values[a].total_cmp(&values[b]))
            .unwrap(),
    );
    let slope = (pixels[hi].1 - pixels[lo].1) / (values[hi] - values[lo]);
    assert!(slope < 0.0, "a higher value is drawn higher");
    for (p, v) in pixels.iter().zip(values) {
        let want = pixels[lo].1 + slope * (v - values[lo]);
        assert!(
            (p.1 - want).abs() <= 1.0,
            "{v} drawn at y {} not {want}",
            p.1
        );
    }
}

#[test]
fn a_run_draws_every_interval_in_three_panels_with_its_periods() {
    let r = demo_run();
    let svg = Svg::of(chart::run_svg(&r, None, &Provenance::default()).unwrap());
    let blue = svg.polylines(&style::Tone::Primary.hex());
    // IOPS and MB/s: one line each, a point per interval.
    assert_eq!(blue.len(), 2, "{blue:?}");
    assert!(blue.iter().all(|l| l.len() == r.intervals.len()));
    let iops: Vec<f64> = r.intervals.iter().map(|i| i.iops).collect();
    assert_linear(&blue[0], &iops);
    let mb: Vec<f64> = r.intervals.iter().map(|i| i.bw_bytes_per_s).collect();
    assert_linear(&blue[1], &mb);
    let p99 = svg.polylines(&style::Tone::Secondary.hex());
    assert_eq!(p99.len(), 1);
    let lat: Vec<f64> = r
        .intervals
        .iter()
        .map(|i| i.latency_ns.p99 as f64)
        .collect();
    assert_linear(&p99[0], &lat);
    // Shared time axis: the panels' points stand in the same columns.
    assert_eq!(
        blue[0].iter().map(|p| p.0).collect::<Vec<_>>(),
        p99[0].iter().map(|p| p.0).collect::<Vec<_>>()
    );
    for label in [
        "IOPS",
        "MB/s (10⁶ bytes/s)",
        "p99 latency (ms)",
        "time into the run (s)",
    ] {
        assert!(svg.has_text(label), "axis label {label}");
    }
    assert!(svg.has_text("/dev/nvme0n1: IOPS, MB/s and p99 latency over 30 s"));
    assert!(svg.has_text("io_uring, O_DIRECT"));
    assert!(svg.has_text(&format!("diskscope {}", env!("CARGO_PKG_VERSION"))));
    // Three periods: two boundaries on each of the three panels, each period named.
    let boundaries = svg
        .doc()
        .descendants()
        .filter(|n| {
            n.has_tag_name("polyline")
                && n.attribute("stroke") == Some(style::hex(style::BOUNDARY).as_str())
        })
        .count();
    assert_eq!(boundaries, 2 * 3);
    for name in [
        "4k random read, QD32 T1",
        "4k random read, QD32 T2",
        "4k random read, QD32 T4",
    ] {
        assert!(svg.has_text(name), "period {name}");
    }
}

const FIO_FIXTURES: [&str; 5] = [
    "plain",
    "jsonplus",
    "concatenated",
    "clientserver",
    "clientserver-one-failed",
];

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/fio/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Writes one SVG of each kind under $CHART_OUT, for looking at them.
#[test]
#[ignore = "writes SVGs for a person to look at: CHART_OUT=/tmp/charts cargo test --test chart -- --ignored"]
fn write_every_kind() {
    let dir = std::path::PathBuf::from(std::env::var("CHART_OUT").unwrap_or("/tmp/charts".into()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = Provenance::default();
    let put = |name: &str, svg: String| std::fs::write(dir.join(name), svg).unwrap();
    put("run.svg", chart::run_svg(&demo_run(), None, &p).unwrap());
    put("sweep.svg", chart::sweep_svg(&thread_sweep(), &p).unwrap());
    put("curve.svg", chart::sweep_svg(&curve_sweep(), &p).unwrap());
    put("suite.svg", chart::suite_svg(&card(), &p).unwrap());
    put("fleet.svg", chart::fleet_svg(&fleet(), &p).unwrap());
    let (r, h) = run_with_histogram();
    put("latency.svg", chart::latency_svg(&r, &h, &p).unwrap());
    for f in FIO_FIXTURES {
        let text = fixture(f);
        put(&format!("fio-{f}.svg"), chart::fio_svg(&text, &p).unwrap());
        if let Some(svg) = chart::fio_latency_svg(&text, &p).unwrap() {
            put(&format!("fio-{f}-latency.svg"), svg);
        }
    }
}
