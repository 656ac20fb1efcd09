//! What the chart tests share: synthetic results built from the report types (they are
//! built, not deserialized), fio's fixtures, and the questions the tests ask of an SVG.
#![allow(dead_code)]

use std::time::Duration;

use diskscope::fleet::results::{self, Figures, HostResult, HostState};
use diskscope::fleet::{FleetConfig, FleetReport};
use diskscope::model::{
    ConfigReport, RunReport, SweepReport, TargetFacts, TargetKind, TotalReport,
};
use diskscope::settings::{IoEngine, Settings};
use diskscope::stats::{Counts, IntervalFigures, Latency, LeftOut, Log2Histogram};
use diskscope::suite::{DirectionResult, SuiteName, SuiteReport, TestResult};
use diskscope::sweep::{Dimension, latency_curve, saturation};
use serde_json::json;

pub fn settings(threads: usize, bs: u64) -> Settings {
    Settings {
        threads,
        iodepth: 32,
        bs,
        ..Settings::default()
    }
}

pub fn config(s: Settings) -> ConfigReport {
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
pub fn interval(t_s: f64, elapsed_s: f64, s: Settings, iops: f64, lat_ns: u64) -> IntervalFigures {
    let ops = (iops * elapsed_s).round() as u64;
    let mut l = Latency::default();
    l.record_n(lat_ns, ops - ops / 10);
    l.record_n(lat_ns * 4, ops / 10);
    let bytes = ops * s.bs;
    IntervalFigures {
        sides: None,
        period: None,
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
        temp_c: None,
    }
}

pub fn run(intervals: Vec<IntervalFigures>) -> RunReport {
    let first = intervals[0].settings;
    let last = intervals[intervals.len() - 1].settings;
    let mut counts = Counts::default();
    for i in &intervals {
        counts.add(&i.counts);
    }
    let elapsed_s: f64 = intervals.iter().map(|i| i.elapsed_s).sum();
    RunReport {
        meta: diskscope::model::Meta::default(),
        config: config(first),
        periods: diskscope::stats::Periods::default(),
        total: TotalReport {
            sides: None,
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
        hot_spots: Vec::new(),
        cpu: None,
        verify: None,
        surface: None,
        why: Default::default(),
    }
}

/// A period of the report as the tracker keeps it: `threads` from `start_s` to `end_s`, its
/// figures those of `intervals` added up.
pub fn period_of(
    threads: usize,
    start_s: f64,
    end_s: f64,
    intervals: &[IntervalFigures],
) -> diskscope::stats::Period {
    let mut counts = Counts::default();
    for i in intervals {
        counts.add(&i.counts);
    }
    let elapsed_s: f64 = intervals.iter().map(|i| i.elapsed_s).sum();
    diskscope::stats::Period {
        sides: None,
        began: diskscope::stats::Began::Change,
        settings: Some(settings(threads, 4096)),
        merged: 1,
        start_s,
        end_s,
        elapsed_s,
        counts,
        iops: counts.ops as f64 / elapsed_s,
        bw_bytes_per_s: counts.bytes as f64 / elapsed_s,
        latency_ns: intervals[0].latency_ns,
        service_latency_ns: intervals[0].latency_ns,
        left_out: LeftOut::default(),
    }
}

/// An admin's demonstration: 1 thread, then 2, then 4, ten one-second intervals each.
pub fn demo_run() -> RunReport {
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

pub fn sweep(dimension: Dimension, steps: Vec<IntervalFigures>) -> SweepReport {
    SweepReport {
        meta: diskscope::model::Meta::default(),
        config: config(steps[0].settings),
        dimension,
        step_time_s: 5.0,
        saturation: saturation(dimension, &steps, &Default::default()),
        latency_curve: latency_curve(&steps),
        steps,
        partial_step: None,
        errors: Vec::new(),
        interrupted_by: None,
        findings: vec![],
        until_steady: vec![],
        health: None,
    }
}

/// Threads 1 to 64 on a disk that stops scaling at 8.
pub fn thread_sweep() -> SweepReport {
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
pub fn curve_sweep() -> SweepReport {
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
pub fn card_test(name: &str, bs: u64, random: bool, mb: f64, writes: bool) -> TestResult {
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

pub fn card() -> SuiteReport {
    SuiteReport {
        meta: diskscope::model::Meta::default(),
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
        findings: vec![],
        until_steady: vec![],
        health: None,
    }
}

/// Twelve hosts: one slow (an outlier), one failed.
pub fn fleet() -> FleetReport {
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
        meta: diskscope::model::Meta::default(),
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
pub fn run_with_histogram() -> (RunReport, Log2Histogram) {
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

/// A line as the SVG has it.
#[derive(Debug, Clone)]
pub struct Line {
    pub points: Vec<(f64, f64)>,
    pub dashed: bool,
    pub width: String,
}

/// Parsed SVG with the questions the tests ask of it.
pub struct Svg {
    pub text: String,
}

impl Svg {
    /// Parses `text` as XML (a test fails here on anything that is not) and checks that no
    /// number in it is NaN or infinite.
    pub fn of(text: String) -> Svg {
        roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("not XML: {e}"));
        // plotters writes a coordinate it cannot place as i32's limits.
        for bad in ["NaN", "inf\"", "inf,", "inf ", "2147483647", "-2147483648"] {
            assert!(!text.contains(bad), "the SVG holds {bad}");
        }
        Svg { text }
    }

    pub fn doc(&self) -> roxmltree::Document<'_> {
        roxmltree::Document::parse(&self.text).unwrap()
    }

    /// The text of every `<text>` element.
    pub fn texts(&self) -> Vec<String> {
        self.doc()
            .descendants()
            .filter(|n| n.has_tag_name("text"))
            .map(|n| n.text().unwrap_or("").trim().to_string())
            .collect()
    }

    pub fn has_text(&self, want: &str) -> bool {
        self.texts().iter().any(|t| t.contains(want))
    }

    /// Every polyline of stroke `colour`, in drawing order.
    pub fn lines(&self, colour: &str) -> Vec<Line> {
        self.doc()
            .descendants()
            .filter(|n| n.has_tag_name("polyline") && n.attribute("stroke") == Some(colour))
            .map(|n| Line {
                points: n
                    .attribute("points")
                    .unwrap_or("")
                    .split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect(),
                dashed: n.attribute("stroke-dasharray").is_some(),
                width: n.attribute("stroke-width").unwrap_or("").to_string(),
            })
            .collect()
    }

    /// The solid polylines of stroke `colour` with more than two points (a legend's sample
    /// line has two), as their points.
    pub fn polylines(&self, colour: &str) -> Vec<Vec<(f64, f64)>> {
        self.lines(colour)
            .into_iter()
            .filter(|l| !l.dashed && l.points.len() > 2)
            .map(|l| l.points)
            .collect()
    }

    /// Every filled rectangle of `colour`: (x, y, width, height).
    pub fn rects(&self, colour: &str) -> Vec<(f64, f64, f64, f64)> {
        self.doc()
            .descendants()
            .filter(|n| n.has_tag_name("rect") && n.attribute("fill") == Some(colour))
            .map(|n| {
                let f = |k: &str| n.attribute(k).unwrap_or("0").parse::<f64>().unwrap();
                (f("x"), f("y"), f("width"), f("height"))
            })
            .collect()
    }

    /// The canvas height.
    pub fn height(&self) -> f64 {
        let doc = self.doc();
        doc.root_element()
            .attribute("height")
            .unwrap()
            .parse()
            .unwrap()
    }
}

/// Checks that pixel heights are one linear function of `values` (to a pixel): the chart
/// draws each value where its axis says it is.
pub fn assert_linear(pixels: &[(f64, f64)], values: &[f64]) {
    assert_eq!(pixels.len(), values.len());
    // The slope from the lowest and the highest value: the widest span, so that rounding
    // to whole pixels moves it least.
    let by = |a: &usize, b: &usize| values[*a].total_cmp(&values[*b]);
    let lo = (0..values.len()).min_by(by).unwrap();
    let hi = (0..values.len()).max_by(by).unwrap();
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

pub const FIO_FIXTURES: [&str; 5] = [
    "plain",
    "jsonplus",
    "concatenated",
    "clientserver",
    "clientserver-one-failed",
];

pub fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/fio/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// fio's JSON of `jobs` local jobs, job k doing a little less than job k-1, job 7 a tenth.
pub fn many_jobs(jobs: usize) -> String {
    let job = |k: usize| {
        let iops = if k == 7 {
            100.0
        } else {
            1000.0 + (jobs - k) as f64
        };
        let ios = (iops * 60.0) as u64;
        json!({"jobname": format!("job{k}"), "error": 0, "job_runtime": 60000,
            "read": {"io_bytes": ios * 4096, "total_ios": ios, "runtime": 60000, "iops": iops,
                     "bw_bytes": iops * 4096.0, "lat_ns": {"mean": 1e9 / iops}},
            "write": {"io_bytes": 0, "total_ios": 0, "runtime": 0, "iops": 0.0, "bw_bytes": 0,
                      "lat_ns": {"mean": 0.0}}})
    };
    json!({"fio version": "fio-3.33", "time": "Mon Nov 23 08:06:16 2026",
        "global options": {"rw": "randread", "bs": "4096", "filename": "/dev/sdb"},
        "jobs": (0..jobs).map(job).collect::<Vec<_>>()})
    .to_string()
}

/// A one-hour run at one interval a second with a stall at 30 minutes.
pub fn hour_run() -> diskscope::model::RunReport {
    let s = settings(4, 4096);
    let iv = (1..=3600)
        .map(|t| {
            let stall = t == 1800;
            let iops = if stall {
                300.0
            } else {
                20_000.0 + (t % 7) as f64 * 50.0
            };
            let lat = if stall { 900_000_000 } else { 1_600_000 };
            interval(t as f64, 1.0, s, iops, lat)
        })
        .collect();
    run(iv)
}

/// An hour in twelve periods of five minutes (threads 1, 2, 4 … in turn), each interval
/// naming its period, with the report's latency histogram: a run as `--json` saves it, for
/// timing `--show --plot` on it.
pub fn hour_run_with_periods() -> RunReport {
    let mut r = hour_run();
    let mut l = Latency::default();
    for (k, i) in r.intervals.iter_mut().enumerate() {
        i.settings.threads = 1 << (k / 300 % 4);
        i.period = Some(k / 300);
        l.record_n(i.latency_ns.p50, i.counts.ops);
    }
    r.periods.list = r
        .intervals
        .chunks(300)
        .map(|c| {
            let start = c[0].t_s - c[0].elapsed_s;
            period_of(c[0].settings.threads, start, c[c.len() - 1].t_s, c)
        })
        .collect();
    r.periods.latency_histogram = Log2Histogram::of(&l);
    r.total.latency_ns = l.summary();
    r
}
