//! `--show FILE`: any saved result printed in diskscope's summary form — a run, sweep or
//! suite's card (`--json FILE`), a fleet, or fio's own JSON output, local or client/server
//! (per host, with the hosts' seconds differenced from fio's snapshots when it has them).
//! Reading only: nothing runs. This reads the file, finds what kind of result it holds, and
//! hands it to its rendering: a fleet as the model it was saved from (`render::fleet`), fio's
//! output through `fio::json` (`render::fio`, or as a fleet), a run, sweep or card field by
//! field (`render::saved`), so files from older versions still show what they have. A
//! diskscope result's first line says what made it (`meta`). `plot` draws the same file as
//! `--show FILE --plot OUT.svg` asks: a diskscope result read back into its model type (the
//! fields later versions added take their defaults), fio's through its own chart.

use std::path::Path;

use serde_json::Value;

use crate::fio::json as fio_json;
use crate::fleet::{DEFAULT_OUTLIER_PCT, FleetReport, results};
use crate::model::{Meta, RunReport, SweepReport};
use crate::render::{chart, fio, fleet, saved};
use crate::result_file::{self, Kind};
use crate::suite::SuiteReport;

/// The text `--show` prints for `path`.
pub fn show(path: &Path) -> Result<String, String> {
    let shown = path.display();
    let text = result_file::read_bounded("--show", path)?;
    let (docs, cut) = fio_json::scan(&text);
    if docs.iter().any(fio_json::is_fio) {
        let out = fio_json::parse(&text).map_err(|e| format!("--show {shown}: {e}"))?;
        if !out.client_server {
            return Ok(fio::jobs(&out));
        }
        let report = results::from_fio(&out, DEFAULT_OUTLIER_PCT);
        return Ok(format!(
            "{}\n{}",
            fio::client_server_header(&out),
            fleet::summary(&report)
        ));
    }
    let Some(v) = docs.into_iter().next() else {
        if cut {
            return Err(format!("--show {shown}: {}", fio_json::CUT_SHORT));
        }
        return Err(format!(
            "--show {shown}: holds no JSON result; give a file saved with --json FILE, or fio's --output-format=json output"
        ));
    };
    let made_by = provenance_line(&v);
    if v["fleet"].is_object() && v["hosts"].is_array() {
        let r: FleetReport = serde_json::from_value(v)
            .map_err(|e| format!("--show {shown}: a fleet result diskscope cannot read ({e})"))?;
        return Ok(format!(
            "{made_by}{}\n{}",
            fleet::header(&r.fleet),
            fleet::summary(&r)
        ));
    }
    let saved = v["config"]["target"].is_string();
    if saved && v["suite"].is_string() && v["tests"].is_array() {
        return Ok(made_by + &saved::suite(&v));
    }
    if saved && v["steps"].is_array() {
        return Ok(made_by + &saved::sweep(&v));
    }
    if saved && v["total"].is_object() {
        return Ok(made_by + &saved::run(&v));
    }
    Err(format!(
        "--show {shown}: not a diskscope or fio result (no total, steps, hosts or fio jobs in it)"
    ))
}

/// "saved by diskscope 0.1.0 on db-7 (Linux 6.1.0), started …" for a diskscope result.
fn provenance_line(v: &Value) -> String {
    let meta: Meta = serde_json::from_value(v["meta"].clone()).unwrap_or_default();
    if meta.is_known() {
        format!("saved by {}\n", meta.describe())
    } else {
        "saved before diskscope wrote meta: nothing says which version made it, where or when\n"
            .into()
    }
}

/// `--show FILE --plot OUT`: draws the saved result in `path` into the chart file `out`
/// (checked before, as every result file is). The message names the file and what it holds.
pub fn plot(path: &Path, out: &Path) -> Result<(), String> {
    let shown = path.display();
    let text = result_file::read_bounded("--show", path)?;
    let svg = chart_of(&text).map_err(|e| format!("--show {shown} --plot: {e}"))?;
    result_file::write_result(Kind::Svg, out, &svg)?;
    eprintln!("diskscope: saved {}", out.display());
    Ok(())
}

/// The chart of a saved result's text: fio's JSON, or diskscope's fleet, card, sweep or run.
fn chart_of(text: &str) -> Result<String, String> {
    let (docs, cut) = fio_json::scan(text);
    if docs.iter().any(fio_json::is_fio) {
        return chart::plot_fio(text);
    }
    let Some(v) = docs.into_iter().next() else {
        return Err(if cut {
            fio_json::CUT_SHORT.to_string()
        } else {
            "holds no JSON result to draw".to_string()
        });
    };
    let read = |what: &str, e: serde_json::Error| format!("a {what} diskscope cannot read ({e})");
    if v["fleet"].is_object() && v["hosts"].is_array() {
        let r: FleetReport = serde_json::from_value(v).map_err(|e| read("fleet", e))?;
        return chart::plot_fleet(&r);
    }
    if !v["config"]["target"].is_string() {
        return Err("not a diskscope or fio result (no config, hosts or fio jobs in it)".into());
    }
    if v["suite"].is_string() && v["tests"].is_array() {
        let r: SuiteReport = serde_json::from_value(v).map_err(|e| read("suite's card", e))?;
        return chart::plot_suite(&r);
    }
    if v["steps"].is_array() {
        let r: SweepReport = serde_json::from_value(v).map_err(|e| read("sweep", e))?;
        return chart::plot_sweep(&r);
    }
    let r: RunReport = serde_json::from_value(v).map_err(|e| read("run", e))?;
    chart::plot_run(&r)
}
