//! The surface screen's keys: pause and resume the scan, a quick sample or a full scan from
//! the start instead, back to the screen it was opened from, the help, the log, quit.

use ratatui::crossterm::event::{KeyCode, KeyEvent};

use crate::surface::session::SurfaceAsk;
use crate::tui::action::{Action, SurfaceAct};
use crate::tui::keymap::{self, Binding, Key, When, lookup};
use crate::tui::state::SurfaceView;

/// What a key does on the surface screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmd {
    Pause,
    Resume,
    Quick,
    Restart,
    Back,
    Help,
    Log,
    Quit,
}

const SCANNING: When<SurfaceView> = When {
    name: "scanning",
    holds: |v| v.scanning && v.scans,
};
const BURNING: When<SurfaceView> = When {
    name: "burn-in running",
    holds: |v| v.scanning && !v.scans && !v.paused,
};
const BURN_PAUSED: When<SurfaceView> = When {
    name: "burn-in paused",
    holds: |v| v.scanning && !v.scans && v.paused,
};
const RESUMABLE: When<SurfaceView> = When {
    name: "paused",
    holds: SurfaceView::resumable,
};
const STOPPED: When<SurfaceView> = When {
    name: "stopped",
    holds: SurfaceView::may_scan,
};
const BACK: When<SurfaceView> = When {
    name: "opened from the run or the picker",
    holds: SurfaceView::can_go_back,
};

pub(super) const SURFACE: &[Binding<Cmd, SurfaceView>] = &[
    Binding::when(
        &[(Key::Char('p'), Cmd::Pause), (Key::Char(' '), Cmd::Pause)],
        SCANNING,
        "pause the scan (a full scan is kept and resumes where it stopped, even after a restart of diskscope)",
    )
    .hint("pause"),
    Binding::when(
        &[(Key::Char('p'), Cmd::Pause), (Key::Char(' '), Cmd::Pause)],
        BURNING,
        "pause the burn-in (its threads wait at their next block; q stops it)",
    )
    .hint("pause"),
    Binding::when(
        &[(Key::Char('p'), Cmd::Pause), (Key::Char(' '), Cmd::Pause)],
        BURN_PAUSED,
        "resume the paused burn-in",
    )
    .hint("resume"),
    Binding::when(
        &[(Key::Char('p'), Cmd::Resume), (Key::Char(' '), Cmd::Resume)],
        RESUMABLE,
        "resume the full scan where it stopped",
    )
    .hint("resume"),
    Binding::when(
        &[(Key::Char('x'), Cmd::Quick)],
        STOPPED,
        "a quick scan instead: an even sample of the disk, in seconds",
    )
    .hint("quick"),
    Binding::when(
        &[(Key::Char('R'), Cmd::Restart)],
        STOPPED,
        "rescan: a full scan from the start, forgetting the one kept",
    )
    .hint("rescan"),
    Binding::when(
        &[(Key::Code(KeyCode::Esc), Cmd::Back)],
        BACK,
        "back to the run (still paused) or the picker; a full scan is kept to resume",
    )
    .hint("back"),
    Binding::always(
        &[(Key::Char('L'), Cmd::Log)],
        "the message log: every message whole",
    ),
    Binding::always(&[(Key::Char('?'), Cmd::Help)], "this help").hint("help"),
    Binding::always(
        &[(Key::Char('q'), Cmd::Quit), (Key::Ctrl('c'), Cmd::Quit)],
        "stop the scan and quit (a full scan is kept to resume)",
    )
    .hint("quit"),
];

/// The run screen's `S`, as its help says it.
pub(super) const FROM_RUN: &str =
    "surface scan of this target: the run pauses, the map and curve fill in (Esc: back)";

/// `S` on the run screen: the surface screen, unless a sweep or the suite runs (the scan
/// would pause what it measures).
pub(super) fn from_run(run: &mut crate::tui::state::Run) -> Action {
    if run.sweeping() || run.suite_running() {
        run.message = Some("a sweep or the suite is running: Esc cancels it first".into());
        return Action::None;
    }
    Action::Surface(SurfaceAct::OpenHere)
}

/// The surface screen's hint line.
pub(super) fn hints(v: &SurfaceView) -> Vec<(String, &'static str)> {
    keymap::hints(SURFACE, v)
}

/// The surface screen's rows for the `?` overlay.
pub(super) fn rows() -> Vec<(String, &'static str)> {
    SURFACE.iter().map(|b| (b.label(), b.help)).collect()
}

/// The surface screen's keys on one line, for the other screens' help.
pub(super) fn one_line() -> String {
    keymap::one_line(SURFACE)
}

/// A key on the surface screen.
pub(super) fn surface_key(v: &mut SurfaceView, key: KeyEvent, help: &mut bool) -> Action {
    match lookup(SURFACE, &key, None, v) {
        Some(Cmd::Pause) => Action::Surface(SurfaceAct::Pause),
        Some(Cmd::Resume) => Action::Surface(SurfaceAct::Scan(SurfaceAsk::Full)),
        Some(Cmd::Quick) => Action::Surface(SurfaceAct::Scan(SurfaceAsk::Quick)),
        Some(Cmd::Restart) => Action::Surface(SurfaceAct::Scan(SurfaceAsk::Restart)),
        Some(Cmd::Back) => Action::Surface(SurfaceAct::Back),
        Some(Cmd::Help) => {
            *help = true;
            Action::None
        }
        Some(Cmd::Log) => Action::ShowLog,
        Some(Cmd::Quit) => Action::Quit,
        None => Action::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::surface::ScanKind;
    use crate::tui::keymap::shadowed;

    #[test]
    fn p_pauses_a_scan_and_resumes_a_stopped_one() {
        assert_eq!(shadowed(SURFACE), None);
        let mut v = SurfaceView::scanning_screen("/dev/x".into(), ScanKind::Full);
        let mut help = false;
        let p = KeyEvent::from(KeyCode::Char('p'));
        assert_eq!(
            surface_key(&mut v, p, &mut help),
            Action::Surface(SurfaceAct::Pause)
        );
        (v.scanning, v.paused) = (false, true);
        assert_eq!(
            surface_key(&mut v, p, &mut help),
            Action::Surface(SurfaceAct::Scan(SurfaceAsk::Full))
        );
        let x = KeyEvent::from(KeyCode::Char('x'));
        v.scanning = true;
        assert_eq!(
            surface_key(&mut v, x, &mut help),
            Action::None,
            "no quick scan over a running one"
        );
    }

    fn done(scans: bool) -> SurfaceView {
        let mut v = SurfaceView::new("/dev/x".into(), ScanKind::Full);
        v.scans = scans;
        let plan = crate::surface::plan::ScanPlan::full(1 << 20, 1 << 20, 1);
        let fold = crate::surface::fold::Fold::new(&plan, "/dev/x", 8);
        (v.scanning, v.paused) = (false, false);
        v.finished(fold.finish(1.0, true), Vec::new());
        v
    }

    #[test]
    fn a_finished_scan_is_never_restarted_by_p_but_rescanned_by_r() {
        let mut v = done(true);
        let mut help = false;
        let key = |c: char| KeyEvent::from(KeyCode::Char(c));
        assert_eq!(surface_key(&mut v, key('p'), &mut help), Action::None);
        let shown: Vec<String> = hints(&v)
            .into_iter()
            .map(|(k, h)| format!("{k} {h}"))
            .collect();
        assert!(!shown.iter().any(|h| h.contains("resume")), "{shown:?}");
        assert!(shown.contains(&"R rescan".to_string()), "{shown:?}");
        assert_eq!(
            surface_key(&mut v, key('R'), &mut help),
            Action::Surface(SurfaceAct::Scan(SurfaceAsk::Restart))
        );
        // A paused scan that reached its end before the pause took is done, not resumable.
        v.paused = true;
        assert_eq!(surface_key(&mut v, key('p'), &mut help), Action::None);
    }

    #[test]
    fn a_burn_in_on_the_screen_starts_no_scan_and_esc_is_offered_only_with_a_way_back() {
        let mut v = done(false);
        v.paused = true;
        let mut help = false;
        for c in ['p', ' ', 'x', 'R'] {
            let k = KeyEvent::from(KeyCode::Char(c));
            assert_eq!(surface_key(&mut v, k, &mut help), Action::None, "{c}");
        }
        let esc = KeyEvent::from(KeyCode::Esc);
        assert_eq!(surface_key(&mut v, esc, &mut help), Action::None);
        let shown: Vec<String> = hints(&v)
            .into_iter()
            .map(|(k, h)| format!("{k} {h}"))
            .collect();
        assert!(!shown.iter().any(|h| h.contains("back")), "{shown:?}");
        (v.scanning, v.paused) = (true, false);
        let p = KeyEvent::from(KeyCode::Char('p'));
        assert_eq!(
            surface_key(&mut v, p, &mut help),
            Action::Surface(SurfaceAct::Pause)
        );
        let shown: Vec<String> = hints(&v)
            .into_iter()
            .map(|(k, h)| format!("{k} {h}"))
            .collect();
        assert!(shown.iter().any(|h| h.ends_with("pause")), "{shown:?}");
        v.paused = true;
        assert_eq!(
            surface_key(&mut v, p, &mut help),
            Action::Surface(SurfaceAct::Pause),
            "p resumes it (the session toggles its pause)"
        );
        let shown: Vec<String> = hints(&v)
            .into_iter()
            .map(|(k, h)| format!("{k} {h}"))
            .collect();
        assert!(shown.iter().any(|h| h.ends_with("resume")), "{shown:?}");
        let mut s = done(true);
        s.from_picker = true;
        assert_eq!(
            surface_key(&mut s, esc, &mut help),
            Action::Surface(SurfaceAct::Back)
        );
    }
}
