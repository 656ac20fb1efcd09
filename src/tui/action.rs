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
}
