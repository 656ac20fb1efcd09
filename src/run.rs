//! The front door: from a validated `Config`, decide once what to do (`Mode`) and do it —
//! list the devices, print the fio job, run headless (one run, a sweep or a suite's card), or
//! hand over to the TUI. Returns how the process should exit.

use std::io::IsTerminal;

use anyhow::{Result, anyhow};

use crate::cli::{Config, DEFAULT_SCRATCH_SIZE, Output, SCRATCH_NAME};
use crate::engine::{DEFAULT_TICK, Engine, Options};
use crate::exit::ExitStatus;
use crate::model::{ConfigReport, TargetFacts, TargetKind};
use crate::render::baseline::Baseline;
use crate::render::save::{save_run, save_sweep};
use crate::settings::Settings;
use crate::suite::SuiteName;
use crate::sweep::{DEFAULT_STEP_TIME, SweepRunner, SweepSpec};
use crate::target::discover::{Roots, discover, visible};
use crate::target::open::{OpenSpec, Target};
use crate::target::prepare::{
    Prepared, config_report, kind_of, prepare, resolve_engine, scratch_dir, stderr_progress,
};
use crate::target::{cache, list};
use crate::{headless, output, render, signals};

mod fleet;
mod suite;

/// Run length when none is given and there is no TUI.
pub const DEFAULT_HEADLESS_TIME: std::time::Duration = std::time::Duration::from_secs(10);

/// What this invocation does, decided once from the config and the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// `--completions SHELL`: the completion script.
    Completions(clap_complete::Shell),
    /// `--man`: the man page.
    Man,
    /// `--list`: the block devices.
    List,
    /// `--fio`: the equivalent fio job.
    Fio,
    /// One timed run, printed as text, JSON or CSV.
    Run,
    /// A `--sweep` without the TUI.
    Sweep(SweepSpec),
    /// `--suite`: the card, always as text, JSON or CSV (the TUI runs one with `c`).
    Suite(SuiteName),
    /// The interactive screen.
    Tui,
    /// `--fleet`: the test on many hosts through fio's client/server mode; `tui` when the
    /// fleet screen is drawn.
    Fleet { tui: bool },
    /// `--show FILE`: print a saved result.
    Show,
}

impl Mode {
    /// The mode for `config`; refuses `--tui` without a terminal, and durability in the TUI.
    pub fn decide(config: &Config) -> Result<Mode> {
        if let Some(shell) = config.completions {
            return Ok(Mode::Completions(shell));
        }
        if config.man {
            return Ok(Mode::Man);
        }
        if config.show.is_some() {
            return Ok(Mode::Show);
        }
        if config.list {
            return Ok(Mode::List);
        }
        if config.fio {
            return Ok(Mode::Fio);
        }
        if let Some(name) = config.suite {
            return Ok(Mode::Suite(name));
        }
        let terminal = terminal_state();
        if config.tui
            && let Err(why) = terminal
        {
            anyhow::bail!(
                "--tui needs a terminal on stdin and stdout, and {why}; drop --tui (or use --no-tui) for text output"
            );
        }
        let tui = !config.no_tui && config.output == Output::Text && terminal.is_ok();
        if config.fleet.is_some() {
            return Ok(Mode::Fleet { tui });
        }
        if tui {
            if config.durability != Default::default() {
                anyhow::bail!(
                    "--fsync and --end-fsync work in text runs only for now; add --no-tui"
                );
            }
            return Ok(Mode::Tui);
        }
        Ok(match &config.sweep {
            Some(spec) => Mode::Sweep(spec.clone()),
            None => Mode::Run,
        })
    }
}

/// Whether a screen can be drawn: both ends a terminal, and not TERM=dumb (an editor's shell
/// buffer, some CI consoles); else why not.
fn terminal_state() -> Result<(), &'static str> {
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let stdout = std::io::stdout().is_terminal();
    if stdout && std::io::stdin().is_terminal() && !dumb {
        Ok(())
    } else if dumb {
        Err("TERM=dumb says this one cannot draw a screen")
    } else if stdout {
        Err("stdin is not one")
    } else {
        Err("stdout is not one")
    }
}

/// Runs diskscope as configured.
pub fn run(config: Config) -> Result<ExitStatus> {
    let mode = Mode::decide(&config)?;
    if matches!(
        mode,
        Mode::Tui | Mode::Run | Mode::Sweep(_) | Mode::Suite(_)
    ) {
        // The UI, the sampler and their helper threads inherit this (nice -5 when allowed);
        // workers lower their own, so the screen stays on time beside a thousand of them.
        crate::sys::set_thread_niceness(-5);
    }
    let config = match mode {
        Mode::Tui | Mode::Run | Mode::Sweep(_) | Mode::Suite(_) | Mode::Fio => {
            resolve_engine(config)?
        }
        _ => config,
    };
    match mode {
        Mode::Completions(shell) => print_and_exit(&crate::cli::docs::completions(shell)),
        Mode::Man => print_and_exit(&crate::cli::docs::man_page()),
        Mode::List => list_devices(&config),
        Mode::Fio => print_fio(&config),
        Mode::Tui => crate::tui::run(config),
        Mode::Run | Mode::Sweep(_) | Mode::Suite(_) => headless_run(&config, &mode),
        Mode::Fleet { tui } => fleet::run(&config, tui),
        Mode::Show => {
            let path = config.show.clone().unwrap_or_default();
            let text = crate::show::show(&path).map_err(anyhow::Error::msg)?;
            print_and_exit(&text)
        }
    }
}

/// A run, a sweep or a suite without the TUI: prepare the target, run, print, save.
fn headless_run(config: &Config, mode: &Mode) -> Result<ExitStatus> {
    signals::install();
    // Read the baseline before laying anything out, so a wrong path fails at once.
    let baseline = config.baseline.as_deref().map(Baseline::load).transpose()?;
    let prepared = match prepare(config, &mut stderr_progress()) {
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
        Mode::Suite(name) => suite::run(config, *name, &prepared, baseline.as_ref())?,
        _ => single_run(config, &prepared, baseline.as_ref())?,
    };
    drop(prepared);
    Ok(ExitStatus::after_run(had_io_errors))
}

/// Starts the engine on the prepared target with `settings`.
fn start_engine(config: &Config, prepared: &Prepared, settings: Settings) -> Result<Engine> {
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
    baseline: Option<&Baseline>,
) -> Result<bool> {
    let target = &prepared.target;
    spec.check_steps(config.settings, &target.geometry())
        .map_err(|e| anyhow!("{}: {e}", target.path.display()))?;
    let step_time = config.duration.unwrap_or(DEFAULT_STEP_TIME);
    let runner = SweepRunner::new(spec.clone(), config.settings, step_time);
    let mut info = config_report(config, prepared);
    info.duration_s = Some(step_time.as_secs_f64());
    let engine = start_engine(config, prepared, runner.first())?;
    let report = headless::run_sweep(engine, runner, info, config.output, baseline)?;
    match config.output {
        Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
        Output::Csv => {}
        Output::Text | Output::Quiet => output::print(&render::text::sweep_summary(&report)),
    }
    save_sweep(config, &report)?;
    Ok(report
        .steps
        .iter()
        .any(|s| s.counts.errors + s.counts.short_ios > 0))
}

/// A headless run; returns whether it had I/O errors.
fn single_run(config: &Config, prepared: &Prepared, baseline: Option<&Baseline>) -> Result<bool> {
    let duration = config.duration.unwrap_or(DEFAULT_HEADLESS_TIME);
    let mut info = config_report(config, prepared);
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
        output::print(&(render::baseline::compare_run(b, &report) + "\n"));
    }
    save_run(config, &report)?;
    Ok(report.had_io_errors())
}

/// `--fio`: the equivalent fio job, without running anything or laying out a file (fio lays
/// out its own).
fn print_fio(config: &Config) -> Result<ExitStatus> {
    let c = fio_config(config)?;
    let job = match (&config.sweep, config.suite) {
        (_, Some(name)) => crate::fio::job::FioJob::suite(&c, &suite::plan(config, name, &c)),
        (Some(spec), None) => {
            crate::fio::job::FioJob::sweep(&c, spec, config.duration.unwrap_or(DEFAULT_STEP_TIME))
        }
        (None, None) => crate::fio::job::FioJob::run(&c),
    }
    .drop_cache(config.drop_cache);
    // The command line is a comment, so the whole output is a job file:
    // `diskscope --fio > diskscope.fio`, then `fio --client=hosts.list diskscope.fio`.
    output::print(&format!(
        "# fio command line:\n# {}\n\n# fio job file (all of this output is one: save it as diskscope.fio, \
         run fio diskscope.fio, or on many hosts fio --client=hosts.list diskscope.fio):\n{}",
        job.command_line(),
        job.job_file()
    ));
    Ok(ExitStatus::Success)
}

/// The target as fio will see it: the scratch file it lays out itself, or the device or
/// file opened read-only to learn its size and block size.
fn fio_config(config: &Config) -> Result<ConfigReport> {
    let write_allowed = config.allow_write.is_some();
    let facts = match scratch_dir(config.target.as_deref()) {
        Some(d) => {
            let size = config.size.unwrap_or(DEFAULT_SCRATCH_SIZE);
            TargetFacts {
                path: d.join(SCRATCH_NAME).display().to_string(),
                kind: TargetKind::ScratchFile,
                size_bytes: size,
                device_bytes: None,
                span_bytes: size,
                logical_block_size: 512,
                direct: config.direct,
                write_allowed,
            }
        }
        None => {
            let p = config.target.clone().unwrap_or_default();
            let spec = OpenSpec {
                direct: false,
                write: false,
                span: config.size,
            };
            let t = Target::open(&p, spec)?;
            TargetFacts {
                path: p.display().to_string(),
                kind: kind_of(&t, false),
                size_bytes: t.span_bytes,
                device_bytes: None,
                span_bytes: t.span_bytes,
                logical_block_size: t.logical_block_size,
                direct: config.direct,
                write_allowed,
            }
        }
    };
    let duration = config.duration.unwrap_or(DEFAULT_HEADLESS_TIME);
    let mut c = ConfigReport::new(facts, config.settings, Some(duration))
        .with_engine(config.ioengine, config.ioengine_fallback.clone());
    c.durability = config.durability;
    Ok(c)
}

/// `--completions`, `--man`: a text generated from the command line's definition.
fn print_and_exit(text: &str) -> Result<ExitStatus> {
    output::print(text);
    Ok(ExitStatus::Success)
}

/// `--list`: every block device as a table, or a JSON array with --json.
fn list_devices(config: &Config) -> Result<ExitStatus> {
    let devices = visible(discover(&Roots::system())?, config.all);
    if config.output == Output::Json {
        output::print(&(serde_json::to_string_pretty(&devices)? + "\n"));
    } else {
        output::print(&list::format_table(&devices));
    }
    Ok(ExitStatus::Success)
}
