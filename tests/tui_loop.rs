//! The TUI's run loop with a real engine on a scratch file and ratatui's `TestBackend` for a
//! screen: the loop is generic over the backend, so the whole path — prepare, start, keys to
//! `Engine::apply`, quit, final snapshot, report — runs without a terminal.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Parser;
use diskscope::cli::Args;
use diskscope::tui::{Event, Outcome, Session, event_loop};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

fn key(c: char) -> Event {
    Event::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
}

#[test]
fn keys_reach_the_running_engine_and_quit_yields_the_report() {
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let dir_arg = dir.path().to_str().expect("utf-8 temp path");
    let config = Args::try_parse_from(["diskscope", dir_arg, "--size", "8M"])
        .expect("args")
        .validate()
        .expect("config");
    let (tx, rx) = mpsc::channel();
    let mut session = Session::new(config, tx.clone());
    let mut app = session.first_screen(false);
    let mut no_suspend = || Ok(());

    // Pump events until the run screen has its first snapshot.
    let start = Instant::now();
    while app.run().and_then(|r| r.last.as_ref()).is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the run never started"
        );
        if let Ok(e) = rx.recv_timeout(Duration::from_millis(100)) {
            session.handle(&mut app, e, &mut no_suspend).expect("event");
        }
    }
    assert_eq!(app.run().map(|r| r.settings.threads), Some(1));

    // '+' and then 'q' through the loop itself, drawing into a TestBackend.
    tx.send(key('+')).expect("send");
    tx.send(key('q')).expect("send");
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).expect("terminal");
    let outcome =
        event_loop(&mut terminal, &mut app, &rx, &mut session, &mut no_suspend).expect("loop");
    let Outcome::Finished { report, sweep, .. } = outcome else {
        panic!("quitting a run yields its report");
    };
    assert!(sweep.is_none(), "no sweep ran");
    assert_eq!(report.final_settings.threads, 2, "the settings at the end");
    assert!(
        !report.intervals.is_empty(),
        "the TUI keeps the intervals for --json"
    );
    assert_eq!(
        report.threads.len(),
        2,
        "the second thread was started live"
    );
    assert!(report.total.counts.ops > 0);
    assert!(!report.had_io_errors());
    drop(session);
    assert!(
        !dir.path().join("diskscope.scratch").exists(),
        "the scratch file is removed"
    );
}

/// Pumps the session's events until `done(app)`, failing after `secs`.
fn pump(
    session: &mut Session,
    app: &mut diskscope::tui::state::App,
    rx: &mpsc::Receiver<Event>,
    secs: u64,
    what: &str,
    done: impl Fn(&diskscope::tui::state::App) -> bool,
) {
    let start = Instant::now();
    let mut no_suspend = || Ok(());
    while !done(app) {
        assert!(
            start.elapsed() < Duration::from_secs(secs),
            "timed out waiting for {what}"
        );
        if let Ok(e) = rx.recv_timeout(Duration::from_millis(100)) {
            session.handle(app, e, &mut no_suspend).expect("event");
        }
    }
}

#[test]
fn sweep_flag_runs_every_step_live_and_quit_yields_the_sweep() {
    use diskscope::tui::state::{SweepState, View};
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let dir_arg = dir.path().to_str().expect("utf-8 temp path");
    let config = Args::try_parse_from([
        "diskscope",
        dir_arg,
        "--size",
        "8M",
        "--sweep",
        "threads=1,2",
        "-T",
        "300ms",
    ])
    .expect("args")
    .validate()
    .expect("config");
    let (tx, rx) = mpsc::channel();
    let mut session = Session::new(config, tx.clone());
    let mut app = session.first_screen(false);
    pump(&mut session, &mut app, &rx, 60, "the sweep to start", |a| {
        a.run().is_some_and(|r| r.sweeping())
    });
    pump(&mut session, &mut app, &rx, 30, "the sweep's chart", |a| {
        a.run().is_some_and(|r| r.view == View::Sweep)
    });
    let run = app.run().expect("run screen");
    let sweep = run.sweep.as_ref().expect("sweep");
    assert_eq!(sweep.state, SweepState::Done);
    assert_eq!(sweep.results().len(), 2);
    assert_eq!(
        run.settings.threads, 1,
        "the settings from before the sweep come back"
    );
    assert!(
        run.notice.as_deref().is_some_and(|n| n.contains("back to")),
        "the screen says so: {:?}",
        run.notice
    );
    assert!(sweep.saturation.is_some());
    // -T was the step time, not the run's length: the run is still going.
    assert!(!run.stopping);

    tx.send(key('q')).expect("send");
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
    let mut no_suspend = || Ok(());
    let outcome =
        event_loop(&mut terminal, &mut app, &rx, &mut session, &mut no_suspend).expect("loop");
    let Outcome::Finished { report, sweep, .. } = outcome else {
        panic!("quitting yields the report");
    };
    let sweep = sweep.expect("a sweep ran last");
    assert_eq!(sweep.steps.len(), 2);
    assert_eq!(sweep.config.duration_s, Some(0.3));
    assert_eq!(report.final_settings.threads, 1);
    let text = diskscope::render::final_text::final_text(&report, Some(&sweep), None);
    assert!(
        (text.contains("saturates at") || text.contains("no saturation within this sweep"))
            && text.contains("IO/s"),
        "{text}"
    );
}

#[test]
fn write_confirmation_right_wrong_and_declined() {
    use diskscope::tui::state::{App, Confirm, Screen};
    // The confirmation appears for block devices; its answers are checked the same way for
    // any path, so a regular file stands in for the device here.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let device = dir.path().join("disk.img");
    std::fs::write(&device, vec![0u8; 1 << 20]).expect("image");
    let device_arg = device.to_str().expect("utf-8 temp path");
    for (typed, writes) in [(Some(device_arg.to_string()), true), (None, false)] {
        let config =
            Args::try_parse_from(["diskscope", device_arg, "--allow-write", "--read", "50"])
                .expect("args")
                .validate()
                .expect("config");
        let (tx, rx) = mpsc::channel();
        let mut session = Session::new(config, tx.clone());
        let mut app = App::new(
            Screen::Confirm(Confirm {
                device: device.clone(),
                input: String::new(),
                message: None,
            }),
            false,
        );
        let mut no_suspend = || Ok(());
        let mut type_in = |app: &mut App, session: &mut Session, text: &str| {
            for c in text.chars() {
                session.handle(app, key(c), &mut no_suspend).expect("key");
            }
            let enter = Event::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
            session.handle(app, enter, &mut no_suspend).expect("enter");
        };
        // A wrong name asks again.
        type_in(&mut app, &mut session, "/dev/sdz");
        let Screen::Confirm(c) = &app.screen else {
            panic!("a wrong name does not start the run");
        };
        assert!(
            c.message.as_deref().unwrap_or("").contains("is not"),
            "{c:?}"
        );
        match &typed {
            Some(t) => type_in(&mut app, &mut session, t),
            None => {
                let esc = Event::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
                session.handle(&mut app, esc, &mut no_suspend).expect("esc");
            }
        }
        pump(&mut session, &mut app, &rx, 60, "the run", |a| {
            a.run().is_some_and(|r| r.last.is_some())
        });
        let run = app.run().expect("run");
        assert_eq!(run.info.target.write_allowed, writes, "typed {typed:?}");
        assert_eq!(
            run.settings.read_pct,
            if writes { 50 } else { 100 },
            "read-only keeps read % at 100"
        );
        tx.send(key('q')).expect("send");
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).expect("terminal");
        event_loop(&mut terminal, &mut app, &rx, &mut session, &mut no_suspend).expect("loop");
    }
}

/// Any block device node, to check which targets ask for the write confirmation (it is only
/// stat'ed, never opened, until the confirmation is answered).
fn some_block_device() -> Option<std::path::PathBuf> {
    use std::os::unix::fs::FileTypeExt;
    std::fs::read_dir("/dev")
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| std::fs::metadata(p).is_ok_and(|m| m.file_type().is_block_device()))
}

#[test]
fn bare_allow_write_asks_for_a_devices_name_and_only_for_a_device() {
    use diskscope::tui::state::Screen;
    let Some(dev) = some_block_device() else {
        eprintln!("note: no block device in /dev; skipping");
        return;
    };
    let dev_arg = dev.to_str().expect("utf-8 device path");
    let session_for = |args: &[&str]| {
        let mut full = vec!["diskscope"];
        full.extend_from_slice(args);
        let config = Args::try_parse_from(full)
            .expect("args")
            .validate()
            .expect("config");
        let (tx, rx) = mpsc::channel();
        (Session::new(config, tx), rx)
    };
    let (mut session, _rx) = session_for(&[dev_arg, "--allow-write"]);
    let app = session.first_screen(false);
    let Screen::Confirm(c) = &app.screen else {
        panic!("a bare --allow-write on {dev_arg} asks first");
    };
    assert_eq!(c.device, dev);
    // Named on the command line, or no writes at all: no question.
    let named = format!("--allow-write={dev_arg}");
    for args in [vec![dev_arg, named.as_str()], vec![dev_arg]] {
        let (mut session, _rx) = session_for(&args);
        let app = session.first_screen(false);
        assert!(
            !matches!(app.screen, Screen::Confirm(_)),
            "{args:?} needs no confirmation"
        );
    }
    // A file (here: a directory's scratch file) needs none either.
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temp dir");
    let (mut session, _rx) = session_for(&[
        dir.path().to_str().expect("utf-8"),
        "--allow-write",
        "--size",
        "1M",
    ]);
    let app = session.first_screen(false);
    assert!(matches!(app.screen, Screen::Preparing(_)));
}
