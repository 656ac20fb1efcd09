//! The mouse, as one more way to give the commands the keys give: a press is looked up in
//! the regions the last frame drew (`hits`) and becomes the command, and the `Action`, a
//! key there gives — a picker row's press moves the selection as ↑/↓ do and a double press
//! is Enter; the wheel over the help is ↑/↓; a slider's press focuses it as Tab does and
//! on its bar (or dragging along it) sets the value at that point through the same path
//! as ←/→ (`keys::sliders::set_slider`: the sweep's lock, the psync and read-only refusals).
//! Nothing here reads a clock: the input thread stamps each event as it arrives.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{KeyCode, KeyEvent, MouseButton, MouseEvent, MouseEventKind};

use super::action::Action;
use super::hits::Hit;
use super::keys;
use super::state::{App, Screen, View};
use crate::settings::Knob;

/// Two presses on one row within this are a double click.
pub const DOUBLE_CLICK: Duration = Duration::from_millis(500);
/// Lines (or rows) one notch of the wheel scrolls.
const WHEEL_LINES: usize = 3;

/// The mouse's state between events: the last press (for a double click) and the slider
/// being dragged.
#[derive(Debug, Clone, Default)]
pub struct MouseState {
    /// Whether the TUI captures the mouse (`M`, `--no-mouse`).
    pub on: bool,
    last_press: Option<(Instant, Hit)>,
    dragging: Option<Knob>,
}

impl App {
    /// Handles a mouse event that came at `at`; the action is for the run loop, as a key's.
    pub fn on_mouse(&mut self, m: MouseEvent, at: Instant) -> Action {
        // Off (`M`, `--no-mouse`), the terminal sends none; any that come anyway are not
        // the user's clicks on this screen.
        if !self.mouse.on {
            return Action::None;
        }
        if self.help || self.fio.is_some() {
            return match m.kind {
                MouseEventKind::ScrollUp => self.keys(KeyCode::Up, WHEEL_LINES),
                MouseEventKind::ScrollDown => self.keys(KeyCode::Down, WHEEL_LINES),
                // A press closes it, as any key does.
                MouseEventKind::Down(_) => self.keys(KeyCode::Esc, 1),
                _ => Action::None,
            };
        }
        let hit = self.hits.at(m.column, m.row);
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                let double = self.mouse.last_press.is_some_and(|(t, h)| {
                    Some(h) == hit && at.saturating_duration_since(t) <= DOUBLE_CLICK
                });
                self.mouse.last_press = if double { None } else { hit.map(|h| (at, h)) };
                self.press(hit, m.column, double)
            }
            MouseEventKind::Drag(MouseButton::Left) => {
                match (self.mouse.dragging, &mut self.screen) {
                    (Some(knob), Screen::Run(run)) => {
                        let bar = self.hits.regions.iter().find_map(|(_, h)| match h {
                            Hit::Slider {
                                knob: k,
                                bar_x,
                                bar_width,
                            } if *k == knob => Some((*bar_x, *bar_width)),
                            _ => None,
                        });
                        match bar {
                            Some((x, w)) => {
                                keys::sliders::set_slider(run, knob, along(m.column, x, w))
                            }
                            None => Action::None,
                        }
                    }
                    _ => Action::None,
                }
            }
            MouseEventKind::Up(_) => {
                self.mouse.dragging = None;
                Action::None
            }
            MouseEventKind::ScrollUp => self.wheel(hit, -1),
            MouseEventKind::ScrollDown => self.wheel(hit, 1),
            _ => Action::None,
        }
    }

    /// `code` pressed `n` times; the last action that is not `None`.
    fn keys(&mut self, code: KeyCode, n: usize) -> Action {
        let mut last = Action::None;
        for _ in 0..n {
            match self.on_key(KeyEvent::from(code)) {
                Action::None => {}
                a => last = a,
            }
        }
        last
    }

    fn press(&mut self, hit: Option<Hit>, column: u16, double: bool) -> Action {
        match (hit, &mut self.screen) {
            (Some(Hit::PickerRow(i)), Screen::Picker(p)) if p.input.is_none() => {
                p.selected = i.min(p.rows.len().saturating_sub(1));
                if double {
                    return self.keys(KeyCode::Enter, 1);
                }
                Action::None
            }
            (
                Some(Hit::Slider {
                    knob,
                    bar_x,
                    bar_width,
                }),
                Screen::Run(run),
            ) if run.view == View::Live => {
                if bar_width > 0 && (bar_x..bar_x + bar_width).contains(&column) {
                    self.mouse.dragging = Some(knob);
                    keys::sliders::set_slider(run, knob, along(column, bar_x, bar_width))
                } else {
                    keys::sliders::focus(run, knob)
                }
            }
            _ => Action::None,
        }
    }

    /// One notch of the wheel over `hit`: the thread table scrolls, the picker's selection
    /// moves as ↑/↓ move it.
    fn wheel(&mut self, hit: Option<Hit>, by: isize) -> Action {
        match (&mut self.screen, hit) {
            (Screen::Picker(p), _) if p.input.is_none() => {
                self.keys(if by < 0 { KeyCode::Up } else { KeyCode::Down }, 1)
            }
            (Screen::Run(run), Some(Hit::Threads)) => {
                keys::sliders::scroll_threads(run, by * WHEEL_LINES as isize)
            }
            _ => Action::None,
        }
    }
}

/// Where `column` is along a bar of `width` from `x`: 0 at its first cell, 1 at its last.
fn along(column: u16, x: u16, width: u16) -> f64 {
    let last = width.saturating_sub(1).max(1);
    f64::from(column.saturating_sub(x).min(last)) / f64::from(last)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ends_of_a_bar_are_its_ends() {
        assert_eq!(along(10, 10, 17), 0.0);
        assert_eq!(along(26, 10, 17), 1.0);
        assert_eq!(along(40, 10, 17), 1.0);
        assert_eq!(along(3, 10, 17), 0.0);
        assert!((along(18, 10, 17) - 0.5).abs() < 1e-9);
    }
}
