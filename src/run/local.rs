//! A run, a sweep or a suite without the TUI: what the baseline (read with the arguments)
//! measured differently said first, the target prepared, the engine started (with the run's
//! live why: sensors, steady state, findings), the result printed as text, JSON or CSV,
//! compared with the baseline and saved.

use std::io::IsTerminal;
use std::time::SystemTime;

use anyhow::{Result, anyhow};

use super::{DEFAULT_HEADLESS_TIME, Mode};
use crate::cli::{Config, Output};
use crate::engine::Engine;
use crate::exit::ExitStatus;
use crate::render::baseline::BaselineFile;
use crate::render::compare::compare_meta;
use crate::render::files;
use crate::results::export::Export;
use crate::results::save::save_export;
use crate::results::state_dir;
use crate::settings::Settings;
use crate::sweep::{DEFAULT_STEP_TIME, SweepRunner, SweepSpec, UntilSteady};
use crate::target::cache;
use crate::target::prepare::{Prepared, prepare};
use crate::verify::during::During;
use crate::why::Live;
use crate::{headless, output, render, signals};

/// A run, a sweep or a suite without the TUI: prepare the target, run, print, save.
pub fn run(config: &Config, mode: &Mode) -> Result<ExitStatus> {
    signals::install();
    // Known now: a terminal that hangs up during the run no longer says it is one.
    let on_terminal = std::io::stdout().is_terminal();
    // The baseline was read and checked with the arguments; what it measured differently is
    // said before anything is laid out (on stderr when stdout carries JSON or CSV).
    let baseline = config.baseline.clone();
    match (config.baseline_differs(), config.output) {
        (Some(line), Output::Text) => output::print(&(line + "\n")),
        (Some(line), Output::Json | Output::Csv) => output::say(&line),
        _ => {}
    }
    let prepared = match prepare(&config.target_request(), &mut layout_progress()) {
        Ok(p) => p,
        // Interrupted while laying out the scratch file: the partial file is gone already.
        Err(_) if signals::received().is_some() => {
            output::say("interrupted; the partial scratch file was removed");
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
        Mode::Sweep(spec) => sweep(config, spec, &prepared, baseline.as_ref(), on_terminal)?,
        Mode::Suite(name) => {
            let b = baseline.as_ref();
            super::suite::run(config, *name, &prepared, b, on_terminal)?
        }
        _ => single_run(config, &prepared, baseline.as_ref(), on_terminal)?,
    };
    drop(prepared);
    Ok(ExitStatus::after_run(had_io_errors))
}

/// Progress of a scratch-file layout on stderr: one line, updated in place on a terminal
/// (through `output`: in ASCII where the locale wants it, and no panic when the terminal
/// hangs up during the layout).
pub(super) fn layout_progress() -> impl FnMut(u64, u64) {
    let tty = std::io::stderr().is_terminal();
    let mut last_step = None;
    move |done: u64, total: u64| {
        if last_step.is_none() {
            let size = crate::units::format_bytes(total);
            output::to_stderr(&format!(
                "laying out the scratch file ({size} of random data)…\n"
            ));
        }
        let step = done * 20 / total.max(1);
        if tty && last_step != Some(step) {
            let (done_b, total_b) = (
                crate::units::format_bytes(done),
                crate::units::format_bytes(total),
            );
            let end = if done == total { "\n" } else { "" };
            output::to_stderr(&format!("\r  {done_b} of {total_b}{end}"));
        }
        last_step = Some(step);
    }
}

/// Starts the engine on the prepared target with `settings`.
pub fn start_engine(config: &Config, prepared: &Prepared, settings: Settings) -> Result<Engine> {
    start_checked(config, prepared, settings, None)
}

/// Starts the engine with `--verify`'s checker, if any.
fn start_checked(
    config: &Config,
    prepared: &Prepared,
    settings: Settings,
    checker: Option<std::sync::Arc<dyn crate::engine::check::Checker>>,
) -> Result<Engine> {
    let target = &prepared.target;
    let options = config.engine_options();
    Engine::start_checked(
        target.clone(),
        target.geometry(),
        settings,
        options,
        checker,
    )
    .map_err(|e| anyhow!("{}: {e}", target.path.display()))
}

/// Saves `result` to the files asked for, and keeps it in the state directory when its
/// output reached no one (the terminal hung up, `on_terminal` being whether stdout was one)
/// and no `--json FILE` holds it.
pub(super) fn save_and_keep(config: &Config, on_terminal: bool, result: Export) -> Result<()> {
    let saved = save_export(&config.files, &result, &files::EXPORT);
    state_dir::keep_if_lost(on_terminal, saved.json, SystemTime::now(), || result);
    saved.into_result()
}

/// `--until-steady` for each step of a series: steady by the flags, or at MAX.
pub fn until_steady(config: &Config) -> Option<UntilSteady> {
    config.steady.until.map(|max| UntilSteady {
        params: config.steady.params(false),
        max,
    })
}

/// A headless sweep; returns whether any step had I/O errors.
fn sweep(
    config: &Config,
    spec: &SweepSpec,
    prepared: &Prepared,
    baseline: Option<&BaselineFile>,
    on_terminal: bool,
) -> Result<bool> {
    let target = &prepared.target;
    spec.check_steps(config.settings, &target.geometry())
        .map_err(|e| anyhow!("{}: {e}", target.path.display()))?;
    let step_time = config.duration.unwrap_or(DEFAULT_STEP_TIME);
    let runner = SweepRunner::new(spec.clone(), config.settings, step_time)
        .until_steady(until_steady(config));
    let mut info = config.describe(prepared);
    info.duration_s = Some(step_time.as_secs_f64());
    let live = Live::for_target(&info, &prepared.target.path, config.steady.params(false));
    let engine = start_engine(config, prepared, runner.first())?;
    let b = baseline.map(|b| &b.baseline);
    let report = headless::run_sweep(engine, runner, info, config.output, b, live)?;
    match config.output {
        Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
        Output::Csv => {}
        Output::Text | Output::Quiet => output::print(&render::sweep::sweep_summary(&report)),
    }
    if let (Some(b), Output::Text | Output::Quiet) = (baseline, config.output) {
        output::print(&compare_meta(b.baseline.label(), &b.meta, &report.meta));
    }
    let errors = report
        .steps
        .iter()
        .any(|s| s.counts.errors + s.counts.short_ios > 0);
    save_and_keep(config, on_terminal, Export::Sweep(Box::new(report)))?;
    Ok(errors)
}

/// A headless run; returns whether it had I/O errors.
fn single_run(
    config: &Config,
    prepared: &Prepared,
    baseline: Option<&BaselineFile>,
    on_terminal: bool,
) -> Result<bool> {
    // With --until-steady, -T (or MAX) is the most it runs.
    let duration = (config.steady.until)
        .or(config.duration)
        .unwrap_or(DEFAULT_HEADLESS_TIME);
    let mut info = config.describe(prepared);
    info.duration_s = Some(duration.as_secs_f64());
    let live = Live::for_target(&info, &prepared.target.path, config.steady.params(false))
        .until_steady(config.steady.until.map(|d| d.as_secs_f64()));
    let during = config
        .verify
        .live
        .then(|| std::sync::Arc::new(During::new(rand::random::<u64>() | 1)));
    let checker = during
        .clone()
        .map(|d| d as std::sync::Arc<dyn crate::engine::check::Checker>);
    let engine = start_checked(config, prepared, config.settings, checker)?;
    let mut report = headless::run(engine, info, duration, config.output, live);
    let target = crate::target::shell::quote_path(&prepared.target.path);
    if let Some(d) = &during {
        d.attach(&mut report, &target);
    }
    match config.output {
        Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
        Output::Csv => {}
        Output::Text => output::print(&render::text::summary(&report, false)),
        Output::Quiet => output::print(&render::text::summary(&report, true)),
    }
    if let (Some(b), Output::Text | Output::Quiet) = (baseline, config.output) {
        output::print(&render::final_text::versus(b, &report));
    }
    let errors = report.had_errors();
    save_and_keep(config, on_terminal, Export::Run(Box::new(report)))?;
    Ok(errors)
}
