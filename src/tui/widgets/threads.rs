//! The per-thread table: ops/s and mean latency of each worker over the same one-second
//! window as "IOPS now" (so the rows add up to it), plus its total, starting at a scroll
//! offset so hundreds of workers stay readable.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::Theme;
use crate::stats::seconds::ThreadRow;
use crate::units::{format_count_rate, format_latency_ns};

/// The table's content.
pub struct ThreadTable<'a> {
    pub rows: Option<&'a [ThreadRow]>,
    pub scroll: usize,
    pub theme: Theme,
}

impl Widget for ThreadTable<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let w = area.width as usize;
        let header = format!(
            "{:>4} {:>7} {:>9} {:>10}",
            "#", "ops/s", "mean lat", "total ops"
        );
        buf.set_stringn(area.x, area.y, &header, w, self.theme.dim());
        let Some(threads) = self.rows else { return };
        let rows = area.height.saturating_sub(1) as usize;
        let start = self.scroll.min(threads.len().saturating_sub(1));
        for (row, t) in threads.iter().skip(start).take(rows).enumerate() {
            let line = format!(
                "{:>4} {:>7} {:>9} {:>10}",
                t.id,
                format_count_rate(t.ops_per_s),
                t.latency_mean_ns
                    .map_or_else(|| "-".into(), format_latency_ns),
                t.total_ops
            );
            let style = if t.active {
                ratatui::style::Style::new()
            } else {
                self.theme.dim()
            };
            buf.set_stringn(area.x, area.y + 1 + row as u16, &line, w, style);
        }
    }
}
