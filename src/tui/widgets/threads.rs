//! The per-thread table: ops/s, mean latency and average I/Os in flight of each worker over
//! the same one-second window as "IOPS now" (so the rows add up to it), plus its total when
//! the pane is wide enough (under a rate that is behind, the I/Os due and not yet issued
//! instead), starting at a scroll offset so hundreds of workers stay readable.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::Theme;
use super::kernel::format_in_flight;
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
        // The total is the one column that goes when the pane is narrow (80 columns); with a
        // rate, I/Os behind schedule (due, not issued: not in flight) take its place.
        let wide = w >= 40;
        let late = self.rows.is_some_and(|r| r.iter().any(|t| t.behind > 0));
        let row = |id: &str, ops: &str, lat: &str, fl: &str, last: &str| {
            let mut line = format!("{id:>4} {ops:>7} {lat:>9} {fl:>6}");
            if wide {
                line += &format!(" {last:>10}");
            }
            line
        };
        let last = if late { "late" } else { "total ops" };
        let header = row("#", "ops/s", "mean lat", "in fl", last);
        buf.set_stringn(area.x, area.y, &header, w, self.theme.dim());
        let Some(threads) = self.rows else { return };
        let rows = area.height.saturating_sub(1) as usize;
        let start = self.scroll.min(threads.len().saturating_sub(1));
        for (i, t) in threads.iter().skip(start).take(rows).enumerate() {
            let last = if late {
                format_count_rate(t.behind as f64)
            } else {
                t.total_ops.to_string()
            };
            let line = row(
                &t.id.to_string(),
                &format_count_rate(t.ops_per_s),
                &t.latency_mean_ns
                    .map_or_else(|| "-".into(), format_latency_ns),
                &format_in_flight(t.in_flight),
                &last,
            );
            let style = if t.active {
                ratatui::style::Style::new()
            } else {
                self.theme.dim()
            };
            buf.set_stringn(area.x, area.y + 1 + i as u16, &line, w, style);
        }
    }
}
