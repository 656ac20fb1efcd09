//! The CSVs keep their columns, their order and their figures' decimals.

use std::time::Duration;

use super::*;
use crate::model::suite::{Spread, SuiteName};
use crate::results::file::CSV_HEADS;
use crate::settings::Settings;
use crate::stats::{Counts, LatencySummary, LeftOut, Window};

/// The columns as they were written by hand before the row structs, in their order.
const RUN_COLUMNS: &str = "t_s,elapsed_s,threads,iodepth,bs,read_pct,random_pct,ops,bytes,iops,bw_bytes_per_s,errors,short_ios,lat_min_ns,lat_mean_ns,lat_p50_ns,lat_p90_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,spanning_stop,syncs,stopped_s,left_out_s,left_out_ops,rate_iops,service_p50_ns,service_p99_ns,temp_c";
const SIDE_COLUMNS: &str = "read_ops,read_iops,read_bw_bytes_per_s,read_lat_p50_ns,read_lat_p99_ns,write_ops,write_iops,write_bw_bytes_per_s,write_lat_p50_ns,write_lat_p99_ns";
const HOT_COLUMNS: &str = "random_distribution,random_ios,top1_ios,top10_ios,\
trim_pct,trim_ops,trim_iops,trim_bw_bytes_per_s,trim_lat_p50_ns,trim_lat_p99_ns,hipri";
const SUITE_COLUMNS: &str = "suite,test,direction,bs,iodepth,iodepth_run,threads,random,passes,mb_per_s,mb_per_s_min,mb_per_s_max,mb_per_s_best,iops,iops_min,iops_max,iops_best,ops,bytes,errors,short_ios,lat_mean_ns,lat_p50_ns,lat_p99_ns,lat_max_ns,not_run,hipri";

fn figures() -> IntervalFigures {
    let lat = LatencySummary {
        count: 1234,
        min: 11,
        mean: 402.56,
        p50: 300,
        p90: 700,
        p99: 900,
        p999: 1500,
        max: 2000,
    };
    let mut f = Window::default().figures();
    f.t_s = 2.0004;
    f.elapsed_s = 0.99951;
    f.settings = Settings {
        threads: 4,
        iodepth: 8,
        rate_iops: 5000,
        ..Settings::default()
    };
    f.counts = Counts {
        ops: 1234,
        bytes: 1234 * 4096,
        errors: 2,
        short_ios: 1,
        spanning_stop: 3,
        syncs: 5,
        ..Counts::default()
    };
    f.iops = 1234.56;
    f.bw_bytes_per_s = 5_056_757.5;
    f.latency_ns = lat;
    f.service_latency_ns = LatencySummary {
        p50: 250,
        p99: 800,
        ..lat
    };
    f.left_out = LeftOut {
        stopped: Duration::from_millis(1500),
        elapsed: Duration::from_millis(250),
        counts: Counts {
            ops: 7,
            ..Counts::default()
        },
        ..LeftOut::default()
    };
    f
}

#[test]
fn headers_keep_their_columns_in_order() {
    // A run's rows end with their period; a sweep's steps have none.
    assert_eq!(
        header(),
        format!("{RUN_COLUMNS},period,{SIDE_COLUMNS},{HOT_COLUMNS}")
    );
    assert_eq!(
        step_header(),
        format!("step,{RUN_COLUMNS},{SIDE_COLUMNS},{HOT_COLUMNS}")
    );
    assert_eq!(suite_header(), SUITE_COLUMNS);
    // What `results::file` recognises as a diskscope CSV.
    for (h, head) in [header(), step_header(), suite_header()]
        .iter()
        .zip(CSV_HEADS)
    {
        assert!(h.starts_with(head), "{h} vs {head}");
    }
}

/// The row `format!` wrote before, for the same figures.
#[test]
fn rows_keep_their_decimals() {
    let mut f = figures();
    let expected = "2.000,1.000,4,8,4096,100,100,1234,5054464,1234.6,5056758,2,1,11,403,300,700,900,1500,2000,3,5,1.500,0.250,7,5000,250,800,";
    // A row that did not both read and write leaves the side columns empty.
    let no_sides = ",".repeat(9);
    // Uniform, no random I/O counted in these figures.
    let no_sides = format!("{no_sides},random,0,0,0,0,0,,,,,0");
    assert_eq!(step_row(3, &f), format!("3,{expected},{no_sides}"));
    assert_eq!(row(&f), format!("{expected},,{no_sides}"));
    f.period = Some(2);
    assert_eq!(row(&f), format!("{expected},2,{no_sides}"));
    let text = intervals(&[f.clone(), f]);
    assert_eq!(
        text,
        format!(
            "{RUN_COLUMNS},period,{SIDE_COLUMNS},{HOT_COLUMNS}\n{expected},2,{no_sides}\n{expected},2,{no_sides}\n"
        )
    );
    assert_eq!(
        intervals(&[]),
        format!("{RUN_COLUMNS},period,{SIDE_COLUMNS},{HOT_COLUMNS}\n")
    );
    let hot = IntervalFigures {
        temp_c: Some(71.25),
        ..figures()
    };
    // temp_c, then the (empty) period.
    assert!(row(&hot).contains(",800,71.2,,"), "{}", row(&hot));
}

#[test]
fn a_row_that_read_and_wrote_ends_with_each_directions_figures() {
    let side = |ops: u64, p50: u64, p99: u64| crate::stats::Side {
        ops,
        bytes: ops * 4096,
        iops: ops as f64 / 2.0,
        bw_bytes_per_s: ops as f64 * 2048.0,
        latency_ns: crate::stats::LatencySummary {
            count: ops,
            p50,
            p99,
            ..Default::default()
        },
    };
    let f = IntervalFigures {
        period: Some(0),
        sides: Some(crate::stats::ReadWrite {
            read: side(700, 90_000, 400_000),
            write: side(300, 150_000, 2_000_000),
            trim: Default::default(),
        }),
        ..figures()
    };
    assert!(
        row(&f).ends_with(
            ",0,700,350.0,1433600,90000,400000,300,150.0,614400,150000,2000000,random,0,0,0,0,0,,,,,0"
        ),
        "{}",
        row(&f)
    );
}

#[test]
fn a_row_with_trims_ends_with_their_own_figures() {
    let side = |ops: u64, p99: u64| crate::stats::Side {
        ops,
        bytes: ops * 4096,
        iops: ops as f64,
        bw_bytes_per_s: ops as f64 * 4096.0,
        latency_ns: crate::stats::LatencySummary {
            count: ops,
            p50: p99 / 2,
            p99,
            ..Default::default()
        },
    };
    let mut f = IntervalFigures {
        sides: Some(crate::stats::ReadWrite {
            read: side(600, 300_000),
            write: Default::default(),
            trim: side(400, 1_200_000),
        }),
        ..figures()
    };
    f.settings.trim_pct = 40;
    f.counts.trim_ops = 400;
    assert!(
        row(&f).ends_with(",random,0,0,0,40,400,400.0,1638400,600000,1200000,0"),
        "{}",
        row(&f)
    );
    // Trims alone: their count, their latency in the row's own columns.
    f.sides = None;
    assert!(row(&f).ends_with(",40,400,,,,,0"), "{}", row(&f));
}

#[test]
fn a_polled_row_says_so_in_its_last_column() {
    let mut f = figures();
    assert!(row(&f).ends_with(",0"), "{}", row(&f));
    f.settings.hipri = true;
    assert!(row(&f).ends_with(",,,,,1"), "{}", row(&f));
    assert!(step_row(1, &f).ends_with(",1"), "{}", step_row(1, &f));
}

#[test]
fn a_suite_row_not_run_has_empty_figures_and_the_reason() {
    let spread = Spread {
        median: 450.123,
        min: 400.0,
        max: 500.0,
        best: 500.0,
    };
    let read = DirectionResult {
        mb_per_s: spread,
        iops: spread,
        bw_bytes_per_s: 450.123e6,
        latency_ns: figures().latency_ns,
        counts: figures().counts,
        passes: vec![figures(), figures()],
    };
    let t = TestResult {
        name: "SEQ1M Q8T1".into(),
        bs: 1 << 20,
        iodepth: 8,
        iodepth_run: 8,
        threads: 1,
        random: false,
        read: Some(read),
        read_not_run: None,
        write: None,
        write_not_run: Some("not run: add --allow-write, or, \"not\"".into()),
        note: None,
    };
    let r = SuiteReport {
        meta: crate::model::Meta::default(),
        suite: SuiteName::Peak,
        config: crate::model::ConfigReport::example(),
        passes: 2,
        pass_time_s: 1.0,
        ramp_s: 0.5,
        pause_s: 0.0,
        notes: vec![],
        tests: vec![t],
        errors: vec![],
        interrupted_by: None,
        findings: vec![],
        until_steady: vec![],
        health: None,
    };
    let text = suite(&r);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], SUITE_COLUMNS);
    assert_eq!(
        lines[1],
        "peak,SEQ1M Q8T1,read,1048576,8,8,1,false,2,450.12,400.00,500.00,500.00,450.1,400.0,500.0,500.0,1234,5054464,2,1,403,300,900,2000,,false"
    );
    // The reason is quoted by the library, as CSV quotes a field with a comma or a quote.
    assert_eq!(
        lines[2],
        "peak,SEQ1M Q8T1,write,1048576,8,8,1,false,0,,,,,,,,,,,,,,,,,\"not run: add --allow-write, or, \"\"not\"\"\",false"
    );
    // A polled card says so on every row.
    let mut polled = r.clone();
    polled.config.settings.hipri = true;
    assert!(suite(&polled).lines().skip(1).all(|l| l.ends_with(",true")));
    let columns = SUITE_COLUMNS.split(',').count();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    for rec in reader.records() {
        assert_eq!(rec.unwrap().len(), columns);
    }
}
