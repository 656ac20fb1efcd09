//! From a validated `Config` to a finished run: resolve the target (device, file, directory or
//! the default scratch file), check that writing was really asked for, start the engine and
//! hand it to the headless runner. Returns the process exit status.

use std::io::IsTerminal;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::cli::{Config, DEFAULT_SCRATCH_SIZE, Output, SCRATCH_NAME};
use crate::engine::ioengine::{self, Resolved};
use crate::engine::{DEFAULT_TICK, Engine, Options};
use crate::report::ConfigReport;
use crate::report::baseline::Baseline;
use crate::settings::IoEngine;
use crate::signals;
use crate::sweep::{DEFAULT_STEP_TIME, SweepRunner};
use crate::target::discover::{Roots, discover, visible};
use crate::target::open::{OpenSpec, Target, TargetKind};
use crate::target::scratch::Scratch;
use crate::target::{cache, list, safety};
use crate::units::format_bytes;
use crate::{headless, output, report};

/// Exit status when the run completed but I/Os failed or came back short.
pub const EXIT_IO_ERRORS: u8 = 3;
/// Run length when none is given and there is no TUI.
pub const DEFAULT_HEADLESS_TIME: Duration = Duration::from_secs(10);

/// A target ready to benchmark, with the scratch file (if any) that must outlive the run.
pub struct Prepared {
    pub target: Arc<Target>,
    pub scratch: Option<Scratch>,
}

/// Opens what the config names, laying out a scratch file when it names none or a directory;
/// `progress(done, total)` follows the layout.
pub fn prepare(config: &Config, progress: &mut dyn FnMut(u64, u64)) -> Result<Prepared> {
    let write = config.allow_write.is_some();
    let spec = |span| OpenSpec {
        direct: config.direct,
        write,
        span,
    };
    let dir = match &config.target {
        None => Some(PathBuf::from(".")),
        Some(p) if p.is_dir() => Some(p.clone()),
        Some(_) => None,
    };
    if let Some(dir) = dir {
        let size = config.size.unwrap_or(DEFAULT_SCRATCH_SIZE);
        let scratch = Scratch::prepare(&dir, SCRATCH_NAME, size, config.keep, progress, &|| {
            signals::received().is_some()
        })?;
        // The scratch file is ours: writing to it needs only --allow-write.
        let target = Arc::new(Target::open(scratch.path(), spec(None))?);
        return Ok(Prepared {
            target,
            scratch: Some(scratch),
        });
    }
    let path = config.target.as_deref().unwrap_or(Path::new("."));
    let is_device = std::fs::metadata(path)
        .map(|m| m.file_type().is_block_device())
        .unwrap_or(false);
    if write && is_device {
        // Before any open for writing: named, and not mounted or held (O_EXCL checks again).
        safety::check_device_write(path, config.allow_write.as_deref().unwrap_or(""))?;
    }
    let target = Target::open(path, spec(config.size))?;
    Ok(Prepared {
        target: Arc::new(target),
        scratch: None,
    })
}

/// Progress of a scratch-file layout on stderr: one line, updated in place on a terminal.
fn stderr_progress() -> impl FnMut(u64, u64) {
    let tty = std::io::stderr().is_terminal();
    let mut last_step = None;
    move |done: u64, total: u64| {
        if last_step.is_none() {
            eprintln!(
                "laying out the scratch file ({} of random data)…",
                format_bytes(total)
            );
        }
        let step = done * 20 / total;
        if tty && last_step != Some(step) {
            eprint!("\r  {} of {}", format_bytes(done), format_bytes(total));
            if done == total {
                eprintln!();
            }
        }
        last_step = Some(step);
    }
}

/// Describes the target for reports.
pub fn config_report(config: &Config, p: &Prepared, engine: &Resolved) -> ConfigReport {
    let t = &p.target;
    let mut warnings = t.warnings.clone();
    warnings.extend(engine.fallback.iter().cloned());
    warnings.extend(p.scratch.iter().flat_map(|s| s.notes().iter().cloned()));
    if !t.direct {
        let cached = cache::cached_bytes(t.main_fd(), t.span_bytes)
            .map(|b| {
                format!(
                    "; {} of the span ({:.0}%) was cached at the start",
                    format_bytes(b),
                    b as f64 * 100.0 / t.span_bytes as f64
                )
            })
            .unwrap_or_default();
        warnings.push(format!("buffered I/O: the page cache is in play, so cached data is measured, not the disk{cached}"));
    }
    ConfigReport {
        target: t.path.display().to_string(),
        target_kind: match (&p.scratch, t.kind) {
            (Some(_), _) => "scratch_file",
            (None, TargetKind::BlockDevice) => "block_device",
            (None, TargetKind::RegularFile) => "regular_file",
        },
        size_bytes: t.size_bytes,
        device_bytes: t.device_bytes,
        span_bytes: t.span_bytes,
        logical_block_size: t.logical_block_size,
        direct: t.direct,
        write_allowed: t.write,
        threads: config.settings.threads,
        iodepth: config.settings.iodepth,
        bs: config.settings.bs,
        read_pct: config.settings.read_pct,
        random_pct: config.settings.random_pct,
        duration_s: config.duration.map(|d| d.as_secs_f64()),
        ioengine: engine.engine,
        ioengine_fallback: engine.fallback.clone(),
        latency_basis: report::LATENCY_BASIS,
        durability: Default::default(),
        warnings,
    }
    .with_durability(config.durability)
}

/// Picks the engine (`--ioengine`, or io_uring when the kernel allows it). On a fallback to
/// psync the depth becomes 1, and the reason says so when a deeper queue was asked for.
pub fn resolve_engine(mut config: Config) -> Result<(Config, Resolved)> {
    let mut engine = ioengine::resolve(config.ioengine).map_err(anyhow::Error::msg)?;
    if engine.engine == IoEngine::Psync && config.settings.iodepth > 1 {
        if let Some(why) = &mut engine.fallback {
            why.push_str(&format!(" (-Q {} not possible)", config.settings.iodepth));
        }
        config.settings.iodepth = 1;
    }
    Ok((config, engine))
}

/// Runs diskscope as configured; returns the exit status.
pub fn run(config: Config) -> Result<u8> {
    if config.list {
        return list_devices(&config);
    }
    if config.fio {
        return print_fio(&config);
    }
    let (config, engine) = resolve_engine(config)?;
    // TERM=dumb (an editor's shell buffer, some CI consoles) cannot draw a screen: text.
    let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
    let terminal = std::io::stdout().is_terminal() && std::io::stdin().is_terminal() && !dumb;
    if config.tui && !terminal {
        anyhow::bail!(
            "--tui needs a terminal on stdin and stdout, and {}; drop --tui (or use --no-tui) for text output",
            if dumb {
                "TERM=dumb says this one cannot draw a screen"
            } else if std::io::stdout().is_terminal() {
                "stdin is not one"
            } else {
                "stdout is not one"
            }
        );
    }
    // The UI, the sampler and their helper threads inherit this; workers lower their own.
    favour_this_thread();
    if !config.no_tui && config.output == Output::Text && terminal {
        if config.durability != Default::default() {
            anyhow::bail!("--fsync and --end-fsync work in text runs only for now; add --no-tui");
        }
        return crate::tui::run(config);
    }
    signals::install();
    // Read the baseline before laying anything out, so a wrong path fails at once.
    let baseline = config.baseline.as_deref().map(Baseline::load).transpose()?;
    let prepared = match prepare(&config, &mut stderr_progress()) {
        Ok(p) => p,
        // Interrupted while laying out the scratch file: the partial file is gone already.
        Err(_) if signals::received().is_some() => {
            eprintln!("diskscope: interrupted; the partial scratch file was removed");
            return Ok(signals::received().map_or(1, signals::exit_status));
        }
        Err(e) => return Err(e),
    };
    if config.drop_cache {
        cache::drop_cache(prepared.target.main_fd()).map_err(|e| {
            anyhow::anyhow!(
                "{}: cannot drop its cached pages: {e}",
                prepared.target.path.display()
            )
        })?;
    }
    if let Some(sig) = signals::received() {
        return Ok(signals::exit_status(sig));
    }
    let target = prepared.target.clone();
    let mut info = config_report(&config, &prepared, &engine);
    let start = |settings| {
        let options = Options {
            tick: DEFAULT_TICK,
            fsync_every: config.durability.fsync_every,
            ioengine: engine.engine,
        };
        Engine::start_with(target.clone(), target.geometry(), settings, options)
            .map_err(|e| anyhow::anyhow!("{}: {e}", target.path.display()))
    };
    let had_io_errors = match &config.sweep {
        Some(spec) => {
            let step_time = config.duration.unwrap_or(DEFAULT_STEP_TIME);
            let runner = SweepRunner::new(spec.clone(), config.settings, step_time);
            for (i, s) in runner.steps().iter().enumerate() {
                target.geometry().validate(s).map_err(|e| {
                    anyhow::anyhow!(
                        "{}: sweep step {} ({}): {e}",
                        target.path.display(),
                        i + 1,
                        spec.dimension.describe(spec.dimension.value(s))
                    )
                })?;
            }
            info.duration_s = Some(step_time.as_secs_f64());
            let report = headless::run_sweep(
                start(runner.first())?,
                runner,
                info,
                config.output,
                baseline.as_ref(),
            )?;
            match config.output {
                Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
                Output::Csv => {}
                Output::Text | Output::Quiet => {
                    output::print(&report::text::sweep_summary(&report))
                }
            }
            save_sweep(&config, &report)?;
            report
                .steps
                .iter()
                .any(|s| s.counts.errors + s.counts.short_ios > 0)
        }
        None => {
            let duration = config.duration.unwrap_or(DEFAULT_HEADLESS_TIME);
            info.duration_s = Some(duration.as_secs_f64());
            let report = headless::run(start(config.settings)?, info, duration, config.output);
            match config.output {
                Output::Json => output::print(&(serde_json::to_string_pretty(&report)? + "\n")),
                Output::Csv => {}
                Output::Text => output::print(&report::text::summary(&report, false)),
                Output::Quiet => output::print(&report::text::summary(&report, true)),
            }
            if let (Some(b), Output::Text | Output::Quiet) = (&baseline, config.output) {
                output::print(&(report::baseline::compare_run(b, &report) + "\n"));
            }
            save_run(&config, &report)?;
            report.had_io_errors()
        }
    };
    drop(prepared);
    Ok(if let Some(sig) = signals::received() {
        signals::exit_status(sig)
    } else if had_io_errors {
        EXIT_IO_ERRORS
    } else {
        0
    })
}

/// Writes a run to the --json and --csv files, if any were given (headless or TUI).
pub fn save_run(config: &Config, report: &report::RunReport) -> Result<()> {
    save(config, report, || {
        let mut out = vec![report::csv::HEADER.to_string()];
        out.extend(report.intervals.iter().map(report::csv::row));
        out
    })
}

/// Writes a sweep to the --json and --csv files, if any were given (headless or TUI).
pub fn save_sweep(config: &Config, report: &report::SweepReport) -> Result<()> {
    save(config, report, || {
        let mut out = vec![report::csv::step_header()];
        out.extend(
            report
                .steps
                .iter()
                .enumerate()
                .map(|(i, r)| report::csv::step_row(i, r)),
        );
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
        std::fs::write(path, text)
            .with_context(|| format!("--json {}: cannot save the result", path.display()))?;
        eprintln!("diskscope: saved {}", path.display());
    }
    if let Some(path) = &config.csv_file {
        let text = csv_lines().join("\n") + "\n";
        std::fs::write(path, text)
            .with_context(|| format!("--csv {}: cannot save the result", path.display()))?;
        eprintln!("diskscope: saved {}", path.display());
    }
    Ok(())
}

/// `--fio`: the equivalent fio job, without running anything or laying out a file (fio lays
/// out its own).
fn print_fio(config: &Config) -> Result<u8> {
    let (config, engine) = &resolve_engine(config.clone())?;
    let dir = match &config.target {
        None => Some(PathBuf::from(".")),
        Some(p) if p.is_dir() => Some(p.clone()),
        Some(_) => None,
    };
    let (path, size, lbs, kind) = match dir {
        Some(d) => {
            let size = config.size.unwrap_or(DEFAULT_SCRATCH_SIZE);
            (d.join(SCRATCH_NAME), size, 512, "scratch_file")
        }
        None => {
            let p = config.target.clone().unwrap_or_default();
            let t = Target::open(
                &p,
                OpenSpec {
                    direct: false,
                    write: false,
                    span: config.size,
                },
            )?;
            let kind = if t.kind == TargetKind::BlockDevice {
                "block_device"
            } else {
                "regular_file"
            };
            (p, t.span_bytes, t.logical_block_size, kind)
        }
    };
    let s = config.settings;
    let c = ConfigReport {
        target: path.display().to_string(),
        target_kind: kind,
        size_bytes: size,
        device_bytes: None,
        span_bytes: size,
        logical_block_size: lbs,
        direct: config.direct,
        write_allowed: config.allow_write.is_some(),
        threads: s.threads,
        iodepth: s.iodepth,
        bs: s.bs,
        read_pct: s.read_pct,
        random_pct: s.random_pct,
        ioengine: engine.engine,
        ioengine_fallback: engine.fallback.clone(),
        latency_basis: report::LATENCY_BASIS,
        duration_s: Some(
            config
                .duration
                .unwrap_or(DEFAULT_HEADLESS_TIME)
                .as_secs_f64(),
        ),
        durability: config.durability,
        warnings: vec![],
    };
    let job = match &config.sweep {
        Some(spec) => {
            report::fio::FioJob::sweep(&c, spec, config.duration.unwrap_or(DEFAULT_STEP_TIME))
        }
        None => report::fio::FioJob::run(&c),
    }
    .drop_cache(config.drop_cache);
    output::print(&format!(
        "# fio command line:\n{}\n\n# fio job file (save as diskscope.fio, run: fio diskscope.fio, \
         or fio --client=HOST diskscope.fio):\n{}",
        job.command_line(),
        job.job_file()
    ));
    Ok(0)
}

/// `--list`: every block device as a table, or a JSON array with --json.
fn list_devices(config: &Config) -> Result<u8> {
    let devices = visible(discover(&Roots::system())?, config.all);
    if config.output == Output::Json {
        output::print(&(serde_json::to_string_pretty(&devices)? + "\n"));
    } else {
        output::print(&list::format_table(&devices));
    }
    Ok(0)
}

/// Raises this thread's CPU priority a little (nice -5) when allowed (root, CAP_SYS_NICE),
/// and does nothing otherwise. Threads spawned from it inherit the niceness, so the sampler
/// and the screen stay on time beside a thousand busy workers on two cores.
fn favour_this_thread() {
    // SAFETY: setpriority on this thread's own tid has no memory effects; a refusal is fine.
    unsafe {
        let tid = nix::libc::gettid();
        let _ = nix::libc::setpriority(nix::libc::PRIO_PROCESS, tid as nix::libc::id_t, -5);
    }
}
