//! `--show FILE`: any saved result printed in diskscope's summary form — a run, sweep or
//! suite's card (`--json FILE`), a fleet, a run on several targets, or fio's own JSON
//! output, local or client/server (per host, with the hosts' seconds differenced from fio's
//! snapshots when it has them).
//!
//! Reading only: nothing runs. `results::saved_doc` reads the file and says what kind of
//! result it holds, typed; this hands it to its rendering: a fleet as the model it was saved
//! from (`render::fleet`), fio's output through `fio::json` (`render::fio`, or as a fleet),
//! a run on several targets field by field (`render::disks_saved`), a run, sweep or card
//! from its lenient reading (`render::saved`). A diskscope result's first line says what
//! made it (`meta`). `plot` draws the same file as `--show FILE --plot OUT.svg` asks: a
//! diskscope result read back into its model type (the fields later versions added take
//! their defaults), fio's through its own chart.

use std::path::Path;

use serde::Deserialize;

use crate::fio::scan;
use crate::fleet::{DEFAULT_OUTLIER_PCT, FleetReport, results};
use crate::model::disks::DisksReport;
use crate::model::{Meta, RunReport, SweepReport};
use crate::render::{chart, disks_saved, fio, fleet, saved};
use crate::results::file::{self as result_file, Kind};
use crate::results::saved_doc::{self, Located, Saved};
use crate::suite::SuiteReport;
use crate::target::shell::quote_path;

/// The text `--show` prints for `path`.
pub fn show(path: &Path) -> Result<String, String> {
    Ok(match saved_doc::read("--show", path)? {
        Saved::Fio(out) if out.client_server => {
            let report = results::from_fio(&out, DEFAULT_OUTLIER_PCT);
            format!(
                "{}\n{}",
                fio::client_server_header(&out),
                fleet::summary(&report)
            )
        }
        Saved::Fio(out) => fio::jobs(&out),
        Saved::Disks(v) => {
            let meta = v.get("meta").and_then(|m| Meta::deserialize(m).ok());
            provenance_line(&meta.unwrap_or_default()) + &disks_saved::saved(&v)
        }
        Saved::Fleet(r) => format!(
            "{}{}\n{}",
            provenance_line(&r.meta),
            fleet::header(&r.fleet),
            fleet::summary(&r)
        ),
        Saved::Suite(s) => provenance_line(&s.meta) + &saved::suite(&s),
        Saved::Sweep(s) => provenance_line(&s.meta) + &saved::sweep(&s),
        Saved::Run(r) => provenance_line(&r.meta) + &saved::run(&r),
    })
}

/// "saved by diskscope 0.1.0 on db-7 (Linux 6.1.0), started …" for a diskscope result.
fn provenance_line(meta: &Meta) -> String {
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
    let shown = quote_path(path);
    let text = result_file::read_bounded("--show", path)?;
    let svg = chart_of(&text).map_err(|e| format!("--show {shown} --plot: {e}"))?;
    result_file::write_result(Kind::Svg, out, &svg)?;
    crate::output::say(&format!("saved {}", quote_path(out)));
    Ok(())
}

/// The chart of a saved result's text: fio's JSON, or diskscope's several targets, fleet,
/// card, sweep or run read back into its model type.
fn chart_of(text: &str) -> Result<String, String> {
    let found = scan::scan(text);
    let (kind, span) = match saved_doc::locate(&found)? {
        Located::Fio => return chart::plot_fio(text),
        Located::Diskscope(kind, span) => (kind, span),
    };
    let read = |what: &str, e: String| format!("a {what} diskscope cannot read ({e})");
    match kind {
        "several targets" => chart::plot_disks(
            &scan::parse::<DisksReport>(text, span)
                .map_err(|e| read("run on several targets", e))?,
        ),
        "fleet" => chart::plot_fleet(
            &scan::parse::<FleetReport>(text, span).map_err(|e| read("fleet", e))?,
        ),
        "suite" => chart::plot_suite(
            &scan::parse::<SuiteReport>(text, span).map_err(|e| read("suite's card", e))?,
        ),
        "sweep" => chart::plot_sweep(
            &scan::parse::<SweepReport>(text, span).map_err(|e| read("sweep", e))?,
        ),
        _ => chart::plot_run(&scan::parse::<RunReport>(text, span).map_err(|e| read("run", e))?),
    }
}
