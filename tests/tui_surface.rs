//! The surface screen drawn from a fixed scan into ratatui's `TestBackend` and compared with
//! `tests/snapshots/` (`UPDATE_SNAPSHOTS=1` rewrites them; read the diff): filling in at
//! 80x24, finished with its findings at 120x40, and in ASCII. And its keys: `S` in the picker
//! opens it, `p` pauses a scan and resumes a stopped one. Render is a pure function of the
//! state, so none of this needs a terminal, a clock or a disk.

mod screen_common;

use diskscope::findings::surface::slow_regions;
use diskscope::model::surface::{Cell, ScanKind, SurfaceReport, VerifyState};
use diskscope::surface::fold::{Completion, Fold};
use diskscope::surface::plan::ScanPlan;
use diskscope::surface::scan::Progress;
use diskscope::surface::session::SurfaceAsk;
use diskscope::tui::action::{Action, SurfaceAct};
use diskscope::tui::state::{App, Picker, Screen, SurfaceView};
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use screen_common::{assert_snapshot, draw, text};

const MIB: u64 = 1 << 20;

/// A 2 GiB disk read in 1 MiB reads up to `upto` MiB: 3 ms a read, falling towards the end,
/// 150 ms at 600–620 MiB, a read error at 1400 MiB.
fn report(upto: u64) -> SurfaceReport {
    let plan = ScanPlan::full(2048 * MIB, MIB, 2048);
    let mut fold = Fold::new(&plan, "/dev/sdz", 8);
    for i in 0..upto {
        let ms = if (600..620).contains(&i) {
            150.0
        } else {
            3.0 + i as f64 / 1024.0
        };
        let ns = (ms * 1e6) as u64;
        fold.add(&Completion {
            offset: i * MIB,
            len: MIB,
            latency_ns: ns * 8,
            service_ns: ns,
            busy_ns: ns,
            result: if i == 1400 {
                Err("Input/output error (os error 5)".into())
            } else {
                Ok(())
            },
        });
    }
    fold.finish(upto as f64 * 0.004, upto == 2048)
}

fn scanning() -> App {
    let mut v = SurfaceView::scanning_screen("/dev/sdz".into(), ScanKind::Full);
    v.from_picker = true;
    v.update(
        report(1500),
        Progress {
            done_bytes: 1500 * MIB,
            total_bytes: 2048 * MIB,
            elapsed_s: 6.0,
            resume_offset: 1500 * MIB,
        },
    );
    App::new(Screen::Surface(Box::new(v)), true)
}

#[test]
fn the_map_fills_in_at_80x24() {
    let app = scanning();
    let buf = draw(&app, 80, 24);
    let screen = text(&buf);
    assert!(
        screen.starts_with("full scan · 2.2s left · 1.5 GiB of 2 GiB (73.2%) · 262.1 MB/s"),
        "{screen}"
    );
    assert!(screen.contains("1 read error at 1.4 GiB"), "{screen}");
    assert_snapshot("surface_80x24", &buf);
}

#[test]
fn a_finished_scan_says_what_it_found_at_120x40() {
    let r = report(2048);
    let findings = slow_regions(&r);
    assert_eq!(findings.len(), 1, "{findings:?}");
    let mut v = SurfaceView::scanning_screen("/dev/sdz".into(), ScanKind::Full);
    v.from_picker = true;
    v.finished(r, findings);
    let mut app = App::new(Screen::Surface(Box::new(v)), true);
    let buf = draw(&app, 120, 40);
    let screen = text(&buf);
    assert!(
        screen.starts_with("full scan · done · 2 GiB of 2 GiB (100.0%)"),
        "{screen}"
    );
    assert!(screen.contains("at 600 MiB–620 MiB"), "{screen}");
    assert_snapshot("surface_done_120x40", &buf);
    app.ascii = true;
    assert_snapshot("surface_done_ascii_120x40", &draw(&app, 120, 40));
}

#[test]
fn p_pauses_and_resumes_and_s_in_the_picker_opens_it() {
    let mut app = scanning();
    let p = KeyEvent::from(KeyCode::Char('p'));
    assert_eq!(app.on_key(p), Action::Surface(SurfaceAct::Pause));
    if let Screen::Surface(v) = &mut app.screen {
        v.scanning = false;
        v.paused = true;
    }
    assert_eq!(
        app.on_key(p),
        Action::Surface(SurfaceAct::Scan(SurfaceAsk::Full))
    );
    let x = KeyEvent::from(KeyCode::Char('x'));
    assert_eq!(
        app.on_key(x),
        Action::Surface(SurfaceAct::Scan(SurfaceAsk::Quick))
    );
    let esc = KeyEvent::from(KeyCode::Esc);
    assert_eq!(app.on_key(esc), Action::Surface(SurfaceAct::Back));

    let mut picker = App::new(Screen::Picker(Picker::new("scratch".into(), vec![])), true);
    let s = KeyEvent::from(KeyCode::Char('S'));
    assert_eq!(picker.on_key(s), Action::Surface(SurfaceAct::Open(None)));
}

#[test]
fn a_burn_in_on_the_screen_is_titled_as_one_with_no_curve_and_no_scan_keys() {
    // As the burn-in's session builds it: a plain view, its map painted verified.
    let mut v = SurfaceView::new("/dev/sdz".into(), ScanKind::Full);
    let mut r = report(0);
    for i in 0..1000 {
        r.map.set_region(i, Cell::Verify(VerifyState::Verified));
    }
    v.update(
        r,
        Progress {
            done_bytes: 1000 * MIB,
            total_bytes: 2048 * MIB,
            elapsed_s: 6.0,
            resume_offset: 0,
        },
    );
    let mut app = App::new(Screen::Surface(Box::new(v)), true);
    let screen = text(&draw(&app, 80, 24));
    assert!(screen.starts_with("burn-in · "), "{screen}");
    assert!(!screen.contains("MB/s against position"), "{screen}");
    assert!(screen.contains("p pause"), "{screen}");
    let p = KeyEvent::from(KeyCode::Char('p'));
    assert_eq!(app.on_key(p), Action::Surface(SurfaceAct::Pause));
    if let Screen::Surface(v) = &mut app.screen {
        v.paused = true;
    }
    let screen = text(&draw(&app, 80, 24));
    assert!(screen.starts_with("burn-in · paused"), "{screen}");
    assert!(screen.contains("p resume"), "{screen}");
    // Stopped (q, or its end): nothing on the screen starts anything.
    if let Screen::Surface(v) = &mut app.screen {
        (v.scanning, v.paused) = (false, false);
    }
    let screen = text(&draw(&app, 80, 24));
    assert!(screen.starts_with("burn-in · stopped"), "{screen}");
    assert!(!screen.contains("Esc back"), "{screen}");
    assert!(!screen.contains("resume"), "{screen}");
    for key in [
        p,
        KeyEvent::from(KeyCode::Char('x')),
        KeyEvent::from(KeyCode::Esc),
    ] {
        assert_eq!(app.on_key(key), Action::None, "{key:?}");
    }
}
