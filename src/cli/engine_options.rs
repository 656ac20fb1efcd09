//! How the engine runs a config's targets (`engine::Options`): one place that every way of
//! starting an engine — a run, several targets, the TUI's run and its several targets — takes
//! them from, so none leaves out what the start checked (polling, trims, syncs); and that
//! check itself, one for the targets typed (`run::checks`) and those picked in the TUI.

use std::path::Path;

use super::Config;

impl Config {
    /// Checks `targets` (`None`: the scratch file in the working directory) for polling and
    /// trims, and keeps both reasons (or none) for the TUI's `P` key and trim slider. Where
    /// `enforce`d, a run asking for either where it cannot gets that reason as the error.
    pub fn check_targets(
        &mut self,
        targets: &[Option<&Path>],
        enforce: bool,
    ) -> Result<(), String> {
        self.poll_refusal = self.poll_refusal_on(targets);
        self.trim_refusal = self.trim_refusal_on(targets);
        let s = self.settings;
        let asked = [
            (s.hipri, &self.poll_refusal),
            (s.trim_pct > 0, &self.trim_refusal),
        ];
        match asked
            .into_iter()
            .find_map(|(asked, why)| why.as_ref().filter(|_| asked))
        {
            Some(why) if enforce => Err(why.clone()),
            _ => Ok(()),
        }
    }

    /// How the engine runs this config's targets: the engine, the syncs, and whether the
    /// targets were found to poll and to trim (`check_targets`). Every way of starting an
    /// engine takes them from here.
    pub fn engine_options(&self) -> crate::engine::Options {
        crate::engine::Options {
            tick: crate::engine::DEFAULT_TICK,
            fsync_every: self.durability.fsync_every,
            ioengine: self.ioengine.unwrap_or_default(),
            poll: self.poll_refusal.is_none(),
            trim: self.trim_refusal.is_none(),
        }
    }
}
