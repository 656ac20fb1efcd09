//! What a run checks of its targets before anything is laid out or opened: whether their
//! queues poll (`--hipri`) and whether they discard (`--trim`), each refused in one line with
//! the reason; without either asked, the reasons are kept for the TUI's `P` key and trim
//! slider.

use std::path::{Path, PathBuf};

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

/// `--hipri` runs only where the device's queue polls (`target::poll`), `--trim` only on
/// block devices that discard, with writes allowed (`target::trim`): refused before anything
/// is laid out or opened otherwise. The reasons (or none) are kept for the TUI's `P` key and
/// trim slider; the picker's target is checked when it is picked (`tui::session::start`).
pub(super) fn check_targets(config: &mut Config, mode: &Mode) -> Result<()> {
    check_hipri_asked(config)?;
    let typed: Vec<Option<PathBuf>> = match config.targets.is_empty() {
        true => vec![config.target.clone()],
        false => config.targets.iter().cloned().map(Some).collect(),
    };
    let typed: Vec<Option<&Path>> = typed.iter().map(Option::as_deref).collect();
    let picker = matches!(mode, Mode::Tui) && config.target.is_none();
    config
        .check_targets(&typed, !picker)
        .map_err(|why| crate::exit::Refused(why).into())
}
