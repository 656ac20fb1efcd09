//! The target picker: the scratch file first, then every block device with its size, block
//! sizes, link (bus, trained speed and the most it could do), its health (ok / worn / failing
//! / unknown and the hours, where read), whether it is mounted and its model, then a row to type a path. Devices the user cannot open are dimmed with the reason,
//! so the choice is made before anything fails. A row marked to run with others has a ✓. Columns are as wide as their widest cell.

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

/// The cells of one device row: target, size, lbs/pbs, link, health, state, model.
fn cells(d: &DeviceInfo, backing: Option<&String>) -> [String; 7] {
    let loop_device = d.link.kind == crate::model::disk::LinkKind::Loop;
    let state = match &d.access {
        Access::Denied(why) => format!("cannot open: {why}"),
        Access::Ok if !d.holders.is_empty() => format!("in use by {}", d.holders.join(",")),
        Access::Ok if !d.mountpoints.is_empty() => format!("mounted {}", d.mountpoints.join(",")),
        // A loop device is what backs it (its file keeps its name when cut).
        Access::Ok => backing.map_or_else(String::new, |file| {
            let room = MAX_CELL - "loop → ".chars().count();
            format!(
                "loop → {}",
                super::shorten_middle(&crate::units::visible(file), room)
            )
        }),
    };
    // A loop device's rotational flag is the kernel's default, not a spinning disk.
    let model = match &d.model {
        Some(m) => m.clone(),
        None if d.rotational && !loop_device => "(rotational)".into(),
        None => String::new(),
    };
    [
        d.path.clone(),
        format_bytes(d.size_bytes),
        format!("{}/{}", d.logical_block_size, d.physical_block_size),
        d.link.label.clone(),
        d.health.as_ref().map(|h| h.cell()).unwrap_or_default(),
        state,
        model,
    ]
}

const HEADER: [&str; 7] = [
    "target", "size", "lbs/pbs", "link", "health", "state", "model",
];
/// Size and block sizes are right-aligned.
const RIGHT: [bool; 7] = [false, true, true, false, false, false, false];
/// The health column, shown only where the drives' health was read.
const HEALTH: usize = 4;
/// The last column, never cut.
const LAST: usize = 6;
/// No column but the last is wider than this.
const MAX_CELL: usize = 32;

/// Column widths: the widest cell of each column (header included), capped at [`MAX_CELL`];
/// 0 for the health column when no row has health.
fn widths(rows: &[[String; 7]]) -> [usize; 7] {
    let mut w = HEADER.map(|h| h.chars().count());
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            w[i] = w[i].max(cell.chars().count().min(MAX_CELL));
        }
    }
    if rows.iter().all(|r| r[HEALTH].is_empty()) {
        w[HEALTH] = 0;
    }
    w
}

/// One line of the table: cells padded to their widths (cut with `…` when longer); the last
/// loses its middle to fit `room` columns (a long model keeps its end).
fn line(cells: &[String; 7], w: &[usize; 7], room: usize) -> String {
    let mut out = Vec::with_capacity(7);
    let shown = w[..LAST].iter().filter(|x| **x > 0).count();
    let last_room = room.saturating_sub(w[..LAST].iter().sum::<usize>() + shown);
    for (i, cell) in cells.iter().enumerate() {
        if i == HEALTH && w[i] == 0 {
            continue;
        }
        let n = cell.chars().count();
        let text = if n > w[i] && i < LAST {
            let cut: String = cell.chars().take(w[i].saturating_sub(1)).collect();
            format!("{cut}…")
        } else if i == LAST && n > last_room && last_room >= 12 {
            super::shorten_middle(cell, last_room)
        } else {
            cell.clone()
        };
        out.push(match (i, RIGHT[i]) {
            (LAST, _) => text,
            (_, true) => format!("{text:>width$}", width = w[i]),
            (_, false) => format!("{text:<width$}", width = w[i]),
        });
    }
    out.join(" ").trim_end().to_string()
}

impl Widget for PickerTable<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let p = self.picker;
        let w = area.width as usize;
        let device_cells: Vec<[String; 7]> = p
            .rows
            .iter()
            .filter_map(|r| match r {
                PickerRow::Device(d) => Some(cells(d, p.loops.get(&d.name))),
                _ => None,
            })
            .collect();
        let widths = widths(&device_cells);
        let header = format!("  {}", line(&HEADER.map(String::from), &widths, usize::MAX));
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
                    let cells = cells(d, p.loops.get(&d.name));
                    (line(&cells, &widths, w.saturating_sub(2)), style)
                }
                PickerRow::EnterPath => match &p.input {
                    Some(text) => (format!("path: {text}█"), self.theme.accent()),
                    None => ("enter a path…".to_string(), ratatui::style::Style::new()),
                },
            };
            if selected {
                style = style.patch(self.theme.selected());
            }
            let mark = if p.marked.contains(&i) { "✓" } else { " " };
            let line = format!("{}{mark}{text}", if selected { "▶" } else { " " });
            let padded = format!("{line:<w$}");
            buf.set_stringn(area.x, y, &padded, w, style);
        }
    }
}
