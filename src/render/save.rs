//! Results to the files named by `--json FILE`, `--csv FILE` and `--plot FILE.svg`, after a
//! headless run or the TUI alike; each saved file is announced on stderr. It takes the
//! files' paths (`ResultFiles`), nothing of the command line. The chart is `render::chart`'s
//! `plot_*` of the same result.

use std::path::PathBuf;

use anyhow::Result;

use crate::model::{RunReport, SweepReport};
use crate::model::{fleet::FleetReport, suite::SuiteReport};
use crate::render::{chart, csv};
use crate::result_file::{Kind, write_result};

/// Where a result is saved: `--json FILE`, `--csv FILE` and `--plot FILE.svg`, each
/// optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResultFiles {
    pub json: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub plot: Option<PathBuf>,
}

/// Writes a run to the JSON, CSV and SVG files, if any.
pub fn save_run(files: &ResultFiles, report: &RunReport) -> Result<()> {
    save(files, report, || csv::intervals(&report.intervals))?;
    save_plot(files, || chart::plot_run(report))
}

/// Writes a sweep to the JSON, CSV and SVG files, if any.
pub fn save_sweep(files: &ResultFiles, report: &SweepReport) -> Result<()> {
    save(files, report, || csv::steps(&report.steps))?;
    save_plot(files, || chart::plot_sweep(report))
}

/// Writes a suite's card to the JSON, CSV and SVG files, if any.
pub fn save_suite(files: &ResultFiles, report: &SuiteReport) -> Result<()> {
    save(files, report, || csv::suite(report))?;
    save_plot(files, || chart::plot_suite(report))
}

/// Writes a fleet to the JSON and SVG files, if any (a fleet has no CSV).
pub fn save_fleet(files: &ResultFiles, report: &FleetReport) -> Result<()> {
    save(files, report, String::new)?;
    save_plot(files, || chart::plot_fleet(report))
}

/// Draws the chart into the `--plot` file, if any.
pub fn save_plot(files: &ResultFiles, svg: impl FnOnce() -> Result<String, String>) -> Result<()> {
    if let Some(path) = &files.plot {
        let text = svg().map_err(|e| anyhow::anyhow!("--plot {}: {e}", path.display()))?;
        write_result(Kind::Svg, path, &text).map_err(anyhow::Error::msg)?;
        eprintln!("diskscope: saved {}", path.display());
    }
    Ok(())
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
        eprintln!("diskscope: saved {}", path.display());
    }
    if let Some(path) = &files.csv {
        write_result(Kind::Csv, path, &csv_text()).map_err(anyhow::Error::msg)?;
        eprintln!("diskscope: saved {}", path.display());
    }
    Ok(())
}
