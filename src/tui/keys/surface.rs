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
    holds: |v| v.scanning,
};
const STOPPED: When<SurfaceView> = When {
    name: "stopped",
    holds: SurfaceView::idle,
};

pub(super) const SURFACE: &[Binding<Cmd, SurfaceView>] = &[
    Binding::when(
        &[(Key::Char('p'), Cmd::Pause), (Key::Char(' '), Cmd::Pause)],
        SCANNING,
        "pause the scan (a full scan is kept and resumes where it stopped, even after a restart of diskscope)",
    )
    .hint("pause"),
    Binding::when(
        &[(Key::Char('p'), Cmd::Resume), (Key::Char(' '), Cmd::Resume)],
        STOPPED,
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
        "a full scan from the start, forgetting the one kept",
    ),
    Binding::always(
        &[(Key::Code(KeyCode::Esc), Cmd::Back)],
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
        let mut v = SurfaceView::new("/dev/x".into(), ScanKind::Full);
        let mut help = false;
        let p = KeyEvent::from(KeyCode::Char('p'));
        assert_eq!(
            surface_key(&mut v, p, &mut help),
            Action::Surface(SurfaceAct::Pause)
        );
        v.scanning = false;
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
}
