//! The results room: every file diskscope writes a result into or reads one back from. What
//! may be written where and what may be read (`file`: a result is only ever replaced by one
//! of its kind, and read back bounded), the `--json`/`--csv`/`--plot` files after a run
//! (`save`), what the TUI's `e` saves (`export`), reading a saved result back for `--show`
//! and `--baseline` (`saved_doc`, `baseline_file`), and the state directory where a result is
//! kept when its terminal went away (`state_dir`).
//!
//! This room sits below `render`: render reads what is read back here, and the CSV and the
//! chart a result is saved in are drawn by render and handed in by the caller as
//! `Renderings` (`render::files` holds the ones diskscope uses), so nothing here draws.

pub mod baseline_file;
pub mod export;
pub mod file;
pub mod save;
mod saved_check;
pub mod saved_doc;
pub mod state_dir;

pub use save::ResultFiles;

/// How a result of type `T` is drawn into the files saved beside its JSON: its CSV (the
/// whole text) and its chart (an SVG, or why it cannot be drawn). Render makes them; the
/// callers in `run` and `tui` hand them to `save` and `export`.
pub struct Renderings<T: ?Sized> {
    pub csv: fn(&T) -> String,
    pub svg: fn(&T) -> Result<String, String>,
}
