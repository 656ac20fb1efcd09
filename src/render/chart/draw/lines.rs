//! Panels stacked on one shared x axis — a run over time, a sweep, a rate curve — with the
//! periods shaded alternately and named in a strip above, vertical markers across every
//! panel (stops, the finding's step), and each panel's legend in a caption row above it, so
//! that no label sits on the data.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::super::spec::{LineChart, MarkKind, Panel, Scale, Series};
use super::super::style::{self, BOUNDARY, Dash, GRID, INK, MUTED, SHADE};
use super::line_layout::Layout;
use super::{Area, Frame, WIDTH_PX, failed, short_number, stroke, text};

/// A gap between two periods longer than this is a pause, drawn with its own boundary.
pub(super) const PAUSE_S: f64 = 0.001;
/// Height of one panel's plot; a chart of one panel gets more.
const PANEL_PX: i32 = 210;
const ALONE_PX: i32 = 380;
/// The row above a panel holding its legend (or a gap, for a panel without one).
const CAPTION_PX: i32 = 22;
const GAP_PX: i32 = 10;
/// The row above the first panel naming the periods.
const STRIP_PX: i32 = 22;
/// The x axis' tick labels and description under the last panel.
const X_AREA_PX: i32 = 48;
pub(super) const RIGHT_PX: i32 = 28;

type Chart2d<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

pub(super) fn draw(out: &mut String, c: &LineChart) -> Result<(), String> {
    let l = Layout::of(c);
    let frame = Frame::new(&c.heading, &l.notes);
    let strip = if l.spans_shown { STRIP_PX } else { 0 };
    let captions: i32 = c.panels.iter().map(caption_px).sum();
    let panel_px = if c.panels.len() == 1 {
        ALONE_PX
    } else {
        PANEL_PX
    };
    let plot_px = strip + captions + c.panels.len() as i32 * panel_px + X_AREA_PX;
    {
        let root =
            SVGBackend::with_string(out, (WIDTH_PX, frame.height(plot_px))).into_drawing_area();
        let mut area = frame.draw(&root)?;
        if strip > 0 {
            let (top, rest) = area.split_vertically(strip);
            draw_strip(&top, c, &l)?;
            area = rest;
        }
        let last = c.panels.len().saturating_sub(1);
        for (i, p) in c.panels.iter().enumerate() {
            let (caption, rest) = area.split_vertically(caption_px(p));
            draw_legend(&caption, p)?;
            let h = panel_px + if i == last { X_AREA_PX } else { 0 };
            let (panel, rest) = rest.split_vertically(h);
            draw_panel(&panel, &root, c, &l, i, i == last)?;
            area = rest;
        }
        root.present().map_err(failed)?;
    }
    Ok(())
}

/// The periods' names above the first panel.
fn draw_strip(strip: &Area, c: &LineChart, l: &Layout) -> Result<(), String> {
    let style = text(style::TICK_PX, INK, HPos::Left, VPos::Center);
    for (s, label) in c.spans.iter().zip(&l.span_labels) {
        let x = l.px(l.fx(s.start_s)) + 4.0;
        strip
            .draw_text(label, &style, (x as i32, STRIP_PX / 2))
            .map_err(failed)?;
    }
    Ok(())
}

/// Whether a panel needs a legend: one series is named by its axis.
fn has_legend(p: &Panel) -> bool {
    p.series.len() > 1 || p.reference.is_some()
}

fn caption_px(p: &Panel) -> i32 {
    if has_legend(p) { CAPTION_PX } else { GAP_PX }
}

/// Each series' line sample and name, right-aligned above the panel.
fn draw_legend(caption: &Area, p: &Panel) -> Result<(), String> {
    if !has_legend(p) {
        return Ok(());
    }
    let mut right = f64::from(WIDTH_PX) - f64::from(RIGHT_PX);
    let y = CAPTION_PX / 2;
    let style = text(style::TICK_PX, INK, HPos::Right, VPos::Center);
    let mut entries: Vec<(String, ShapeStyle)> = p
        .series
        .iter()
        .map(|s| (s.name.clone(), series_stroke(s)))
        .collect();
    if let Some((_, name)) = &p.reference {
        entries.push((name.clone(), stroke(INK, 1, Some(Dash::Dotted))));
    }
    for (name, line) in entries.iter().rev() {
        caption
            .draw_text(name, &style, (right as i32, y))
            .map_err(failed)?;
        right -= style::text_width_px(name, style::TICK_PX) + 6.0;
        let seg = [(right - 26.0) as i32, right as i32];
        caption
            .draw(&PathElement::new(vec![(seg[0], y), (seg[1], y)], *line))
            .map_err(failed)?;
        right -= 26.0 + 18.0;
    }
    Ok(())
}

fn draw_panel(
    area: &Area,
    root: &Area,
    c: &LineChart,
    l: &Layout,
    i: usize,
    last: bool,
) -> Result<(), String> {
    let ys = l.ys[i];
    let mut ch = ChartBuilder::on(area)
        .margin_right(RIGHT_PX)
        .y_label_area_size(l.y_area)
        .x_label_area_size(if last { X_AREA_PX } else { 0 })
        .build_cartesian_2d(l.x_lo..l.x_hi, ys.0..ys.1)
        .map_err(failed)?;
    shade_spans(&mut ch, c, l, ys)?;
    mesh(&mut ch, c, l, i, last)?;
    if l.log_y[i] {
        draw_decades(&mut ch, root, l, ys)?;
    }
    if let Some(ticks) = &c.x.ticks {
        let grid = GRID.stroke_width(1);
        for (v, _) in ticks {
            let x = l.fx(*v);
            ch.draw_series([PathElement::new(vec![(x, ys.0), (x, ys.1)], grid)])
                .map_err(failed)?;
        }
        if last {
            draw_ticks(&ch, root, l, ys.0, ticks)?;
        }
    }
    for (s, pts) in c.panels[i].series.iter().zip(&l.drawn[i]) {
        draw_series(&mut ch, s, pts)?;
    }
    if let Some((y, _)) = c.panels[i].reference {
        let (line, y) = (stroke(INK, 1, Some(Dash::Dotted)), l.fy(i, y));
        ch.draw_series(LineSeries::new([(l.x_lo, y), (l.x_hi, y)], line))
            .map_err(failed)?;
    }
    draw_marks(&mut ch, c, l, i, ys)
}

/// A log panel's ticks at 1, 2 and 5 × 10ⁿ of its unit, with their grid lines.
fn draw_decades(ch: &mut Chart2d, root: &Area, l: &Layout, ys: (f64, f64)) -> Result<(), String> {
    let style = text(style::TICK_PX, MUTED, HPos::Right, VPos::Center);
    let mut decade = 10f64.powf(ys.0.floor());
    while decade.log10() <= ys.1 {
        for m in [1.0, 2.0, 5.0] {
            let y = (decade * m).log10();
            if y < ys.0 || y > ys.1 {
                continue;
            }
            let grid = GRID.stroke_width(1);
            ch.draw_series([PathElement::new(vec![(l.x_lo, y), (l.x_hi, y)], grid)])
                .map_err(failed)?;
            let (px, py) = ch.backend_coord(&(l.x_lo, y));
            root.draw_text(&short_number(decade * m), &style, (px - 8, py))
                .map_err(failed)?;
        }
        decade *= 10.0;
    }
    Ok(())
}

/// Every other period shaded, and a line where each period after the first begins, and
/// where one ends when the next begins later (a pause between them).
fn shade_spans(
    ch: &mut Chart2d,
    c: &LineChart,
    l: &Layout,
    (bottom, top): (f64, f64),
) -> Result<(), String> {
    if !l.spans_shown {
        return Ok(());
    }
    let shaded = c.spans.iter().enumerate().filter(|(k, _)| k % 2 == 1);
    ch.draw_series(shaded.map(|(_, s)| {
        Rectangle::new(
            [(l.fx(s.start_s), bottom), (l.fx(s.end_s), top)],
            SHADE.filled(),
        )
    }))
    .map_err(failed)?;
    let line = BOUNDARY.stroke_width(1);
    let xs = c.spans.windows(2).flat_map(|w| {
        let paused = w[1].start_s - w[0].end_s > PAUSE_S;
        [paused.then_some(w[0].end_s), Some(w[1].start_s)]
    });
    ch.draw_series(xs.flatten().map(|s| {
        let x = l.fx(s);
        PathElement::new(vec![(x, bottom), (x, top)], line)
    }))
    .map_err(failed)?;
    Ok(())
}

fn mesh(ch: &mut Chart2d, c: &LineChart, l: &Layout, i: usize, last: bool) -> Result<(), String> {
    let p = &c.panels[i];
    let xfmt = |v: &f64| match l.scale {
        Scale::Linear => short_number(*v),
        Scale::Log2 => short_number(v.exp2()),
    };
    let yfmt = |v: &f64| short_number(*v);
    let tick = text(style::TICK_PX, MUTED, HPos::Center, VPos::Top);
    let desc = text(style::LABEL_PX, INK, HPos::Center, VPos::Top);
    let mut m = ch.configure_mesh();
    // Every panel gets the vertical grid; only the last has the area that shows the labels.
    m.x_labels(if c.x.ticks.is_none() { 12 } else { 0 })
        // A log panel's ticks are drawn by `draw_decades`.
        .y_labels(if l.log_y[i] { 0 } else { 5 })
        .x_label_formatter(&xfmt)
        .y_label_formatter(&yfmt)
        .label_style(tick)
        .axis_desc_style(desc)
        .bold_line_style(GRID.stroke_width(1))
        .light_line_style(WHITE.stroke_width(0))
        .axis_style(MUTED.stroke_width(1))
        .y_desc(p.y_label.as_str());
    if c.x.ticks.is_some() {
        m.disable_x_mesh();
    }
    if last {
        m.x_desc(c.x.label.as_str());
    }
    m.draw().map_err(failed)?;
    // The panels above the last have no x axis of their own: a baseline marks the bottom.
    let (base, y) = (MUTED.stroke_width(1), l.ys[i].0);
    ch.draw_series([PathElement::new(vec![(l.x_lo, y), (l.x_hi, y)], base)])
        .map_err(failed)?;
    Ok(())
}

/// The given x ticks' labels under the last panel, leaving out any that would overlap the
/// one before it.
fn draw_ticks(
    ch: &Chart2d,
    root: &Area,
    l: &Layout,
    bottom: f64,
    ticks: &[(f64, String)],
) -> Result<(), String> {
    let style = text(style::TICK_PX, MUTED, HPos::Center, VPos::Top);
    let mut free_from = f64::MIN;
    for (v, label) in ticks {
        let (px, py) = ch.backend_coord(&(l.fx(*v), bottom));
        let w = style::text_width_px(label, style::TICK_PX);
        if f64::from(px) - w / 2.0 < free_from {
            continue;
        }
        root.draw_text(label, &style, (px, py + 8))
            .map_err(failed)?;
        free_from = f64::from(px) + w / 2.0 + 8.0;
    }
    Ok(())
}

fn series_stroke(s: &Series) -> ShapeStyle {
    stroke(s.tone.colour(), 2, s.dashed.then_some(Dash::Long))
}

/// One series, split at its gaps; dashed or solid, with dots when asked.
fn draw_series(ch: &mut Chart2d, s: &Series, pts: &[(f64, f64)]) -> Result<(), String> {
    let line = series_stroke(s);
    for seg in pts.split(|p| p.1.is_nan()).filter(|seg| !seg.is_empty()) {
        ch.draw_series(LineSeries::new(seg.iter().copied(), line))
            .map_err(failed)?;
        if s.dots {
            let dot = s.tone.colour().filled();
            ch.draw_series(seg.iter().map(|p| Circle::new(*p, 3, dot)))
                .map_err(failed)?;
        }
    }
    Ok(())
}

/// Vertical markers on every panel, their labels on the first (left of the line where the
/// right edge is near; a label that would overlap an earlier one moves down a row, and after
/// three rows is left out), and the ring on the point a marker names.
fn draw_marks(
    ch: &mut Chart2d,
    c: &LineChart,
    l: &Layout,
    i: usize,
    (bottom, top): (f64, f64),
) -> Result<(), String> {
    let mut rows: Vec<f64> = vec![f64::MIN; 3];
    for m in &c.marks {
        let x = l.fx(m.x);
        let line = match m.kind {
            MarkKind::Stop => stroke(INK, 1, Some(Dash::Long)),
            MarkKind::Finding => stroke(INK, 2, Some(Dash::Long)),
            MarkKind::Reference => stroke(MUTED, 1, Some(Dash::Dotted)),
        };
        ch.draw_series(LineSeries::new([(x, bottom), (x, top)], line))
            .map_err(failed)?;
        if let Some((panel, y)) = m.at
            && panel == i
        {
            ch.draw_series([Circle::new((x, l.fy(i, y)), 7, INK.stroke_width(2))])
                .map_err(failed)?;
        }
        if i != 0 || m.label.is_empty() {
            continue;
        }
        let px = l.px(x);
        let w = style::text_width_px(&m.label, style::TICK_PX);
        let right_side = px + 6.0 + w <= f64::from(WIDTH_PX) - f64::from(RIGHT_PX);
        let (from, to, h, dx) = if right_side {
            (px, px + 6.0 + w, HPos::Left, 6)
        } else {
            (px - 6.0 - w, px, HPos::Right, -6)
        };
        let Some(row) = rows.iter().position(|free| *free <= from) else {
            continue;
        };
        rows[row] = to + 8.0;
        let style = text(style::TICK_PX, INK, h, VPos::Top);
        let dy = 4 + row as i32 * style::line_height(style::TICK_PX);
        ch.draw_series([EmptyElement::at((x, top)) + Text::new(m.label.clone(), (dx, dy), style)])
            .map_err(failed)?;
    }
    Ok(())
}
