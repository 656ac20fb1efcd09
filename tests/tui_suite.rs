//! The TUI's suite: `c` starts the standard suite on the run screen, the card fills in row
//! by row above the live graphs as passes finish (drawn from fixed snapshots into ratatui's
//! `TestBackend` and compared with `tests/snapshots/`; `UPDATE_SNAPSHOTS=1` rewrites them),
//! Esc cancels back to the sliders, and the finished card is saved by `e` and exported by `f`.

use std::path::PathBuf;
use std::time::Duration;

use diskscope::model::ConfigReport;
use diskscope::results::export::Export;
use diskscope::settings::{IoEngine, Settings};
use diskscope::stats::{Counts, Latency, Snapshot};
use diskscope::suite::Timing;
use diskscope::tui::action::Action;
use diskscope::tui::state::{App, Run, Screen, SweepState, View};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn info() -> ConfigReport {
    ConfigReport {
        target: diskscope::model::TargetFacts {
            path: "/dev/sdb".into(),
            kind: diskscope::model::TargetKind::BlockDevice,
            size_bytes: 500 << 30,
            device_bytes: Some(500 << 30),
            span_bytes: 500 << 30,
            logical_block_size: 512,
            direct: true,
            write_allowed: false,
        },
        settings: Settings::default(),
        duration_s: None,
        ioengine: IoEngine::IoUring,
        ioengine_fallback: None,
        poll_refusal: None,
        trim_refusal: None,
        latency_basis: diskscope::model::LATENCY_BASIS,
        durability: Default::default(),
        warnings: vec![],
        disk: Default::default(),
    }
}

/// A 100 ms snapshot under `s`: a fixed rate per setting, a little different each time;
/// `total` and `elapsed` are the run's so far, grown by it as the engine grows them.
fn snapshot(
    i: u64,
    s: Settings,
    paused: bool,
    total: &mut Counts,
    elapsed: &mut Duration,
) -> Snapshot {
    let ops = if paused {
        0
    } else {
        let per_tick = if s.bs >= 1 << 20 { 60 } else { 2000 } * s.iodepth.min(4) as u64;
        per_tick + i * 7 % 13
    };
    let mut lat = Latency::default();
    lat.record_n(50_000 * s.iodepth as u64 + i * 10, ops);
    let interval = Counts {
        ops,
        bytes: ops * s.bs,
        read_ops: ops,
        read_bytes: ops * s.bs,
        ..Counts::default()
    };
    total.add(&interval);
    if !paused {
        *elapsed += Duration::from_millis(100);
    }
    Snapshot {
        seq: i,
        at: Duration::from_millis(100 * (i + 1)),
        interval_elapsed: Duration::from_millis(100),
        settings: s,
        paused,
        stopped: None,
        interval,
        interval_latency: lat,
        interval_service_latency: None,
        total: *total,
        total_elapsed: *elapsed,
        total_latency: Default::default(),
        total_service_latency: Default::default(),
        total_left_out: Default::default(),
        sides: Default::default(),
        threads: vec![],
        first_errors: vec![],
    }
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// The engine as the session drives it: the settings and pause state the actions ask for.
struct FakeEngine {
    settings: Settings,
    paused: bool,
    i: u64,
    total: Counts,
    elapsed: Duration,
}

impl FakeEngine {
    fn act(&mut self, app: &mut App, a: Action) {
        match a {
            Action::Apply(s) => self.settings = s,
            Action::ApplyPaused(s, p) => (self.settings, self.paused) = (s, p),
            Action::Pause(p) => self.paused = p,
            _ => return,
        }
        let s = self.settings;
        if let Screen::Run(r) = &mut app.screen {
            r.settings = s;
        }
    }

    /// Sends one snapshot; returns the action it led to.
    fn tick(&mut self, app: &mut App) -> Action {
        let snap = snapshot(
            self.i,
            self.settings,
            self.paused,
            &mut self.total,
            &mut self.elapsed,
        );
        self.i += 1;
        let Screen::Run(r) = &mut app.screen else {
            panic!("not on the run screen")
        };
        r.push(snap.clone());
        let a = r.advance_suite(&snap);
        self.act(app, a.clone());
        a
    }
}

fn started() -> (App, FakeEngine) {
    let mut run = Run::new(info(), Settings::default(), Some("sdb".into()));
    run.suite_timing = Timing {
        passes: 3,
        pass_time: Duration::from_millis(300),
        pause: Duration::from_millis(200),
    };
    run.ram_bytes = Some(16 << 30);
    let mut app = App::new(Screen::Run(Box::new(run)), true);
    let mut engine = FakeEngine {
        settings: Settings::default(),
        paused: false,
        i: 0,
        total: Counts::default(),
        elapsed: Duration::ZERO,
    };
    for _ in 0..5 {
        engine.tick(&mut app);
    }
    let a = app.on_key(key(KeyCode::Char('c')));
    let first = Settings {
        threads: 1,
        iodepth: 8,
        bs: 1 << 20,
        read_pct: 100,
        random_pct: 0,
        rate_iops: 0,
        random_distribution: Default::default(),
        trim_pct: 0,
        hipri: false,
    };
    assert_eq!(a, Action::ApplyPaused(first, false));
    engine.act(&mut app, a);
    (app, engine)
}

fn run(app: &App) -> &Run {
    app.run().expect("the run screen")
}

fn draw_lines(app: &App, w: u16, h: u16) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| f.render_widget(app, f.area())).unwrap();
    let buf = t.backend().buffer().clone();
    buf.content
        .chunks(w as usize)
        .map(|row| {
            let s: String = row.iter().map(|c| c.symbol()).collect();
            s.trim_end().to_string() + "\n"
        })
        .collect()
}

fn assert_snapshot(name: &str, got: &str) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_SNAPSHOTS=1", path.display()));
    assert!(
        got == want,
        "screen {name} differs:\n--- want\n{want}--- got\n{got}"
    );
}

#[test]
fn the_card_fills_in_row_by_row_and_is_saved_when_done() {
    let (mut app, mut engine) = started();
    assert_eq!(run(&app).view, View::Suite);
    // Until the first test's three read passes are measured, its row has no figures.
    let mut rests = 0;
    while run(&app).suite.as_ref().unwrap().runner.passes_done() < 3 {
        if let Action::ApplyPaused(_, true) = engine.tick(&mut app) {
            rests += 1;
        }
    }
    assert_eq!(rests, 3, "paused after each of the 3 passes");
    // Mid-suite: the first row filled in, the second under way, the writes not run.
    for _ in 0..6 {
        engine.tick(&mut app);
    }
    let screen = draw_lines(&app, 80, 24);
    assert_snapshot("suite_80x24", &screen);
    assert!(
        screen.contains("SEQ1M Q8T1") && screen.contains("running…"),
        "{screen}"
    );
    assert_eq!(screen.matches("not run: needs --allow-write").count(), 4);
    // The progress on the message line, the hint line under it.
    let last: Vec<&str> = screen.lines().rev().take(2).collect();
    assert!(last[1].contains("Esc cancels"), "{screen}");
    assert!(last[0].starts_with("? help  Esc cancel"), "{screen}");
    // Keys other than Esc, e, f, q and ? do nothing while it runs; `e` saves the card as
    // it stands: the first test's three passes, the others not run yet, not stopped.
    assert_eq!(app.on_key(key(KeyCode::Char(' '))), Action::None);
    assert_eq!(app.on_key(key(KeyCode::Char('e'))), Action::Export);
    let Some(Export::Suite(mid)) = run(&app).export() else {
        panic!("e mid-suite does not save the card")
    };
    assert_eq!(mid.tests[0].read.as_ref().unwrap().passes.len(), 3);
    assert_eq!(
        mid.tests[3].read_not_run.as_deref(),
        Some("not run yet: saved while the suite ran")
    );
    assert_eq!(mid.interrupted_by, None);
    // To the end: the earlier settings come back, paused.
    let mut last = Action::None;
    for _ in 0..1000 {
        last = engine.tick(&mut app);
        if run(&app).suite.as_ref().unwrap().state != SweepState::Running {
            break;
        }
    }
    assert_eq!(last, Action::ApplyPaused(Settings::default(), true));
    assert_eq!(run(&app).suite.as_ref().unwrap().state, SweepState::Done);
    let screen = draw_lines(&app, 80, 24);
    assert_snapshot("suite_done_80x24", &screen);
    // `e` saves the card (what --suite --json prints), `f` shows its fio job.
    assert_eq!(app.on_key(key(KeyCode::Char('e'))), Action::Export);
    let Some(Export::Suite(card)) = run(&app).export() else {
        panic!("e does not save the card")
    };
    assert_eq!(card.tests.len(), 4);
    assert!(
        card.tests
            .iter()
            .all(|t| t.read.as_ref().unwrap().passes.len() == 3)
    );
    let json = serde_json::to_value(&card).unwrap();
    assert_eq!(json["suite"], "standard");
    assert_eq!(json["tests"][2]["name"], "RND4K Q32T1");
    app.on_key(key(KeyCode::Char('f')));
    let fio = app.fio.as_ref().expect("the fio overlay").job_file.clone();
    assert_eq!(fio.matches("-pass").count(), 12, "{fio}");
    app.on_key(key(KeyCode::Esc)); // closes the overlay
    app.on_key(key(KeyCode::Esc));
    assert_eq!(run(&app).view, View::Live);
    assert_eq!(app.on_key(key(KeyCode::Char('v'))), Action::None);
    assert_eq!(run(&app).view, View::Suite);
}

#[test]
fn esc_cancels_back_to_the_sliders() {
    let (mut app, mut engine) = started();
    for _ in 0..4 {
        engine.tick(&mut app);
    }
    let a = app.on_key(key(KeyCode::Esc));
    assert_eq!(a, Action::ApplyPaused(Settings::default(), false));
    let r = run(&app);
    assert_eq!(r.view, View::Live);
    assert!(!r.suite_running());
    assert!(r.notice.as_deref().unwrap().contains("suite cancelled"));
    // Esc on the sliders goes back, which there is nothing to: the run goes on.
    assert_eq!(app.on_key(key(KeyCode::Esc)), Action::None);
    assert!(
        run(&app)
            .notice
            .as_deref()
            .unwrap()
            .contains("Esc goes back")
    );
}

#[test]
fn the_suite_view_draws_at_any_size_and_help_lists_c() {
    let (mut app, mut engine) = started();
    for _ in 0..40 {
        engine.tick(&mut app);
    }
    for (w, h) in [(1, 1), (20, 5), (40, 10), (79, 23), (120, 40), (200, 60)] {
        draw_lines(&app, w, h);
    }
    app.help = true;
    // Tall enough for the help's every line (at 80x24 it scrolls).
    let screen = draw_lines(&app, 80, 60);
    assert!(screen.contains("run the standard suite"), "{screen}");
}

/// A row that ran fewer passes than planned says how many where the spread would be, as
/// the printed card and its line say it ("1 of 3").
#[test]
fn a_short_row_says_how_many_passes_it_ran() {
    let (mut app, mut engine) = started();
    while run(&app).suite.as_ref().unwrap().runner.passes_done() < 1 {
        engine.tick(&mut app);
    }
    let screen = draw_lines(&app, 80, 24);
    let row = screen
        .lines()
        .find(|l| l.contains("SEQ1M Q8T1"))
        .expect("the first row");
    assert!(row.contains("1 of 3"), "{screen}");
    let a = app.on_key(key(KeyCode::Esc));
    engine.act(&mut app, a);
    app.on_key(key(KeyCode::Char('v')));
    let screen = draw_lines(&app, 80, 24);
    assert!(screen.contains("1 of 3"), "{screen}");
}

/// Quitting mid-suite (the session marks the series stopped by what quit) keeps the rows
/// already measured: the card printed and saved at the end is the card so far, marked.
#[test]
fn a_quit_mid_suite_keeps_the_finished_rows_marked_as_stopped() {
    let (mut app, mut engine) = started();
    while run(&app).suite.as_ref().unwrap().runner.passes_done() < 4 {
        engine.tick(&mut app);
    }
    let Screen::Run(r) = &mut app.screen else {
        panic!("the run screen")
    };
    r.stop_series("the q key");
    let card = r.suite_at_quit().expect("the card so far");
    assert_eq!(card.interrupted_by.as_deref(), Some("the q key"));
    assert_eq!(card.tests[0].read.as_ref().unwrap().passes.len(), 3);
    assert_eq!(card.tests[1].read.as_ref().unwrap().passes.len(), 1);
    assert_eq!(
        card.tests[2].read_not_run.as_deref(),
        Some("not run: the suite was stopped by the q key")
    );
    let text = diskscope::render::card::card(&card);
    assert!(text.contains("(stopped early by the q key)"), "{text}");
    assert!(text.contains("SEQ1M Q1T1 read: 1 of 3 passes"), "{text}");
    // A suite cancelled with Esc is not printed at the end: the run went on after it.
    let (mut app, mut engine) = started();
    engine.tick(&mut app);
    app.on_key(key(KeyCode::Esc));
    assert!(run(&app).suite_at_quit().is_none());
    assert!(matches!(run(&app).export(), Some(Export::Run(_))));
}
