//! What a run checks of its targets before anything is laid out or opened: whether their
//! queues poll (`--hipri`) and whether they discard (`--trim`), each refused in one line with
//! the reason; without either asked, the reasons are kept for the TUI's `P` key and trim
//! slider.

use std::path::Path;

use anyhow::Result;

use super::Mode;
use crate::cli::Config;

/// What of `--hipri` does not depend on the machine: io_uring, O_DIRECT, no `--fsync` (the
/// kernel refuses a sync on a polled ring). Refused with the reason, as a run would be, also
/// for a fio export.
pub(super) fn check_hipri_asked(config: &Config) -> Result<()> {
    if !config.settings.hipri {
        return Ok(());
    }
    let why = crate::target::poll::config_refusal(
        config.ioengine.unwrap_or_default(),
        config.direct,
        config.durability.fsync_every,
    );
    match why {
        Some(why) => Err(crate::exit::Refused(why).into()),
        None => Ok(()),
    }
}

/// `--hipri` runs only where the device's queue polls (`target::poll`): refused before
/// anything is laid out or opened otherwise. Without it, the reason (or none) is kept for the
/// TUI's polling key.
pub(super) fn check_hipri(config: &mut Config, mode: &Mode) -> Result<()> {
    check_hipri_asked(config)?;
    let refusal = config.poll_refusal_on(&typed(config));
    config.poll_refusal = kept(refusal, config.settings.hipri, mode, config)?;
    Ok(())
}

/// `--trim` runs only on block devices that discard, with writes allowed (`target::trim`):
/// refused before anything is laid out or opened otherwise. With no trim asked, the reason
/// (or none) is kept for the TUI's trim key.
pub(super) fn check_trim(config: &mut Config, mode: &Mode) -> Result<()> {
    let refusal = config.trim_refusal_on(&typed(config));
    config.trim_refusal = kept(refusal, config.settings.trim_pct > 0, mode, config)?;
    Ok(())
}

/// The targets typed (`None`: the scratch file in the working directory).
fn typed(config: &Config) -> Vec<Option<&Path>> {
    match config.targets.is_empty() {
        true => vec![config.target.as_deref()],
        false => config.targets.iter().map(|t| Some(t.as_path())).collect(),
    }
}

/// A refusal that stops the start where the knob was `asked`; else kept for the TUI. The
/// picker's target is checked when it is picked (`tui::session::start`), not here.
fn kept(
    refusal: Option<String>,
    asked: bool,
    mode: &Mode,
    config: &Config,
) -> Result<Option<String>> {
    let picker = matches!(mode, Mode::Tui) && config.target.is_none();
    match refusal {
        Some(why) if asked && !picker => Err(crate::exit::Refused(why).into()),
        other => Ok(other),
    }
}
