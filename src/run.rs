//! The front door: from a validated `Config`, decide once what to do (`Mode`) and do it —
//! list the devices, print the fio job (`fio`), run headless (one run, a sweep or a suite's
//! card: `local`, `suite`), run a fleet (`fleet`), run several targets at once (`disks`), or
//! hand over to the TUI. Every mode's
//! entry is here; below this line nothing takes a `Config`, only the plain values it holds.
//! Returns how the process should exit.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::cli::{Config, Output};
use crate::exit::ExitStatus;
use crate::output;
use crate::results::state_dir;
use crate::suite::SuiteName;
use crate::sweep::SweepSpec;
use crate::target::discover::{Roots, discover, visible};
use crate::target::list;
use crate::target::shell::quote_path;

mod burnin;
mod checks;
mod disks;
mod fio;
mod fleet;
mod health;
mod local;
mod suite;
pub mod surface;

/// Run length when none is given and there is no TUI (kept in `settings`, below the CLI,
/// which checks `--until-steady` against it).
pub use crate::settings::DEFAULT_HEADLESS_TIME;

/// What this invocation does, decided once from the config and the terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// `--completions SHELL`: the completion script.
    Completions(clap_complete::Shell),
    /// `--man`: the man page.
    Man,
    /// `--list`: the block devices.
    List,
    /// `--health`: the drives' own records and what they say, no I/O.
    Health,
    /// `--surface`: the surface scan; `tui` when the screen is drawn.
    Surface { tui: bool },
    /// `--fio`: the equivalent fio job.
    Fio,
    /// `--burn-in[=write|verify]` or `--capacity-probe`: stamped blocks written and read
    /// back; `tui` when a burn-in is shown on the surface screen.
    BurnIn { tui: bool },
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
    /// Several targets at once, each with its own engine; `tui` when the screen is drawn.
    Disks { tui: bool },
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
        if config.health {
            return Ok(Mode::Health);
        }
        if config.fio {
            return Ok(Mode::Fio);
        }
        check_verify(config)?;
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
        if config.verify.any() {
            let tui = tui && config.verify.burn_in.is_some();
            return Ok(Mode::BurnIn { tui });
        }
        if config.surface.is_some() {
            surface::check(config, tui)?;
            return Ok(Mode::Surface { tui });
        }
        if config.fleet.is_some() {
            return Ok(Mode::Fleet { tui });
        }
        if config.targets.len() > 1 {
            if tui && config.durability != Default::default() {
                anyhow::bail!(
                    "--fsync and --end-fsync work in text runs only for now; add --no-tui"
                );
            }
            if tui && config.each_then_all {
                anyhow::bail!(
                    "--each-then-all prints its table as text; add --no-tui (the screen shows the targets together)"
                );
            }
            return Ok(Mode::Disks { tui });
        }
        if tui {
            if config.steady.until.is_some() {
                anyhow::bail!(
                    "--until-steady ends a run without the TUI once it is steady (the run \
                     screen shows the steady mark live); add --no-tui"
                );
            }
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

/// `--burn-in` and `--capacity-probe` are modes of their own; `--verify` checks one run.
fn check_verify(config: &Config) -> Result<()> {
    if config.verify.any() && config.surface.is_some() {
        anyhow::bail!(
            "--surface reads, --burn-in and --capacity-probe write and read back: run one, then \
             the other"
        );
    }
    if config.verify.live
        && (config.sweep.is_some()
            || config.suite.is_some()
            || config.fleet.is_some()
            || config.targets.len() > 1)
    {
        anyhow::bail!(
            "--verify reads back the writes of one run on one target; drop --sweep, --suite, \
             --fleet or the other targets"
        );
    }
    Ok(())
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
    if prints_text(&mode, config.output) {
        output::use_text();
    }
    if prints_text(&mode, config.output)
        && std::io::stdout().is_terminal()
        && !crate::locale::utf8()
    {
        output::use_ascii();
    }
    let notice = start_notice(&mode);
    if matches!(
        mode,
        Mode::Tui | Mode::Run | Mode::Sweep(_) | Mode::Suite(_) | Mode::Disks { .. }
    ) {
        // The UI, the sampler and their helper threads inherit this (nice -5 when allowed);
        // workers set their own from the niceness found here (`engine::niceness`), so the
        // screen stays on time beside a thousand of them.
        crate::engine::niceness::remember_base();
        crate::sys::set_thread_niceness(-5);
    }
    let config = match mode {
        Mode::Tui
        | Mode::Run
        | Mode::Sweep(_)
        | Mode::Suite(_)
        | Mode::Fio
        | Mode::Disks { .. } => resolve_engine(config)?,
        _ => config,
    };
    let mut config = config;
    match mode {
        // An export may be for another machine's disk: only what does not depend on the
        // machine is checked (a run needs a queue that polls, or discards).
        Mode::Fio => checks::check_hipri_asked(&config)?,
        // No I/O: nothing to poll or trim.
        Mode::Show | Mode::List | Mode::Completions(_) | Mode::Man | Mode::Health => {}
        _ => {
            checks::check_targets(&mut config, &mode)?;
        }
    }
    match mode {
        Mode::Completions(shell) => print_and_exit(&crate::cli::docs::completions(shell)),
        Mode::Man => print_and_exit(&crate::cli::docs::man_page()),
        Mode::List => list_devices(&config),
        Mode::Health => health::run(&config),
        Mode::Surface { tui: true } => crate::tui::run(config, notice),
        Mode::Surface { tui: false } => match config.surface {
            Some(ask) => surface::run(&config, ask),
            None => Ok(ExitStatus::Failure),
        },
        Mode::Fio => fio::print_fio(&config),
        Mode::BurnIn { tui: false } => burnin::run(&config),
        Mode::BurnIn { tui: true } => crate::tui::run(config, notice),
        Mode::Tui => crate::tui::run(config, notice),
        Mode::Run | Mode::Sweep(_) | Mode::Suite(_) => local::run(&config, &mode),
        Mode::Fleet { tui } => fleet::run(&config, tui),
        Mode::Disks { tui: true } => crate::tui::run(config, notice),
        Mode::Disks { tui: false } => disks::run(&config),
        Mode::Show => show(
            config.show.clone().unwrap_or_default(),
            config.files.plot.as_deref(),
        ),
    }
}

/// Whether `mode` prints text for people (a run's lines and summary, a card, a table): what
/// may be turned into ASCII for a terminal. JSON, CSV, a fio job, completions and the man
/// page must reach their reader byte for byte.
fn prints_text(mode: &Mode, output: Output) -> bool {
    let text = matches!(output, Output::Text | Output::Quiet);
    match mode {
        Mode::Tui
        | Mode::Show
        | Mode::Surface { tui: true }
        | Mode::Fleet { tui: true }
        | Mode::Disks { tui: true } => true,
        Mode::Run
        | Mode::Sweep(_)
        | Mode::Suite(_)
        | Mode::List
        | Mode::Health
        | Mode::BurnIn { .. }
        | Mode::Surface { tui: false }
        | Mode::Fleet { .. }
        | Mode::Disks { .. } => text,
        Mode::Completions(_) | Mode::Man | Mode::Fio => false,
    }
}

/// `--show FILE`, or `--show last`: the newest result kept in the state directory; with
/// `--plot OUT.svg` its chart too.
fn show(path: PathBuf, plot: Option<&Path>) -> Result<ExitStatus> {
    let path = if path == Path::new("last") {
        let newest = state_dir::newest().map_err(anyhow::Error::msg)?;
        output::say(&format!("the newest result kept: {}", quote_path(&newest)));
        newest
    } else {
        path
    };
    let text = crate::show::show(&path).map_err(anyhow::Error::msg)?;
    if let Some(out) = plot {
        crate::show::plot(&path, out).map_err(anyhow::Error::msg)?;
    }
    print_and_exit(&text)
}

/// Said once at a start in a terminal after a result was kept because the last run lost its
/// terminal: the line (on stderr, and given to the TUI to show).
fn start_notice(mode: &Mode) -> Option<String> {
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if matches!(mode, Mode::Completions(_) | Mode::Man | Mode::Show) || !terminal {
        return None;
    }
    let line = state_dir::take_notice()?;
    output::say(&line);
    Some(line)
}

/// Picks the engine (`--ioengine`, or io_uring when the kernel allows it) and records it in
/// the config. On a fallback to psync the depth becomes 1, and the reason says so when a
/// deeper queue was asked for. Asking for io_uring when it is refused is an error.
pub fn resolve_engine(mut config: Config) -> Result<Config> {
    let engine = crate::engine::ioengine::resolve(config.ioengine).map_err(anyhow::Error::msg)?;
    let mut fallback = engine.fallback;
    if engine.engine == crate::settings::IoEngine::Psync && config.settings.iodepth > 1 {
        if let Some(why) = &mut fallback {
            why.push_str(&format!(" (-Q {} not possible)", config.settings.iodepth));
        }
        config.settings.iodepth = 1;
    }
    config.ioengine = Some(engine.engine);
    config.ioengine_fallback = fallback;
    Ok(config)
}

/// `--completions`, `--man`: a text generated from the command line's definition.
fn print_and_exit(text: &str) -> Result<ExitStatus> {
    output::print(text);
    Ok(ExitStatus::Success)
}

/// `--list`: every block device as a table, or a JSON array with --json.
fn list_devices(config: &Config) -> Result<ExitStatus> {
    let mut devices = visible(discover(&Roots::system())?, config.all);
    crate::health::read_listed(&mut devices);
    if config.output == Output::Json {
        output::print(&(serde_json::to_string_pretty(&devices)? + "\n"));
    } else {
        output::print(&list::format_table(&devices));
    }
    Ok(ExitStatus::Success)
}
