//! The run screen's graphs at the time scale picked with `z` (`Run::zoom`): IOPS, bandwidth
//! and the latency lines drawn from the same columns of `stats::timeline`, each with its
//! y-axis (the scale's top, 0) in a gutter on the left, the marks of each period's start
//! over them, and the x-axis (times on the run's clock, the time per column) under the
//! latency lines. Every graph of one screen asks for the same width, so their columns line
//! up with the axis. At a second a column and coarser the latency lines are each column's
//! highest 0.1 s p99 and p50 (peaks merge exactly; percentiles do not), and the latency
//! graph's y-axis says so ("peak" under its top).

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::widgets::{Sparkline, Widget};

use crate::stats::timeline::{Bucket, Columns, Zoom};
use crate::tui::state::Run;
use crate::tui::widgets::Theme;
use crate::tui::widgets::axis::{
    GUTTER, TimeAxis, YAxis, bytes_scale, count_label, latency_label, nice_ceiling, span_label,
};
use crate::tui::widgets::marks::PeriodMarks;

/// The columns a graph in `area` shows: as many as fit right of the gutter.
pub(crate) fn columns(run: &Run, width: u16) -> Columns {
    run.timeline
        .columns(run.zoom, width.saturating_sub(GUTTER) as usize)
}

/// "0.1 s/col", "10 s/col", "run: 88 s/col": the time a column stands for.
pub(crate) fn per_column(zoom: Zoom, c: &Columns) -> String {
    let span = c.per_column.map_or_else(|| "0.1 s".to_string(), span_label);
    match zoom {
        Zoom::Whole => format!("run: {span}/col"),
        _ => format!("{span}/col"),
    }
}

/// Which figure a rate graph draws.
#[derive(Clone, Copy)]
pub(super) enum Rate {
    Iops,
    Bandwidth,
}

/// A rate graph (IOPS or bandwidth) with its y-axis and marks.
pub(super) fn draw_rate(run: &Run, rate: Rate, theme: Theme, area: Rect, buf: &mut Buffer) {
    let cols = columns(run, area.width);
    let values: Vec<u64> = cols
        .buckets
        .iter()
        .map(|b| match rate {
            Rate::Iops => b.iops(),
            Rate::Bandwidth => b.bw(),
        })
        .map(|v| v.round() as u64)
        .collect();
    let highest = values.iter().copied().max().unwrap_or(0) as f64;
    let (max, top) = match rate {
        Rate::Iops => {
            let max = nice_ceiling(highest);
            (max, count_label(max))
        }
        Rate::Bandwidth => bytes_scale(highest),
    };
    let graph = plot(
        &values,
        max,
        [&top, "0"],
        None,
        theme.graph(),
        theme,
        area,
        buf,
    );
    draw_marks(run, &cols.buckets, theme, graph, buf);
}

/// The latency pane's graphs: the p99 line above the p50 line on one scale, the x-axis
/// on the last row when there are three rows or more.
pub(super) fn draw_latency(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let cols = columns(run, area.width);
    let area = if area.height >= 3 {
        let axis = Rect {
            y: area.bottom() - 1,
            height: 1,
            ..area
        };
        let scale = per_column(run.zoom, &cols);
        TimeAxis {
            columns: &cols.buckets,
            scale: &scale,
            theme,
        }
        .render(axis, buf);
        Rect {
            height: area.height - 1,
            ..area
        }
    } else {
        area
    };
    let p99s: Vec<u64> = cols.buckets.iter().map(|b| b.max_p99_ns).collect();
    let p50s: Vec<u64> = cols.buckets.iter().map(|b| b.max_p50_ns).collect();
    let max = nice_ceiling(p99s.iter().copied().max().unwrap_or(0) as f64);
    let top = latency_label(max);
    let upper = area.height.div_ceil(2);
    let [a, b] = Layout::vertical([Constraint::Length(upper), Constraint::Fill(1)]).areas(area);
    // Coarser than an interval, a column's latency is its intervals' peak: said under the
    // scale's top.
    let note = (run.zoom != Zoom::Interval).then_some("peak");
    let graph = plot(&p99s, max, [&top, ""], note, theme.tail(), theme, a, buf);
    plot(&p50s, max, [&top, "0"], None, theme.graph(), theme, b, buf);
    let whole = Rect {
        height: area.height,
        ..graph
    };
    draw_marks(run, &cols.buckets, theme, whole, buf);
}

/// Draws `values` as a sparkline scaled to `max` right of a gutter labelled with `labels`
/// (top and bottom; an empty one is left out) and `note` under the top; returns the
/// graph's area.
#[allow(clippy::too_many_arguments)]
fn plot(
    values: &[u64],
    max: u64,
    labels: [&str; 2],
    note: Option<&str>,
    style: Style,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) -> Rect {
    let graph = if area.width > GUTTER + 1 {
        YAxis {
            top: labels[0],
            bottom: Some(labels[1]).filter(|b| !b.is_empty()),
            note,
            theme,
        }
        .render(
            Rect {
                width: GUTTER,
                ..area
            },
            buf,
        );
        Rect {
            x: area.x + GUTTER,
            width: area.width - GUTTER,
            ..area
        }
    } else {
        area
    };
    Sparkline::default()
        .data(values)
        .max(max)
        .style(style)
        .render(graph, buf);
    graph
}

/// Marks where a period begins over the graph in `area` (its frame's line above it takes
/// the labels where the title leaves room).
fn draw_marks(run: &Run, cols: &[Bucket], theme: Theme, area: Rect, buf: &mut Buffer) {
    let marks = run.marks.visible(cols);
    let marks: Vec<(usize, &str)> = marks.iter().map(|(c, l)| (*c, l.as_str())).collect();
    PeriodMarks {
        marks: &marks,
        theme,
    }
    .render(area, buf);
}
