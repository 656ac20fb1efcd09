//! What a run checks of its targets before anything is laid out or opened: whether their
//! queues poll (`--hipri`) and whether they discard (`--trim`), each refused in one line with
//! the reason; without either asked, the reasons are kept for the TUI's `P` key and trim
//! slider.

use std::path::Path;

use anyhow::Result;

use super::Mode;
use crate::cli::Config;

/// What of `--hipri` does not depend on the machine: io_uring, O_DIRECT, no `--fsync`, no
/// `--trim` (the kernel refuses a sync or a block discard on a polled ring). Refused with the
/// reason, as a run would be, also for a fio export.
pub(super) fn check_hipri_asked(config: &Config) -> Result<()> {
    let s = config.settings;
    if !s.hipri {
        return Ok(());
    }
    let why = crate::target::poll::config_refusal(
        config.ioengine.unwrap_or_default(),
        config.direct,
        config.durability.fsync_every,
    );
    let why = why.or_else(|| {
        (s.trim_pct > 0).then(|| {
            "--trim with --hipri: the kernel refuses a block discard on a polled ring; drop one of them".to_string()
        })
    });
    match why {
        Some(why) => Err(crate::exit::Refused(why).into()),
        None => Ok(()),
    }
}

/// `--hipri` runs only where the device's queue polls (`target::poll`), and not beside trims
/// (`check_hipri_asked`): refused before anything is laid out or opened otherwise. Without it,
/// the reason (or none) is kept for the TUI's polling key.
pub(super) fn check_hipri(config: &mut Config, mode: &Mode) -> Result<()> {
    check_hipri_asked(config)?;
    let at_all: Vec<Option<&Path>> = match config.targets.is_empty() {
        true => vec![config.target.as_deref()],
        false => config.targets.iter().map(|t| Some(t.as_path())).collect(),
    };
    let refusal = config.poll_refusal_on(&at_all);
    let s = config.settings;
    // The picker's target is checked when it is picked (`tui::session::start`).
    let picker = matches!(mode, Mode::Tui) && config.target.is_none();
    if s.hipri
        && !picker
        && let Some(why) = &refusal
    {
        return Err(crate::exit::Refused(why.clone()).into());
    }
    config.poll_refusal = refusal;
    Ok(())
}

/// `--trim` runs only on block devices that discard, with writes allowed (`target::trim`):
/// refused before anything is laid out or opened otherwise. With no trim asked, the reason
/// (or none) is kept for the TUI's trim key.
pub(super) fn check_trim(config: &mut Config, mode: &Mode) -> Result<()> {
    let at_all: Vec<Option<&Path>> = match config.targets.is_empty() {
        true => vec![config.target.as_deref()],
        false => config.targets.iter().map(|t| Some(t.as_path())).collect(),
    };
    let refusal = config.trim_refusal_on(&at_all);
    // The picker's target is checked when it is picked (`tui::session::start`).
    let picker = matches!(mode, Mode::Tui) && config.target.is_none();
    if config.settings.trim_pct > 0
        && !picker
        && let Some(why) = &refusal
    {
        return Err(crate::exit::Refused(why.clone()).into());
    }
    config.trim_refusal = refusal;
    Ok(())
}
