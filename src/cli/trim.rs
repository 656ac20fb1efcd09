//! Whether a run's trims (`--trim`) can go where it points: the config's part of the question
//! (writes allowed, the block size, a read-back) put to `target::trim` for each
//! target, at the start (`Config::check_targets`) and again for a target picked in the TUI.

use std::path::Path;

use super::Config;

impl Config {
    /// Why trims cannot run on `targets` (`None`: the scratch file) under this config
    /// (`target::trim`); `None` when they can.
    pub fn trim_refusal_on(&self, targets: &[Option<&Path>]) -> Option<String> {
        let sys = crate::sys::sysfs_root();
        targets.iter().find_map(|&path| {
            crate::target::trim::refusal(
                &sys,
                crate::target::trim::TrimAsk {
                    path,
                    allow_write: self.allow_write.is_some(),
                    bs: self.settings.bs,
                    verify: self.verify.any() || self.verify.live,
                },
            )
        })
    }
}
