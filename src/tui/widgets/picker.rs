//! The target picker: the scratch file first, then every block device with its size, block
//! sizes, model and whether it is mounted, then a row to type a path. Devices the user cannot
//! open are dimmed with the reason, so the choice is made before anything fails.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::Theme;
use crate::target::discover::{Access, DeviceInfo};
use crate::tui::state::{Picker, PickerRow};
use crate::units::format_bytes;

/// The picker's table.
pub struct PickerTable<'a> {
    pub picker: &'a Picker,
    pub theme: Theme,
}

fn device_cells(d: &DeviceInfo) -> String {
    let state = match &d.access {
        Access::Denied(why) => format!("cannot open: {why}"),
        Access::Ok if !d.holders.is_empty() => format!("in use by {}", d.holders.join(",")),
        Access::Ok if !d.mountpoints.is_empty() => format!("mounted {}", d.mountpoints.join(",")),
        Access::Ok => String::new(),
    };
    let model = d
        .model
        .as_deref()
        .unwrap_or(if d.rotational { "(rotational)" } else { "" });
    format!(
        "{:<14} {:>10} {:>9} {:<30} {}",
        d.path,
        format_bytes(d.size_bytes),
        format!("{}/{}", d.logical_block_size, d.physical_block_size),
        state,
        model
    )
}

impl Widget for PickerTable<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let p = self.picker;
        let w = area.width as usize;
        let header = format!(
            "  {:<14} {:>10} {:>9} {:<30} {}",
            "target", "size", "lbs/pbs", "state", "model"
        );
        buf.set_stringn(area.x, area.y, &header, w, self.theme.dim());
        let rows = area.height.saturating_sub(1) as usize;
        // Keep the selected row on screen.
        let start = p.selected.saturating_sub(rows.saturating_sub(1));
        for (i, row) in p.rows.iter().enumerate().skip(start).take(rows) {
            let y = area.y + 1 + (i - start) as u16;
            let selected = i == p.selected;
            let (text, mut style) = match row {
                PickerRow::Scratch { label } => (label.clone(), ratatui::style::Style::new()),
                PickerRow::Device(d) => {
                    let style = if d.access.is_ok() {
                        ratatui::style::Style::new()
                    } else {
                        self.theme.dim()
                    };
                    (device_cells(d), style)
                }
                PickerRow::EnterPath => match &p.input {
                    Some(text) => (format!("path: {text}█"), self.theme.accent()),
                    None => ("enter a path…".to_string(), ratatui::style::Style::new()),
                },
            };
            if selected {
                style = style.patch(self.theme.selected());
            }
            let line = format!("{}{text}", if selected { "▶ " } else { "  " });
            let padded = format!("{line:<w$}");
            buf.set_stringn(area.x, y, &padded, w, style);
        }
    }
}
