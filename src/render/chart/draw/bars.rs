//! Grouped bars — a suite's card, a fleet's hosts — on one or more stacked panels: the bar
//! is the median (or the figure), the whisker the min–max spread, the value written above
//! it where it fits, the group's name under the axis (turned upright when the groups are
//! narrow, left out when even that does not fit), and horizontal reference lines (a fleet's
//! median, its outlier threshold) labelled at their right end.

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::super::spec::{Bar, BarChart, BarPanel};
use super::super::style::{self, Dash, GRID, INK, MUTED};
use super::{Area, Frame, WIDTH_PX, failed, short_number, stroke, text, y_area_px, y_top};

const PANEL_PX: i32 = 300;
const LEGEND_PX: i32 = 26;
const GAP_PX: i32 = 14;
const RIGHT_PX: i32 = 28;
/// The widest a bar gets (two hosts would otherwise be two slabs).
const MAX_BAR_PX: f64 = 110.0;
/// Upright group names are cut to this width.
const MAX_UPRIGHT_PX: f64 = 150.0;
/// Narrower groups than this get no name at all.
const MIN_UPRIGHT_GROUP_PX: f64 = 15.0;

type Chart2d<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// How group names go under a panel.
#[derive(Clone, Copy, PartialEq)]
enum Names {
    Flat,
    Upright,
    None,
}

fn group_px(p: &BarPanel, y_area: u32) -> f64 {
    (f64::from(WIDTH_PX) - f64::from(y_area) - f64::from(RIGHT_PX)) / p.groups.len().max(1) as f64
}

fn names(p: &BarPanel, y_area: u32) -> (Names, i32) {
    let room = group_px(p, y_area);
    let widest = p
        .groups
        .iter()
        .map(|g| style::text_width_px(&g.label, style::TICK_PX))
        .fold(0.0, f64::max);
    if widest + 8.0 <= room {
        (Names::Flat, 40)
    } else if room >= MIN_UPRIGHT_GROUP_PX {
        (Names::Upright, (widest.min(MAX_UPRIGHT_PX) + 14.0) as i32)
    } else {
        (Names::None, 12)
    }
}

fn panel_top(p: &BarPanel) -> f64 {
    let max = p
        .groups
        .iter()
        .flat_map(|g| g.bars.iter())
        .flat_map(|b| [b.value, b.spread.map(|s| s.1)])
        .flatten()
        .chain(p.lines.iter().map(|l| l.0))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    y_top(max, 1.18)
}

pub(super) fn draw(out: &mut String, c: &BarChart) -> Result<(), String> {
    let tops: Vec<f64> = c.panels.iter().map(panel_top).collect();
    let y_area = tops.iter().map(|t| y_area_px(*t)).max().unwrap_or(60);
    let mut notes = Vec::new();
    for p in &c.panels {
        if names(p, y_area).0 == Names::None {
            notes.push(format!(
                "{} bars are too many to name each under the axis; the JSON lists them in this order",
                p.groups.len()
            ));
        }
    }
    let frame = Frame::new(&c.heading, &notes);
    let has_lines = c.panels.iter().any(|p| !p.lines.is_empty());
    let legend = if c.legend.is_empty() && !has_lines {
        0
    } else {
        LEGEND_PX
    };
    let heights: Vec<i32> = c
        .panels
        .iter()
        .map(|p| GAP_PX + PANEL_PX + names(p, y_area).1)
        .collect();
    let plot_px = legend + heights.iter().sum::<i32>();
    {
        let root =
            SVGBackend::with_string(out, (WIDTH_PX, frame.height(plot_px))).into_drawing_area();
        let mut area = frame.draw(&root)?;
        if legend > 0 {
            let (top, rest) = area.split_vertically(legend);
            draw_legend(&top, c)?;
            area = rest;
        }
        for ((p, top), h) in c.panels.iter().zip(&tops).zip(&heights) {
            let (_, rest) = area.split_vertically(GAP_PX);
            let (panel, rest) = rest.split_vertically(h - GAP_PX);
            draw_panel(&panel, &root, p, *top, y_area)?;
            area = rest;
        }
        root.present().map_err(failed)?;
    }
    Ok(())
}

/// A swatch and a name per tone, then a line sample and a name per reference line (named
/// here rather than on the plot, where they would cross the bars' labels), right-aligned.
fn draw_legend(area: &Area, c: &BarChart) -> Result<(), String> {
    let mut right = f64::from(WIDTH_PX) - f64::from(RIGHT_PX);
    let y = LEGEND_PX / 2;
    let style = text(style::TICK_PX, INK, HPos::Right, VPos::Center);
    for (_, name, dashed) in c.panels.iter().flat_map(|p| p.lines.iter()).rev() {
        area.draw_text(name, &style, (right as i32, y))
            .map_err(failed)?;
        right -= style::text_width_px(name, style::TICK_PX) + 6.0;
        let r = right as i32;
        let line = stroke(INK, 1, dashed.then_some(Dash::Long));
        area.draw(&PathElement::new(vec![(r - 26, y), (r, y)], line))
            .map_err(failed)?;
        right -= 26.0 + 20.0;
    }
    for (tone, name) in c.legend.iter().rev() {
        area.draw_text(name, &style, (right as i32, y))
            .map_err(failed)?;
        right -= style::text_width_px(name, style::TICK_PX) + 6.0;
        let r = right as i32;
        area.draw(&Rectangle::new(
            [(r - 14, y - 6), (r, y + 6)],
            tone.colour().filled(),
        ))
        .map_err(failed)?;
        right -= 14.0 + 20.0;
    }
    Ok(())
}

fn draw_panel(area: &Area, root: &Area, p: &BarPanel, top: f64, y_area: u32) -> Result<(), String> {
    let (how, names_px) = names(p, y_area);
    let n = p.groups.len().max(1) as f64;
    let mut ch = ChartBuilder::on(area)
        .margin_right(RIGHT_PX)
        .y_label_area_size(y_area)
        .x_label_area_size(names_px)
        .build_cartesian_2d(0.0..n, 0.0..top)
        .map_err(failed)?;
    let yfmt = |v: &f64| short_number(*v);
    ch.configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_labels(6)
        .y_label_formatter(&yfmt)
        .label_style(text(style::TICK_PX, MUTED, HPos::Center, VPos::Top))
        .axis_desc_style(text(style::LABEL_PX, INK, HPos::Center, VPos::Top))
        .bold_line_style(GRID.stroke_width(1))
        .light_line_style(WHITE.stroke_width(0))
        .axis_style(MUTED.stroke_width(1))
        .y_desc(p.y_label.as_str())
        .draw()
        .map_err(failed)?;
    let gpx = group_px(p, y_area);
    for (i, g) in p.groups.iter().enumerate() {
        let k = g.bars.len().max(1) as f64;
        // Bars take three quarters of their group, but no bar is wider than MAX_BAR_PX.
        let w = (0.76 / k).min(MAX_BAR_PX / gpx);
        let x0 = i as f64 + 0.5 - w * k / 2.0;
        for (j, b) in g.bars.iter().enumerate() {
            let left = x0 + j as f64 * w;
            draw_bar(&mut ch, b, left, left + w * 0.92, gpx * w)?;
        }
        draw_name(&ch, root, &g.label, i as f64 + 0.5, how)?;
    }
    for (y, _, dashed) in p.lines.iter().filter(|l| l.0.is_finite()) {
        let line = stroke(INK, 1, dashed.then_some(Dash::Long));
        ch.draw_series(LineSeries::new([(0.0, *y), (n, *y)], line))
            .map_err(failed)?;
    }
    Ok(())
}

/// One bar from `x0` to `x1` (`px` wide): the value as the bar, the spread as a whisker,
/// the label above both where it fits; for a bar without a value, its label ("not run" when
/// it has none) at the base.
fn draw_bar(ch: &mut Chart2d, b: &Bar, x0: f64, x1: f64, px: f64) -> Result<(), String> {
    let mid = (x0 + x1) / 2.0;
    // A value that is not a number (a corrupt result) has no bar, as one that did not run.
    let Some(v) = b.value.filter(|v| v.is_finite()) else {
        let why = if b.label.is_empty() {
            "not run"
        } else {
            &b.label
        };
        if style::text_width_px(why, style::TICK_PX) <= px + 6.0 {
            let s = text(style::TICK_PX, MUTED, HPos::Center, VPos::Bottom);
            ch.draw_series([EmptyElement::at((mid, 0.0)) + Text::new(why.to_string(), (0, -4), s)])
                .map_err(failed)?;
        }
        return Ok(());
    };
    ch.draw_series([Rectangle::new(
        [(x0, 0.0), (x1, v)],
        b.tone.colour().filled(),
    )])
    .map_err(failed)?;
    let mut above = v;
    if let Some((lo, hi)) = b.spread.filter(|(lo, hi)| lo.is_finite() && hi.is_finite()) {
        let ink = INK.stroke_width(2);
        // A cap a fifth of the bar wide, at most 12 pixels a side.
        let cap = (x1 - x0) * (0.2_f64).min(12.0 / px.max(1.0));
        ch.draw_series([
            PathElement::new(vec![(mid, lo), (mid, hi)], ink),
            PathElement::new(vec![(mid - cap, lo), (mid + cap, lo)], ink),
            PathElement::new(vec![(mid - cap, hi), (mid + cap, hi)], ink),
        ])
        .map_err(failed)?;
        above = above.max(hi);
    }
    if !b.label.is_empty() && style::text_width_px(&b.label, style::TICK_PX) <= px + 6.0 {
        let s = text(style::TICK_PX, INK, HPos::Center, VPos::Bottom);
        ch.draw_series([EmptyElement::at((mid, above)) + Text::new(b.label.clone(), (0, -4), s)])
            .map_err(failed)?;
    }
    Ok(())
}

/// A group's name under the axis at `x`: flat, upright (reading upwards, cut to
/// `MAX_UPRIGHT_PX`), or not at all.
fn draw_name(ch: &Chart2d, root: &Area, name: &str, x: f64, how: Names) -> Result<(), String> {
    let (px, py) = ch.backend_coord(&(x, 0.0));
    match how {
        Names::Flat => {
            let s = text(style::TICK_PX, INK, HPos::Center, VPos::Top);
            root.draw_text(name, &s, (px, py + 8)).map_err(failed)
        }
        Names::Upright => {
            let s = text(style::TICK_PX, INK, HPos::Right, VPos::Center)
                .transform(FontTransform::Rotate270);
            let cut = style::fit(name, style::TICK_PX, MAX_UPRIGHT_PX);
            root.draw_text(&cut, &s, (px, py + 6)).map_err(failed)
        }
        Names::None => Ok(()),
    }
}
