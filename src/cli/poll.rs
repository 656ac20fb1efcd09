//! Whether a run's completions can be polled (`--hipri`, the TUI's `P`): the config's part of
//! the question (the engine, O_DIRECT, `--fsync`) put to `target::poll` with each target's
//! queue, at the start and again for a target picked in the TUI (`Config::check_targets`).
//! The answer is kept for the whole run: polling is a live knob, and the key says why it will
//! not switch instead of switching.

use std::path::{Path, PathBuf};

use super::Config;
use crate::target::prepare::SCRATCH_NAME;

impl Config {
    /// Why completions cannot be polled on `targets` (`None`: the scratch file in the working
    /// directory) under this config, the target named; `None` when they can. The scratch file
    /// not made yet, its directory stands for it; a target that does not exist is left to the
    /// open, which says so (not "its disk is unknown").
    pub fn poll_refusal_on(&self, targets: &[Option<&Path>]) -> Option<String> {
        let sys = crate::sys::sysfs_root();
        targets.iter().find_map(|&target| {
            let (named, probe): (PathBuf, PathBuf) = match target {
                None => (Path::new(".").join(SCRATCH_NAME), ".".into()),
                Some(p) if p.is_dir() => (p.join(SCRATCH_NAME), p.into()),
                Some(p) => (p.into(), p.into()),
            };
            if !probe.exists() {
                return None;
            }
            let facts = crate::target::facts::DiskFacts::for_path(&sys, &probe);
            crate::target::poll::hipri_refusal(crate::target::poll::PollAsk {
                disk: facts.disk.as_deref(),
                limits: &facts.queue_limits,
                ioengine: self.ioengine.unwrap_or_default(),
                direct: self.direct,
                fsync_every: self.durability.fsync_every,
            })
            .map(|why| format!("{}: {why}", named.display()))
        })
    }
}
