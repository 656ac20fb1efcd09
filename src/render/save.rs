//! Results to the files named by `--json FILE` and `--csv FILE`, after a headless run or the
//! TUI alike; each saved file is announced on stderr.

use anyhow::Result;

use crate::cli::Config;
use crate::model::{RunReport, SweepReport};
use crate::render::csv;
use crate::result_file::{Kind, write_result};
use crate::suite::SuiteReport;

/// Writes a run to the --json and --csv files, if any were given.
pub fn save_run(config: &Config, report: &RunReport) -> Result<()> {
    save(config, report, || {
        let mut out = vec![csv::HEADER.to_string()];
        out.extend(report.intervals.iter().map(csv::row));
        out
    })
}

/// Writes a sweep to the --json and --csv files, if any were given.
pub fn save_sweep(config: &Config, report: &SweepReport) -> Result<()> {
    save(config, report, || {
        let mut out = vec![csv::step_header()];
        out.extend(
            report
                .steps
                .iter()
                .enumerate()
                .map(|(i, r)| csv::step_row(i, r)),
        );
        out
    })
}

/// Writes a suite's card to the --json and --csv files, if any were given.
pub fn save_suite(config: &Config, report: &SuiteReport) -> Result<()> {
    save(config, report, || {
        let mut out = vec![csv::SUITE_HEADER.to_string()];
        out.extend(csv::suite_rows(report));
        out
    })
}

/// Writes the result to the --json and --csv files, if any were given.
fn save<T: serde::Serialize>(
    config: &Config,
    result: &T,
    csv_lines: impl FnOnce() -> Vec<String>,
) -> Result<()> {
    if let Some(path) = &config.json_file {
        let text = serde_json::to_string_pretty(result)? + "\n";
        write_result(Kind::Json, path, &text).map_err(anyhow::Error::msg)?;
        eprintln!("diskscope: saved {}", path.display());
    }
    if let Some(path) = &config.csv_file {
        let text = csv_lines().join("\n") + "\n";
        write_result(Kind::Csv, path, &text).map_err(anyhow::Error::msg)?;
        eprintln!("diskscope: saved {}", path.display());
    }
    Ok(())
}
