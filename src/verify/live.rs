//! What a burn-in has done so far, shared by its threads and whoever watches (the progress
//! line, the TUI's surface screen): bytes written and verified, bad units, and the region map's
//! cells as atomics. A thread marks a region once per block with one `fetch_max` (a region
//! keeps the worst it was found in, as `RegionMap::mark` does); no lock, no allocation.
//! `map()` turns the cells into the surface model's `RegionMap` for drawing and the JSON.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

use crate::model::surface::{Cell, RegionMap, VerifyState};
use crate::model::verify::BadKind;

/// Regions of the live map: the surface map's own width order of magnitude.
pub const REGIONS: usize = 1024;

/// The cells a burn-in paints, in the map's order of severity (index = code).
const CELLS: [Cell; 7] = [
    Cell::NotYet,
    Cell::Verify(VerifyState::Verified),
    Cell::Verify(VerifyState::Zeroes),
    Cell::Verify(VerifyState::Stale),
    Cell::Verify(VerifyState::Corrupt),
    Cell::Verify(VerifyState::Aliased),
    Cell::ReadError,
];

/// The code of the cell a block is painted with: verified, or its worst bad kind.
pub fn code(worst: Option<BadKind>) -> u8 {
    let cell = match worst {
        None => Cell::Verify(VerifyState::Verified),
        Some(k) => k.state().map_or(Cell::ReadError, Cell::Verify),
    };
    CELLS.iter().position(|&c| c == cell).unwrap_or(0) as u8
}

/// `p` on the burn-in's screen: whether it is held paused, and for how long it has been.
#[derive(Debug, Default)]
pub struct Pause {
    /// The pause under way, if any, and the time of those that ended.
    held: std::sync::Mutex<(Option<std::time::Instant>, std::time::Duration)>,
}

impl Pause {
    fn held(&self) -> std::sync::MutexGuard<'_, (Option<std::time::Instant>, std::time::Duration)> {
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Pauses, or resumes when paused; returns whether it is paused now.
    pub fn toggle(&self) -> bool {
        let mut h = self.held();
        match h.0.take() {
            Some(since) => {
                h.1 += since.elapsed();
                false
            }
            None => {
                h.0 = Some(std::time::Instant::now());
                true
            }
        }
    }

    pub fn is_on(&self) -> bool {
        self.held().0.is_some()
    }

    /// Nanoseconds paused, the pause under way included.
    pub fn total_ns(&self) -> u64 {
        let h = self.held();
        (h.1 + h.0.map(|s| s.elapsed()).unwrap_or_default()).as_nanos() as u64
    }
}

/// Progress and the live map of one burn-in.
pub struct Live {
    pub written: AtomicU64,
    pub verified: AtomicU64,
    pub bad_units: AtomicU64,
    /// Nanoseconds the burn-in was held paused (the TUI's `p`): not in its write or verify
    /// time.
    pub paused_ns: AtomicU64,
    template: RegionMap,
    cells: Vec<AtomicU8>,
}

impl Live {
    /// For a span of `span` bytes checked in blocks of `align` bytes.
    pub fn new(span: u64, align: u64) -> Live {
        let template = RegionMap::new(span, REGIONS, align);
        let cells = (0..template.len()).map(|_| AtomicU8::new(0)).collect();
        Live {
            written: AtomicU64::new(0),
            verified: AtomicU64::new(0),
            bad_units: AtomicU64::new(0),
            paused_ns: AtomicU64::new(0),
            template,
            cells,
        }
    }

    /// Seconds paused so far.
    pub fn paused_s(&self) -> f64 {
        self.paused_ns.load(Relaxed) as f64 / 1e9
    }

    /// Marks the region holding `offset` with `code` unless it holds worse.
    #[inline]
    pub fn mark(&self, offset: u64, code: u8) {
        if let Some(c) = self.cells.get(self.template.region_of(offset)) {
            c.fetch_max(code, Relaxed);
        }
    }

    /// Forgets what the map shows (a new pass's verify starts from not yet).
    pub fn clear_map(&self) {
        for c in &self.cells {
            c.store(0, Relaxed);
        }
    }

    /// The map as it is now.
    pub fn map(&self) -> RegionMap {
        let mut m = self.template.clone();
        for (i, c) in self.cells.iter().enumerate() {
            let cell = CELLS[usize::from(c.load(Relaxed)).min(CELLS.len() - 1)];
            m.set_region(i, cell);
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_keeps_the_worst_mark_and_the_map_shows_it() {
        let live = Live::new(1 << 30, 1 << 20);
        live.mark(0, code(None));
        live.mark(0, code(Some(BadKind::Corrupt)));
        live.mark(0, code(None));
        live.mark(1 << 29, code(Some(BadKind::ReadError)));
        let m = live.map();
        assert_eq!(m.cells[0], Cell::Verify(VerifyState::Corrupt));
        assert_eq!(m.cells[m.region_of(1 << 29)], Cell::ReadError);
        assert_eq!(m.cells[1], Cell::NotYet);
        live.clear_map();
        assert_eq!(live.map().cells[0], Cell::NotYet);
    }

    #[test]
    fn a_pause_counts_its_time_until_it_is_resumed() {
        let p = Pause::default();
        assert!(!p.is_on());
        assert!(p.toggle());
        std::thread::sleep(std::time::Duration::from_millis(30));
        assert!(p.total_ns() >= 30_000_000, "the pause under way counts");
        assert!(!p.toggle());
        let held = p.total_ns();
        assert!(held >= 30_000_000);
        std::thread::sleep(std::time::Duration::from_millis(10));
        assert_eq!(p.total_ns(), held, "nothing counts while it runs");
    }

    #[test]
    fn codes_follow_the_maps_severity() {
        for w in CELLS.windows(2) {
            assert!(w[0].severity() < w[1].severity(), "{w:?}");
        }
    }
}
