//! The fleet screen drawn from fixed data into ratatui's `TestBackend` and compared with
//! `tests/snapshots/fleet_*.txt` (regenerate with `UPDATE_SNAPSHOTS=1 cargo test`, then read
//! the diff): while hosts run (states, live rates, the sparkline) and after (the table, an
//! outlier marked, a failed host with its reason). Render is a pure function of the state.

mod screen_common;

use screen_common::{assert_snapshot, draw, text};

use diskscope::fio::client::{HostEvent, HostOutcome, Live};
use diskscope::fio::json::{DirStats, FioEntry, PercentileBasis};
use diskscope::fleet::hosts::Host;
use diskscope::fleet::live::Board;
use diskscope::fleet::results::{self, HostResult};
use diskscope::fleet::{FleetConfig, FleetEvent, FleetReport};
use diskscope::tui::state::fleet::FleetScreen;

fn hosts() -> Vec<Host> {
    (2..=5)
        .map(|i| Host {
            name: format!("10.0.0.{i}"),
            port: 8765,
        })
        .collect()
}

const HEADER: &str = "fleet 4 hosts · /dev/nvme0n1 · 4k random read, QD32 T4 · io_uring · 10 s";

/// Four hosts 6 s in: two running, one still connecting, one refused.
fn live_screen() -> FleetScreen {
    let mut s = FleetScreen::new(HEADER.into(), Board::new(&hosts()), true);
    for t in 0..40u64 {
        for i in 0..2 {
            let iops = 90_000.0 + (t * 1_300 % 9_000) as f64 - i as f64 * 31_000.0;
            let live = Live {
                iops,
                percent: Some(t as f64 * 1.5),
            };
            s.apply(&FleetEvent::Host(i, HostEvent::Running(live)));
        }
        s.apply(&FleetEvent::Tick);
    }
    s.apply(&FleetEvent::Host(2, HostEvent::Connecting));
    let refused = HostOutcome {
        entries: vec![],
        failure: Some("cannot connect: Connection refused".into()),
    };
    s.apply(&FleetEvent::Host(3, HostEvent::Finished(Box::new(refused))));
    s
}

fn entry(ms: u64, ios: u64, lat_ns: f64) -> FioEntry {
    FioEntry {
        host: None,
        port: None,
        jobname: "diskscope".into(),
        error: 0,
        read: DirStats {
            io_bytes: ios * 4096,
            ios,
            runtime_ms: ms,
            lat_mean_ns: lat_ns,
            lat_p99_ns: Some(lat_ns * 2.5),
            ..DirStats::default()
        },
        write: DirStats::default(),
        trim: DirStats::default(),
        runtime_ms: ms,
        basis: PercentileBasis::Lat,
        group: 0,
        job_count: 1,
    }
}

fn final_screen() -> FleetScreen {
    let mut s = live_screen();
    let hs = hosts();
    let mut rows: Vec<HostResult> = [
        (95_000u64, 330_000.0),
        (61_000, 520_000.0),
        (93_000, 340_000.0),
    ]
    .iter()
    .zip(&hs)
    .map(|(&(iops, lat), h)| {
        results::host_result(
            h,
            &[entry(5_000, iops * 5, lat), entry(10_000, iops * 10, lat)],
            None,
        )
    })
    .collect();
    rows.push(results::host_result(
        &hs[3],
        &[],
        Some("cannot connect: Connection refused".into()),
    ));
    let aggregate = results::aggregate(&mut rows, 20.0);
    results::sort_hosts(&mut rows);
    for i in 0..3 {
        s.apply(&FleetEvent::Host(i, HostEvent::Finished(Box::default())));
    }
    s.report = Some(FleetReport {
        meta: diskscope::model::Meta::default(),
        fleet: FleetConfig {
            target: "/dev/nvme0n1".into(),
            hosts: hs,
            settings: Default::default(),
            ioengine: Default::default(),
            direct: true,
            duration_s: 10.0,
            write_allowed: false,
            outlier_pct: 20.0,
            fio_version: Some("fio-3.33".into()),
            latency_basis: String::new(),
        },
        intervals: results::fleet_intervals(&rows),
        outliers: rows
            .iter()
            .filter(|h| h.outlier)
            .map(|h| h.host.clone())
            .collect(),
        hosts: rows,
        aggregate,
        job_file: String::new(),
        interrupted_by: None,
    });
    s
}

#[test]
fn fleet_screen_while_running_80x24() {
    let s = live_screen();
    let buf = draw(&s, 80, 24);
    let text = text(&buf);
    // Every host has a row with its state; the refused one says why.
    for (host, state) in [
        ("10.0.0.2", "running"),
        ("10.0.0.3", "running"),
        ("10.0.0.4", "connecting"),
        ("10.0.0.5", "failed"),
    ] {
        let row = text
            .lines()
            .find(|l| l.starts_with(host))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(row.contains(state), "{row}");
    }
    assert!(text.contains("Connection refused"), "{text}");
    // The graph's title is the sum of the running hosts' last rates.
    let now = s.board.live_iops();
    assert_eq!(s.board.history.last().copied(), Some(now));
    assert_snapshot("fleet_live_80x24", &buf);
}

#[test]
fn fleet_screen_final_table_80x24() {
    let s = final_screen();
    let buf = draw(&s, 80, 24);
    let text = text(&buf);
    let r = s.report.as_ref().unwrap();
    assert_eq!(r.outliers, ["10.0.0.3"]);
    let row = text.lines().find(|l| l.starts_with("10.0.0.3")).unwrap();
    assert!(row.contains("outlier"), "{row}");
    // Rows in IOPS order, the failed host last.
    let order: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("10.0.0."))
        .map(|l| &l[..8])
        .collect();
    assert_eq!(order, ["10.0.0.2", "10.0.0.4", "10.0.0.3", "10.0.0.5"]);
    assert_snapshot("fleet_final_80x24", &buf);
}

#[test]
fn small_terminals_draw_without_panicking() {
    for (w, h) in [(1, 1), (20, 5), (40, 10), (200, 60)] {
        draw(&live_screen(), w, h);
        draw(&final_screen(), w, h);
    }
}
