//! How the engine runs a config's targets (`engine::Options`): one place that every way of
//! starting an engine — a run, several targets, the TUI's run and its several targets — takes
//! them from, so none leaves out what the start checked (polling, trims, syncs).

use super::Config;

impl Config {
    /// How the engine runs this config's targets: the engine, the syncs, and whether the
    /// targets were found to poll and to trim (`run::check_hipri`, `run::check_trim`, or the
    /// TUI's picked targets). Every way of starting an engine takes them from here.
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
