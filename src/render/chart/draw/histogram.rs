//! A latency distribution: one bar per log2 bucket `[2ⁿ, 2ⁿ⁺¹)` ns on a log2 axis labelled
//! at round latencies (1, 2, 5 × 10ⁿ), the height the bucket's share of all I/Os on a log10
//! axis — the tail is the point of the chart, and on a linear axis a bucket holding 0.1% of
//! the I/Os next to one holding 70% is invisible — and the percentiles as vertical lines
//! named at the top (a name that would overlap the one before moves down a row).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::super::spec::{HistogramChart, latency_ticks};
use super::super::style::{self, Dash, GRID, INK, MUTED, Tone};
use super::{Frame, WIDTH_PX, failed, stroke, text};

const PLOT_PX: i32 = 380;
const X_AREA_PX: i32 = 48;
const RIGHT_PX: i32 = 28;
const LABEL_ROWS: usize = 3;

pub(super) fn draw(out: &mut String, c: &HistogramChart) -> Result<(), String> {
    let total: u64 = c.buckets.iter().map(|b| b.count).sum();
    let share = |n: u64| {
        if total > 0 {
            n as f64 * 100.0 / total as f64
        } else {
            0.0
        }
    };
    let used: Vec<_> = c
        .buckets
        .iter()
        .filter(|b| b.count > 0 && b.lo_ns > 0.0)
        .collect();
    let lo = used.first().map_or(1e3, |b| b.lo_ns);
    let hi = used.last().map_or(1e4, |b| b.hi_ns);
    let marks_lo = c.marks.iter().map(|m| m.1).fold(lo, f64::min).max(1.0);
    let marks_hi = c.marks.iter().map(|m| m.1).fold(hi, f64::max);
    let (x_lo, x_hi) = (marks_lo.log2() - 0.5, marks_hi.log2() + 0.5);
    // Decades of share, from the one below the smallest bucket to 100% and room for labels.
    let least = used.iter().map(|b| share(b.count)).fold(100.0, f64::min);
    // A smallest bucket just above a decade would be a sliver on it: go a decade lower then.
    let floor = (least.max(1e-9).log10() - 0.3).floor();
    let top = 2.0 + 0.45;
    let widest = style::text_width_px(&percent(floor), style::TICK_PX);
    let y_area = (widest + f64::from(style::line_height(style::LABEL_PX)) + 22.0).ceil() as u32;
    let frame = Frame::new(&c.heading, &[]);
    {
        let root = SVGBackend::with_string(out, (WIDTH_PX, frame.height(PLOT_PX + X_AREA_PX)))
            .into_drawing_area();
        let plot = frame.draw(&root)?;
        let mut ch = ChartBuilder::on(&plot)
            .margin_right(RIGHT_PX)
            .margin_top(10)
            .y_label_area_size(y_area)
            .x_label_area_size(X_AREA_PX)
            .build_cartesian_2d(x_lo..x_hi, floor..top)
            .map_err(failed)?;
        ch.configure_mesh()
            .disable_x_mesh()
            .disable_y_mesh()
            .x_labels(0)
            .y_labels(0)
            .label_style(text(style::TICK_PX, MUTED, HPos::Center, VPos::Top))
            .axis_desc_style(text(style::LABEL_PX, INK, HPos::Center, VPos::Top))
            .bold_line_style(GRID.stroke_width(1))
            .light_line_style(WHITE.stroke_width(0))
            .axis_style(MUTED.stroke_width(1))
            .y_desc("share of I/Os (%, log scale)")
            .x_desc("latency (log2 scale: one bar per doubling)")
            .draw()
            .map_err(failed)?;
        draw_grid(
            &mut ch,
            &root,
            (marks_lo, marks_hi),
            (x_lo, x_hi),
            floor,
            top,
        )?;
        let fill = Tone::Primary.colour().filled();
        ch.draw_series(used.iter().map(|b| {
            let (x0, x1) = (b.lo_ns.log2() + 0.04, b.hi_ns.log2() - 0.04);
            Rectangle::new([(x0, floor), (x1, share(b.count).log10())], fill)
        }))
        .map_err(failed)?;
        draw_marks(&mut ch, c, floor, top, x_hi)?;
        root.present().map_err(failed)?;
    }
    Ok(())
}

/// Latency ticks along the bottom and decades of share up the side, each with its grid line.
fn draw_grid(
    ch: &mut Chart2d,
    root: &super::Area,
    (marks_lo, marks_hi): (f64, f64),
    (x_lo, x_hi): (f64, f64),
    floor: f64,
    top: f64,
) -> Result<(), String> {
    let style = text(style::TICK_PX, MUTED, HPos::Center, VPos::Top);
    for (v, label) in latency_ticks(marks_lo, marks_hi) {
        let x = v.log2();
        ch.draw_series([PathElement::new(
            vec![(x, floor), (x, top)],
            GRID.stroke_width(1),
        )])
        .map_err(failed)?;
        let (px, py) = ch.backend_coord(&(x, floor));
        root.draw_text(&label, &style, (px, py + 8))
            .map_err(failed)?;
    }
    let left = text(style::TICK_PX, MUTED, HPos::Right, VPos::Center);
    for decade in (floor as i32)..=2 {
        let y = f64::from(decade);
        ch.draw_series([PathElement::new(
            vec![(x_lo, y), (x_hi, y)],
            GRID.stroke_width(1),
        )])
        .map_err(failed)?;
        let (px, py) = ch.backend_coord(&(x_lo, y));
        root.draw_text(&percent(y), &left, (px - 8, py))
            .map_err(failed)?;
    }
    Ok(())
}

type Chart2d<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// "100%", "1%", "0.01%" for the decade `log10_share`.
fn percent(log10_share: f64) -> String {
    let decimals = (-log10_share.round()).max(0.0) as usize;
    format!("{:.*}%", decimals, 10f64.powf(log10_share))
}

fn draw_marks(
    ch: &mut Chart2d,
    c: &HistogramChart,
    floor: f64,
    top: f64,
    x_hi: f64,
) -> Result<(), String> {
    let mut rows = [f64::MIN; LABEL_ROWS];
    let right_edge = ch.backend_coord(&(x_hi, floor)).0 as f64;
    for (name, ns) in &c.marks {
        let x = ns.max(1.0).log2();
        let line = stroke(Tone::Secondary.colour(), 2, Some(Dash::Long));
        ch.draw_series(LineSeries::new([(x, floor), (x, top)], line))
            .map_err(failed)?;
        let label = format!("{name} {}", crate::units::format_latency_ns(*ns));
        let px = f64::from(ch.backend_coord(&(x, top)).0);
        let w = style::text_width_px(&label, style::TICK_PX);
        let (from, to, h, dx) = if px + 5.0 + w <= right_edge {
            (px, px + 5.0 + w, HPos::Left, 5)
        } else {
            (px - 5.0 - w, px, HPos::Right, -5)
        };
        let Some(row) = rows.iter().position(|free| *free <= from) else {
            continue;
        };
        rows[row] = to + 8.0;
        let dy = 4 + row as i32 * style::line_height(style::TICK_PX);
        let s = text(style::TICK_PX, INK, h, VPos::Top);
        ch.draw_series([EmptyElement::at((x, top)) + Text::new(label, (dx, dy), s)])
            .map_err(failed)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn decades_read_as_percentages() {
        assert_eq!(super::percent(2.0), "100%");
        assert_eq!(super::percent(0.0), "1%");
        assert_eq!(super::percent(-3.0), "0.001%");
    }
}
