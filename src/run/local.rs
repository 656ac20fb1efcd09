//! A run, a sweep or a suite without the TUI: the baseline read first, the target prepared,
//! the engine started, the result printed as text, JSON or CSV, compared with the baseline
//! and saved.

use anyhow::{Result, anyhow};

use super::{DEFAULT_HEADLESS_TIME, Mode};
use crate::cli::{Config, Output};
use crate::engine::{DEFAULT_TICK, Engine, Options};
use crate::exit::ExitStatus;
use crate::render::baseline::BaselineFile;
use crate::render::compare::compare_meta;
use crate::render::save::{save_run, save_sweep};
use crate::settings::Settings;
use crate::sweep::{DEFAULT_STEP_TIME, SweepRunner, SweepSpec};
use crate::target::cache;
use crate::target::prepare::{Prepared, prepare, stderr_progress};
use crate::{headless, output, render, signals};

/// A run, a sweep or a suite without the TUI: prepare the target, run, print, save.
pub fn run(config: &Config, mode: &Mode) -> Result<ExitStatus> {
    signals::install();
    // Read the baseline before laying anything out, so a wrong path fails at once.
    let baseline = config
        .baseline
        .as_deref()
        .map(BaselineFile::load)
        .transpose()?;
    let prepared = match prepare(&config.target_request(), &mut stderr_progress()) {
        Ok(p) => p,
        // Interrupted while laying out the scratch file: the partial file is gone already.
        Err(_) if signals::received().is_some() => {
            eprintln!("diskscope: interrupted; the partial scratch file was removed");
            return Ok(ExitStatus::left());
        }
        Err(e) => return Err(e),
    };
    if config.drop_cache {
        cache::drop_cache(prepared.target.main_fd()).map_err(|e| {
            anyhow!(
                "{}: cannot drop its cached pages: {e}",
                prepared.target.path.display()
            )
        })?;
    }
    if let Some(sig) = signals::received() {
        return Ok(ExitStatus::Signal(sig));
    }
    let had_io_errors = match mode {
        Mode::Sweep(spec) => sweep(config, spec, &prepared, baseline.as_ref())?,
        Mode::Suite(name) => super::suite::run(config, *name, &prepared, baseline.as_ref())?,
        _ => single_run(config, &prepared, baseline.as_ref())?,
    };
    drop(prepared);
    Ok(ExitStatus::after_run(had_io_errors))
}

/// Starts the engine on the prepared target with `settings`.
pub fn start_engine(config: &Config, prepared: &Prepared, settings: Settings) -> Result<Engine> {
    let target = &prepared.target;
    let options = Options {
        tick: DEFAULT_TICK,
        fsync_every: config.durability.fsync_every,
        ioengine: config.ioengine.unwrap_or_default(),
    };
    Engine::start_with(target.clone(), target.geometry(), settings, options)
        .map_err(|e| anyhow!("{}: {e}", target.path.display()))
}

/// A headless sweep; returns whether any step had I/O errors.
fn sweep(
    config: &Config,
    spec: &SweepSpec,
    prepared: &Prepared,
    baseline: Option<&BaselineFile>,
) -> Result<bool> {
    let target = &prepared.target;
    spec.check_steps(config.settings, &target.geometry())
        .map_err(|e| anyhow!("{}: {e}", target.path.display()))?;
    let step_time = config.duration.unwrap_or(DEFAULT_STEP_TIME);
    let runner = SweepRunner::new(spec.clone(), config.settings, step_time);
    let mut info = config.describe(prepared);
    info.duration_s = Some(step_time.as_secs_f64());
    let engine = start_engine(config, prepared, runner.first())?;
    let report = headless::run_sweep(
        engine,
        runner,
        info,
        config.output,
        baseline.map(|b| &b.baseline),
    )?;
    match config.output {
        Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
        Output::Csv => {}
        Output::Text | Output::Quiet => output::print(&render::sweep::sweep_summary(&report)),
    }
    if let (Some(b), Output::Text | Output::Quiet) = (baseline, config.output) {
        output::print(&compare_meta(b.baseline.label(), &b.meta, &report.meta));
    }
    save_sweep(&config.files, &report)?;
    Ok(report
        .steps
        .iter()
        .any(|s| s.counts.errors + s.counts.short_ios > 0))
}

/// A headless run; returns whether it had I/O errors.
fn single_run(
    config: &Config,
    prepared: &Prepared,
    baseline: Option<&BaselineFile>,
) -> Result<bool> {
    let duration = config.duration.unwrap_or(DEFAULT_HEADLESS_TIME);
    let mut info = config.describe(prepared);
    info.duration_s = Some(duration.as_secs_f64());
    let engine = start_engine(config, prepared, config.settings)?;
    let report = headless::run(engine, info, duration, config.output);
    match config.output {
        Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
        Output::Csv => {}
        Output::Text => output::print(&render::text::summary(&report, false)),
        Output::Quiet => output::print(&render::text::summary(&report, true)),
    }
    if let (Some(b), Output::Text | Output::Quiet) = (baseline, config.output) {
        output::print(&render::final_text::versus(b, &report));
    }
    save_run(&config.files, &report)?;
    Ok(report.had_io_errors())
}
