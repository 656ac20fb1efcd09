//! The key that says "same settings, same stretch": the findings compare figures only within
//! one key (`findings::Interval::key`), so it must change on every settings change, pause,
//! resume and reset. It is one small function of the settings and a counter the consumer
//! bumps on pause, resume, reset and stop (`Epoch`), so that it can later be swapped for the
//! run's period index, which changes at the same boundaries.

use std::hash::{Hash, Hasher};

use crate::settings::Settings;

/// The key of an interval run under `settings` in stretch `epoch`. Deterministic (SipHash
/// with fixed keys), so equal inputs give equal keys in every run.
pub fn key_of(settings: &Settings, epoch: u64) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        settings.threads,
        settings.iodepth,
        settings.bs,
        settings.read_pct,
        settings.random_pct,
        settings.rate_iops,
        epoch,
    )
        .hash(&mut h);
    h.finish()
}

/// Counts the stretches of a run: bumped when it pauses or stops (and again when it goes on,
/// which the next running interval shows) and when the statistics are reset.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Epoch {
    count: u64,
    /// The last interval seen was paused or stopped.
    halted: bool,
}

impl Epoch {
    /// The current stretch.
    pub fn get(&self) -> u64 {
        self.count
    }

    /// Takes in whether the latest snapshot was paused or stopped; a running one after a halt
    /// begins a new stretch (resume), as does the halt itself.
    pub fn observe(&mut self, halted: bool) {
        if halted != self.halted {
            self.count += 1;
            self.halted = halted;
        }
    }

    /// The statistics were reset.
    pub fn reset(&mut self) {
        self.count += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_changes_with_any_setting_and_any_new_stretch() {
        let s = Settings::default();
        assert_eq!(key_of(&s, 0), key_of(&s, 0));
        assert_ne!(key_of(&s, 0), key_of(&s, 1));
        for other in [
            Settings { threads: 2, ..s },
            Settings { iodepth: 2, ..s },
            Settings { bs: 8192, ..s },
            Settings { read_pct: 70, ..s },
            Settings { random_pct: 0, ..s },
            Settings {
                rate_iops: 100,
                ..s
            },
        ] {
            assert_ne!(key_of(&s, 0), key_of(&other, 0), "{other:?}");
        }
        let mut e = Epoch::default();
        e.observe(false);
        assert_eq!(e.get(), 0, "running on is one stretch");
        e.observe(true);
        e.observe(true);
        assert_eq!(e.get(), 1, "a pause, however long, is one change");
        e.observe(false);
        assert_eq!(e.get(), 2, "and the resume another");
        e.reset();
        assert_eq!(e.get(), 3);
    }
}
