//! `--fleet` from the command line: fio found here, the spec checked, the baseline read
//! before anything runs; then the fleet run headless (a line per state change and per
//! second, then the table) or on the TUI's fleet screen, the result saved with `--json FILE`,
//! and the exit status: 0 every host finished, 3 some failed, 1 all did.

use anyhow::Result;

use crate::cli::{Config, Output};
use crate::exit::ExitStatus;
use crate::fleet::live::Board;
use crate::fleet::{FleetEvent, FleetReport, FleetSpec};
use crate::render::baseline::BaselineFile;
use crate::render::compare::{compare_fleet, compare_meta};
use crate::render::save::save_fleet;
use crate::{output, signals};

/// Runs the fleet `config` describes.
pub fn run(config: &Config, tui: bool) -> Result<ExitStatus> {
    signals::install();
    let spec = spec(config).map_err(anyhow::Error::msg)?;
    let baseline = config
        .baseline
        .as_deref()
        .map(BaselineFile::load)
        .transpose()?;
    let stop = || signals::received().is_some();
    let meta = crate::model::Meta::now();
    let mut report = if tui {
        crate::tui::fleet::run(&spec, baseline.as_ref().map(|b| &b.baseline))?
    } else {
        headless(&spec, config.output, &stop)?
    };
    report.meta = meta;
    match config.output {
        Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
        _ if tui => {}
        _ => {
            output::print(&crate::render::fleet::summary(&report));
            if let Some(b) = &baseline {
                output::print(&compare_fleet(&b.baseline, &report));
                output::print(&compare_meta(b.baseline.label(), &b.meta, &report.meta));
            }
        }
    }
    if tui {
        // The screen is gone: the table goes to the normal screen, as a run's summary does.
        output::print(&crate::render::fleet::summary(&report));
        if let Some(b) = &baseline {
            output::print(&compare_fleet(&b.baseline, &report));
            output::print(&compare_meta(b.baseline.label(), &b.meta, &report.meta));
        }
    }
    save_fleet(&config.files, &report)?;
    Ok(status(&report))
}

/// The spec of `config`: hosts, target, settings, fio on this machine.
pub fn spec(config: &Config) -> Result<FleetSpec, String> {
    let fio = crate::fio::find_fio()?;
    let hosts = config.fleet.clone().unwrap_or_default();
    let target = config
        .target
        .as_ref()
        .map(|t| t.display().to_string())
        .unwrap_or_default();
    if config.files.csv.is_some() || config.output == Output::Csv {
        return Err("--fleet saves its result with --json FILE; --csv is for single runs".into());
    }
    FleetSpec::new(
        hosts,
        &target,
        config.settings,
        config.ioengine,
        config.direct,
        config.allow_write.is_some(),
        config.durability,
        config.duration.unwrap_or(super::DEFAULT_HEADLESS_TIME),
        config.outlier_pct,
        fio,
        config.drop_cache,
    )
}

/// Without a screen: the header, state changes and a live line a second on stderr-free
/// stdout (nothing but the JSON with `--json`), then the report.
pub fn headless(
    spec: &FleetSpec,
    out: Output,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<FleetReport> {
    let lines = out == Output::Text;
    let mut board = Board::new(&spec.hosts);
    if out != Output::Json {
        output::print(&format!(
            "{}\n",
            crate::render::fleet::header(&spec.fleet_config())
        ));
    }
    let mut report = crate::fleet::run(spec, stop, &mut |e| match e {
        FleetEvent::Host(i, ev) => {
            if board.apply(*i, ev) && lines {
                output::print(&(crate::render::fleet::state_line(&board, *i) + "\n"));
            }
        }
        FleetEvent::Tick => {
            board.tick();
            if lines && !board.finished() {
                output::print(&(crate::render::fleet::live_line(&board) + "\n"));
            }
        }
    })
    .map_err(anyhow::Error::msg)?;
    report.interrupted_by = signals::received().map(|s| format!("{s:?}"));
    Ok(report)
}

/// 0 when every host finished, 3 when some failed, 1 when none finished; a signal wins.
pub fn status(r: &FleetReport) -> ExitStatus {
    if let Some(sig) = signals::received() {
        return ExitStatus::Signal(sig);
    }
    match (r.aggregate.hosts_done, r.aggregate.hosts_failed) {
        (0, _) => ExitStatus::Failure,
        (_, 0) => ExitStatus::Success,
        _ => ExitStatus::IoErrors,
    }
}
