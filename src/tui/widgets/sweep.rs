//! The sweep's chart: the primary metric against the swept value on a log2 axis — IOPS for a
//! thread sweep, MiB/s for a block-size sweep — with the secondary metric (p99 latency, or
//! IOPS) scaled onto the same axis and named with the value its top stands for, since ratatui
//! has no second y axis. A baseline sweep of the same dimension is drawn dimmed behind. It
//! draws plain figures; it does not know where they came from.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Widget};

use super::Theme;
use crate::render::baseline::Figures;
use crate::stats::IntervalFigures;
use crate::sweep::Dimension;
use crate::units::{format_block_size, format_count_rate, format_latency_ns};

/// A line through `data` drawn with `marker` in `style`.
fn line(marker: Marker, style: Style, data: &[(f64, f64)]) -> Dataset<'_> {
    Dataset::default()
        .marker(marker)
        .graph_type(GraphType::Line)
        .style(style)
        .data(data)
}

/// One step's figures as the chart uses them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    /// The swept value (threads or bytes).
    pub x: u64,
    pub iops: f64,
    pub bw_bytes_per_s: f64,
    pub p99_ns: f64,
}

impl Point {
    pub fn of_step(d: Dimension, f: &IntervalFigures) -> Point {
        Point {
            x: d.value(&f.settings),
            iops: f.iops,
            bw_bytes_per_s: f.bw_bytes_per_s,
            p99_ns: f.latency_ns.p99 as f64,
        }
    }

    pub fn of_baseline(x: u64, f: &Figures) -> Point {
        Point {
            x,
            iops: f.iops,
            bw_bytes_per_s: f.bw_bytes_per_s,
            p99_ns: f.p99_ns,
        }
    }
}

/// A metric: its name, its value at a point, and how a value reads.
type Metric = (&'static str, fn(&Point) -> f64, fn(f64) -> String);

/// The primary metric of a sweep of `d`.
fn primary(d: Dimension) -> Metric {
    match d {
        Dimension::Threads | Dimension::Iodepth | Dimension::Rate => {
            ("IOPS", |p| p.iops, format_count_rate)
        }
        Dimension::Bs => (
            "MiB/s",
            |p| p.bw_bytes_per_s / (1 << 20) as f64,
            |v| format!("{v:.0}"),
        ),
    }
}

/// The secondary metric, scaled onto the primary axis.
fn secondary(d: Dimension) -> Metric {
    match d {
        Dimension::Threads | Dimension::Iodepth | Dimension::Rate => {
            ("p99", |p| p.p99_ns, format_latency_ns)
        }
        Dimension::Bs => ("IOPS", |p| p.iops, format_count_rate),
    }
}

/// The label of a swept value: "16", "4k".
pub fn value_label(d: Dimension, v: u64) -> String {
    match d {
        Dimension::Threads | Dimension::Iodepth | Dimension::Rate => v.to_string(),
        Dimension::Bs => format_block_size(v),
    }
}

/// Where each swept value's label goes on a log2 axis from `lo` to `hi` drawn over `width`
/// columns from `left`: `(column of its first character, label)`, centred on the value's
/// column. Labels that would touch the one before are left out; the last value is always
/// labelled. (ratatui spreads axis labels evenly, which does not match a log scale with
/// uneven steps, so the chart draws these itself.)
pub fn x_labels(
    d: Dimension,
    values: &[u64],
    lo: u64,
    hi: u64,
    left: u16,
    width: u16,
) -> Vec<(u16, String)> {
    if width == 0 {
        return Vec::new();
    }
    let (l0, l1) = ((lo.max(1) as f64).log2(), (hi.max(1) as f64).log2());
    let span = (l1 - l0).max(f64::EPSILON);
    let right = left + width; // one past the last column
    let place = |v: u64| -> (u16, String) {
        let label = value_label(d, v);
        let len = label.chars().count() as u16;
        let frac = (((v.max(1) as f64).log2() - l0) / span).clamp(0.0, 1.0);
        let col = left + (frac * f64::from(width - 1)).round() as u16;
        let start = col
            .saturating_sub(len / 2)
            .clamp(left, right.saturating_sub(len).max(left));
        (start, label)
    };
    let end = |(start, label): &(u16, String)| start + label.chars().count() as u16;
    let mut out: Vec<(u16, String)> = Vec::new();
    for &v in values {
        let p = place(v);
        if out.last().is_none_or(|q| end(q) < p.0) {
            out.push(p);
        }
    }
    if let Some(&last) = values.last() {
        let p = place(last);
        if out.last().is_none_or(|q| q.1 != p.1) {
            while out.last().is_some_and(|q| end(q) >= p.0) {
                out.pop();
            }
            out.push(p);
        }
    }
    out
}

/// The chart of one sweep, with an optional dimmed baseline.
pub struct SweepChart<'a> {
    pub dimension: Dimension,
    pub steps: &'a [Point],
    /// The baseline's steps of the same dimension (empty for none).
    pub baseline: &'a [Point],
    pub theme: Theme,
}

impl SweepChart<'_> {
    /// The legend: which glyph is which series, and what the secondary's top stands for.
    pub fn legend(&self) -> Line<'static> {
        let (pname, _, _) = primary(self.dimension);
        let (sname, sval, sfmt) = secondary(self.dimension);
        let smax = axis_top(self.steps, self.baseline, sval);
        let mut spans = vec![
            Span::styled("⣿ ", self.theme.graph()),
            Span::raw(format!("{pname}  ")),
            Span::styled("• ", self.theme.tail()),
            Span::raw(format!("{sname} (scaled: top = {})", sfmt(smax))),
        ];
        if !self.baseline.is_empty() {
            spans.push(Span::styled("  ⣿• baseline", self.theme.dim()));
        }
        Line::from(spans)
    }
}

impl SweepChart<'_> {
    /// Every swept value of the steps and the baseline, once each, rising.
    fn values(&self) -> Vec<u64> {
        let mut values: Vec<u64> = self
            .steps
            .iter()
            .chain(self.baseline)
            .map(|p| p.x)
            .collect();
        values.sort_unstable();
        values.dedup();
        values
    }
}

/// The value the top of the axis stands for, for the metric `f`: a tenth above its highest.
fn axis_top(steps: &[Point], baseline: &[Point], f: fn(&Point) -> f64) -> f64 {
    let max = steps.iter().chain(baseline).map(f).fold(0.0, f64::max);
    if max > 0.0 { max * 1.1 } else { 1.0 }
}

impl Widget for SweepChart<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < 16 || area.height < 5 || self.steps.is_empty() {
            return;
        }
        let d = self.dimension;
        let (pname, pval, pfmt) = primary(d);
        let (_, sval, _) = secondary(d);
        let ptop = axis_top(self.steps, self.baseline, pval);
        let stop = axis_top(self.steps, self.baseline, sval);
        let scale = ptop / stop;
        let y_labels = ["0".to_string(), pfmt(ptop / 2.0), pfmt(ptop)];
        let values = self.values();
        let lo = values.first().copied().unwrap_or(1);
        let hi = values.last().copied().unwrap_or(2).max(lo + 1);
        let x = |v: u64| (v.max(1) as f64).log2();
        let series = |points: &[Point], f: &dyn Fn(&Point) -> f64| -> Vec<(f64, f64)> {
            points.iter().map(|p| (x(p.x), f(p))).collect()
        };
        let cur_p = series(self.steps, &|p| pval(p));
        let cur_s = series(self.steps, &|p| sval(p) * scale);
        let base_p = series(self.baseline, &|p| pval(p));
        let base_s = series(self.baseline, &|p| sval(p) * scale);
        let mut datasets = Vec::new();
        if !self.baseline.is_empty() {
            datasets.push(line(Marker::Braille, self.theme.dim(), &base_p));
            datasets.push(line(Marker::Dot, self.theme.dim(), &base_s));
        }
        datasets.push(line(Marker::Dot, self.theme.tail(), &cur_s));
        datasets.push(line(Marker::Braille, self.theme.graph(), &cur_p));
        let title = format!(" {pname} vs {} (log2 axis) ", d.name());
        let block = Block::bordered().title(Span::styled(title, self.theme.accent()));
        let inner = block.inner(area);
        // One empty x label: ratatui then draws the x axis and keeps the row under it, where
        // the labels go at their true positions. The graph starts right of the y labels and
        // the y axis, as ratatui lays it out.
        let y_label_width = y_labels.iter().map(String::len).max().unwrap_or(0) as u16;
        let graph_left = inner.left() + y_label_width.min(inner.width / 3) + 1;
        let graph_width = inner.right().saturating_sub(graph_left);
        let label_row = inner.bottom().saturating_sub(1);
        Chart::new(datasets)
            .block(block)
            .legend_position(None)
            .x_axis(
                Axis::default()
                    .bounds([x(lo), x(hi)])
                    .labels([""])
                    .style(self.theme.dim()),
            )
            .y_axis(
                Axis::default()
                    .bounds([0.0, ptop])
                    .labels(y_labels)
                    .style(self.theme.dim()),
            )
            .render(area, buf);
        if inner.height < 3 {
            return;
        }
        for (col, label) in x_labels(d, &values, lo, hi, graph_left, graph_width) {
            buf.set_stringn(
                col,
                label_row,
                &label,
                inner.right().saturating_sub(col) as usize,
                self.theme.dim(),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn x_labels_sit_on_their_values_log2_positions() {
        let threads = [1, 2, 4, 8, 16, 32, 64];
        // 61 columns from 10: each doubling is 10 columns.
        let got = x_labels(Dimension::Threads, &threads, 1, 64, 10, 61);
        let cols: Vec<(u16, &str)> = got.iter().map(|(c, l)| (*c, l.as_str())).collect();
        assert_eq!(
            cols,
            vec![
                (10, "1"),
                (20, "2"),
                (30, "4"),
                (40, "8"),
                (49, "16"),
                (59, "32"),
                (69, "64")
            ]
        );
        // 48 is not a power of two: it sits between 32 and 64, and crowded labels give way
        // to the last one.
        let got = x_labels(Dimension::Threads, &[1, 2, 4, 8, 16, 32, 48], 1, 48, 0, 12);
        let labels: Vec<&str> = got.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(labels.first(), Some(&"1"));
        assert_eq!(labels.last(), Some(&"48"));
        for w in got.windows(2) {
            assert!(w[0].0 + (w[0].1.len() as u16) < w[1].0, "{got:?}");
        }
        // Block sizes read as typed.
        let bs: Vec<u64> = (9..=22).map(|e| 1u64 << e).collect();
        let got = x_labels(Dimension::Bs, &bs, 512, 4 << 20, 0, 70);
        let labels: Vec<&str> = got.iter().map(|(_, l)| l.as_str()).collect();
        assert!(
            labels.contains(&"4k") && labels.contains(&"1M") && labels.last() == Some(&"4M"),
            "{labels:?}"
        );
        assert!(x_labels(Dimension::Bs, &bs, 512, 4 << 20, 0, 0).is_empty());
    }
}
