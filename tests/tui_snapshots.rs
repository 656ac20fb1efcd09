//! The TUI's screens drawn from fixed data into ratatui's `TestBackend`, compared with the
//! expected text in `tests/snapshots/` (regenerate with `UPDATE_SNAPSHOTS=1 cargo test`, then
//! read the diff), plus key handling: keys in, settings and screen state out. Render is a pure
//! function of `App`, so none of this needs a terminal, a clock or a disk.

use std::path::PathBuf;
use std::time::Duration;

use diskscope::diskstats::KernelRates;
use diskscope::model::ConfigReport;
use diskscope::settings::Knob;
use diskscope::settings::Settings;
use diskscope::stats::{Counts, Latency, LatencySummary, Snapshot, ThreadSample};
use diskscope::target::discover::{Access, DeviceInfo, DeviceKind};
use diskscope::target::link::{LinkInfo, LinkKind};
use diskscope::tui::action::Action;
use diskscope::tui::state::{App, Picker, PickerRow, Run, Screen};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn settings() -> Settings {
    Settings {
        threads: 4,
        iodepth: 1,
        bs: 4096,
        read_pct: 100,
        random_pct: 100,
        rate_iops: 0,
        random_distribution: Default::default(),
        trim_pct: 0,
        hipri: false,
    }
}

fn info(write_allowed: bool) -> ConfigReport {
    ConfigReport {
        target: diskscope::model::TargetFacts {
            path: "/dev/sdb".into(),
            kind: diskscope::model::TargetKind::BlockDevice,
            size_bytes: 500 << 30,
            device_bytes: Some(500 << 30),
            span_bytes: 500 << 30,
            logical_block_size: 512,
            direct: true,
            write_allowed,
        },
        settings: settings(),
        duration_s: None,
        ioengine: diskscope::settings::IoEngine::IoUring,
        ioengine_fallback: None,
        poll_refusal: None,
        trim_refusal: None,
        latency_basis: diskscope::model::LATENCY_BASIS,
        durability: Default::default(),
        warnings: vec![],
        disk: Default::default(),
    }
}

/// Snapshot `i` of a fixed, bimodal run: most reads near 60 µs (cache hits), a fifth near 2 ms.
/// The rate fits the latency: 4 threads at depth 1 with a 0.45 ms mean do at most 8.9k IOPS.
fn snapshot(i: u64, total: &mut Counts) -> Snapshot {
    let ops = 820 + (i * 37 % 100);
    let mut h = Latency::default();
    h.record_n(60_000 + i * 100, ops * 4 / 5);
    h.record_n(2_000_000 + i * 1000, ops / 5);
    let interval = Counts {
        ops,
        bytes: ops * 4096,
        read_ops: ops,
        read_bytes: ops * 4096,
        ..Counts::default()
    };
    total.add(&interval);
    let threads = (0..4)
        .map(|id| ThreadSample {
            id,
            active: true,
            total: Counts {
                ops: total.ops / 4,
                // In flight the whole of each I/O's mean latency (no rate: the same time).
                busy_ns: total.ops / 4 * 452_000,
                ..Counts::default()
            },
            active_time: Duration::from_millis(100 * (i + 1)),
            interval_ops: ops / 4,
            interval_latency_mean_ns: 450_000.0 + id as f64 * 1000.0,
            latency_mean_ns: 452_000.0,
            fell_back: false,
        })
        .collect();
    Snapshot {
        seq: i,
        at: Duration::from_millis(100 * (i + 1)),
        interval_elapsed: Duration::from_millis(100),
        settings: settings(),
        paused: false,
        stopped: None,
        interval,
        interval_latency: h,
        interval_service_latency: None,
        total: *total,
        total_elapsed: Duration::from_millis(100 * (i + 1)),
        total_latency: LatencySummary {
            count: total.ops,
            min: 60_000,
            mean: 448_000.0,
            p50: 61_000,
            p90: 2_010_000,
            p99: 2_030_000,
            p999: 2_039_000,
            max: 2_039_000,
        },
        total_service_latency: LatencySummary::default(),
        total_left_out: Default::default(),
        sides: Default::default(),
        threads,
        first_errors: vec![],
    }
}

fn run_app() -> App {
    let mut run = Run::new(info(false), settings(), Some("sdb".into()));
    let mut total = Counts::default();
    for i in 0..40 {
        run.push(snapshot(i, &mut total));
    }
    run.set_kernel(Some(KernelRates {
        r_per_s: 8_600.0,
        w_per_s: 0.0,
        r_bytes_per_s: 35.2e6,
        w_bytes_per_s: 0.0,
        avg_queue_depth: 3.91,
        await_ms: Some(0.46),
        util_pct: 99.2,
        discards: Some((0.0, 0.0)),
    }));
    App::new(Screen::Run(Box::new(run)), true)
}

fn device(name: &str, size: u64, access: Access, mounts: &[&str]) -> DeviceInfo {
    DeviceInfo {
        name: name.into(),
        path: format!("/dev/{name}"),
        kind: DeviceKind::Disk,
        parent: None,
        model: Some("Samsung SSD 870".into()),
        vendor: None,
        size_bytes: size,
        logical_block_size: 512,
        physical_block_size: 4096,
        rotational: false,
        scheduler: Some("mq-deadline".into()),
        nr_requests: Some(64),
        removable: false,
        read_only: false,
        major_minor: (8, 0),
        mountpoints: mounts.iter().map(|m| m.to_string()).collect(),
        holders: vec![],
        access,
        link: LinkInfo::bare(LinkKind::Sata, "SATA 6 Gb/s", None),
        queue_limits: Default::default(),
        temperature_sensor: Default::default(),
        health: None,
    }
}

fn picker_app() -> App {
    let picker = Picker::new(
        "scratch file here (./diskscope.scratch, 1 GiB)".into(),
        vec![
            device("sda", 500 << 30, Access::Ok, &["/"]),
            device(
                "sdb",
                2 << 40,
                Access::Denied("permission denied".into()),
                &[],
            ),
        ],
    );
    App::new(Screen::Picker(picker), true)
}

fn draw(app: &App, w: u16, h: u16) -> Buffer {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    t.backend().buffer().clone()
}

fn lines(buf: &Buffer) -> Vec<String> {
    let w = buf.area.width as usize;
    buf.content
        .chunks(w)
        .map(|row| {
            let mut s = String::new();
            let mut skip = 0;
            for c in row {
                if skip > 0 {
                    skip -= 1;
                    continue;
                }
                s.push_str(c.symbol());
                skip = unicode_width(c.symbol()).saturating_sub(1);
            }
            s.trim_end().to_string()
        })
        .collect()
}

fn unicode_width(s: &str) -> usize {
    // Every symbol these screens draw is one column wide.
    if s.is_empty() { 0 } else { 1 }
}

/// Compares with `tests/snapshots/<name>.txt`; `UPDATE_SNAPSHOTS=1` writes it instead.
fn assert_snapshot(name: &str, buf: &Buffer) {
    let got = lines(buf).join("\n") + "\n";
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_SNAPSHOTS=1", path.display()));
    if got != want {
        panic!(
            "screen {name} differs from {}:\n--- want\n{want}--- got\n{got}",
            path.display()
        );
    }
}

fn screen_text(buf: &Buffer) -> String {
    lines(buf).join("\n")
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn run_screen_80x24() {
    let buf = draw(&run_app(), 80, 24);
    let text = screen_text(&buf);
    for needle in [
        "/dev/sdb",
        "span 500 GiB",
        "direct",
        "threads",
        "block size",
        "4k",
        "IOPS now",
        "bandwidth",
        "latency p99",
        "kernel sdb",
        "99.2",
        "latency distribution",
        "threads: 4 active",
    ] {
        assert!(text.contains(needle), "80x24 lacks {needle:?}:\n{text}");
    }
    assert_snapshot("run_80x24", &buf);
}

/// The run screen of `run_app`'s load under a rate of `rate_iops`.
fn rated_app(rate_iops: u64) -> App {
    let s = Settings {
        rate_iops,
        ..settings()
    };
    let mut run = Run::new(info(false), s, Some("sdb".into()));
    let mut total = Counts::default();
    for i in 0..40 {
        let mut snap = Snapshot {
            settings: s,
            ..snapshot(i, &mut total)
        };
        // A tenth of a second of the timetable came due; the disk started what it finished.
        (snap.interval.due, snap.interval.issued) = (rate_iops / 10, snap.interval.ops);
        run.push(snap);
    }
    App::new(Screen::Run(Box::new(run)), true)
}

#[test]
fn a_rate_the_disk_cannot_carry_is_called_saturation() {
    // The fixed run does 8665 IOPS in its last second.
    let text = screen_text(&draw(&rated_app(50_000), 80, 24));
    assert!(
        text.contains("asked 50.0k IOPS, doing 8665: the disk is saturated"),
        "{text}"
    );
    // The latency shown is the corrected one, and the panes say so.
    assert!(text.contains("lat from due p99"), "{text}");
    assert!(text.contains("latency from due time"), "{text}");
    assert!(
        text.contains("rate IOPS") && text.contains("50.0k"),
        "{text}"
    );
    // A rate it carries is not.
    let text = screen_text(&draw(&rated_app(8_700), 80, 24));
    assert!(!text.contains("saturated"), "{text}");
    let text = screen_text(&draw(&run_app(), 80, 24));
    assert!(
        text.contains("unlimited") && !text.contains("from due"),
        "{text}"
    );
}

#[test]
fn run_screen_120x40() {
    let buf = draw(&run_app(), 120, 40);
    let text = screen_text(&buf);
    // The bimodal shape: both humps are visible as separate buckets.
    assert!(
        text.contains("≥ 32.8 µs") || text.contains("≥ 65.5 µs"),
        "{text}"
    );
    assert!(text.contains("≥ 1.05 ms"), "{text}");
    assert!(text.contains("80.0%") && text.contains("20.0%"), "{text}");
    assert_snapshot("run_120x40", &buf);
}

#[test]
fn picker_screens() {
    let app = picker_app();
    let buf = draw(&app, 80, 24);
    let text = screen_text(&buf);
    let first_row = lines(&buf)[2].clone();
    assert!(first_row.starts_with("▶ scratch file here"), "{first_row}");
    assert!(text.contains("cannot open: permission denied"), "{text}");
    assert!(text.contains("enter a path…"), "{text}");
    // The unopenable device is dimmed.
    let y = lines(&buf)
        .iter()
        .position(|l| l.contains("/dev/sdb"))
        .unwrap() as u16;
    assert!(buf[(4, y)].modifier.contains(ratatui::style::Modifier::DIM));
    assert_snapshot("picker_80x24", &buf);
    assert_snapshot("picker_120x40", &draw(&app, 120, 40));
}

/// Terminal sizes from one cell to very large, for the tests that every screen draws at any
/// size without panicking.
const ODD_SIZES: &[(u16, u16)] = &[
    (1, 1),
    (2, 1),
    (1, 3),
    (10, 5),
    (17, 6),
    (40, 12),
    (79, 23),
    (80, 5),
    (200, 2),
    (300, 80),
];

#[test]
fn small_terminals_draw_without_panicking() {
    let mut with_help = run_app();
    with_help.help = true;
    for app in [run_app(), picker_app(), with_help] {
        for &(w, h) in ODD_SIZES {
            let buf = draw(&app, w, h);
            assert_eq!(buf.area.width, w);
        }
    }
    // 40x12 still shows the sliders.
    let text = screen_text(&draw(&run_app(), 40, 12));
    assert!(text.contains("threads") && text.contains("IOPS"), "{text}");
}

#[test]
fn no_color_uses_no_colours() {
    let mut app = run_app();
    app.color = false;
    let buf = draw(&app, 120, 40);
    assert!(
        buf.content
            .iter()
            .all(|c| c.fg == ratatui::style::Color::Reset && c.bg == ratatui::style::Color::Reset)
    );
    let coloured = draw(&run_app(), 120, 40);
    assert!(
        coloured
            .content
            .iter()
            .any(|c| c.fg != ratatui::style::Color::Reset)
    );
}

#[test]
fn run_keys_change_settings_through_actions() {
    let mut app = run_app();
    assert_eq!(
        app.on_key(key(KeyCode::Char('+'))),
        Action::Apply(Settings {
            threads: 5,
            ..settings()
        })
    );
    app.applied(
        Ok(()),
        Settings {
            threads: 5,
            ..settings()
        },
    );
    assert_eq!(
        app.on_key(key(KeyCode::Right)),
        Action::Apply(Settings {
            threads: 10,
            ..settings()
        })
    );
    // The engine refused: the status line says why and the settings stay.
    app.applied(
        Err("started only 2 of 5 new threads: too many open files".into()),
        Settings {
            threads: 7,
            ..settings()
        },
    );
    assert_eq!(app.run().unwrap().settings.threads, 7);
    assert!(screen_text(&draw(&app, 80, 24)).contains("too many open files"));
    assert_eq!(app.on_key(key(KeyCode::Tab)), Action::None);
    assert_eq!(app.run().unwrap().focus, Knob::QueueDepth);
    let depth = |n| Settings {
        threads: 7,
        iodepth: n,
        ..settings()
    };
    assert_eq!(app.on_key(key(KeyCode::Right)), Action::Apply(depth(2)));
    app.applied(Ok(()), depth(2));
    assert_eq!(app.on_key(key(KeyCode::Char('+'))), Action::Apply(depth(3)));
    assert_eq!(app.on_key(key(KeyCode::Char('-'))), Action::Apply(depth(1)));
    app.applied(Ok(()), depth(1));
    assert_eq!(app.on_key(key(KeyCode::Tab)), Action::None);
    assert_eq!(app.run().unwrap().focus, Knob::BlockSize);
    let bs = |n| Settings {
        threads: 7,
        bs: n,
        ..settings()
    };
    assert_eq!(app.on_key(key(KeyCode::Right)), Action::Apply(bs(8192)));
    assert_eq!(app.on_key(key(KeyCode::Char('h'))), Action::Apply(bs(2048)));
    // Read % cannot go below 100 without --allow-write.
    app.on_key(key(KeyCode::Down));
    assert_eq!(app.run().unwrap().focus, Knob::ReadPct);
    assert_eq!(app.on_key(key(KeyCode::Left)), Action::None);
    assert!(
        app.run()
            .unwrap()
            .message
            .as_deref()
            .unwrap_or("")
            .contains("--allow-write")
    );
    app.on_key(key(KeyCode::Up));
    app.on_key(key(KeyCode::BackTab));
    app.on_key(key(KeyCode::BackTab));
    assert_eq!(app.run().unwrap().focus, Knob::Threads);
}

#[test]
fn read_pct_moves_when_writes_are_allowed() {
    let mut app = App::new(
        Screen::Run(Box::new(Run::new(info(true), settings(), None))),
        true,
    );
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    app.on_key(key(KeyCode::Tab));
    assert_eq!(
        app.on_key(key(KeyCode::Left)),
        Action::Apply(Settings {
            read_pct: 95,
            ..settings()
        })
    );
    app.on_key(key(KeyCode::Tab));
    assert_eq!(
        app.on_key(key(KeyCode::Char('-'))),
        Action::Apply(Settings {
            random_pct: 90,
            ..settings()
        })
    );
    // No device for the kernel view: it says so.
    assert!(screen_text(&draw(&app, 80, 24)).contains("kernel n/a"));
}

#[test]
fn pause_reset_help_and_quit_keys() {
    let mut app = run_app();
    assert_eq!(app.on_key(key(KeyCode::Char(' '))), Action::Pause(true));
    assert!(screen_text(&draw(&app, 80, 24)).contains("PAUSED"));
    assert_eq!(app.on_key(key(KeyCode::Char(' '))), Action::Pause(false));
    assert!(!screen_text(&draw(&app, 80, 24)).contains("PAUSED"));
    assert_eq!(app.on_key(key(KeyCode::Char('r'))), Action::ResetStats);
    assert!(app.run().unwrap().timeline.is_empty());
    assert_eq!(app.on_key(key(KeyCode::Char('?'))), Action::None);
    assert!(app.help);
    // Tall enough for the whole list (at 80x24 it scrolls).
    let help = screen_text(&draw(&app, 80, 60));
    for k in [
        "space",
        "Ctrl-Z",
        "q Ctrl-C",
        "PgUp",
        "never ends the run",
        "z ",
        "M ",
    ] {
        assert!(help.contains(k), "help lacks {k}:\n{help}");
    }
    assert_eq!(app.on_key(key(KeyCode::Esc)), Action::None);
    assert!(!app.help);
    assert_eq!(app.on_key(key(KeyCode::Char('q'))), Action::Quit);
    // Esc means back, as in htop and btop: with nothing to close it says so, and the run
    // goes on.
    assert_eq!(app.on_key(key(KeyCode::Esc)), Action::None);
    let said = screen_text(&draw(&app, 80, 24));
    assert!(said.contains("Esc goes back"), "{said}");
    assert_eq!(
        app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Action::Quit
    );
    assert_eq!(
        app.on_key(KeyEvent::new(KeyCode::Char('z'), KeyModifiers::CONTROL)),
        Action::Suspend
    );
}

#[test]
fn thread_table_scrolls() {
    let mut app = run_app();
    app.on_key(key(KeyCode::PageDown));
    assert_eq!(
        app.run().unwrap().thread_scroll,
        3,
        "clamped to the last thread"
    );
    let text = screen_text(&draw(&app, 80, 24));
    assert!(!text.contains("│   0    2167"), "{text}");
    assert!(text.contains("│   3    2167"), "{text}");
    app.on_key(key(KeyCode::PageUp));
    assert_eq!(app.run().unwrap().thread_scroll, 0);
}

#[test]
fn picker_keys() {
    let mut app = picker_app();
    let selected = |app: &App| match &app.screen {
        Screen::Picker(p) => p.selected,
        _ => usize::MAX,
    };
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Action::Start(None),
        "one Enter starts the scratch file"
    );
    app.on_key(key(KeyCode::Char('j')));
    assert_eq!(selected(&app), 1);
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Action::Start(Some(PathBuf::from("/dev/sda")))
    );
    app.on_key(key(KeyCode::Down));
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Action::None,
        "sdb cannot be opened"
    );
    assert!(screen_text(&draw(&app, 80, 24)).contains("/dev/sdb: cannot open it"));
    app.on_key(key(KeyCode::Down));
    app.on_key(key(KeyCode::Down));
    assert_eq!(selected(&app), 3, "stops at the last row");
    app.on_key(key(KeyCode::Enter));
    for c in "/tmp/x".chars() {
        app.on_key(key(KeyCode::Char(c)));
    }
    assert!(screen_text(&draw(&app, 80, 24)).contains("path: /tmp/x"));
    app.on_key(key(KeyCode::Backspace));
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Action::Start(Some(PathBuf::from("/tmp/")))
    );
    app.on_key(key(KeyCode::Char('k')));
    assert_eq!(selected(&app), 2);
    assert!(
        matches!(&app.screen, Screen::Picker(p) if matches!(p.rows[0], PickerRow::Scratch { .. }))
    );
    assert_eq!(app.on_key(key(KeyCode::Char('q'))), Action::Quit);
}

// ---- sweeps, exports, fio, write confirmation ----

use diskscope::render::baseline::{Baseline, Figures};
use diskscope::results::export::Export;
use diskscope::sweep::{Dimension, SweepSpec};
use diskscope::tui::state::{Confirm, SweepState, View};

/// A snapshot of 100 ms at `settings` doing `iops` with most latencies near `p99_ns / 3` and
/// one in fifty at `p99_ns`.
fn step_snapshot(
    seq: u64,
    settings: Settings,
    iops: f64,
    p99_ns: u64,
    total: &mut Counts,
) -> Snapshot {
    let ops = (iops / 10.0).round() as u64;
    let mut h = Latency::default();
    h.record_n(p99_ns / 3, ops - ops / 50);
    h.record_n(p99_ns, ops / 50);
    let interval = Counts {
        ops,
        bytes: ops * settings.bs,
        read_ops: ops,
        read_bytes: ops * settings.bs,
        ..Counts::default()
    };
    total.add(&interval);
    let at = Duration::from_millis(100 * (seq + 1));
    Snapshot {
        seq,
        at,
        interval_elapsed: Duration::from_millis(100),
        settings,
        paused: false,
        stopped: None,
        interval,
        interval_latency: h,
        interval_service_latency: None,
        total: *total,
        total_elapsed: at,
        total_latency: LatencySummary {
            count: total.ops,
            ..LatencySummary::default()
        },
        total_service_latency: LatencySummary::default(),
        total_left_out: Default::default(),
        sides: Default::default(),
        threads: vec![],
        first_errors: vec![],
    }
}

/// Fixed IOPS and p99 of a disk that saturates around 16 threads.
fn thread_curve(threads: u64) -> (f64, u64) {
    let t = threads as f64;
    (
        60_000.0 * t / (t + 4.0),
        (90_000.0 * (1.0 + t / 8.0)) as u64,
    )
}

/// Fixed IOPS and p99 of a block-size ladder: bandwidth levels off at about 500 MiB/s.
fn bs_curve(bs: u64) -> (f64, u64) {
    let bw = 520.0 * (1 << 20) as f64 * bs as f64 / (bs as f64 + 65_536.0);
    (bw / bs as f64, 80_000 + bs / 20)
}

/// Fixed IOPS and p99 of a disk that does 20k IOPS at most: at a rate, what was asked, with
/// a p99 that grows like a queue's (1 / (1 - load)); unlimited, the maximum with a deep queue.
fn load_curve(rate: u64) -> (f64, u64) {
    const MAX: f64 = 20_000.0;
    if rate == 0 {
        return (MAX, 9_000_000);
    }
    let load = (rate as f64 / MAX).min(0.99);
    (rate as f64, (200_000.0 / (1.0 - load)) as u64)
}

/// A run that swept `spec` with 1 s steps through `advance_sweep`, as the session feeds it.
fn swept_app(spec: SweepSpec) -> App {
    let mut run = Run::new(info(false), settings(), Some("sdb".into()));
    run.step_time = Duration::from_secs(1);
    let dimension = spec.dimension;
    let Action::Apply(mut current) = run.start_sweep(spec) else {
        panic!("a sweep starts by applying its first step");
    };
    let mut total = Counts::default();
    for seq in 0..500 {
        let v = dimension.value(&current);
        let (iops, p99) = match dimension {
            Dimension::Threads | Dimension::Iodepth => thread_curve(v),
            Dimension::Bs => bs_curve(v),
            Dimension::Rate => load_curve(v),
        };
        let s = step_snapshot(seq, current, iops, p99, &mut total);
        run.push(s.clone());
        match run.advance_sweep(&s) {
            Action::Apply(next) => {
                run.settings = next;
                current = next;
            }
            Action::None if run.view == View::Sweep => break,
            _ => {}
        }
    }
    App::new(Screen::Run(Box::new(run)), true)
}

#[test]
fn rate_curve_steps_at_the_fractions_and_draws_the_hockey_stick() {
    let app = swept_app(SweepSpec::parse("rate=curve").unwrap());
    let Screen::Run(run) = &app.screen else {
        panic!("run screen")
    };
    let sweep = run.sweep.as_ref().unwrap();
    let asked: Vec<u64> = sweep
        .results()
        .iter()
        .map(|r| r.settings.rate_iops)
        .collect();
    // One unlimited step (20k IOPS), then 10 … 100% of what it did.
    assert_eq!(
        asked,
        vec![
            0, 2000, 6000, 10_000, 14_000, 16_000, 18_000, 19_000, 20_000
        ]
    );
    let curve = sweep.curve.as_ref().unwrap();
    // p99 222 µs at 10%, so the flat part ends where p99 passes 444 µs: 667 µs at 70%
    // (the fourth paced step) is the first beyond it.
    assert_eq!(curve.leaves_flat_at, Some(3));
    let buf = draw(&app, 80, 24);
    let text = screen_text(&buf);
    for needle in [
        "latency vs load",
        "p99 stays within",
        "up to 50% of max (10.0k IOPS)",
        "asked IO/s",
        "unlimited",
    ] {
        assert!(text.contains(needle), "{needle:?} missing:\n{text}");
    }
    assert_snapshot("sweep_rate_80x24", &buf);
}

fn thread_sweep_app() -> App {
    swept_app(SweepSpec::parse("threads=1..64").unwrap())
}

fn sweep_baseline() -> Baseline {
    Baseline::Sweep {
        label: "before.json".into(),
        dimension: Dimension::Threads,
        steps: [1u64, 2, 4, 8, 16, 32, 64]
            .iter()
            .map(|&t| {
                let (iops, p99) = thread_curve(t);
                (
                    t,
                    Figures {
                        iops: iops * 0.8,
                        bw_bytes_per_s: iops * 0.8 * 4096.0,
                        p50_ns: p99 as f64 / 3.0,
                        p99_ns: p99 as f64 * 1.3,
                    },
                )
            })
            .collect(),
        conditions: Default::default(),
    }
}

#[test]
fn sweep_screen_80x24_and_120x40() {
    let app = thread_sweep_app();
    let run = app.run().unwrap();
    let sweep = run.sweep.as_ref().unwrap();
    assert_eq!(sweep.state, SweepState::Done);
    assert_eq!(sweep.results().len(), 7);
    assert_eq!(run.view, View::Sweep, "a finished sweep shows its chart");
    let buf = draw(&app, 80, 24);
    let text = screen_text(&buf);
    for needle in [
        "IOPS vs threads",
        "saturates at",
        "IO/s",
        "MiB/s",
        "Mbit/s",
        "p99",
        "Enter back",
        "settings back to 4k random read QD1 T4",
    ] {
        assert!(text.contains(needle), "80x24 lacks {needle:?}:\n{text}");
    }
    // The x axis is labelled with powers of two.
    let axis = lines(&buf)
        .into_iter()
        .find(|l| l.contains(" 1 ") && l.contains("64"))
        .unwrap_or_default();
    for label in ["2", "4", "8", "16", "32"] {
        assert!(axis.contains(label), "axis lacks {label}: {axis:?}\n{text}");
    }
    // Every step is a table row.
    for t in ["1", "2", "4", "8", "16", "32", "64"] {
        assert!(
            lines(&buf)
                .iter()
                .any(|l| l.trim_start().starts_with(&format!("{t} "))),
            "no row for {t} threads:\n{text}"
        );
    }
    assert_snapshot("sweep_80x24", &buf);
    assert_snapshot("sweep_120x40", &draw(&app, 120, 40));
}

#[test]
fn sweep_screen_with_a_baseline_sweep() {
    let mut app = thread_sweep_app();
    app.baseline = Some(sweep_baseline());
    let buf = draw(&app, 80, 24);
    let text = screen_text(&buf);
    assert!(text.contains("baseline before.json"), "{text}");
    // The baseline is drawn dimmed inside the chart.
    let dimmed = buf
        .content
        .iter()
        .filter(|c| c.modifier.contains(ratatui::style::Modifier::DIM) && c.symbol() != " ")
        .count();
    assert!(
        dimmed > 20,
        "the baseline series is dimmed: {dimmed} cells\n{text}"
    );
    assert_snapshot("sweep_baseline_80x24", &buf);
    let wide = draw(&app, 120, 40);
    assert!(
        screen_text(&wide).contains("(baseline "),
        "at 120 columns the table compares each step"
    );
    assert_snapshot("sweep_baseline_120x40", &wide);
}

#[test]
fn block_size_sweep_screen() {
    let app = swept_app(SweepSpec::parse("bs=512..4M").unwrap());
    let buf = draw(&app, 80, 24);
    let text = screen_text(&buf);
    assert!(text.contains("MiB/s vs bs"), "{text}");
    assert!(text.contains("saturates at"), "{text}");
    assert!(
        text.contains("more steps (e saves them all)"),
        "14 rows do not fit 24 lines:\n{text}"
    );
    assert_snapshot("sweep_bs_80x24", &buf);
    assert!(screen_text(&draw(&app, 120, 40)).contains("4M"));
}

#[test]
fn run_screen_shows_a_run_baseline() {
    let mut app = run_app();
    app.baseline = Some(Baseline::Run {
        label: "before.json".into(),
        total: Figures {
            iops: 52_100.0,
            bw_bytes_per_s: 52_100.0 * 4096.0,
            p50_ns: 61_000.0,
            p99_ns: 180_000.0,
        },
        sides: None,
        conditions: Default::default(),
        holds: "a single run".into(),
    });
    let text = screen_text(&draw(&app, 120, 40));
    assert!(text.contains("baseline 52.1k"), "{text}");
    assert!(text.contains("baseline p99 180 µs"), "{text}");
}

#[test]
fn sweep_keys_start_lock_cancel_and_show() {
    let mut app = run_app();
    assert_eq!(app.on_key(key(KeyCode::Char('s'))), Action::None);
    assert!(screen_text(&draw(&app, 100, 30)).contains("t threads"));
    // s t: threads 1..64 from the current settings, starting by applying 1 thread.
    assert_eq!(
        app.on_key(key(KeyCode::Char('t'))),
        Action::Apply(Settings {
            threads: 1,
            ..settings()
        })
    );
    let run = app.run().unwrap();
    assert!(run.sweeping());
    assert_eq!(
        run.sweep.as_ref().unwrap().runner.spec().values,
        vec![1, 2, 4, 8, 16, 32, 64]
    );
    let text = screen_text(&draw(&app, 100, 30));
    assert!(text.contains("step 1/7 (1 thread)"), "{text}");
    assert!(text.contains("controls locked"), "{text}");
    // The sliders are locked, and say so.
    assert_eq!(app.on_key(key(KeyCode::Right)), Action::None);
    assert!(
        app.run()
            .unwrap()
            .message
            .as_deref()
            .unwrap_or("")
            .contains("locked")
    );
    assert_eq!(app.on_key(key(KeyCode::Char('+'))), Action::None);
    // Esc cancels the sweep, not the run.
    assert_eq!(app.on_key(key(KeyCode::Esc)), Action::None);
    let run = app.run().unwrap();
    assert_eq!(run.sweep.as_ref().unwrap().state, SweepState::Cancelled);
    // The settings from before the sweep are back (here the first step's were the same), and
    // the screen says so.
    let said = run.notice.as_deref().unwrap_or("");
    assert!(
        said.contains("cancelled after 0 of 7") && said.contains("settings back to"),
        "{said}"
    );
    assert!(!run.sweeping());
    // The sliders work again.
    assert!(matches!(
        app.on_key(key(KeyCode::Char('+'))),
        Action::Apply(_)
    ));
    // s b: block sizes from the logical block size to 4M.
    app.on_key(key(KeyCode::Char('s')));
    assert_eq!(
        app.on_key(key(KeyCode::Char('b'))),
        Action::Apply(Settings {
            bs: 512,
            ..settings()
        })
    );
    assert_eq!(
        app.run()
            .unwrap()
            .sweep
            .as_ref()
            .unwrap()
            .runner
            .spec()
            .values
            .len(),
        14
    );
    app.on_key(key(KeyCode::Esc));
    // s then anything else: no sweep.
    app.on_key(key(KeyCode::Char('s')));
    assert_eq!(app.on_key(key(KeyCode::Char('x'))), Action::None);
    assert!(!app.run().unwrap().sweep_prompt);
    assert!(!app.run().unwrap().sweeping());

    // A finished sweep: Enter goes back to the run, v shows the chart again.
    let mut app = thread_sweep_app();
    assert_eq!(app.on_key(key(KeyCode::Enter)), Action::None);
    assert_eq!(app.run().unwrap().view, View::Live);
    assert!(screen_text(&draw(&app, 80, 24)).contains("IOPS now"));
    app.on_key(key(KeyCode::Char('v')));
    assert_eq!(app.run().unwrap().view, View::Sweep);
    app.on_key(key(KeyCode::Esc));
    assert_eq!(app.run().unwrap().view, View::Live);
    assert_eq!(app.on_key(key(KeyCode::Char('q'))), Action::Quit);
}

#[test]
fn bs_sweep_skips_sizes_the_target_cannot_take() {
    let mut small = info(false);
    small.target.logical_block_size = 4096;
    small.target.span_bytes = 1 << 20;
    let spec = diskscope::sweep::default_sweep(Dimension::Bs, &small).unwrap();
    assert_eq!(
        spec.values,
        vec![
            4096,
            8192,
            16384,
            32768,
            65536,
            131072,
            262144,
            524288,
            1 << 20
        ]
    );
    small.target.span_bytes = 4096;
    assert!(diskscope::sweep::default_sweep(Dimension::Bs, &small).is_err());
}

#[test]
fn e_exports_the_run_or_the_last_sweep_as_json() {
    let mut app = run_app();
    assert_eq!(app.on_key(key(KeyCode::Char('e'))), Action::Export);
    let Some(Export::Run(run)) = app.run().unwrap().export() else {
        panic!("a run exports its report");
    };
    assert_eq!(
        run.intervals.len(),
        4,
        "40 snapshots of 100 ms: 4 rows of a second"
    );
    let v = serde_json::to_value(Export::Run(run)).unwrap();
    assert!(v["intervals"].is_array() && v["total"]["ops"].as_u64().unwrap() > 0);

    let mut app = thread_sweep_app();
    assert_eq!(app.on_key(key(KeyCode::Char('e'))), Action::Export);
    let export = app.run().unwrap().export().unwrap();
    let v = serde_json::to_value(&export).unwrap();
    assert_eq!(v["dimension"], "threads");
    assert_eq!(v["steps"].as_array().unwrap().len(), 7);
    assert_eq!(v["step_time_s"], 1.0);
    assert!(
        v["saturation"]["summary"]
            .as_str()
            .unwrap()
            .starts_with("saturates at")
    );
    // Back on the run screen, a manual change makes the run the last thing again.
    app.on_key(key(KeyCode::Enter));
    assert!(matches!(
        app.run().unwrap().export(),
        Some(Export::Sweep(_))
    ));
    app.on_key(key(KeyCode::Char('+')));
    assert!(matches!(app.run().unwrap().export(), Some(Export::Run(_))));
}

/// A sweep is kept when it is cut short: `e` while it runs saves the steps so far, and a
/// quit (the session marks it stopped by what quit) prints and saves them marked.
#[test]
fn a_sweep_cut_short_or_saved_mid_way_keeps_its_steps() {
    let mut run = Run::new(info(false), settings(), Some("sdb".into()));
    run.step_time = Duration::from_secs(1);
    let Action::Apply(mut current) = run.start_sweep(SweepSpec::parse("threads=1..64").unwrap())
    else {
        panic!("a sweep starts by applying its first step");
    };
    let mut total = Counts::default();
    for seq in 0.. {
        if run.sweep.as_ref().unwrap().results().len() == 2 {
            break;
        }
        let (iops, p99) = thread_curve(current.threads as u64);
        let s = step_snapshot(seq, current, iops, p99, &mut total);
        run.push(s.clone());
        if let Action::Apply(next) = run.advance_sweep(&s) {
            (run.settings, current) = (next, next);
        }
    }
    let Some(Export::Sweep(mid)) = run.export() else {
        panic!("e mid-sweep does not save the sweep");
    };
    assert_eq!((mid.steps.len(), mid.interrupted_by.clone()), (2, None));
    run.stop_series("SIGTERM");
    let cut = run.sweep_at_quit().expect("the sweep so far");
    assert_eq!(cut.steps.len(), 2);
    assert_eq!(cut.interrupted_by.as_deref(), Some("SIGTERM"));
    let text = diskscope::render::sweep::sweep_summary(&cut);
    assert!(text.contains("SIGTERM"), "{text}");
}

#[test]
fn f_shows_the_fio_job_for_the_current_settings() {
    let mut app = run_app();
    app.applied(
        Ok(()),
        Settings {
            threads: 16,
            bs: 65536,
            ..settings()
        },
    );
    assert_eq!(app.on_key(key(KeyCode::Char('f'))), Action::None);
    let text = screen_text(&draw(&app, 120, 40));
    for needle in [
        "fio --ioengine=io_uring",
        "--name=diskscope --rw=randread",
        "numjobs=16",
        "bs=65536",
        "rw=randread",
        "[diskscope]",
    ] {
        assert!(
            text.contains(needle),
            "fio overlay lacks {needle:?}:\n{text}"
        );
    }
    assert!(screen_text(&draw(&app, 80, 24)).contains("numjobs=16"));
    assert_eq!(app.on_key(key(KeyCode::Char('x'))), Action::None);
    assert!(app.fio.is_none(), "any key closes it");
    assert!(!screen_text(&draw(&app, 120, 40)).contains("[diskscope]"));
}

#[test]
fn help_lists_the_new_keys() {
    let mut app = run_app();
    app.help = true;
    let text = screen_text(&draw(&app, 100, 50));
    for k in [
        "s t / s b",
        "Esc (sweeping)",
        "e ",
        "f ",
        "v ",
        "write confirm",
    ] {
        assert!(text.contains(k), "help lacks {k:?}:\n{text}");
    }
}

fn confirm_app() -> App {
    App::new(
        Screen::Confirm(Confirm {
            device: PathBuf::from("/dev/sdb"),
            input: String::new(),
            message: None,
        }),
        true,
    )
}

#[test]
fn write_confirmation_keys() {
    let mut app = confirm_app();
    let text = screen_text(&draw(&app, 80, 24));
    assert!(
        text.contains("Writing destroys the data on /dev/sdb") && text.contains("Esc to run"),
        "{text}"
    );
    for c in "/dev/sdbx".chars() {
        assert_eq!(
            app.on_key(key(KeyCode::Char(c))),
            Action::None,
            "typing is not a command"
        );
    }
    app.on_key(key(KeyCode::Backspace));
    assert!(screen_text(&draw(&app, 80, 24)).contains("> /dev/sdb"));
    assert_eq!(
        app.on_key(key(KeyCode::Enter)),
        Action::ConfirmWrite("/dev/sdb".into())
    );
    assert_eq!(app.on_key(key(KeyCode::Esc)), Action::ReadOnly);
    // q is a letter of a path here; Ctrl-C still quits.
    assert_eq!(app.on_key(key(KeyCode::Char('q'))), Action::None);
    assert_eq!(
        app.on_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)),
        Action::Quit
    );
    if let Screen::Confirm(c) = &mut app.screen {
        c.message = Some("'/dev/sda' is not /dev/sdb".into());
    }
    assert!(screen_text(&draw(&app, 80, 24)).contains("is not /dev/sdb"));
}

#[test]
fn new_screens_draw_at_any_size_without_panicking() {
    let mut with_fio = run_app();
    with_fio.on_key(key(KeyCode::Char('f')));
    let mut baseline_sweep = thread_sweep_app();
    baseline_sweep.baseline = Some(sweep_baseline());
    let mut sweeping = run_app();
    sweeping.on_key(key(KeyCode::Char('s')));
    sweeping.on_key(key(KeyCode::Char('t')));
    sweeping.on_key(key(KeyCode::Char('v')));
    let bs = swept_app(SweepSpec::parse("bs=512..4M").unwrap());
    for app in [
        thread_sweep_app(),
        baseline_sweep,
        sweeping,
        bs,
        with_fio,
        confirm_app(),
    ] {
        for &(w, h) in ODD_SIZES {
            let buf = draw(&app, w, h);
            assert_eq!(buf.area.width, w);
        }
    }
}

#[test]
fn now_peak_average_and_thread_rows_come_from_the_same_windows() {
    use diskscope::stats::seconds::Seconds;
    let mut seconds = Seconds::default();
    let mut total = Counts::default();
    for i in 0..45 {
        let before = total;
        let mut s = snapshot(i, &mut total);
        // A burst in a window that is not complete yet must not lift the average above
        // the peak; a paused snapshot (no I/O) is not running time.
        if i >= 42 {
            s.interval.ops *= 10;
        }
        if i == 20 {
            total = before;
            s.paused = true;
            s.interval = Counts::default();
            for t in &mut s.threads {
                t.total.ops = before.ops / 4;
            }
        }
        seconds.push(&s);
        if let (Some(avg), Some(now)) = (seconds.avg_iops(), &seconds.now) {
            assert!(
                avg <= seconds.peak_iops * (1.0 + 1e-9),
                "avg {avg} > peak {}",
                seconds.peak_iops
            );
            let rows: f64 = now.threads.iter().map(|t| t.ops_per_s).sum();
            assert!(
                (rows - now.iops).abs() <= now.iops * 0.01,
                "threads add up to {rows}, IOPS now {}",
                now.iops
            );
        } else {
            assert!(i < 9, "no complete window after {} snapshots", i + 1);
        }
    }
}

#[test]
fn a_long_path_gives_way_to_the_state_at_80_columns() {
    let mut app = run_app();
    let long = "/dev/disk/by-id/nvme-SAMSUNG_MZQL23T8HCLS-00A07_S64HNE0T123456-part1";
    {
        let run = app.run_mut().unwrap();
        run.info.target.path = long.into();
        run.info.warnings = vec!["small span".into()];
        run.paused = true;
    }
    for width in [80, 60] {
        let text = screen_text(&draw(&app, width, 24));
        let top = text.lines().next().unwrap();
        for needle in ["4.0s", "errors 0", "warnings 1", "PAUSED", "…", "part1"] {
            assert!(
                top.contains(needle),
                "{width} columns, no {needle:?}: {top}"
            );
        }
        assert!(
            top.starts_with("/dev/d") || top.starts_with("diskscope /dev/"),
            "{top}"
        );
    }
    // Wide enough: nothing is cut.
    let top = screen_text(&draw(&app, 200, 40))
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert!(top.contains(long) && top.contains("? help"), "{top}");
}

#[test]
fn the_kernel_panels_app_column_is_the_iops_now_window() {
    let app = run_app();
    let run = app.run().unwrap();
    let now = run.seconds.now.as_ref().unwrap();
    let a = run.kernel.app.as_ref().unwrap();
    assert!(
        (a.r_per_s + a.w_per_s - now.iops).abs() < 1e-6,
        "{} vs {}",
        a.r_per_s,
        now.iops
    );
}

#[test]
fn the_depth_slider_stays_at_1_on_psync_and_says_why() {
    let mut app = run_app();
    {
        let info = &mut app.run_mut().unwrap().info;
        info.ioengine = diskscope::settings::IoEngine::Psync;
        info.ioengine_fallback = Some("io_uring refused (EPERM)".into());
    }
    app.on_key(key(KeyCode::Down));
    assert_eq!(app.on_key(key(KeyCode::Right)), Action::None);
    let msg = app.run().unwrap().message.clone().unwrap_or_default();
    assert!(
        msg.contains("queue depth stays 1") && msg.contains("EPERM"),
        "{msg}"
    );
    app.run_mut().unwrap().info.ioengine = diskscope::settings::IoEngine::IoUring;
    assert!(matches!(
        app.on_key(key(KeyCode::Right)),
        Action::Apply(s) if s.iodepth == 2
    ));
}

/// A RAID1 whose reads all go to one mirror: `m` swaps the kernel pane for the member rows,
/// and only where the target has members.
#[test]
fn members_pane_shows_each_member_row_by_row() {
    use diskscope::diskstats::members::Member;
    let mut app = run_app();
    app.on_key(key(KeyCode::Char('m')));
    assert!(
        !app.run().unwrap().kernel.show_members,
        "a plain disk has no members to show"
    );
    let rates = |r: f64, q: f64, util: f64| KernelRates {
        r_per_s: r,
        w_per_s: 0.0,
        r_bytes_per_s: r * 4096.0,
        w_bytes_per_s: 0.0,
        avg_queue_depth: q,
        await_ms: (r > 0.0).then_some(0.46),
        util_pct: util,
        discards: None,
    };
    let member = |name: &str, depth| Member {
        name: name.into(),
        depth,
    };
    {
        let k = &mut app.run_mut().unwrap().kernel;
        k.device = Some("md0".into());
        k.members = vec![
            (member("sdb1", 1), Some(rates(8_600.0, 3.9, 99.2))),
            (member("sdc1", 1), Some(rates(0.0, 0.0, 0.0))),
            (member("nvme0n1p12", 1), None),
        ];
    }
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains("m: 3 members"), "{text}");
    app.on_key(key(KeyCode::Char('m')));
    assert!(app.run().unwrap().kernel.show_members);
    assert_snapshot("members_80x24", &draw(&app, 80, 24));
    let text = screen_text(&draw(&app, 80, 24));
    assert!(
        text.contains("  sdb1  8600  35.2   3.9  460 µs    99"),
        "{text}"
    );
    assert!(
        text.contains("  sdc1     0   0.0   0.0       -     0"),
        "{text}"
    );
    assert!(text.contains("  nvm…     -"), "long names are cut: {text}");
    app.on_key(key(KeyCode::Char('m')));
    assert!(!app.run().unwrap().kernel.show_members);
}

/// 30 s of the bimodal run with a stall every 7 s (two reads of ~0.5 s): `d` swaps the
/// distribution for the heatmap, where the stalls stand in their own band, column by column.
#[test]
fn heatmap_shows_periodic_stalls_without_colour() {
    let mut run = Run::new(info(false), settings(), Some("sdb".into()));
    let mut total = Counts::default();
    for i in 0..300 {
        let mut s = snapshot(i, &mut total);
        if i % 70 == 65 {
            s.interval_latency.record_n(500_000_000, 2);
            s.interval.ops += 2;
            // The engine's totals grow by each interval (a total that does not is a reset).
            total.ops += 2;
            s.total.ops += 2;
        }
        run.push(s);
    }
    let mut app = App::new(Screen::Run(Box::new(run)), false);
    app.on_key(key(KeyCode::Char('d')));
    assert!(app.run().unwrap().show_heatmap);
    // A column an interval (0.1 s) shows the last 2.5 s, one stall at most; a second a
    // column (z) shows 25 s, as the graphs beside it do.
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains("latency heatmap, 0.1 s/col"), "{text}");
    app.on_key(key(KeyCode::Char('z')));
    assert_snapshot("heatmap_80x24", &draw(&app, 80, 24));
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains("latency heatmap, 1 s/col"), "{text}");
    assert!(
        text.contains(" peak│") || text.contains("▼ (peaks)"),
        "{text}"
    );
    let stall_row = text
        .lines()
        .find(|l| l.contains("≥ 134 ms"))
        .unwrap_or_else(|| panic!("a band for the stalls: {text}"));
    assert_eq!(
        stall_row.matches('░').count(),
        4,
        "one marked second per stall in the 25 s shown: {stall_row}"
    );
    app.on_key(key(KeyCode::Char('d')));
    assert!(!app.run().unwrap().show_heatmap);
}

/// Every cell of `buf` in ASCII, or the first that is not.
fn first_non_ascii(buf: &Buffer) -> Option<(u16, u16, String)> {
    let w = buf.area.width;
    buf.content
        .iter()
        .enumerate()
        .find(|(_, c)| !c.symbol().is_ascii())
        .map(|(i, c)| (i as u16 % w, i as u16 / w, c.symbol().to_string()))
}

/// Where the locale is not UTF-8 (`LC_ALL=C`), every screen is drawn in ASCII at 80x24 —
/// borders, the sliders' bars, the sparklines, the histogram, the heatmap's shades, the
/// arrows and µs — with the same layout as in UTF-8.
#[test]
fn a_locale_without_utf8_gets_every_screen_in_ascii() {
    let mut heat = run_app();
    heat.on_key(key(KeyCode::Char('d')));
    let mut help = run_app();
    help.on_key(key(KeyCode::Char('?')));
    let mut fio = run_app();
    fio.on_key(key(KeyCode::Char('f')));
    let screens = [
        ("run_ascii_80x24", run_app()),
        ("picker_ascii_80x24", picker_app()),
        ("sweep_ascii_80x24", thread_sweep_app()),
        ("heatmap_ascii_80x24", heat),
        ("help_ascii_80x24", help),
        ("fio_ascii_80x24", fio),
        ("confirm_ascii_80x24", confirm_app()),
    ];
    for (name, mut app) in screens {
        let unicode = lines(&draw(&app, 80, 24));
        app.ascii = true;
        let buf = draw(&app, 80, 24);
        assert_eq!(
            first_non_ascii(&buf),
            None,
            "{name}:\n{}",
            screen_text(&buf)
        );
        // One cell for one: every line as long as in UTF-8.
        let ascii = lines(&buf);
        for (a, u) in ascii.iter().zip(&unicode) {
            assert_eq!(a.len(), u.chars().count(), "{name}: {a}");
        }
        assert_snapshot(name, &buf);
    }
    let run = screen_text(&draw(
        &{
            let mut a = run_app();
            a.ascii = true;
            a
        },
        80,
        24,
    ));
    assert!(
        run.contains("+ controls: Tab/^v select, <> +- change+"),
        "{run}"
    );
    assert!(run.contains("|> threads     #"), "{run}");
    assert!(run.contains(" us"), "{run}");
}

/// The help is wrapped to the terminal and scrolls (↑ ↓ PgUp PgDn, said in its title), so
/// at 80x24 every key of every screen can be read: scrolling to the end shows each line of
/// it once, none cut at the edge.
#[test]
fn the_help_scrolls_so_every_key_is_readable_at_80x24() {
    for mut app in [run_app(), picker_app(), thread_sweep_app(), confirm_app()] {
        // The write confirmation types `?` into its field: the help is opened directly.
        app.help = true;
        let mut seen: Vec<String> = Vec::new();
        let mut last_top = None;
        for _ in 0..300 {
            let buf = draw(&app, 80, 24);
            let screen = lines(&buf);
            let inside: Vec<String> = screen
                .iter()
                // The box's left edge is the third column, whatever the screen under it
                // shows in the first two (a graph's scale, a border).
                .filter(|l| l.chars().nth(2) == Some('│'))
                .map(|l| {
                    let inside: String = l.chars().skip(3).collect();
                    inside.trim_matches(|c| c == ' ' || c == '│').to_string()
                })
                .collect();
            assert!(
                screen.iter().any(|l| l.contains("↑ ↓ PgUp PgDn scroll")),
                "{screen:?}"
            );
            if last_top.as_ref() == Some(&inside) {
                break;
            }
            for l in &inside {
                if !seen.contains(l) {
                    seen.push(l.clone());
                }
            }
            last_top = Some(inside);
            app.on_key(key(KeyCode::Down));
            assert!(app.help, "↓ scrolls, it does not close the help");
        }
        let all = seen.join(" ");
        // Every screen's keys, ending with the overlays' own, are there whole.
        for needle in [
            "picker:",
            "write confirm:",
            "laying out:",
            "help or fio shown: q Ctrl-C quit",
            "scroll it",
            "suspend (fg resumes)",
        ] {
            assert!(
                all.contains(needle),
                "{needle:?} not reached:\n{}\nthe last screen:\n{}",
                seen.join("\n"),
                lines(&draw(&app, 80, 24)).join("\n")
            );
        }
        // PgUp goes back to the top; another key closes.
        for _ in 0..10 {
            app.on_key(key(KeyCode::PageUp));
        }
        assert_eq!(app.overlay_scroll, 0);
        app.on_key(key(KeyCode::Char('x')));
        assert!(!app.help);
    }
}

/// The run screen with what it says of why: a PCIe link at a quarter of its ceiling, the
/// drive at 71 °C of a warning 80 with its last readings, the steady mark, bytes written and
/// the newest finding in the message line.
#[test]
fn run_screen_says_why_120x40_and_80x24() {
    use diskscope::model::finding::Finding;
    use diskscope::model::why::{SteadyMetric, SteadyState};
    let mut app = run_app();
    let Screen::Run(run) = &mut app.screen else {
        unreachable!()
    };
    run.why.link_label = "PCIe 3.0 x2 (of 4.0 x4)".into();
    run.why.ceiling_bytes_per_s = Some(1_969_230_769);
    run.why.no_sensor = None;
    run.why.temp_c = Some(71.0);
    run.why.warn_c = Some(80.0);
    run.why.temps = (0..30).map(|i| Some(60.0 + f64::from(i) * 0.4)).collect();
    run.why.written_bytes = 41_019_301_478;
    run.why.report.steady_state = Some(SteadyState {
        reached: true,
        metric: SteadyMetric::Iops,
        since_s: Some(42.0),
        round_s: 2.0,
        rounds: 5,
        mean_iops: Some(8_690.0),
        mean_bw_bytes_per_s: Some(35.6e6),
        excursion_pct: Some(14.0),
        slope_pct: Some(3.0),
        window_start_s: Some(42.0),
        window_end_s: Some(52.0),
        latency_mean_ns: None,
        latency_p99_ns: None,
    });
    run.why.latest = Some(Finding::new(
        "link_below_max",
        "PCIe link trained at 8.0 GT/s x2, the drive can do 16.0 GT/s x4: the slot, riser or \
         BIOS setting leaves it a quarter of its bandwidth"
            .into(),
    ));
    let wide = draw(&app, 120, 40);
    let text = screen_text(&wide);
    for needle in [
        "│ PCIe 3.0 x2 (of 4.0 x4) │",
        "│ steady │",
        "steady since 0:42 (5 × 2 s within ±7%, slope 3%)",
        "· of 1.97 GB/s link",
        "written 38.2 GiB",
        "temp     71 °C (warn 80)",
        "why: PCIe link trained at 8.0 GT/s x2",
    ] {
        assert!(text.contains(needle), "{needle} missing:\n{text}");
    }
    assert_snapshot("run_why_120x40", &wide);
    let narrow = draw(&app, 80, 24);
    let text = screen_text(&narrow);
    for needle in ["│ steady", "steady since 0:42", "temp     71 °C (warn 80)"] {
        assert!(text.contains(needle), "{needle} missing at 80x24:\n{text}");
    }
    assert_snapshot("run_why_80x24", &narrow);
}

/// After a minute of running, `q` asks once: another key goes on, `q` or `y` then quits;
/// before a minute, and where nobody watches (stdout not a terminal), `q` quits at once.
#[test]
fn quitting_after_a_minute_asks_once() {
    let mut app = run_app();
    assert_eq!(
        app.on_key(key(KeyCode::Char('q'))),
        Action::Quit,
        "under a minute"
    );
    let run = app.run_mut().unwrap();
    run.last.as_mut().unwrap().at = Duration::from_secs(75);
    assert_eq!(
        app.on_key(key(KeyCode::Char('q'))),
        Action::Quit,
        "not a terminal"
    );
    app.run_mut().unwrap().ask_before_quit = true;
    assert_eq!(app.on_key(key(KeyCode::Char('q'))), Action::None);
    let asked = screen_text(&draw(&app, 80, 24));
    assert!(
        asked.contains("quit after 1m15s of running? q or y quits"),
        "{asked}"
    );
    // Another key goes on (and does what it does).
    assert_eq!(app.on_key(key(KeyCode::Char('x'))), Action::None);
    assert!(!screen_text(&draw(&app, 80, 24)).contains("q or y quits"));
    assert_eq!(
        app.on_key(key(KeyCode::Char('y'))),
        Action::None,
        "y only when asked"
    );
    for again in ['q', 'y'] {
        assert_eq!(app.on_key(key(KeyCode::Char('q'))), Action::None);
        assert_eq!(app.on_key(key(KeyCode::Char(again))), Action::Quit);
        app.run_mut().unwrap().quit_asked = false;
    }
    // Ctrl-C quits at once.
    let ctrl_c = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
    assert_eq!(app.on_key(ctrl_c), Action::Quit);
}

/// `u` puts the rate back to unlimited whichever slider is selected; ←/→ on the rate step
/// through fractions of what the disk did unpaced; `0` puts every slider back to its start.
#[test]
fn the_rate_steps_by_fractions_and_u_and_0_put_things_back() {
    let mut app = run_app();
    let base = app
        .run()
        .unwrap()
        .rate_base
        .expect("the unpaced IOPS known");
    app.run_mut().unwrap().focus = Knob::Rate;
    let Action::Apply(paced) = app.on_key(key(KeyCode::Left)) else {
        panic!("← on the rate applies a rate");
    };
    assert_eq!(paced.rate_iops, (base * 90).div_ceil(100));
    app.applied(Ok(()), paced);
    let Action::Apply(lower) = app.on_key(key(KeyCode::Left)) else {
        panic!("← again");
    };
    assert_eq!(lower.rate_iops, (base * 80).div_ceil(100));
    app.applied(Ok(()), lower);
    let slider_line = screen_text(&draw(&app, 80, 24));
    assert!(slider_line.contains("80% "), "{slider_line}");
    app.run_mut().unwrap().focus = Knob::Threads;
    let Action::Apply(unlimited) = app.on_key(key(KeyCode::Char('u'))) else {
        panic!("u applies");
    };
    assert_eq!(unlimited.rate_iops, 0);
    assert_eq!(unlimited.threads, lower.threads);
    let start = app.run().unwrap().start_settings;
    let changed = Settings {
        threads: start.threads * 2,
        rate_iops: 5000,
        ..start
    };
    app.applied(Ok(()), changed);
    assert_eq!(app.on_key(key(KeyCode::Char('0'))), Action::Apply(start));
}

/// The summary on quit carries a sweep's verdict when the run went on after it (a setting
/// changed, so the sweep is not what is printed whole), and says a sweep was cancelled.
#[test]
fn a_sweep_the_run_went_on_after_keeps_its_verdict_for_the_summary() {
    let mut app = thread_sweep_app();
    let run = app.run().unwrap();
    assert!(run.series_notes().is_empty(), "printed whole at quit");
    app.run_mut().unwrap().view = View::Live;
    let Action::Apply(next) = app.on_key(key(KeyCode::Right)) else {
        panic!("→ applies");
    };
    app.applied(Ok(()), next);
    let notes = app.run().unwrap().series_notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0].starts_with("sweep of threads ran: saturates at 32 threads"),
        "{notes:?}"
    );
}

/// Ten minutes of a run that doubles its threads every two minutes: at 0.1 s a column the
/// graphs hold the last few seconds and no mark; `z` steps to 1 s, 10 s and the whole run,
/// the axis saying each, and the whole run shows every change (T8, T16, T32, T64) with the
/// run's clock under it; the IOPS graph's top is a round number above its highest column.
#[test]
fn zoom_keeps_the_whole_story_with_its_marks_and_axes() {
    let mut run = Run::new(info(false), settings(), Some("sdb".into()));
    let mut total = Counts::default();
    for i in 0..6000u64 {
        let mut s = snapshot(i, &mut total);
        s.settings.threads = 4 << (i / 1200);
        run.push(s);
    }
    let mut app = App::new(Screen::Run(Box::new(run)), false);
    let text = screen_text(&draw(&app, 80, 24));
    assert!(text.contains("0.1 s/col"), "{text}");
    assert!(!text.contains("T64"), "{text}");
    let mut scales = vec![];
    for _ in 0..3 {
        app.on_key(key(KeyCode::Char('z')));
        let text = screen_text(&draw(&app, 80, 24));
        let axis = text.lines().find(|l| l.starts_with("time ")).unwrap_or("");
        scales.push(axis.to_string());
    }
    assert!(scales[0].contains(" 1 s/col"), "{scales:?}");
    assert!(scales[1].contains(" 10 s/col"), "{scales:?}");
    // 600 s in 38 columns: 16 s a column (the whole run's buckets are whole seconds).
    assert!(scales[2].contains("run: 16 s/col"), "{scales:?}");
    let buf = draw(&app, 80, 24);
    assert_snapshot("zoom_whole_80x24", &buf);
    let text = screen_text(&buf);
    for mark in ["T8", "T16", "T32", "T64"] {
        assert!(text.contains(mark), "{mark} missing:\n{text}");
    }
    // The axis starts at the run's start and its ticks are on the run's clock.
    assert!(
        scales[2].contains("╵0:00") || scales[2].contains("╵0:01"),
        "{scales:?}"
    );
    assert!(text.contains("╵5:00") || text.contains("╵4:00"), "{text}");
    // The IOPS graph's top: above the highest column, round; the latency lines are peaks.
    assert!(text.contains("  10k┤"), "{text}");
    assert!(
        text.contains(" peak│") || text.contains("▼ (peaks)"),
        "{text}"
    );
    assert_snapshot("zoom_whole_200x50", &draw(&app, 200, 50));
    // Back to 0.1 s after the whole run.
    app.on_key(key(KeyCode::Char('z')));
    assert!(screen_text(&draw(&app, 80, 24)).contains("0.1 s/col"));
}

/// The mouse through the regions the frame drew (`hits`): a press on a slider's label
/// focuses it, a press at the right end of its bar sets its largest value (the same
/// `Apply` a key gives), the wheel over the thread table scrolls it, and with the mouse off
/// nothing happens.
#[test]
fn mouse_presses_and_the_wheel_go_where_the_frame_drew() {
    use diskscope::tui::hits;
    use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let at = std::time::Instant::now();
    let event = |kind, column, row| MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    };
    let press = |x, y| event(MouseEventKind::Down(MouseButton::Left), x, y);
    let mut app = run_app();
    let ((), map) = hits::collect(|| {
        draw(&app, 80, 24);
    });
    app.hits = map;
    let text = screen_text(&draw(&app, 80, 24));
    let row = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() as u16;
    // Off: nothing.
    assert_eq!(app.on_mouse(press(5, row("queue depth")), at), Action::None);
    assert_eq!(app.run().unwrap().focus, Knob::Threads);
    app.mouse.on = true;
    assert_eq!(app.on_mouse(press(5, row("queue depth")), at), Action::None);
    assert_eq!(app.run().unwrap().focus, Knob::QueueDepth);
    // The block size bar's last cell: 16M, as far right as → goes.
    let line = text.lines().nth(row("block size") as usize).unwrap();
    let last = line
        .chars()
        .collect::<Vec<_>>()
        .iter()
        .rposition(|c| *c == '░')
        .unwrap();
    assert_eq!(
        app.on_mouse(press(last as u16, row("block size")), at),
        Action::Apply(Settings {
            bs: 16 << 20,
            ..settings()
        })
    );
    assert_eq!(app.run().unwrap().focus, Knob::BlockSize);
    // The wheel over the thread table: 3 rows a notch, no further than its last row.
    let y = row("ops/s  mean lat") + 1;
    app.on_mouse(event(MouseEventKind::ScrollDown, 60, y), at);
    assert_eq!(app.run().unwrap().thread_scroll, 3);
    app.on_mouse(event(MouseEventKind::ScrollUp, 60, y), at);
    assert_eq!(app.run().unwrap().thread_scroll, 0);
    // Over the graphs the wheel does nothing.
    app.on_mouse(
        event(MouseEventKind::ScrollDown, 10, row("IOPS now") + 2),
        at,
    );
    assert_eq!(app.run().unwrap().thread_scroll, 0);
}

/// The picker with the mouse: a press selects the row under it; two presses on one row
/// within half a second start on it (the `Start` Enter gives), two further apart do not,
/// and the wheel moves the selection as ↑/↓ do.
#[test]
fn a_double_click_on_a_picker_row_starts_and_a_slow_one_only_selects() {
    use diskscope::tui::hits;
    use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let event = |kind, row| MouseEvent {
        kind,
        column: 10,
        row,
        modifiers: KeyModifiers::NONE,
    };
    let press = |row| event(MouseEventKind::Down(MouseButton::Left), row);
    let mut app = picker_app();
    app.mouse.on = true;
    let ((), map) = hits::collect(|| {
        draw(&app, 80, 24);
    });
    app.hits = map;
    let text = screen_text(&draw(&app, 80, 24));
    let row = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() as u16;
    let selected = |app: &App| match &app.screen {
        Screen::Picker(p) => p.selected,
        _ => usize::MAX,
    };
    let t0 = std::time::Instant::now();
    let later = |ms| t0 + Duration::from_millis(ms);
    assert_eq!(app.on_mouse(press(row("sda")), t0), Action::None);
    assert_eq!(selected(&app), 1);
    assert_eq!(app.on_mouse(press(row("sda")), later(700)), Action::None);
    assert_eq!(
        app.on_mouse(press(row("sda")), later(900)),
        Action::Start(Some(PathBuf::from("/dev/sda")))
    );
    // The wheel: down one row, up one row.
    app.on_mouse(event(MouseEventKind::ScrollDown, 3), later(1000));
    assert_eq!(selected(&app), 2);
    app.on_mouse(event(MouseEventKind::ScrollUp, 3), later(1100));
    assert_eq!(selected(&app), 1);
    // A press on the header row does nothing.
    assert_eq!(
        app.on_mouse(press(row("target")), later(1200)),
        Action::None
    );
    assert_eq!(selected(&app), 1);
}

/// A thread whose io_uring ring failed runs pread/pwrite at depth 1: the status line says so
/// whatever depth the sliders show, and the message line names the thread, as the summary
/// does.
#[test]
fn a_thread_whose_ring_failed_is_said_on_the_status_and_message_lines() {
    let s = Settings {
        iodepth: 16,
        ..settings()
    };
    let mut run = Run::new(info(false), s, Some("sdb".into()));
    let mut total = Counts::default();
    for i in 0..20 {
        let mut snap = Snapshot {
            settings: s,
            ..snapshot(i, &mut total)
        };
        snap.threads[2].fell_back = true;
        run.push(snap);
    }
    let text = screen_text(&draw(&App::new(Screen::Run(Box::new(run)), true), 120, 40));
    assert!(text.contains("1 thread(s) QD1: ring failed"), "{text}");
    assert!(
        text.contains(
            "io_uring failed in 1 of 4 threads (2): from then on it ran pread/pwrite, one I/O at a time, not QD16"
        ),
        "{text}"
    );
}

/// `P` polls completions where the target's queue polls: the header says "polled", a second
/// `P` goes back to interrupts; where it does not poll, the key says why and nothing moves.
#[test]
fn polling_key_switches_where_the_queue_polls_and_says_why_where_not() {
    let mut app = run_app();
    let polled = Settings {
        hipri: true,
        ..settings()
    };
    assert_eq!(app.on_key(key(KeyCode::Char('P'))), Action::Apply(polled));
    app.applied(Ok(()), polled);
    let screen = screen_text(&draw(&app, 80, 24));
    assert!(screen.contains("direct, polled"), "{screen}");
    assert_eq!(
        app.on_key(key(KeyCode::Char('P'))),
        Action::Apply(settings())
    );
    app.applied(Ok(()), settings());
    assert!(!screen_text(&draw(&app, 80, 24)).contains("polled"));

    let why = "/dev/sdb: --hipri: sdb's queue does not poll (/sys/block/sdb/queue/io_poll is 0)";
    let mut info = info(false);
    info.poll_refusal = Some(why.into());
    let run = Run::new(info, settings(), Some("sdb".into()));
    let mut app = App::new(Screen::Run(Box::new(run)), true);
    assert_eq!(app.on_key(key(KeyCode::Char('P'))), Action::None);
    assert_eq!(app.run().unwrap().settings, settings());
    assert_eq!(app.run().unwrap().message.as_deref(), Some(why));
}
