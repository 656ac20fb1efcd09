//! What a key asks the session to do beyond the screen's own state.

use std::path::PathBuf;

use crate::settings::Settings;

/// What the run loop must do after a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    None,
    /// Prepare and start on this target (`None`: the scratch file in the current directory).
    Start(Option<PathBuf>),
    /// Prepare and start on all these targets at once, an engine each.
    StartMany(Vec<PathBuf>),
    /// Apply these settings to the running engine.
    Apply(Settings),
    Pause(bool),
    /// Pause (true) or resume (false), then apply these settings: a suite's rests, its start
    /// and its end.
    ApplyPaused(Settings, bool),
    ResetStats,
    /// Stop (the engine, or the layout) and leave.
    Quit,
    /// Open the message log over the screen (`L`).
    ShowLog,
    /// Ctrl-Z: give the terminal back and stop the process until `fg`.
    Suspend,
    /// Save the run (or the last sweep) as JSON to a timestamped file.
    Export,
    /// The write confirmation was answered with this text (to be checked against the device).
    ConfirmWrite(String),
    /// The write confirmation was declined: run the device read-only.
    ReadOnly,
    /// `M`: capture the mouse, or give it back to the terminal (its text selection).
    ToggleMouse,
    /// The surface screen: open it, pause, resume, go back.
    Surface(SurfaceAct),
}

/// What a key asks of the surface scan.
#[derive(Debug, Clone, PartialEq)]
pub enum SurfaceAct {
    /// From the picker: prepare this target read-only and scan it (`None`: the scratch file).
    Open(Option<PathBuf>),
    /// From the run screen: pause the run and scan its target.
    OpenHere,
    /// Stop the scan (a full one is kept to resume).
    Pause,
    /// Scan again: a full scan resuming where it stopped, a quick one, or a full one from
    /// the start.
    Scan(crate::surface::session::SurfaceAsk),
    /// Stop the scan and go back to the run screen or the picker.
    Back,
}
