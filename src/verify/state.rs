//! The small state file of a burn-in written now and verified later (`--burn-in=write`, then
//! `--burn-in=verify` after a power cycle or a week: fio's `verify_state_save`, f3write then
//! f3read). It holds what the stamps cannot say about themselves: which span and block size
//! were written, and whether the write finished. The seed and the pass are in every stamp too,
//! so a verify without the file learns them from the stamps (the run most of 128 places
//! sampled across the span hold: `burnin::learn`).
//! Kept in the state directory (`burn-in/`, one file per target, named for its path) or where
//! `--burn-in-state FILE` says, written through `results::file::place` (never through a link).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::results::file::{Place, place, read_bounded};
use crate::results::state_dir;
use crate::target::shell::quote_path;
use crate::units::format_bytes;

/// What a verify needs of the write before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The target written, as named.
    pub target: String,
    pub claimed_bytes: u64,
    pub span_bytes: u64,
    pub block_bytes: u64,
    pub unit_bytes: u64,
    pub seed: u64,
    pub pass: u32,
    /// Bytes written; the whole span when `complete`.
    pub written_bytes: u64,
    pub complete: bool,
    /// A write that stopped early: the byte ranges [start, end) it wrote (each thread wrote
    /// the start of its own stripe). Absent in older files.
    #[serde(default)]
    pub written_ranges: Vec<[u64; 2]>,
    /// When the write ended, seconds since the Unix epoch.
    pub written_at: u64,
}

impl State {
    /// Refuses a state written for another target than `target` (shown as `shown`): its
    /// seed, span and ranges say nothing about this disk.
    pub fn check_target(&self, path: &Path, target: &Path, shown: &str) -> Result<(), String> {
        let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
            (Ok(a), Ok(b)) => a == b,
            _ => a == b,
        };
        if self.target == shown || same(Path::new(&self.target), target) {
            return Ok(());
        }
        Err(format!(
            "{}: this burn-in state is of {}, not {shown}: verify {} with it, or give {shown}'s \
             own state with --burn-in-state FILE",
            quote_path(path),
            self.target,
            self.target
        ))
    }

    /// What a verify of a write that stopped early says: it checks only what was written.
    pub fn stopped_note(&self, path: &Path) -> Result<String, String> {
        let shown = quote_path(path);
        let (wrote, span) = (
            format_bytes(self.written_bytes),
            format_bytes(self.span_bytes),
        );
        if self.written_ranges.is_empty() {
            if self.written_bytes == 0 {
                return Err(format!(
                    "{shown}: the write it records stopped before it wrote anything: nothing to \
                     verify; run --burn-in=write again"
                ));
            }
            // An older file: where each thread stopped is not known.
            return Ok(format!(
                "{shown}: the write it records stopped after {wrote} of {span}, and the file \
                 does not say where: the whole span is checked, and what was never written \
                 reads as zeroes"
            ));
        }
        Ok(format!(
            "{shown}: the write it records stopped after {wrote} of {span}: only what it \
             wrote is checked ({} stretch(es), one per thread)",
            self.written_ranges.len()
        ))
    }
}

/// The state file for `target` in the state directory: its canonical path with `/` as `_`.
pub fn default_path(target: &Path) -> Result<PathBuf, String> {
    let real = std::fs::canonicalize(target).unwrap_or_else(|_| target.to_path_buf());
    let name: String = real
        .to_string_lossy()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    Ok(state_dir::burn_in_dir()?.join(format!("{}.json", name.trim_start_matches('_'))))
}

/// Writes `state` to `path`.
pub fn save(path: &Path, state: &State) -> Result<(), String> {
    let text = serde_json::to_string_pretty(state).map_err(|e| e.to_string())? + "\n";
    place(path, &text, Place::Replace)
        .map_err(|e| format!("{}: cannot save the burn-in state: {e}", quote_path(path)))
}

/// Reads the state at `path`; `Ok(None)` when there is none.
pub fn load(path: &Path) -> Result<Option<State>, String> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(None);
    }
    let text = read_bounded("--burn-in-state", path)?;
    serde_json::from_str(&text).map(Some).map_err(|e| {
        format!(
            "{}: not a burn-in state file ({e}); give the file --burn-in=write printed",
            quote_path(path)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_survives_the_round_trip_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.json");
        assert_eq!(load(&path).unwrap(), None);
        let s = State {
            target: "/dev/loop7".into(),
            claimed_bytes: 1 << 30,
            span_bytes: 1 << 30,
            block_bytes: 1 << 20,
            unit_bytes: 4096,
            seed: 42,
            pass: 1,
            written_bytes: 1 << 30,
            complete: true,
            written_ranges: vec![],
            written_at: 1,
        };
        save(&path, &s).unwrap();
        assert_eq!(load(&path).unwrap(), Some(s));
        std::fs::write(&path, "{}").unwrap();
        assert!(
            load(&path)
                .unwrap_err()
                .contains("not a burn-in state file")
        );
    }
}
