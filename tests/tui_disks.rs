//! The disks screen (several targets at once) drawn from fixed data into ratatui's
//! `TestBackend` and compared with `tests/snapshots/disks_*.txt` (`UPDATE_SNAPSHOTS=1`
//! rewrites them; read the diff), with 3 and 24 targets at 80x24 and 200x50, and its keys:
//! moving, opening a target's run screen and coming back, the order, the sliders of every
//! target. The data go through the same shared clock and seconds a real run uses.

mod screen_common;

use screen_common::{assert_snapshot, draw, text};
use std::time::{Duration, Instant};

use diskscope::disks::Identity;
use diskscope::disks::clock::{Clock, SharedSeconds};
use diskscope::diskstats::KernelRates;
use diskscope::model::{ConfigReport, LATENCY_BASIS, TargetFacts, TargetKind};
use diskscope::settings::{IoEngine, Settings};
use diskscope::stats::{Counts, Latency, LatencySummary, Snapshot};
use diskscope::tui::action::Action;
use diskscope::tui::state::disks::Order;
use diskscope::tui::state::{App, Disks, Run, Screen};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn settings() -> Settings {
    Settings {
        threads: 4,
        iodepth: 32,
        ..Settings::default()
    }
}

fn config(path: &str) -> ConfigReport {
    ConfigReport {
        target: TargetFacts {
            path: path.into(),
            kind: TargetKind::BlockDevice,
            size_bytes: 4 << 40,
            device_bytes: Some(4 << 40),
            span_bytes: 4 << 40,
            logical_block_size: 512,
            direct: true,
            write_allowed: false,
        },
        settings: settings(),
        duration_s: None,
        ioengine: IoEngine::IoUring,
        ioengine_fallback: None,
        poll_refusal: None,
        trim_refusal: None,
        latency_basis: LATENCY_BASIS,
        durability: Default::default(),
        warnings: vec![],
        disk: Default::default(),
    }
}

/// The n-th disk of a shelf: sdb, sdc, … sdy.
fn name(i: usize) -> String {
    format!("sd{}", (b'b' + i as u8) as char)
}

/// A 100-ms snapshot of target `i` at tick `n`: ops near `rate / 10` (`slow.0` at its own
/// rate `slow.1`), latencies near 4 ms (Little's law at QD32 T4) with a 3% tail.
fn snapshot(i: usize, n: u64, slow: (usize, u64), total: &mut Counts) -> Snapshot {
    let rate = if i == slow.0 {
        slow.1
    } else {
        32_000 + (i as u64 % 5) * 300
    };
    let ops = rate / 10 + (n * 37 + i as u64 * 11) % 40;
    let mut lat = Latency::default();
    lat.record_n(3_800_000 + i as u64 * 1000, ops * 97 / 100);
    lat.record_n(9_500_000, ops - ops * 97 / 100);
    let interval = Counts {
        ops,
        bytes: ops * 4096,
        read_ops: ops,
        read_bytes: ops * 4096,
        ..Counts::default()
    };
    total.add(&interval);
    Snapshot {
        seq: n,
        at: Duration::from_millis(100 * (n + 1)),
        interval_elapsed: Duration::from_millis(100),
        settings: settings(),
        paused: false,
        stopped: None,
        interval,
        interval_latency: lat,
        interval_service_latency: None,
        total: *total,
        total_elapsed: Duration::from_millis(100 * (n + 1)),
        total_latency: LatencySummary::default(),
        total_service_latency: LatencySummary::default(),
        total_left_out: Default::default(),
        sides: Default::default(),
        threads: vec![],
        first_errors: vec![],
    }
}

/// `n` targets run for 10 s, `slow` the slow one, through the shared clock as a session
/// feeds them; every device 90-something % busy.
fn disks_app(n: usize, slow: usize) -> App {
    disks_app_at(n, (slow, 19_000))
}

/// The same with the slow target at its own rate.
fn disks_app_at(n: usize, slow: (usize, u64)) -> App {
    let ids = (0..n)
        .map(|i| {
            let path = format!("/dev/{}", name(i));
            let id = Identity {
                name: name(i),
                model: Some(
                    if i == slow.0 {
                        "ST4000NM0024"
                    } else {
                        "ST4000NM0035"
                    }
                    .into(),
                ),
                link: Some(
                    if i == slow.0 {
                        "SAS 6 Gb/s (of 12)"
                    } else {
                        "SAS 12 Gb/s"
                    }
                    .into(),
                ),
                device: Some(name(i)),
                config: config(&path),
            };
            let run = Run::new(config(&path), settings(), Some(name(i)));
            (id, run)
        })
        .collect();
    let mut d = Disks::new("io_uring, O_DIRECT".into(), settings(), ids, 20.0);
    let origin = Instant::now();
    let mut shared = SharedSeconds::new(Clock::new(origin, n), n);
    let mut totals = vec![Counts::default(); n];
    for tick in 0..100u64 {
        for (i, total) in totals.iter_mut().enumerate() {
            let s = snapshot(i, tick, slow, total);
            // Engines started 2 ms apart, as a group starts them.
            let at = origin + s.at + Duration::from_millis(2 * i as u64);
            let (end, seconds) = shared.push(i, &s, at);
            d.push_snapshot(i, s, end);
            for second in &seconds {
                d.push_second(second);
            }
            if !seconds.is_empty() {
                d.set_kernel(
                    (0..n)
                        .map(|k| {
                            Some(KernelRates {
                                util_pct: 90.0 + k as f64 % 10.0,
                                ..KernelRates::default()
                            })
                        })
                        .collect(),
                );
            }
        }
    }
    App::new(Screen::Disks(Box::new(d)), true)
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn disks(app: &App) -> &Disks {
    match &app.screen {
        Screen::Disks(d) => d,
        _ => panic!("not the disks screen"),
    }
}

#[test]
fn three_disks_at_80x24_and_200x50() {
    let app = disks_app(3, 2);
    assert_snapshot("disks_3_80x24", &draw(&app, 80, 24));
    assert_snapshot("disks_3_200x50", &draw(&app, 200, 50));
    let screen = text(&draw(&app, 80, 24));
    assert!(screen.contains("sdd 40% below the median of 3"), "{screen}");
}

#[test]
fn twenty_four_disks_at_80x24_and_200x50_name_the_slow_one() {
    let app = disks_app(24, 4);
    let small = draw(&app, 80, 24);
    assert_snapshot("disks_24_80x24", &small);
    assert_snapshot("disks_24_200x50", &draw(&app, 200, 50));
    let screen = text(&small);
    // The table scrolls, and the outlier is named even when its row is off screen.
    assert!(screen.contains("rows 1–"), "{screen}");
    assert!(
        screen.contains("sdf 41% below the median of 24"),
        "{screen}"
    );
    // Every row's IOPS now adds up to the aggregate's last second.
    let d = disks(&app);
    let sum: f64 = d.rows.iter().map(|r| r.now.as_ref().unwrap().iops).sum();
    assert!((d.now.as_ref().unwrap().iops - sum).abs() < 1e-6);
    let ops: u64 = d
        .rows
        .iter()
        .map(|r| r.now.as_ref().unwrap().counts.ops)
        .sum();
    assert_eq!(d.now.as_ref().unwrap().counts.ops, ops);
}

#[test]
fn a_disk_ten_times_slower_still_draws_its_line() {
    let app = disks_app_at(3, (2, 2_000));
    let screen = text(&draw(&app, 80, 24));
    let row = screen.lines().find(|l| l.starts_with("sdd")).unwrap();
    assert!(row.contains("▁▁▁▁"), "{row}");
    assert!(row.contains("-93%"), "{row}");
}

#[test]
fn any_size_draws_without_panicking() {
    let app = disks_app(24, 4);
    for (w, h) in [(1, 1), (10, 3), (40, 10), (80, 8), (300, 100)] {
        draw(&app, w, h);
    }
}

#[test]
fn keys_move_open_come_back_reorder_and_change_every_target() {
    let mut app = disks_app(24, 4);
    // `e` saves every target's run so far, from the table as from an opened target.
    assert_eq!(app.on_key(key(KeyCode::Char('e'))), Action::Export);
    assert_eq!(app.on_key(key(KeyCode::Down)), Action::None);
    assert_eq!(app.on_key(key(KeyCode::Enter)), Action::None);
    assert_eq!(disks(&app).open, Some(1));
    assert_eq!(app.on_key(key(KeyCode::Char('e'))), Action::Export);
    let opened = text(&draw(&app, 80, 24));
    assert!(opened.starts_with("diskscope /dev/sdc"), "{opened}");
    assert!(
        opened.contains("sdc of 24 targets · Esc: every target"),
        "{opened}"
    );
    // A slider in the opened screen changes every target.
    assert_eq!(
        app.on_key(key(KeyCode::Right)),
        Action::Apply(Settings {
            threads: 8,
            ..settings()
        })
    );
    app.on_key(key(KeyCode::Esc));
    assert_eq!(disks(&app).open, None);
    // Slowest first: the throttled disk on top, selected row kept by place.
    app.on_key(key(KeyCode::Char('o')));
    assert_eq!(disks(&app).order, Order::SlowestFirst);
    assert_eq!(disks(&app).order()[0], 4);
    app.on_key(key(KeyCode::Home));
    app.on_key(key(KeyCode::Enter));
    assert_eq!(disks(&app).open, Some(4));
    app.on_key(key(KeyCode::Enter));
    app.on_key(key(KeyCode::Tab));
    assert_eq!(
        app.on_key(key(KeyCode::Left)),
        Action::Apply(Settings {
            iodepth: 16,
            ..settings()
        })
    );
    assert_eq!(app.on_key(key(KeyCode::Char(' '))), Action::Pause(true));
    assert!(disks(&app).rows.iter().all(|r| r.run.paused));
    assert_eq!(app.on_key(key(KeyCode::Char('q'))), Action::Quit);
}

#[test]
fn help_lists_the_disks_keys_and_the_opened_view() {
    let mut app = disks_app(3, 2);
    app.help = true;
    let screen = text(&draw(&app, 120, 40));
    for k in [
        "order: as given / slowest first",
        "open the target's own run screen",
        "one target opened:",
    ] {
        assert!(screen.contains(k), "help lacks {k:?}:\n{screen}");
    }
}
