//! The latency heatmap: time on x (a column per stretch of the graphs' time scale, newest on
//! the right), log2 latency on
//! y (slowest at the top), and each cell shaded by the share of that second's I/Os in that
//! latency band. Periodic stalls, garbage-collection pauses and bimodal disks show as
//! patterns a mean or a p99 line hides. The shading is in the characters themselves
//! (`░ ▒ ▓ █`), so it reads without colour (`NO_COLOR`, 16-colour terminals); any I/O at all
//! in a band marks it, so one stalled request in a second stays visible.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::widgets::Widget;

use super::Theme;
use crate::stats::log2::{BUCKETS, Log2Histogram};
use crate::stats::timeline::Bucket;
use crate::units::format_latency_ns;

/// The shade of a cell holding `share` (0..=1) of its column's I/Os: blank for none, `░` for
/// any up to 5 %, `▒` to 25 %, `▓` to 60 %, `█` above.
pub fn shade(count: u64, total: u64) -> char {
    if count == 0 || total == 0 {
        return ' ';
    }
    let share = count as f64 / total as f64;
    match share {
        s if s <= 0.05 => '░',
        s if s <= 0.25 => '▒',
        s if s <= 0.60 => '▓',
        _ => '█',
    }
}

/// The heatmap's content: the graphs' columns, oldest first.
pub struct Heatmap<'a> {
    pub columns: &'a [Bucket],
    pub theme: Theme,
}

/// Width of the latency labels on the left: a band's lower bound ("≥1.05 ms" and a space).
pub const LABEL: u16 = 9;

/// Which log2 buckets each of `rows` rows covers, bottom row first: the non-empty range of
/// `columns`, cut into equal runs of whole buckets (so a row is a fixed factor of latency).
pub fn bands(columns: &[&Log2Histogram], rows: usize) -> Vec<std::ops::Range<usize>> {
    let used = |i: usize| columns.iter().any(|c| c.counts[i] > 0);
    let (Some(first), Some(last)) = (
        (0..BUCKETS).find(|&i| used(i)),
        (0..BUCKETS).rfind(|&i| used(i)),
    ) else {
        return Vec::new();
    };
    let rows = rows.max(1);
    let per_row = (last - first + 1).div_ceil(rows);
    (0..rows)
        .map(|r| first + r * per_row..(first + (r + 1) * per_row).min(BUCKETS))
        .take_while(|b| b.start <= last)
        .collect()
}

impl Widget for Heatmap<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width <= LABEL || area.height == 0 {
            return;
        }
        let width = (area.width - LABEL) as usize;
        let skip = self.columns.len().saturating_sub(width);
        let shown: Vec<&Log2Histogram> = self.columns[skip..].iter().map(|b| &b.latency).collect();
        let bands = bands(&shown, area.height as usize);
        if bands.is_empty() {
            let text = "no I/O yet";
            buf.set_stringn(area.x, area.y, text, area.width as usize, self.theme.dim());
            return;
        }
        let x0 = area.x + LABEL + (width - shown.len()) as u16;
        for (r, band) in bands.iter().enumerate() {
            // The slowest band on the top row.
            let y = area.y + (bands.len() - 1 - r) as u16;
            let label = format!("≥{:>7} ", format_latency_ns((1u64 << band.start) as f64));
            buf.set_stringn(area.x, y, &label, LABEL as usize, self.theme.dim());
            for (c, column) in shown.iter().enumerate() {
                let count: u64 = band.clone().map(|i| column.counts[i]).sum();
                let cell = shade(count, column.total());
                buf.set_stringn(x0 + c as u16, y, cell.to_string(), 1, self.theme.tail());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(buckets: &[(usize, u64)]) -> Log2Histogram {
        let mut h = Log2Histogram::default();
        for &(i, n) in buckets {
            h.counts[i] = n;
        }
        h
    }

    #[test]
    fn one_stalled_request_in_a_second_still_shows() {
        assert_eq!(shade(1, 100_000), '░');
        assert_eq!(shade(0, 100_000), ' ');
        assert_eq!(shade(20, 100), '▒');
        assert_eq!(shade(50, 100), '▓');
        assert_eq!(shade(90, 100), '█');
    }

    #[test]
    fn bands_cover_the_used_range_in_equal_runs() {
        let (a, z) = (column(&[(16, 10)]), column(&[(25, 1)]));
        let b = bands(&[&a, &z], 5);
        assert_eq!(b.first().unwrap().start, 16);
        assert!(b.last().unwrap().contains(&25), "{b:?}");
        assert!(b.iter().all(|r| r.len() == 2), "{b:?}");
        // Fewer buckets than rows: one bucket a row, no empty rows above the slowest.
        let b = bands(&[&column(&[(10, 1), (11, 1)])], 5);
        assert_eq!(b, vec![10..11, 11..12]);
    }
}
