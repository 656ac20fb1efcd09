//! A one-line slider: label, a bar filled to the value's position on its scale, and the value
//! as text. The caller maps the value to a position (log scale for threads and block size).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::Theme;

/// One knob shown as a bar.
pub struct Slider<'a> {
    pub label: &'a str,
    pub value: String,
    /// Where the value sits on the slider, 0.0 to 1.0.
    pub position: f64,
    pub focused: bool,
    pub theme: Theme,
}

impl Slider<'_> {
    fn head(&self) -> String {
        let marker = if self.focused { "▶ " } else { "  " };
        format!("{marker}{:<11} ", self.label)
    }

    fn tail(&self) -> String {
        format!(" {:>6}", self.value)
    }

    /// Where the bar is drawn in `area`: its first column and width (`None`: too narrow for
    /// one). A click there sets the value at that point of the scale.
    pub fn bar(&self, area: Rect) -> Option<(u16, u16)> {
        let used = (self.head().chars().count() as u16).min(area.width);
        let width = area
            .width
            .saturating_sub(used + self.tail().chars().count() as u16);
        (width >= 3).then_some((area.x + used, width))
    }
}

impl Widget for Slider<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let style = if self.focused {
            self.theme.accent()
        } else {
            ratatui::style::Style::new()
        };
        let (x, _) = buf.set_stringn(area.x, area.y, self.head(), area.width as usize, style);
        if let Some((x, bar_width)) = self.bar(area) {
            let filled =
                ((self.position.clamp(0.0, 1.0) * f64::from(bar_width)).round() as u16).max(1);
            let bar: String = (0..bar_width)
                .map(|i| if i < filled { '█' } else { '░' })
                .collect();
            let bar_style = if self.focused {
                self.theme.accent()
            } else {
                self.theme.dim()
            };
            buf.set_string(x, area.y, bar, bar_style);
            let tail = self.tail();
            buf.set_stringn(x + bar_width, area.y, &tail, tail.len(), style);
        } else {
            let left = area.width.saturating_sub(x - area.x) as usize;
            buf.set_stringn(x, area.y, self.value.trim(), left, style);
        }
    }
}
