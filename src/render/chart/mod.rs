//! Charts: every result as an SVG an admin can paste into a ticket. Descriptions of what a
//! chart shows (`spec`), the look (`style`), thinning long series (`thin`), drawing them with
//! plotters' SVG backend (`draw`), and adapters from the result types to descriptions.
//!
//! Self-contained: callers use the functions below, and nothing here writes files, reads the
//! clock or touches the engine. Each function takes a result and a `Provenance` (what the
//! title says about when, where and by what: `Provenance::of(&result.meta)`) and returns the
//! SVG text, or a one-line error (plotters refusing to draw, or text that holds no fio
//! result). `plot_run`, `plot_sweep`, `plot_suite`, `plot_fleet`, `plot_disks` and `plot_fio` are what
//! `--plot`, `--show --plot` and the TUI's `e` save: one SVG per result, a run's (and fio
//! json+'s) latency distribution stacked under its chart. Paths inside the module are
//! relative (`super::`), so it moves under `render/` with a `git mv` and a `mod` line; the
//! result types come in through `use crate::report`, `crate::suite`, `crate::fleet` only.
//!
//! Layout: `spec` (descriptions, no plotters), `style` (palette, text widths, dashes),
//! `thin`, `draw/` (one file per kind of plot), and the adapters `from_results` (run and
//! latency), `from_sweep` (sweep and rate curve), `from_cards` (suite and fleet), `from_disks` (several targets), `from_fio`
//! and `from_fio_bins` (fio's JSON).

pub mod draw;
pub mod from_cards;
pub mod from_disks;
pub mod from_fio;
pub mod from_fio_bins;
pub mod from_results;
pub mod from_sweep;
pub mod spec;
pub mod style;
pub mod surface;
pub mod thin;

pub use spec::Provenance;

use crate::model::{RunReport, SweepReport};

/// A run as three stacked panels over time — IOPS, MB/s, p99 — with its periods shaded
/// (`periods`; `None`: the report's own, or for a file from before periods, consecutive
/// intervals with equal settings) and its stops marked.
pub fn run_svg(
    r: &RunReport,
    periods: Option<&[spec::Span]>,
    p: &Provenance,
) -> Result<String, String> {
    draw::svg(&spec::Chart::Lines(from_results::run_chart(r, periods, p)))
}

/// A sweep against its knob; a rate sweep with a latency curve draws the curve.
pub fn sweep_svg(r: &SweepReport, p: &Provenance) -> Result<String, String> {
    let chart = match from_sweep::curve_chart(r, p) {
        Some(c) => c,
        None => from_sweep::sweep_chart(r, p),
    };
    draw::svg(&spec::Chart::Lines(chart))
}

/// A suite's card as grouped bars: sequential tests in MB/s, random ones in IOPS, reads and
/// writes side by side, the median as the bar and the min–max of the passes as a whisker.
pub fn suite_svg(r: &crate::suite::SuiteReport, p: &Provenance) -> Result<String, String> {
    draw::svg(&spec::Chart::Bars(from_cards::suite_chart(r, p)))
}

/// A fleet: a bar per host, the outliers coloured, the median line.
pub fn fleet_svg(r: &crate::fleet::FleetReport, p: &Provenance) -> Result<String, String> {
    draw::svg(&spec::Chart::Bars(from_cards::fleet_chart(r, p)))
}

/// A run's latency distribution: the log2 histogram of all its I/Os (`hist`: the report's
/// own `periods.latency_histogram`, or another) with the report's p50, p99 and p99.9 marked.
pub fn latency_svg(
    r: &RunReport,
    hist: &crate::stats::Log2Histogram,
    p: &Provenance,
) -> Result<String, String> {
    draw::svg(&spec::Chart::Histogram(from_results::run_latency_chart(
        r, hist, p,
    )))
}

/// A run as `--plot` saves it: over time, and its latency distribution (the whole run's
/// log2 histogram, which the report keeps) below when it has any I/O.
pub fn plot_run(r: &RunReport) -> Result<String, String> {
    let p = Provenance::of(&r.meta);
    let over_time = run_svg(r, None, &p)?;
    let hist = &r.periods.latency_histogram;
    if hist.total() == 0 {
        return Ok(over_time);
    }
    let title = format!(
        "{}: a run over time and its latency distribution",
        r.config.target.path
    );
    draw::stack(&[over_time, latency_svg(r, hist, &p)?], &title)
}

/// A sweep (or a rate curve) as `--plot` saves it.
pub fn plot_sweep(r: &SweepReport) -> Result<String, String> {
    sweep_svg(r, &Provenance::of(&r.meta))
}

/// A suite's card as `--plot` saves it.
pub fn plot_suite(r: &crate::suite::SuiteReport) -> Result<String, String> {
    suite_svg(r, &Provenance::of(&r.meta))
}

/// A fleet as `--plot` saves it.
pub fn plot_fleet(r: &crate::fleet::FleetReport) -> Result<String, String> {
    fleet_svg(r, &Provenance::of(&r.meta))
}

/// A run on several targets as `--plot` saves it: a bar per target, the outliers coloured,
/// the median line (and each target alone beside it after `--each-then-all`).
pub fn plot_disks(r: &crate::model::disks::DisksReport) -> Result<String, String> {
    let p = Provenance::of(&r.meta);
    draw::svg(&spec::Chart::Bars(from_disks::disks_chart(r, &p)))
}

/// fio's JSON as `--show --plot` saves it: its chart, with json+'s latency distribution
/// below when it has one.
pub fn plot_fio(text: &str) -> Result<String, String> {
    let p = Provenance::default();
    let chart = fio_svg(text, &p)?;
    // Only json+ has latency bins; plain JSON need not be read a second time.
    if !text.contains("\"bins\"") {
        return Ok(chart);
    }
    match fio_latency_svg(text, &p)? {
        Some(latency) => draw::stack(
            &[chart, latency],
            "fio's result and its latency distribution",
        ),
        None => Ok(chart),
    }
}

/// fio's own JSON output (`text` as read from the file) drawn as the chart it calls for: a
/// fleet for client/server, a run over time for status-interval snapshots, bars per job, or
/// the jobs ranked when there are many.
pub fn fio_svg(text: &str, p: &Provenance) -> Result<String, String> {
    draw::svg(&from_fio::fio_chart(text, p)?)
}

/// The latency distribution of fio's json+ output (`None` for plain json, which has no
/// bins).
pub fn fio_latency_svg(text: &str, p: &Provenance) -> Result<Option<String>, String> {
    match from_fio_bins::fio_latency_chart(text, p)? {
        Some(h) => draw::svg(&spec::Chart::Histogram(h)).map(Some),
        None => Ok(None),
    }
}
