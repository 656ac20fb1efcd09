//! The TUI's state, with no drawing and no I/O: `App` holds the screen showing (one file per
//! screen: picker, confirm, run, sweep, suite, disks, surface) and the overlays. Keys turn into `Action`s in `keys`;
//! because nothing here touches a clock, a terminal or the target, every key can be tested by
//! feeding events in and looking at the state that comes out.

pub mod confirm;
pub mod disks;
pub mod fleet;
pub mod log;
pub mod marks;
pub mod picker;
pub mod rows;
pub mod run;
pub mod series;
pub mod suite;
pub mod surface;
pub mod sweep;
pub mod why;

pub use confirm::Confirm;
pub use disks::Disks;
pub use log::{MessageLog, Source};
pub use picker::{Picker, PickerRow, Preparing};
pub use run::{AppRates, KernelView, Run};
pub use series::{Series, SweepState};
pub use suite::SuiteRun;
pub use surface::SurfaceView;
pub use sweep::{SweepRun, View};
pub use why::WhyView;

use crate::render::baseline::Baseline;
use crate::settings::Settings;

/// Which screen is showing.
#[derive(Debug, Clone)]
pub enum Screen {
    Picker(Picker),
    /// Writing to a block device was allowed with a bare `--allow-write`: name it first.
    Confirm(Confirm),
    Preparing(Preparing),
    Run(Box<Run>),
    /// Several targets at once: a row per target, the aggregate on top.
    Disks(Box<Disks>),
    /// A surface scan: the map and the curve filling in.
    Surface(Box<SurfaceView>),
}

/// The fio equivalent of the current settings, shown over the run screen.
#[derive(Debug, Clone, PartialEq)]
pub struct FioOverlay {
    pub command_line: String,
    pub job_file: String,
}

/// Everything the screens show.
#[derive(Debug, Clone)]
pub struct App {
    pub screen: Screen,
    pub help: bool,
    /// False under NO_COLOR: only bold, dim and reverse are used.
    pub color: bool,
    /// The fio overlay, while shown (arrows and PgUp/PgDn scroll it, other keys close it).
    pub fio: Option<FioOverlay>,
    /// A saved run or sweep (`--baseline`) drawn dimmed beside this one.
    pub baseline: Option<Baseline>,
    /// The first line of the help or the fio job shown (↑ ↓ PgUp PgDn scroll them).
    pub overlay_scroll: usize,
    /// The terminal's size at the last draw: how far an overlay can scroll.
    pub viewport: ratatui::layout::Size,
    /// Draw in ASCII: the locale's character set is not UTF-8 (`locale::utf8`).
    pub ascii: bool,
    /// Every message the screens showed, whole, with its time (`L` opens it).
    pub log: MessageLog,
    /// The message log is shown over the screen.
    pub log_shown: bool,
    /// Whether the mouse is captured, the last press and the slider being dragged.
    pub mouse: crate::tui::mouse::MouseState,
    /// What the last frame drew where, for the mouse (`hits`).
    pub hits: crate::tui::hits::HitMap,
}

impl App {
    /// An app starting on `screen`.
    pub fn new(screen: Screen, color: bool) -> App {
        App {
            screen,
            help: false,
            color,
            fio: None,
            baseline: None,
            overlay_scroll: 0,
            viewport: ratatui::layout::Size::new(80, 24),
            ascii: false,
            log: MessageLog::default(),
            log_shown: false,
            mouse: crate::tui::mouse::MouseState::default(),
            hits: crate::tui::hits::HitMap::default(),
        }
    }

    /// Logs what the screen shows now that it did not before: its message, notice, latest
    /// finding and warnings, at the run's clock (called after every event).
    pub fn note_messages(&mut self) {
        let log = &mut self.log;
        match &self.screen {
            Screen::Run(r) => {
                let at = r.last.as_ref().map(|s| s.at);
                log.see(Source::Message, r.message.as_deref(), at);
                log.see(Source::Notice, r.notice.as_deref(), at);
                let finding = r.why.latest.as_ref().map(|f| f.text.as_str());
                log.see(Source::Finding, finding, at);
                let warnings = r.info.warnings.join("; ");
                let warnings = (!warnings.is_empty()).then(|| format!("warning: {warnings}"));
                log.see(Source::Warning, warnings.as_deref(), at);
                let notes = r.suite.as_ref().map(|s| {
                    let notes: Vec<String> = s.notes.iter().map(|n| format!("note: {n}")).collect();
                    notes.join("; ")
                });
                log.see(Source::Note, notes.as_deref().filter(|n| !n.is_empty()), at);
            }
            Screen::Picker(p) => {
                log.see(Source::Message, p.message.as_deref(), None);
                log.see(Source::Notice, p.notice.as_deref(), None);
            }
            Screen::Disks(d) => log.see(Source::Message, d.message.as_deref(), None),
            Screen::Surface(s) => {
                log.see(Source::Message, s.message.as_deref(), None);
                let finding = s.findings.last().map(|f| f.text.as_str());
                log.see(Source::Finding, finding, None);
            }
            Screen::Confirm(c) => log.see(Source::Message, c.message.as_deref(), None),
            Screen::Preparing(_) => {}
        }
    }

    /// The run screen, if showing.
    pub fn run(&self) -> Option<&Run> {
        match &self.screen {
            Screen::Run(r) => Some(r),
            _ => None,
        }
    }

    /// The run screen, mutably, if showing.
    pub fn run_mut(&mut self) -> Option<&mut Run> {
        match &mut self.screen {
            Screen::Run(r) => Some(r),
            _ => None,
        }
    }

    /// Records the engine's answer to an `Apply`: `settings` are those now in force. A
    /// refused sweep step ends the sweep.
    pub fn applied(&mut self, result: Result<(), String>, settings: Settings) {
        if let Some(run) = self.run_mut() {
            run.settings = settings;
            match result {
                Ok(()) => run.message = None,
                Err(e) if run.sweeping() => {
                    // The engine keeps the last step it took; the message says why it stopped.
                    let _ = run.cancel_sweep("stopped", "a refused setting");
                    run.notice = None;
                    // The engine kept the last step it took.
                    run.message = Some(format!(
                        "sweep stopped by a refused setting; the run goes on: {e}"
                    ));
                }
                Err(e) if run.suite_running() => {
                    // The engine is left as the refusal left it; the card stops here.
                    if let Some(suite) = &mut run.suite {
                        suite.state = SweepState::Cancelled;
                        suite.stopped_by = Some("a refused setting".into());
                    }
                    run.message = Some(format!("suite stopped: {e}"));
                }
                Err(e) => run.message = Some(e),
            }
        }
    }
}
