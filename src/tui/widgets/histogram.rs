//! The latency distribution: one row per log2 bucket of the recent window, a bar sized by the
//! bucket's share and the share in percent. A bimodal disk (cache hits and misses, RAID
//! members of different speeds) shows two humps that a mean or a p99 hides.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::Theme;
use crate::stats::Log2Histogram;
use crate::units::format_latency_ns;

/// The histogram pane's content.
pub struct LatencyHistogramView<'a> {
    pub histogram: &'a Log2Histogram,
    pub theme: Theme,
}

/// The buckets to show in `rows` rows, in order: the whole non-empty range when it fits (gaps
/// included, so the distance between humps shows), else the `rows` fullest buckets.
pub fn visible_buckets(h: &Log2Histogram, rows: usize) -> Vec<usize> {
    let first = h.counts.iter().position(|&c| c > 0);
    let last = h.counts.iter().rposition(|&c| c > 0);
    let (Some(first), Some(last)) = (first, last) else {
        return Vec::new();
    };
    if last - first < rows {
        return (first..=last).collect();
    }
    let mut fullest: Vec<usize> = (first..=last).filter(|&i| h.counts[i] > 0).collect();
    fullest.sort_by_key(|&i| std::cmp::Reverse(h.counts[i]));
    fullest.truncate(rows);
    fullest.sort_unstable();
    fullest
}

impl Widget for LatencyHistogramView<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let total = self.histogram.total();
        if total == 0 {
            buf.set_stringn(
                area.x,
                area.y,
                "no I/O in the window",
                area.width as usize,
                self.theme.dim(),
            );
            return;
        }
        let range = visible_buckets(self.histogram, area.height as usize);
        let max = range
            .iter()
            .map(|&i| self.histogram.counts[i])
            .max()
            .unwrap_or(1)
            .max(1);
        for (row, i) in range.into_iter().enumerate() {
            let y = area.y + row as u16;
            let count = self.histogram.counts[i];
            let label = format!("≥{:>8} ", format_latency_ns((1u64 << i) as f64));
            let pct = format!(" {:>5.1}%", count as f64 * 100.0 / total as f64);
            let (x, _) = buf.set_stringn(area.x, y, &label, area.width as usize, self.theme.dim());
            let room = area.width.saturating_sub(x - area.x + pct.len() as u16);
            let len = (count as f64 / max as f64 * f64::from(room)).round() as u16;
            let len = if count > 0 { len.max(1) } else { 0 };
            buf.set_string(x, y, "█".repeat(len as usize), self.theme.tail());
            if room > 0 {
                buf.set_stringn(x + room, y, &pct, pct.len(), ratatui::style::Style::new());
            }
        }
    }
}
