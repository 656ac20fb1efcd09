//! Results to the files named by `--json FILE` and `--csv FILE`, after a headless run or the
//! TUI alike; each saved file is announced on stderr. It takes the files' paths
//! (`ResultFiles`), nothing of the command line.

use std::path::PathBuf;

use anyhow::Result;

use crate::model::{RunReport, SweepReport};
use crate::model::{fleet::FleetReport, suite::SuiteReport};
use crate::render::csv;
use crate::result_file::{Kind, write_result};
use crate::target::shell::quote_path;

/// Where a result is saved: `--json FILE` and `--csv FILE`, each optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultFiles {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
}

/// Writes a run to the JSON and CSV files, if any.
pub fn save_run(files: &ResultFiles, report: &RunReport) -> Result<()> {
    save(files, report, || csv::intervals(&report.intervals))
}

/// Writes a sweep to the JSON and CSV files, if any.
pub fn save_sweep(files: &ResultFiles, report: &SweepReport) -> Result<()> {
    save(files, report, || csv::steps(&report.steps))
}

/// Writes a suite's card to the JSON and CSV files, if any.
pub fn save_suite(files: &ResultFiles, report: &SuiteReport) -> Result<()> {
    save(files, report, || csv::suite(report))
}

/// Writes a fleet to the JSON file, if any (a fleet has no CSV).
pub fn save_fleet(files: &ResultFiles, report: &FleetReport) -> Result<()> {
    save(files, report, String::new)
}

/// Writes the result to the JSON and CSV files, if any; `csv_text` is the whole CSV.
fn save<T: serde::Serialize>(
    files: &ResultFiles,
    result: &T,
    csv_text: impl FnOnce() -> String,
) -> Result<()> {
    if let Some(path) = &files.json {
        let text = serde_json::to_string_pretty(result)? + "\n";
        write_result(Kind::Json, path, &text).map_err(anyhow::Error::msg)?;
        eprintln!("diskscope: saved {}", quote_path(path));
    }
    if let Some(path) = &files.csv {
        write_result(Kind::Csv, path, &csv_text()).map_err(anyhow::Error::msg)?;
        eprintln!("diskscope: saved {}", quote_path(path));
    }
    Ok(())
}
