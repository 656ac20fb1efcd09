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
    let Outcome::Finished { report } = outcome else {
        panic!("quitting a run yields its report");
    };
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
