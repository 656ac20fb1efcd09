//! The latency-vs-load chart of a rate sweep (the hockey stick): achieved IOPS on a linear x
//! axis, p50 and p99 latency (from the due time) on a log2 y axis, so both the flat part's
//! tens of microseconds and the knee's milliseconds read off the same chart. One point per
//! paced step; the unlimited step gives the x axis its end and is named in the legend. It
//! draws plain figures; it does not know where they came from.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Widget};

use super::Theme;
use crate::stats::IntervalFigures;
use crate::units::{format_count_rate, format_latency_ns};

/// One paced step: achieved IOPS, p50 and p99 in ns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoadPoint {
    pub iops: f64,
    pub p50_ns: f64,
    pub p99_ns: f64,
}

/// The paced steps of a rate sweep as points, and the unlimited step's IOPS (the maximum).
pub fn load_points(steps: &[IntervalFigures]) -> (Vec<LoadPoint>, Option<f64>) {
    let max = steps
        .iter()
        .find(|s| s.settings.rate_iops == 0)
        .map(|s| s.iops);
    let points = steps
        .iter()
        .filter(|s| s.settings.rate_iops > 0 && s.counts.ops > 0)
        .map(|s| LoadPoint {
            iops: s.iops,
            p50_ns: s.latency_ns.p50 as f64,
            p99_ns: s.latency_ns.p99 as f64,
        })
        .collect();
    (points, max)
}

/// The hockey-stick chart.
pub struct CurveChart<'a> {
    pub points: &'a [LoadPoint],
    /// IOPS of the unlimited step, when measured.
    pub max_iops: Option<f64>,
    pub theme: Theme,
}

impl CurveChart<'_> {
    /// Which glyph is which series, and what the x axis ends at.
    pub fn legend(&self) -> Line<'static> {
        let mut spans = vec![
            Span::styled("• ", self.theme.tail()),
            Span::raw("p99  "),
            Span::styled("⣿ ", self.theme.graph()),
            Span::raw("p50 (from due time)"),
        ];
        if let Some(m) = self.max_iops {
            spans.push(Span::styled(
                format!("  max {} IOPS unlimited", format_count_rate(m)),
                self.theme.dim(),
            ));
        }
        Line::from(spans)
    }
}

impl Widget for CurveChart<'_> {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < 16 || area.height < 5 {
            return;
        }
        let block = Block::bordered().title(Span::styled(
            " latency vs load: p50 and p99 against IOPS (log2 latency) ",
            self.theme.accent(),
        ));
        if self.points.is_empty() {
            Line::styled("waiting for the first paced step", self.theme.dim())
                .render(block.inner(area), buf);
            block.render(area, buf);
            return;
        }
        let log = |ns: f64| ns.max(1.0).log2();
        let lo = self
            .points
            .iter()
            .map(|p| p.p50_ns)
            .fold(f64::MAX, f64::min);
        let hi = self.points.iter().map(|p| p.p99_ns).fold(0.0, f64::max);
        let (y0, y1) = (log(lo).floor(), log(hi).ceil().max(log(lo).floor() + 1.0));
        let x1 = self
            .points
            .iter()
            .map(|p| p.iops)
            .fold(self.max_iops.unwrap_or(0.0), f64::max)
            .max(1.0)
            * 1.05;
        let p99: Vec<(f64, f64)> = self
            .points
            .iter()
            .map(|p| (p.iops, log(p.p99_ns)))
            .collect();
        let p50: Vec<(f64, f64)> = self
            .points
            .iter()
            .map(|p| (p.iops, log(p.p50_ns)))
            .collect();
        let series = |marker, style, data| {
            Dataset::default()
                .marker(marker)
                .graph_type(GraphType::Line)
                .style(style)
                .data(data)
        };
        let y_label = |l: f64| format_latency_ns(l.exp2());
        Chart::new(vec![
            series(Marker::Braille, self.theme.graph(), &p50),
            series(Marker::Dot, self.theme.tail(), &p99),
        ])
        .block(block)
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([0.0, x1])
                .labels([
                    "0".to_string(),
                    format_count_rate(x1 / 2.0),
                    format_count_rate(x1),
                ])
                .style(self.theme.dim()),
        )
        .y_axis(
            Axis::default()
                .bounds([y0, y1])
                .labels([y_label(y0), y_label((y0 + y1) / 2.0), y_label(y1)])
                .style(self.theme.dim()),
        )
        .render(area, buf);
    }
}
