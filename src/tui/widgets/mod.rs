//! The TUI's own widgets: a slider per knob, the log2 latency histogram, the per-thread table,
//! the target picker, the kernel-versus-app panel, reads and writes apart and the sweep's chart. Each draws plain data handed to it into
//! a `Buffer`; none reads a clock, the engine or a file, so each can be tested on its own.

pub mod curve;
pub mod heatmap;
pub mod histogram;
pub mod kernel;
pub mod marks;
pub mod members;
pub mod picker;
pub mod sides;
pub mod slider;
pub mod sweep;
pub mod threads;

use ratatui::style::{Color, Modifier, Style};

/// The few styles the screens use: 16-colour foregrounds, or under NO_COLOR only modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    fn fg(self, c: Color) -> Style {
        if self.color {
            Style::new().fg(c)
        } else {
            Style::new()
        }
    }
    /// Titles and the focused slider.
    pub fn accent(self) -> Style {
        self.fg(Color::Cyan).add_modifier(Modifier::BOLD)
    }
    /// Graphs of throughput.
    pub fn graph(self) -> Style {
        self.fg(Color::Green)
    }
    /// Graphs of latency's tail.
    pub fn tail(self) -> Style {
        self.fg(Color::Yellow)
    }
    /// Warnings.
    pub fn warn(self) -> Style {
        self.fg(Color::Yellow)
    }
    /// Errors.
    pub fn error(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }
    /// A mark over a graph's bars: the column stands out and its bar's height still shows.
    pub fn mark(self) -> Style {
        if self.color {
            Style::new().fg(Color::White)
        } else {
            Style::new().add_modifier(Modifier::DIM)
        }
    }
    /// Secondary text and unusable rows.
    pub fn dim(self) -> Style {
        Style::new().add_modifier(Modifier::DIM)
    }
    /// The selected row.
    pub fn selected(self) -> Style {
        Style::new().add_modifier(Modifier::REVERSED)
    }
}

/// `text` cut to `max` characters by replacing its middle with "…" (a path keeps its start
/// and its file name).
pub(crate) fn shorten_middle(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    if max < 2 {
        return "…".chars().take(max).collect();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}
