//! The charts of diskscope's own results as a person and a parser read them: every SVG
//! parses as XML, holds one point per interval or step where nothing was thinned, draws each
//! value where its axis says it is, names its axes with units, says what was tested in the
//! title, and marks the periods, the stops, the saturation step and the knee. fio's JSON and
//! the size and speed of long charts are in `chart_fio.rs`.

mod chart_common;

use std::time::Duration;

use chart_common::*;
use diskscope::render::chart::{self, Provenance, style};
use diskscope::units::format_latency_ns;

fn blue() -> String {
    style::Tone::Primary.hex()
}
fn vermillion() -> String {
    style::Tone::Secondary.hex()
}
fn orange() -> String {
    style::Tone::Tertiary.hex()
}
fn ink() -> String {
    style::hex(style::INK)
}

#[test]
fn a_run_draws_every_interval_in_three_panels_with_its_periods() {
    let r = demo_run();
    let svg = Svg::of(chart::run_svg(&r, None, &Provenance::default()).unwrap());
    let blue = svg.polylines(&blue());
    // IOPS and MB/s: one line each, a point per interval.
    assert_eq!(blue.len(), 2, "{blue:?}");
    assert!(blue.iter().all(|l| l.len() == r.intervals.len()));
    let iops: Vec<f64> = r.intervals.iter().map(|i| i.iops).collect();
    assert_linear(&blue[0], &iops);
    let mb: Vec<f64> = r.intervals.iter().map(|i| i.bw_bytes_per_s).collect();
    assert_linear(&blue[1], &mb);
    let p99 = svg.polylines(&vermillion());
    assert_eq!(p99.len(), 1);
    let lat: Vec<f64> = r
        .intervals
        .iter()
        .map(|i| i.latency_ns.p99 as f64)
        .collect();
    assert_linear(&p99[0], &lat);
    // Shared time axis: the panels' points stand in the same columns, in time order.
    let xs = |l: &[(f64, f64)]| l.iter().map(|p| p.0).collect::<Vec<_>>();
    assert_eq!(xs(&blue[0]), xs(&p99[0]));
    assert_eq!(xs(&blue[1]), xs(&p99[0]));
    assert!(xs(&p99[0]).windows(2).all(|w| w[0] < w[1]));
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
    let boundaries = svg.lines(&style::hex(style::BOUNDARY));
    assert_eq!(boundaries.len(), 2 * 3);
    // A boundary stands between the last interval of one period and the first of the next.
    let at_10s = blue[0][9].0;
    assert!(
        boundaries
            .iter()
            .any(|b| (b.points[0].0 - at_10s).abs() <= 1.0)
    );
    for name in [
        "4k random read, QD32 T1",
        "4k random read, QD32 T2",
        "4k random read, QD32 T4",
    ] {
        assert!(svg.has_text(name), "period {name}");
    }
    // Every other period is shaded: one of three.
    assert_eq!(svg.rects(&style::hex(style::SHADE)).len(), 3);
}

/// The run chart shades and bounds the report's own periods: the intervals here all carry
/// one setting, so nothing but `periods` can say where they are, and the third began after
/// a pause of 1.4 s, which gets a boundary of its own at each end.
#[test]
fn the_run_chart_draws_the_reports_own_periods() {
    let mut r = demo_run();
    let one = r.intervals[0].settings;
    for i in &mut r.intervals {
        i.settings = one;
    }
    r.periods.list = vec![
        period_of(1, 0.0, 10.0, &r.intervals[0..10]),
        period_of(2, 10.0, 19.2, &r.intervals[10..19]),
        period_of(4, 20.6, 30.0, &r.intervals[20..30]),
    ];
    let svg = Svg::of(chart::run_svg(&r, None, &Provenance::default()).unwrap());
    // Where a time falls on the axis, from the IOPS line's first and last points.
    let iops = &svg.polylines(&blue())[0];
    let (a, b) = (iops[0], iops[iops.len() - 1]);
    let (t0, t1) = (r.intervals[0].t_s, r.intervals[29].t_s);
    let x_of = |t: f64| a.0 + (t - t0) * (b.0 - a.0) / (t1 - t0);
    let boundaries = svg.lines(&style::hex(style::BOUNDARY));
    // 10 s, the pause's start at 19.2 s and its end at 20.6 s, on each of three panels.
    assert_eq!(boundaries.len(), 3 * 3, "{boundaries:?}");
    for t in [10.0, 19.2, 20.6] {
        let at = boundaries
            .iter()
            .filter(|l| (l.points[0].0 - x_of(t)).abs() <= 1.0)
            .count();
        assert_eq!(at, 3, "a boundary at {t} s on every panel");
    }
    for name in [
        "4k random read QD32 T1",
        "4k random read QD32 T2",
        "4k random read QD32 T4",
    ] {
        assert!(svg.has_text(name), "period {name}");
    }
    assert!(svg.has_text("a gap between two periods is a pause"));
    // The middle period shaded on each panel, from its start to its end.
    let shades = svg.rects(&style::hex(style::SHADE));
    assert_eq!(shades.len(), 3);
    for (x, _, w, _) in shades {
        assert!((x - x_of(10.0)).abs() <= 1.0 && (x + w - x_of(19.2)).abs() <= 1.0);
    }
}

#[test]
fn periods_given_by_the_caller_replace_the_derived_ones() {
    let r = demo_run();
    let spans = [
        chart::spec::Span {
            start_s: 0.0,
            end_s: 15.0,
            label: "warm-up".into(),
        },
        chart::spec::Span {
            start_s: 15.0,
            end_s: 30.0,
            label: "steady".into(),
        },
    ];
    let svg = Svg::of(chart::run_svg(&r, Some(&spans), &Provenance::default()).unwrap());
    assert!(svg.has_text("warm-up") && svg.has_text("steady"));
    assert!(!svg.has_text("QD32 T2"));
    assert_eq!(svg.lines(&style::hex(style::BOUNDARY)).len(), 3);
}

#[test]
fn a_stopped_interval_is_a_gap_and_the_stop_is_marked() {
    let mut r = demo_run();
    r.writeback = Some(diskscope::model::WritebackReport {
        target_pending_bytes: Some(48 << 20),
        ..Default::default()
    });
    let i = &mut r.intervals[5];
    i.elapsed_s = 0.0;
    i.counts = Default::default();
    i.latency_ns = Default::default();
    i.left_out.stops = 1;
    i.left_out.stopped = Duration::from_secs(8);
    let stopped = i.left_out;
    r.left_out.merge(&stopped);
    let svg = Svg::of(chart::run_svg(&r, None, &Provenance::default()).unwrap());
    // IOPS and MB/s each break in two around the stop: 5 points before, 24 after.
    let lens: Vec<usize> = svg.polylines(&blue()).iter().map(Vec::len).collect();
    assert_eq!(lens, [5, 24, 5, 24]);
    assert!(svg.has_text("stopped 8.0 s"));
    // The text's own line about the stop is the footnote.
    assert!(svg.has_text("stopped 1× for 8.0s in all (SIGSTOP or Ctrl-Z"));
    assert!(svg.has_text("48 MiB written to the target were still in the page cache"));
    let stop = svg.lines(&ink()).into_iter().filter(|l| l.dashed).count();
    assert_eq!(stop, 3, "the stop's line crosses the three panels");
}

#[test]
fn a_paced_run_draws_the_service_time_dashed_beside_the_due_time() {
    let mut r = demo_run();
    for i in &mut r.intervals {
        i.settings.rate_iops = 100;
        i.service_latency_ns.p99 /= 2;
    }
    r.config.settings.rate_iops = 100;
    let svg = Svg::of(chart::run_svg(&r, None, &Provenance::default()).unwrap());
    let service: Vec<Line> = svg
        .lines(&blue())
        .into_iter()
        .filter(|l| l.dashed && l.points.len() > 2)
        .collect();
    assert_eq!(service.len(), 1, "{service:?}");
    let want: Vec<f64> = r
        .intervals
        .iter()
        .map(|i| i.service_latency_ns.p99 as f64)
        .collect();
    assert_eq!(service[0].points.len(), r.intervals.len());
    // Both latencies share the panel's axis: half the p99 is drawn half as high.
    let due = &svg.polylines(&vermillion())[0];
    let mut both = due.clone();
    both.extend(&service[0].points);
    let mut values: Vec<f64> = r
        .intervals
        .iter()
        .map(|i| i.latency_ns.p99 as f64)
        .collect();
    values.extend(&want);
    assert_linear(&both, &values);
    assert!(svg.has_text("p99 from the due time"));
    assert!(svg.has_text("coordinated omission corrected"));
}

#[test]
fn a_sweep_puts_doublings_a_step_apart_and_marks_its_saturation() {
    let r = thread_sweep();
    let svg = Svg::of(chart::sweep_svg(&r, &Provenance::default()).unwrap());
    let iops = &svg.polylines(&blue())[0];
    assert_eq!(iops.len(), r.steps.len());
    let values: Vec<f64> = r.steps.iter().map(|s| s.iops).collect();
    assert_linear(iops, &values);
    // log2: 1, 2, 4 … 64 threads stand equally far apart.
    let gaps: Vec<f64> = iops.windows(2).map(|w| w[1].0 - w[0].0).collect();
    assert!(gaps.iter().all(|g| (g - gaps[0]).abs() <= 1.0), "{gaps:?}");
    for tick in ["1", "2", "4", "8", "16", "32", "64"] {
        assert!(svg.texts().iter().any(|t| t == tick), "tick {tick}");
    }
    assert!(svg.has_text("threads (log2 scale)"));
    assert!(svg.has_text("latency (ms)"));
    let sat = r.saturation.as_ref().unwrap();
    assert!(svg.has_text(&sat.summary), "the finding's sentence");
    assert!(svg.has_text("saturates at 8 threads"));
    // The marker stands on the saturation step: a thick dashed line at its column.
    let mark: Vec<Line> = svg
        .lines(&ink())
        .into_iter()
        .filter(|l| l.dashed && l.width == "2")
        .collect();
    assert_eq!(mark.len(), 2, "across both panels");
    assert!(
        mark.iter()
            .all(|m| (m.points[0].0 - iops[sat.step].0).abs() <= 1.0)
    );
    // p99 solid, p50 dashed in the latency panel.
    assert_eq!(svg.polylines(&vermillion())[0].len(), r.steps.len());
    assert!(
        svg.lines(&blue())
            .iter()
            .any(|l| l.dashed && l.points.len() == r.steps.len())
    );
}

#[test]
fn a_block_size_sweep_is_judged_in_mb_per_s() {
    let steps = [4096u64, 16384, 65536, 1 << 20]
        .iter()
        .enumerate()
        .map(|(k, &bs)| {
            let mb = [80.0, 300.0, 900.0, 1000.0][k];
            interval(
                5.0 * (k + 1) as f64,
                5.0,
                settings(1, bs),
                mb * 1e6 / bs as f64,
                200_000,
            )
        })
        .collect();
    let r = sweep(diskscope::sweep::Dimension::Bs, steps);
    let svg = Svg::of(chart::sweep_svg(&r, &Provenance::default()).unwrap());
    assert!(svg.has_text("MB/s (10⁶ bytes/s)"));
    assert!(svg.has_text("block size (bytes, log2 scale)"));
    for tick in ["4k", "16k", "64k", "1M"] {
        assert!(svg.texts().iter().any(|t| t == tick), "tick {tick}");
    }
    let mb: Vec<f64> = r.steps.iter().map(|s| s.bw_bytes_per_s).collect();
    assert_linear(&svg.polylines(&blue())[0], &mb);
}

#[test]
fn the_rate_curve_marks_its_knee_and_the_threshold_it_crossed() {
    let r = curve_sweep();
    let curve = r.latency_curve.as_ref().unwrap();
    let svg = Svg::of(chart::sweep_svg(&r, &Provenance::default()).unwrap());
    let due = &svg.polylines(&vermillion())[0];
    assert_eq!(due.len(), curve.points.len());
    // The x axis is the load achieved; the y axis the log of p99.
    let x: Vec<f64> = curve.points.iter().map(|p| p.iops).collect();
    let flipped: Vec<(f64, f64)> = due.iter().map(|p| (0.0, -p.0)).collect();
    assert_linear(&flipped, &x);
    let log_p99: Vec<f64> = curve
        .points
        .iter()
        .map(|p| (p.p99_ns as f64).log10())
        .collect();
    assert_linear(due, &log_p99);
    assert!(svg.has_text("p99 latency (ms, log scale)"));
    assert!(svg.has_text("achieved load (IOPS)"));
    let knee = curve.leaves_flat_at.unwrap();
    assert!(svg.has_text(&format!(
        "knee: {:.0}% of max",
        curve.points[knee].pct_of_max
    )));
    assert!(svg.has_text(&curve.summary));
    assert!(svg.has_text("unlimited: 30.0k IOPS"));
    // The threshold: a dotted line at twice the lightest step's p99, below the knee's p99
    // and above the step before it.
    let dotted: Vec<Line> = svg
        .lines(&ink())
        .into_iter()
        .filter(|l| l.dashed && l.points[0].1 == l.points[1].1)
        .filter(|l| l.points[1].0 - l.points[0].0 > 500.0)
        .collect();
    assert_eq!(dotted.len(), 1);
    let y = dotted[0].points[0].1;
    assert!(
        due[knee].1 < y && due[knee - 1].1 > y,
        "{} {y} {}",
        due[knee].1,
        due[knee - 1].1
    );
    // The service p99 beside it, dashed, one point per step.
    assert!(
        svg.lines(&blue())
            .iter()
            .any(|l| l.dashed && l.points.len() == curve.points.len())
    );
}

#[test]
fn a_card_draws_medians_as_bars_and_the_passes_as_whiskers() {
    let r = card();
    let svg = Svg::of(chart::suite_svg(&r, &Provenance::default()).unwrap());
    // Four read bars and three write bars, each colour once more in the legend.
    assert_eq!(svg.rects(&blue()).len(), 4 + 1);
    assert_eq!(svg.rects(&orange()).len(), 3 + 1);
    // Bar heights are the medians: sequential tests in MB/s on the first panel.
    let reads = &svg.rects(&blue())[1..];
    let seq = |t: &diskscope::suite::TestResult| t.read.as_ref().unwrap().mb_per_s.median;
    let ratio = reads[0].3 / reads[1].3;
    let want = seq(&r.tests[0]) / seq(&r.tests[1]);
    assert!((ratio - want).abs() < 0.02, "{ratio} vs {want}");
    for label in [
        "SEQ1M Q8T1",
        "RND4K Q1T1",
        "sequential: MB/s (10⁶ bytes/s)",
        "random: IOPS",
        "not run",
    ] {
        assert!(svg.has_text(label), "{label}");
    }
    assert!(svg.has_text("writes not run: add --allow-write"));
    assert!(svg.has_text("a cache of that size holds all of it"));
    assert!(svg.has_text("/dev/nvme0n1: suite standard, median of 3 passes of 5 s"));
    // A whisker (and its two caps) per bar that ran.
    assert_eq!(
        svg.lines(&ink()).iter().filter(|l| l.width == "2").count(),
        7 * 3
    );
}

#[test]
fn a_fleet_colours_its_outliers_and_draws_the_median() {
    let r = fleet();
    let svg = Svg::of(chart::fleet_svg(&r, &Provenance::default()).unwrap());
    assert_eq!(
        svg.rects(&orange()).len(),
        1 + 1,
        "one outlier, and the legend"
    );
    assert_eq!(svg.rects(&blue()).len(), 10 + 1);
    assert!(svg.has_text("1 outlier: db-07.example.net"));
    assert!(svg.has_text("failed"));
    assert!(svg.has_text("db-11.example.net failed: fio: connect"));
    let median = format!(
        "median {} IOPS",
        diskscope::units::format_count_rate(r.aggregate.median_iops)
    );
    assert!(svg.has_text(&median));
    // The median line stands at the median's height: between the bars around it.
    let bars = &svg.rects(&blue())[1..];
    let dashed: Vec<Line> = svg
        .lines(&ink())
        .into_iter()
        .filter(|l| l.dashed && l.points.len() == 2 && l.points[0].1 == l.points[1].1)
        .collect();
    let y = dashed
        .iter()
        .find(|l| l.points[1].0 - l.points[0].0 > 500.0)
        .unwrap()
        .points[0]
        .1;
    let tops: Vec<f64> = bars.iter().map(|b| b.1).collect();
    assert!(tops.iter().any(|t| *t <= y) && tops.iter().any(|t| *t >= y));
    assert!(
        svg.texts()
            .iter()
            .filter(|t| t.ends_with(".example.net"))
            .count()
            >= 12
    );
}

#[test]
fn the_latency_distribution_marks_its_percentiles() {
    let (r, hist) = run_with_histogram();
    let svg = Svg::of(chart::latency_svg(&r, &hist, &Provenance::default()).unwrap());
    let buckets = hist.counts.iter().filter(|n| **n > 0).count();
    assert_eq!(svg.rects(&blue()).len(), buckets);
    let l = &r.total.latency_ns;
    for (name, ns) in [("p50", l.p50), ("p99", l.p99), ("p99.9", l.p999)] {
        assert!(
            svg.has_text(&format!("{name} {}", format_latency_ns(ns as f64))),
            "{name}"
        );
    }
    assert!(svg.has_text("latency of all 20,000 I/Os"));
    // Heights are the log of each bucket's share.
    let shares: Vec<f64> = hist
        .counts
        .iter()
        .filter(|n| **n > 0)
        .map(|n| (*n as f64 / hist.total() as f64).log10())
        .collect();
    let tops: Vec<(f64, f64)> = svg.rects(&blue()).iter().map(|b| (b.0, b.1)).collect();
    assert_linear(&tops, &shares);
    assert!(svg.has_text("share of I/Os (%, log scale)"));
}

#[test]
fn long_titles_wrap_and_nothing_is_wider_than_the_canvas() {
    let mut r = demo_run();
    r.config.target.path = format!("/mnt/{}/scratch.img", "very-long-directory-name/".repeat(8));
    r.config.warnings = vec!["buffered I/O: the page cache is in play, so cached data is measured, not the disk; a very long warning that must wrap over more than one line of the footnote".into()];
    let svg = Svg::of(chart::run_svg(&r, None, &Provenance::default()).unwrap());
    let doc = svg.doc();
    for t in doc.descendants().filter(|n| n.has_tag_name("text")) {
        let text = t.text().unwrap_or("");
        let px: f64 = t.attribute("font-size").unwrap().parse().unwrap();
        let x: f64 = t.attribute("x").unwrap().parse().unwrap();
        let text = text.trim();
        let w = style::text_width_px(text, px)
            * if t.attribute("font-weight").is_some() {
                style::BOLD_FACTOR
            } else {
                1.0
            };
        let left = match t.attribute("text-anchor") {
            Some("end") => x - w,
            Some("middle") => x - w / 2.0,
            _ => x,
        };
        // Rotated labels stand on their own; horizontal text stays on the canvas.
        if t.attribute("transform").is_none() {
            assert!(
                left >= 0.0 && left + w <= 1200.0,
                "{text:?} spans {left}..{}",
                left + w
            );
        }
    }
    assert!(
        svg.texts()
            .iter()
            .filter(|t| t.contains("very-long-directory-name"))
            .count()
            >= 2
    );
}

#[test]
fn empty_results_draw_without_panicking() {
    let p = Provenance::default();
    let mut r = demo_run();
    r.intervals.clear();
    Svg::of(chart::run_svg(&r, None, &p).unwrap());
    let mut s = thread_sweep();
    s.steps.clear();
    s.saturation = None;
    Svg::of(chart::sweep_svg(&s, &p).unwrap());
    let mut c = card();
    c.tests.clear();
    Svg::of(chart::suite_svg(&c, &p).unwrap());
    let mut f = fleet();
    f.hosts.clear();
    f.aggregate = Default::default();
    Svg::of(chart::fleet_svg(&f, &p).unwrap());
    let (r, _) = run_with_histogram();
    Svg::of(chart::latency_svg(&r, &Default::default(), &p).unwrap());
    // All zero: no I/O in any interval.
    let mut z = demo_run();
    for i in &mut z.intervals {
        i.counts = Default::default();
        i.iops = 0.0;
        i.bw_bytes_per_s = 0.0;
        i.latency_ns = Default::default();
    }
    let svg = Svg::of(chart::run_svg(&z, None, &p).unwrap());
    assert!(
        svg.polylines(&vermillion()).is_empty(),
        "no latency without I/O"
    );
    // One interval: a dot, not an empty line.
    let mut one = demo_run();
    one.intervals.truncate(1);
    let svg = Svg::of(chart::run_svg(&one, None, &p).unwrap());
    let dots = svg
        .doc()
        .descendants()
        .filter(|n| n.has_tag_name("circle") && n.attribute("fill") == Some(blue().as_str()))
        .count();
    assert_eq!(dots, 2, "IOPS and MB/s");
    // Figures that are not numbers (a corrupt result) are left out, never drawn off the
    // canvas or written as NaN.
    let mut bad = fleet();
    bad.hosts[0].total.as_mut().unwrap().iops = f64::NAN;
    bad.aggregate.median_iops = f64::INFINITY;
    Svg::of(chart::fleet_svg(&bad, &p).unwrap());
    let mut bad = demo_run();
    bad.intervals[3].iops = f64::NAN;
    bad.intervals[4].bw_bytes_per_s = f64::INFINITY;
    let svg = Svg::of(chart::run_svg(&bad, None, &p).unwrap());
    let lens: Vec<usize> = svg.polylines(&blue()).iter().map(Vec::len).collect();
    assert_eq!(lens, [3, 26, 4, 25], "a gap where each bad figure was");
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
    put("hour.svg", chart::run_svg(&hour_run(), None, &p).unwrap());
    put(
        "fio-10000-jobs.svg",
        chart::fio_svg(&many_jobs(10_000), &p).unwrap(),
    );
    put(
        "fio-12-jobs.svg",
        chart::fio_svg(&many_jobs(12), &p).unwrap(),
    );
    // Paced, stopped once, and the settings changed every few seconds.
    let mut busy = demo_run();
    for (k, i) in busy.intervals.iter_mut().enumerate() {
        i.settings.rate_iops = 100 + 100 * (k as u64 / 3);
    }
    busy.config.settings.rate_iops = 100;
    busy.intervals[12].left_out.stops = 1;
    busy.intervals[12].left_out.stopped = std::time::Duration::from_millis(4200);
    put("busy.svg", chart::run_svg(&busy, None, &p).unwrap());
    for f in FIO_FIXTURES {
        let text = fixture(f);
        put(&format!("fio-{f}.svg"), chart::fio_svg(&text, &p).unwrap());
        if let Some(svg) = chart::fio_latency_svg(&text, &p).unwrap() {
            put(&format!("fio-{f}-latency.svg"), svg);
        }
    }
}
