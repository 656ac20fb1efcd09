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

/// Progress and the live map of one burn-in.
pub struct Live {
    pub written: AtomicU64,
    pub verified: AtomicU64,
    pub bad_units: AtomicU64,
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
            template,
            cells,
        }
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
    fn codes_follow_the_maps_severity() {
        for w in CELLS.windows(2) {
            assert!(w[0].severity() < w[1].severity(), "{w:?}");
        }
    }
}
