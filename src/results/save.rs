//! Results to the files named by `--json FILE`, `--csv FILE` and `--plot FILE.svg`, after a
//! headless run or the TUI alike; each saved file is announced on stderr. It takes the
//! files' paths (`ResultFiles`), nothing of the command line, and the CSV and chart as the
//! caller's `Renderings` (`render::files`: the chart is `render::chart`'s `plot_*` of the same
//! result), so this only writes. Each file is tried whatever became of the others, and the
//! caller learns whether the JSON holds the result (`Saved`): when it does, nothing else
//! needs keeping if the terminal went away.

use std::path::PathBuf;

use anyhow::Result;

use super::Renderings;
use super::export::Export;
use super::file::{Kind, write_result};
use crate::model::fleet::FleetReport;
use crate::output::say;
use crate::target::shell::quote_path;

/// Where a result is saved: `--json FILE`, `--csv FILE` and `--plot FILE.svg`, each
/// optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultFiles {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub plot: Option<PathBuf>,
}

/// What saving did.
#[derive(Debug, Default)]
pub struct Saved {
    /// The `--json FILE` holds the result now.
    pub json: bool,
    /// Why a file could not be saved, a line each.
    pub failed: Vec<String>,
}

impl Saved {
    /// An error naming every file that could not be saved.
    pub fn into_result(self) -> Result<()> {
        match self.failed.is_empty() {
            true => Ok(()),
            false => Err(anyhow::Error::msg(self.failed.join("; "))),
        }
    }
}

/// Writes a run, a sweep, a suite's card or a run on several targets (what `e` saves too) to
/// the JSON, CSV and SVG files, if any, drawn by `draw` (`render::files::EXPORT`).
pub fn save_export(files: &ResultFiles, result: &Export, draw: &Renderings<Export>) -> Saved {
    let mut saved = save(files, result, || (draw.csv)(result));
    save_plot(files, &mut saved, || (draw.svg)(result));
    saved
}

/// Writes a fleet to the JSON and SVG files, if any, drawn by `draw`
/// (`render::files::FLEET`; a fleet has no CSV).
pub fn save_fleet(
    files: &ResultFiles,
    report: &FleetReport,
    draw: &Renderings<FleetReport>,
) -> Result<()> {
    let mut saved = save(files, report, || (draw.csv)(report));
    save_plot(files, &mut saved, || (draw.svg)(report));
    saved.into_result()
}

/// Draws the chart into the `--plot` file, if any; a chart that cannot be drawn or written
/// is a line of `saved.failed`.
fn save_plot(files: &ResultFiles, saved: &mut Saved, svg: impl FnOnce() -> Result<String, String>) {
    let Some(path) = &files.plot else { return };
    let written = svg()
        .map_err(|e| format!("--plot {}: {e}", quote_path(path)))
        .and_then(|text| write_result(Kind::Svg, path, &text));
    match written {
        Ok(()) => say(&format!("saved {}", quote_path(path))),
        Err(e) => saved.failed.push(e),
    }
}

/// Writes the result to the JSON and CSV files, if any; `csv_text` is the whole CSV.
fn save<T: serde::Serialize>(
    files: &ResultFiles,
    result: &T,
    csv_text: impl FnOnce() -> String,
) -> Saved {
    let mut saved = Saved::default();
    if let Some(path) = &files.json {
        let written = serde_json::to_string_pretty(result)
            .map_err(|e| e.to_string())
            .and_then(|text| write_result(Kind::Json, path, &(text + "\n")));
        match written {
            Ok(()) => {
                saved.json = true;
                say(&format!("saved {}", quote_path(path)));
            }
            Err(e) => saved.failed.push(e),
        }
    }
    if let Some(path) = &files.csv {
        match write_result(Kind::Csv, path, &csv_text()) {
            Ok(()) => say(&format!("saved {}", quote_path(path))),
            Err(e) => saved.failed.push(e),
        }
    }
    saved
}
