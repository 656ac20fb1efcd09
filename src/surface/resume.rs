//! Where a stopped full scan picks up: a small JSON file per target in the state directory's
//! `surface/` (`$XDG_STATE_HOME/diskscope/surface/`, else `~/.local/state/diskscope/surface/`),
//! named for the target's path, holding the next offset and the report so far (the map and
//! its regions: bounded, a few hundred KiB at most). It is written when a scan stops (Ctrl-C,
//! SIGTERM, the TUI's pause) and every `SAVE_EVERY` while it runs, so a lost connection or a
//! power cut loses at most that much; it is removed when the scan reaches the end. A file
//! for another span or block size (the disk changed, other flags), or for another medium at
//! the same path (`medium`: a loop device re-attached to another file, another disk in the
//! same bay), is not resumed from, and the scan says why it starts over.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::model::surface::SurfaceReport;
use crate::results::file::{Place, place};
use crate::results::state_dir;
use crate::surface::medium::Medium;
use crate::target::shell::quote_path;
use crate::units::format_bytes;

/// How often a running full scan saves where it is.
pub const SAVE_EVERY: Duration = Duration::from_secs(10);
/// The state directory's subdirectory for stopped scans.
pub const SUBDIR: &str = "surface";

/// A stopped scan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScanState {
    /// The target's path as given.
    pub target: String,
    pub span_bytes: u64,
    pub block_bytes: u64,
    /// Every byte before it has been read.
    pub next_offset: u64,
    /// Seconds spent in the sessions so far.
    pub elapsed_s: f64,
    /// The medium read (absent in a file kept before it was recorded: not resumed from).
    #[serde(default)]
    pub medium: Option<Medium>,
    pub report: SurfaceReport,
}

/// What is kept for a target.
#[derive(Debug)]
pub enum Kept {
    /// Nothing (or nothing readable).
    Nothing,
    /// A stopped scan of this medium, span and block size: where it is, and it.
    Fits(PathBuf, Box<ScanState>),
    /// A stopped scan that is not to be resumed, and why (in words after "it was").
    Other(PathBuf, String),
}

/// The file name for `target`: its path with every character but letters, digits, `-` and
/// `.` as `_` ("/dev/sdb" → "_dev_sdb.json").
pub fn file_name(target: &Path) -> String {
    let clean: String = target
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{clean}.json")
}

/// Where `target`'s stopped scan is kept.
pub fn path_for(target: &Path) -> Result<PathBuf, String> {
    Ok(state_dir::subdir(SUBDIR)?.join(file_name(target)))
}

/// The stopped scan of `target`, if one is kept, and whether it fits `span_bytes`,
/// `block_bytes` and `medium`.
pub fn load(target: &Path, span_bytes: u64, block_bytes: u64, medium: &Medium) -> Kept {
    let Ok(path) = path_for(target) else {
        return Kept::Nothing;
    };
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Kept::Nothing;
    };
    let Ok(state) = serde_json::from_str::<ScanState>(&text) else {
        return Kept::Nothing;
    };
    let why = if state.span_bytes != span_bytes || state.report.map.span_bytes != span_bytes {
        Some(format!(
            "of a span of {}, this one is {}",
            format_bytes(state.span_bytes),
            format_bytes(span_bytes)
        ))
    } else if state.block_bytes != block_bytes {
        Some(format!(
            "in {}-byte reads, these are {block_bytes}",
            state.block_bytes
        ))
    } else if state.next_offset >= span_bytes {
        Some("already at its end".to_string())
    } else {
        match &state.medium {
            None => Some("kept without the medium it read, so it may be another one".into()),
            Some(then) => then
                .differs(medium)
                .map(|d| format!("of another medium at this path: {d}")),
        }
    };
    match why {
        Some(why) => Kept::Other(path, why),
        None => Kept::Fits(path, Box::new(state)),
    }
}

/// Keeps `state`; returns where.
pub fn save(state: &ScanState) -> Result<PathBuf, String> {
    let path = path_for(Path::new(&state.target))?;
    let text = serde_json::to_string(state).map_err(|e| e.to_string())? + "\n";
    place(&path, &text, Place::Replace).map_err(|e| format!("{}: {e}", quote_path(&path)))?;
    Ok(path)
}

/// Forgets `target`'s stopped scan (it reached the end, or a new one was asked for).
pub fn forget(target: &Path) {
    if let Ok(path) = path_for(target) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_file_names() {
        assert_eq!(file_name(Path::new("/dev/sdb")), "_dev_sdb.json");
        assert_eq!(
            file_name(Path::new("../x y/disk.img")),
            ".._x_y_disk.img.json"
        );
    }
}
