//! A surface scan as one SVG: the bandwidth curve against position on top (an HDD's fall from
//! outer to inner tracks, a slow stretch as a notch), and the map below it — one rectangle per
//! region, coloured by its latency class or verify state, read errors in blue as Victoria
//! marks them — with the legend and its counts. Drawn with plotters' SVG backend like every
//! chart here; the `<desc>` says diskscope drew it (`draw::with_desc`).

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::draw::{WIDTH_PX, failed, text, with_desc};
use super::style::{self, INK, MUTED};
use crate::model::surface::{Cell, LatencyClass, SurfaceReport, VerifyState};
use crate::render::surface::header;

/// Map columns in the chart.
const COLUMNS: usize = 64;
/// One map cell's height, pixels.
const CELL_PX: i32 = 12;
const CURVE_PX: i32 = 320;
const TOP_PX: i32 = 56;
const SIDE_PX: i32 = 70;

/// The colour of a cell: Victoria's greys for the fast bands, green, orange and red for the
/// slow ones, blue for a read error; the verify states in their own tones.
pub fn colour(cell: Cell) -> RGBColor {
    match cell {
        Cell::NotYet => RGBColor(0xFF, 0xFF, 0xFF),
        Cell::Latency(LatencyClass::Under5Ms) => RGBColor(0xD9, 0xD9, 0xD9),
        Cell::Latency(LatencyClass::Under20Ms) => RGBColor(0xA6, 0xA6, 0xA6),
        Cell::Latency(LatencyClass::Under50Ms) => RGBColor(0x73, 0x73, 0x73),
        Cell::Latency(LatencyClass::Under200Ms) => RGBColor(0x00, 0x9E, 0x73),
        Cell::Latency(LatencyClass::Under600Ms) => style::ORANGE,
        Cell::Latency(LatencyClass::Over600Ms) => style::VERMILLION,
        Cell::ReadError => style::BLUE,
        Cell::Verify(VerifyState::Verified) => RGBColor(0x8F, 0xD1, 0x9E),
        Cell::Verify(VerifyState::Zeroes) => RGBColor(0xF0, 0xE4, 0x42),
        Cell::Verify(VerifyState::Stale) => RGBColor(0xCC, 0x79, 0xA7),
        Cell::Verify(VerifyState::Corrupt) => RGBColor(0xB0, 0x00, 0x40),
        Cell::Verify(VerifyState::Aliased) => INK,
    }
}

/// The SVG of `r`.
pub fn svg(r: &SurfaceReport) -> String {
    match draw(r) {
        Ok(s) => with_desc(
            &style::restore_dashes(&s),
            &format!("surface scan: {}", header(r)),
        ),
        Err(e) => format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><desc>{}</desc></svg>\n",
            crate::escape::xml(&e)
        ),
    }
}

fn draw(r: &SurfaceReport) -> Result<String, String> {
    let cells = r.map.squeezed(r.map.len().min(COLUMNS * 32));
    let rows = cells.len().div_ceil(COLUMNS) as i32;
    let map_top = TOP_PX + CURVE_PX + 40;
    let height = map_top + rows * CELL_PX + 70;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (WIDTH_PX, height as u32)).into_drawing_area();
        root.fill(&WHITE).map_err(failed)?;
        let title = style::fit(&header(r), style::SUBTITLE_PX, f64::from(WIDTH_PX) - 32.0);
        root.draw_text(
            &title,
            &text(style::SUBTITLE_PX, INK, HPos::Left, VPos::Top),
            (16, 12),
        )
        .map_err(failed)?;
        curve(&root, r)?;
        map(&root, &cells, map_top)?;
        legend(&root, r, map_top + rows * CELL_PX + 24)?;
        root.present().map_err(failed)?;
    }
    Ok(out)
}

/// Bandwidth (MB/s) against position (GiB), one point per region read.
fn curve(root: &super::draw::Area, r: &SurfaceReport) -> Result<(), String> {
    let gib = (1u64 << 30) as f64;
    let points: Vec<(f64, f64)> = (r.regions.iter().enumerate())
        .filter_map(|(i, s)| {
            let (start, len) = r.map.region_range(i);
            s.bw_bytes_per_s()
                .map(|bw| ((start + len / 2) as f64 / gib, bw / 1e6))
        })
        .collect();
    let top = points.iter().map(|p| p.1).fold(1.0, f64::max) * 1.1;
    let span = (r.map.span_bytes as f64 / gib).max(1e-6);
    let area = root.margin(TOP_PX as u32, 0, 0, 0);
    let (area, _) = area.split_vertically(CURVE_PX);
    let mut chart = ChartBuilder::on(&area)
        .margin_left(16)
        .margin_right(SIDE_PX as u32 / 2)
        .x_label_area_size(30)
        .y_label_area_size(SIDE_PX as u32)
        .build_cartesian_2d(0.0..span, 0.0..top)
        .map_err(failed)?;
    chart
        .configure_mesh()
        .x_desc("position (GiB)")
        .y_desc("MB/s")
        .label_style(text(style::TICK_PX, MUTED, HPos::Center, VPos::Top))
        .axis_desc_style(text(style::LABEL_PX, INK, HPos::Center, VPos::Top))
        .light_line_style(style::GRID.mix(0.3))
        .draw()
        .map_err(failed)?;
    chart
        .draw_series(LineSeries::new(points, style::BLUE.stroke_width(2)))
        .map_err(failed)?;
    Ok(())
}

/// The map: `COLUMNS` cells a row, each row led by nothing (the curve's axis above gives the
/// positions; the first and last offsets are written at the corners).
fn map(root: &super::draw::Area, cells: &[Cell], top: i32) -> Result<(), String> {
    let width = WIDTH_PX as i32 - 16 - SIDE_PX;
    let cell_w = width / COLUMNS as i32;
    root.draw_text(
        "map: one cell per region, the worst of what it read",
        &text(style::LABEL_PX, INK, HPos::Left, VPos::Bottom),
        (SIDE_PX, top - 6),
    )
    .map_err(failed)?;
    for (i, &cell) in cells.iter().enumerate() {
        let (row, col) = ((i / COLUMNS) as i32, (i % COLUMNS) as i32);
        let x = SIDE_PX + col * cell_w;
        let y = top + row * CELL_PX;
        let rect = [(x, y), (x + cell_w - 1, y + CELL_PX - 1)];
        root.draw(&Rectangle::new(rect, colour(cell).filled()))
            .map_err(failed)?;
        if cell == Cell::NotYet {
            root.draw(&Rectangle::new(rect, style::GRID.stroke_width(1)))
                .map_err(failed)?;
        }
    }
    Ok(())
}

/// Each cell value found, its colour and its count.
fn legend(root: &super::draw::Area, r: &SurfaceReport, y: i32) -> Result<(), String> {
    let mut x = SIDE_PX;
    for (cell, n) in r.map.counts() {
        root.draw(&Rectangle::new(
            [(x, y), (x + 14, y + 14)],
            colour(cell).filled(),
        ))
        .map_err(failed)?;
        root.draw(&Rectangle::new(
            [(x, y), (x + 14, y + 14)],
            MUTED.stroke_width(1),
        ))
        .map_err(failed)?;
        let label = format!("{} ({n})", cell.label());
        root.draw_text(
            &label,
            &text(style::TICK_PX, INK, HPos::Left, VPos::Center),
            (x + 20, y + 7),
        )
        .map_err(failed)?;
        x += 20 + style::text_width_px(&label, style::TICK_PX) as i32 + 18;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surface::fold::{Completion, Fold};
    use crate::surface::plan::ScanPlan;

    #[test]
    fn the_chart_has_a_cell_per_region_in_its_class_colour() {
        let plan = ScanPlan::full(4 << 20, 1 << 20, 4);
        let mut fold = Fold::new(&plan, "/dev/x", 8);
        for i in 0..4u64 {
            fold.add(&Completion {
                offset: i << 20,
                len: 1 << 20,
                latency_ns: 1_000_000,
                service_ns: 1_000_000,
                busy_ns: 1_000_000,
                result: if i == 2 { Err("EIO".into()) } else { Ok(()) },
            });
        }
        let svg = svg(&fold.finish(1.0, true));
        assert!(
            svg.contains("<desc>diskscope chart: surface scan: full scan of /dev/x"),
            "{svg}"
        );
        assert!(svg.contains("read error (1)"));
        assert!(svg.contains("#0072B2"), "a blue read-error cell");
    }
}
