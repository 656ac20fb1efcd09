//! From a validated `Config` to a finished run: resolve the target (device, file, directory or
//! the default scratch file), check that writing was really asked for, start the engine and
//! hand it to the headless runner. Returns the process exit status.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Result, bail};

use crate::cli::{Config, DEFAULT_SCRATCH_SIZE, Output, SCRATCH_NAME};
use crate::engine::{DEFAULT_TICK, Engine};
use crate::report::ConfigReport;
use crate::signals;
use crate::target::open::{OpenSpec, Target, TargetKind};
use crate::target::scratch::Scratch;
use crate::units::format_bytes;
use crate::{headless, report};

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
    let spec = |span| OpenSpec { direct: config.direct, write, span };
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
        return Ok(Prepared { target, scratch: Some(scratch) });
    }
    let path = config.target.as_deref().unwrap_or(Path::new("."));
    let target = Target::open(path, spec(config.size))?;
    if write && target.kind == TargetKind::BlockDevice {
        check_device_named(path, config.allow_write.as_deref().unwrap_or(""))?;
    }
    Ok(Prepared { target: Arc::new(target), scratch: None })
}

/// Writing to a device destroys what is on it: the user must have named that very device.
fn check_device_named(path: &Path, named: &str) -> Result<()> {
    let shown = path.display();
    if named.is_empty() {
        bail!("{shown}: writing to a block device destroys its data; confirm by naming it: --allow-write={shown}");
    }
    let same = Path::new(named) == path
        || match (std::fs::canonicalize(named), std::fs::canonicalize(path)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
    if !same {
        bail!("{shown}: --allow-write names {named}, not this device; use --allow-write={shown} to write here");
    }
    Ok(())
}

/// Progress of a scratch-file layout on stderr: one line, updated in place on a terminal.
fn stderr_progress() -> impl FnMut(u64, u64) {
    let tty = std::io::stderr().is_terminal();
    let mut last_step = None;
    move |done: u64, total: u64| {
        if last_step.is_none() {
            eprintln!("laying out the scratch file ({} of random data)…", format_bytes(total));
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
pub fn config_report(config: &Config, p: &Prepared) -> ConfigReport {
    let t = &p.target;
    let mut warnings = t.warnings.clone();
    if !t.direct {
        warnings.push("buffered I/O: the page cache is in play, so cached data is measured, not the disk".into());
    }
    ConfigReport {
        target: t.path.display().to_string(),
        target_kind: match (&p.scratch, t.kind) {
            (Some(_), _) => "scratch_file",
            (None, TargetKind::BlockDevice) => "block_device",
            (None, TargetKind::RegularFile) => "regular_file",
        },
        size_bytes: t.size_bytes,
        span_bytes: t.span_bytes,
        logical_block_size: t.logical_block_size,
        direct: t.direct,
        write_allowed: t.write,
        threads: config.settings.threads,
        bs: config.settings.bs,
        read_pct: config.settings.read_pct,
        random_pct: config.settings.random_pct,
        duration_s: config.duration.map(|d| d.as_secs_f64()),
        warnings,
    }
}

/// Runs diskscope as configured; returns the exit status.
pub fn run(config: Config) -> Result<u8> {
    if !config.no_tui
        && config.output == Output::Text
        && std::io::stdout().is_terminal()
        && std::io::stdin().is_terminal()
    {
        return crate::tui::run(config);
    }
    signals::install();
    let prepared = prepare(&config, &mut stderr_progress())?;
    if let Some(sig) = signals::received() {
        return Ok(signals::exit_status(sig));
    }
    let target = prepared.target.clone();
    let engine = Engine::start(target.clone(), target.geometry(), config.settings, DEFAULT_TICK)
        .map_err(|e| anyhow::anyhow!("{}: {e}", target.path.display()))?;
    let duration = config.duration.unwrap_or(DEFAULT_HEADLESS_TIME);
    let mut info = config_report(&config, &prepared);
    info.duration_s = Some(duration.as_secs_f64());
    let report = headless::run(engine, info, duration, config.output);
    match config.output {
        Output::Json => println!("{}", serde_json::to_string_pretty(&report)?),
        Output::Csv => {}
        Output::Text => print!("{}", report::text::summary(&report, false)),
        Output::Quiet => print!("{}", report::text::summary(&report, true)),
    }
    drop(prepared);
    Ok(if let Some(sig) = signals::received() {
        signals::exit_status(sig)
    } else if report.had_io_errors() {
        EXIT_IO_ERRORS
    } else {
        0
    })
}

