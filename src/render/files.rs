//! The renderings a saved result is written in (`results::Renderings`): the CSV and the chart
//! of what the TUI's `e`, `--json`/`--csv`/`--plot` and the fleet save. The callers hand
//! these to `results::save` and `results::export`, which only write; the drawing stays here.

use super::{chart, csv, disks};
use crate::model::fleet::FleetReport;
use crate::results::Renderings;
use crate::results::export::Export;

/// A run, a sweep, a suite's card or a run on several targets: the CSV of a run is its
/// intervals, of a sweep its steps, of a card its rows, of several targets each target's
/// seconds and the aggregate's; the chart is what `--plot` draws of it.
pub const EXPORT: Renderings<Export> = Renderings {
    csv: export_csv,
    svg: export_chart,
};

/// A fleet: its chart (a fleet has no CSV: `--csv` is refused with `--fleet`).
pub const FLEET: Renderings<FleetReport> = Renderings {
    csv: |_| String::new(),
    svg: chart::plot_fleet,
};

fn export_csv(result: &Export) -> String {
    match result {
        Export::Run(r) => csv::intervals(&r.intervals),
        Export::Sweep(s) => csv::steps(&s.steps),
        Export::Suite(c) => csv::suite(c),
        Export::Disks(r) => disks::csv(r),
    }
}

/// The chart `--plot` would draw of it.
pub fn export_chart(result: &Export) -> Result<String, String> {
    match result {
        Export::Run(r) => chart::plot_run(r),
        Export::Sweep(r) => chart::plot_sweep(r),
        Export::Suite(r) => chart::plot_suite(r),
        Export::Disks(r) => chart::plot_disks(r),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::RunReport;
    use crate::results::file::{CSV_HEADS, SVG_DESC};

    #[test]
    fn a_saved_run_is_drawn_as_results_file_recognises_it() {
        let run = Export::Run(Box::new(RunReport::example()));
        let svg = (EXPORT.svg)(&run).expect("a run's chart");
        assert!(svg.contains(SVG_DESC), "{svg}");
        let text = (EXPORT.csv)(&run);
        assert!(text.starts_with(CSV_HEADS[0]), "{text}");
    }
}
