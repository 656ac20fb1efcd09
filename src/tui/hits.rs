//! Where the last frame put what a click can reach: each slider's row and bar, each picker
//! row, the thread table, an overlay. The drawing code records a region as it draws it
//! (`record`), so a click is tested against the very rectangles on screen, never against a
//! layout worked out a second time, which could drift from the drawing when a pane moves.
//!
//! Recording goes to a collector that exists only while `collect` runs a draw: drawing
//! stays a function of the state (it changes nothing in `App`), and a draw outside
//! `collect` (a snapshot test) records nothing. The loop keeps what the frame recorded in
//! `App::hits` for the mouse events that follow.

use std::cell::RefCell;

use ratatui::layout::{Position, Rect};

use crate::settings::Knob;

/// What a region of the screen is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// A slider's row; its bar spans `bar_x .. bar_x + bar_width` (width 0: no bar drawn).
    Slider {
        knob: Knob,
        bar_x: u16,
        bar_width: u16,
    },
    /// The picker's row `n`.
    PickerRow(usize),
    /// The run screen's thread table.
    Threads,
}

/// The regions of the last frame, in the order drawn.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HitMap {
    pub regions: Vec<(Rect, Hit)>,
}

impl HitMap {
    /// What is at column `x`, row `y`: the region drawn last there (drawn over the others).
    pub fn at(&self, x: u16, y: u16) -> Option<Hit> {
        self.regions
            .iter()
            .rev()
            .find(|(r, _)| r.contains(Position { x, y }))
            .map(|(_, h)| *h)
    }
}

thread_local! {
    static COLLECTING: RefCell<Option<HitMap>> = const { RefCell::new(None) };
}

/// Notes that `area` of the frame being drawn is `hit` (nothing when no `collect` runs).
pub fn record(area: Rect, hit: Hit) {
    if area.is_empty() {
        return;
    }
    COLLECTING.with(|c| {
        if let Some(map) = c.borrow_mut().as_mut() {
            map.regions.push((area, hit));
        }
    });
}

/// Runs `draw`, returning what it gave and the regions it recorded.
pub fn collect<T>(draw: impl FnOnce() -> T) -> (T, HitMap) {
    COLLECTING.with(|c| *c.borrow_mut() = Some(HitMap::default()));
    let out = draw();
    let map = COLLECTING
        .with(|c| c.borrow_mut().take())
        .unwrap_or_default();
    (out, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_finds_the_region_drawn_last_and_nothing_outside_a_draw() {
        record(Rect::new(0, 0, 10, 1), Hit::Threads);
        let ((), map) = collect(|| {
            record(Rect::new(0, 0, 10, 5), Hit::Threads);
            record(Rect::new(2, 1, 3, 1), Hit::PickerRow(4));
        });
        assert_eq!(map.regions.len(), 2);
        assert_eq!(map.at(3, 1), Some(Hit::PickerRow(4)));
        assert_eq!(map.at(0, 1), Some(Hit::Threads));
        assert_eq!(map.at(10, 1), None);
        // Collected once: the next draw starts empty.
        let ((), again) = collect(|| {});
        assert!(again.regions.is_empty());
    }
}
