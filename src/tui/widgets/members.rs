//! The disks under an array, row by row: the array itself first, then each member (indented
//! by how deep it sits in the stack) with the kernel's r/s, MB/s (reads and writes together),
//! average queue size, await and %util over the same second. A RAID1 mirror that takes all the
//! reads while its twin idles shows as one busy row and one quiet one.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::widgets::Widget;

use super::Theme;
use crate::diskstats::KernelRates;
use crate::diskstats::members::Member;
use crate::units::{format_count_rate, format_latency_ns};

/// The table's content.
pub struct MembersPanel<'a> {
    /// The array's diskstats name and its rates.
    pub device: &'a str,
    pub kernel: Option<KernelRates>,
    pub members: &'a [(Member, Option<KernelRates>)],
    pub theme: Theme,
}

/// Width of the figures after the name; `w/s` is shown only where this leaves room.
const FIGURES: usize = 6 + 6 + 6 + 8 + 6;
const WRITES: usize = 6;

impl Widget for MembersPanel<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let w = area.width as usize;
        let writes = w >= FIGURES + WRITES + 10;
        let name_w = w
            .saturating_sub(FIGURES + if writes { WRITES } else { 0 })
            .max(6);
        let line = |name: &str, cells: [String; 6]| {
            let [r, wr, mb, q, aw, util] = cells;
            let mut s = format!("{:<name_w$.name_w$}{r:>6}", fit(name, name_w));
            if writes {
                s += &format!("{wr:>6}");
            }
            s + &format!("{mb:>6}{q:>6}{aw:>8}{util:>6}")
        };
        let figures = |k: Option<KernelRates>| -> [String; 6] {
            let dash = || "-".to_string();
            match k {
                None => [dash(), dash(), dash(), dash(), dash(), dash()],
                Some(k) => [
                    format_count_rate(k.r_per_s),
                    format_count_rate(k.w_per_s),
                    format!("{:.1}", (k.r_bytes_per_s + k.w_bytes_per_s) / 1e6),
                    format!("{:.1}", k.avg_queue_depth),
                    k.await_ms
                        .map_or_else(dash, |ms| format_latency_ns(ms * 1e6)),
                    format!("{:.0}", k.util_pct),
                ],
            }
        };
        let header = [
            "r/s".to_string(),
            "w/s".into(),
            "MB/s".into(),
            "queue".into(),
            "await".into(),
            "%util".into(),
        ];
        let mut rows = vec![(line("device", header), self.theme.dim())];
        rows.push((line(self.device, figures(self.kernel)), Style::new()));
        for (m, k) in self.members {
            let name = format!("{}{}", "  ".repeat(m.depth), m.name);
            rows.push((line(&name, figures(*k)), Style::new()));
        }
        let shown = area.height as usize;
        let hidden = rows.len().saturating_sub(shown);
        for (i, (text, style)) in rows.iter().take(shown).enumerate() {
            let text = if hidden > 0 && i + 1 == shown {
                format!("… {} more (a taller terminal shows them)", hidden + 1)
            } else {
                text.clone()
            };
            buf.set_stringn(area.x, area.y + i as u16, &text, w, *style);
        }
    }
}

/// `name` cut to `width` characters with an ellipsis when longer.
fn fit(name: &str, width: usize) -> String {
    if name.chars().count() <= width {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(width.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}
