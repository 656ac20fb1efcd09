//! `--show FILE`: any saved result printed in diskscope's summary form — a run, sweep or
//! suite's card (`--json FILE`), a fleet, a run on several targets, or fio's own JSON output, local or client/server
//! (per host, with the hosts' seconds differenced from fio's snapshots when it has them).
//! Reading only: nothing runs. This reads the file, finds what kind of result it holds, and
//! hands it to its rendering: a fleet as the model it was saved from (`render::fleet`), fio's
//! output through `fio::json` (`render::fio`, or as a fleet), a run, sweep or card field by
//! field (`render::saved`), so files from older versions still show what they have.

use std::path::Path;

use crate::fio::json as fio_json;
use crate::fleet::{DEFAULT_OUTLIER_PCT, FleetReport, results};
use crate::render::{fio, fleet, saved};
use crate::result_file;

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
    if v["fleet"].is_object() && v["hosts"].is_array() {
        let r: FleetReport = serde_json::from_value(v)
            .map_err(|e| format!("--show {shown}: a fleet result diskscope cannot read ({e})"))?;
        return Ok(format!(
            "{}\n{}",
            fleet::header(&r.fleet),
            fleet::summary(&r)
        ));
    }
    if v["disks"]["targets"].is_array() && v["targets"].is_array() {
        return Ok(crate::render::disks_saved::saved(&v));
    }
    let saved = v["config"]["target"].is_string();
    if saved && v["suite"].is_string() && v["tests"].is_array() {
        return Ok(saved::suite(&v));
    }
    if saved && v["steps"].is_array() {
        return Ok(saved::sweep(&v));
    }
    if saved && v["total"].is_object() {
        return Ok(saved::run(&v));
    }
    Err(format!(
        "--show {shown}: not a diskscope or fio result (no total, steps, hosts, targets or fio jobs in it)"
    ))
}
