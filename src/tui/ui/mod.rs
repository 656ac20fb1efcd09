//! Layout and drawing: a pure function of `&App`. Nothing here reads a clock, touches the
//! engine or the target, or changes state — so the same `App` always draws the same screen,
//! which is what the snapshot tests rely on.
//!
//! Besides the cells, a draw notes where it put what the mouse can reach (a slider's bar, a
//! picker row, the thread table: `hits::record`); the loop keeps that map from the frame it
//! drew, so a click is tested against what is on the screen.
//!
//! The run screen at 80x24 and up: a status line; the sliders beside the kernel's view; the
//! IOPS, bandwidth and latency sparklines beside the latency histogram and the thread table;
//! a message line. Smaller terminals drop panes (first the side panes, then the graphs) and a
//! terminal of one cell still draws without panicking.
//!
//! The disks screen (several targets) draws a row per target under the aggregate, or the
//! opened target's run screen.
//!
//! The sweep view replaces the panes with the sweep's chart, the iops(1)-style table and the
//! saturation sentence; the suite view puts the card above the live graphs; the write
//! confirmation, the help and the fio job are drawn over whatever is underneath. Where the
//! locale is not UTF-8, the finished screen is turned into ASCII cell by cell.

mod disks;
mod disks_sliders;
mod fleet;
mod graphs;
pub(crate) mod hints;
mod overlays;
mod panes;
mod run;
mod setup;
mod suite;
mod surface;
mod sweep;
mod why;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::{Block, Widget};

use super::state::{App, Screen, View};
use super::widgets::Theme;

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = Theme { color: self.color };
        let full = area;
        if area.width < MIN_SIZE.0 || area.height < MIN_SIZE.1 {
            too_small(area, buf);
            return;
        }
        // The hint line: the last row, which no message takes.
        let area = if area.height >= 4 {
            let keys = super::keys::hints(self);
            hints::hint_line(&keys, area.width, theme).render(
                Rect {
                    y: area.bottom() - 1,
                    height: 1,
                    ..area
                },
                buf,
            );
            Rect {
                height: area.height - 1,
                ..area
            }
        } else {
            area
        };
        match &self.screen {
            Screen::Picker(p) => setup::draw_picker(p, theme, area, buf),
            Screen::Confirm(c) => setup::draw_confirm(c, theme, area, buf),
            Screen::Preparing(p) => setup::draw_preparing(p, theme, area, buf),
            Screen::Run(r) if r.view == View::Sweep => {
                sweep::draw_sweep(r, self.baseline.as_ref(), theme, area, buf)
            }
            Screen::Run(r) if r.view == View::Suite => {
                suite::draw_suite(r, self.baseline.as_ref(), theme, area, buf)
            }
            Screen::Run(r) => run::draw_run(r, self.baseline.as_ref(), theme, area, buf),
            Screen::Disks(d) => disks::draw_disks(d, theme, area, buf),
            Screen::Surface(v) => surface::draw_surface(v, theme, area, buf),
        }
        overlays::draw_overlay(self, theme, full, buf);
        controls_shown(full, buf);
        if self.ascii {
            to_ascii(full, buf);
        }
    }
}

/// Below this size (columns, rows) no screen is usable: it says how large it must be.
pub const MIN_SIZE: (u16, u16) = (40, 10);

/// The screen in a terminal smaller than `MIN_SIZE`: what it is, and what it must be.
fn too_small(area: Rect, buf: &mut Buffer) {
    let text = format!(
        "diskscope needs a terminal of at least {}x{} (80x24 shows everything); this one is {}x{}. Enlarge it, or q quits.",
        MIN_SIZE.0, MIN_SIZE.1, area.width, area.height
    );
    ratatui::widgets::Paragraph::new(text)
        .wrap(ratatui::widgets::Wrap { trim: true })
        .render(area, buf);
}

/// How far the help or the fio job can scroll in the terminal the last draw had, and the
/// lines of a page (for the keys that scroll it).
pub(crate) fn overlay_scroll_range(app: &App) -> (usize, usize) {
    overlays::scroll_range(app)
}

/// Every cell of `area` without a control character (`escape::cell`): the one boundary
/// between the drawn screen and the terminal, whatever text from a path, sysfs or a saved
/// file reached a cell.
fn controls_shown(area: Rect, buf: &mut Buffer) {
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let cell = &mut buf[(x, y)];
            if let Some(c) = crate::escape::cell(cell.symbol()) {
                cell.set_char(c);
            }
        }
    }
}

/// Every cell of `area` in ASCII, for a terminal whose locale is not UTF-8: borders,
/// shades, bars, arrows and signs become their one-character stand-ins (`locale::ascii`),
/// so the layout stays as drawn.
fn to_ascii(area: Rect, buf: &mut Buffer) {
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let cell = &mut buf[(x, y)];
            if !cell.symbol().is_ascii() {
                let c = cell
                    .symbol()
                    .chars()
                    .next()
                    .map_or(' ', crate::locale::ascii);
                cell.set_char(c);
            }
        }
    }
}

/// A box of at most `w` x `h` in the middle of `area`.
pub(super) fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let (w, h) = (area.width.min(w), area.height.min(h));
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// Draws `block` over `area` and returns the area inside it, for the pane's widget.
pub(super) fn framed(block: Block, area: Rect, buf: &mut Buffer) -> Rect {
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_cell_reaches_the_terminal_with_a_control_in_it() {
        // ratatui leaves out text with controls; a cell set directly is guarded here.
        let area = Rect::new(0, 0, 3, 1);
        let mut buf = Buffer::empty(area);
        buf[(0, 0)].set_symbol("\x1b");
        buf[(1, 0)].set_symbol("\u{9b}");
        buf[(2, 0)].set_symbol("a");
        controls_shown(area, &mut buf);
        let cells: Vec<&str> = (0..3).map(|x| buf[(x, 0)].symbol()).collect();
        assert_eq!(cells, ["␛", "\u{fffd}", "a"]);
    }
}
