//! The surface screen: a status line (what is scanned, how far, how fast, the ETA), the
//! bandwidth curve against position, the map (one character per cell, each the worst of the
//! regions it covers, in the text map's characters and Victoria's colours), its legend with
//! counts, the slowest regions and the read errors, and the message line. Usable at 80x24.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Sparkline, Widget};

use super::framed;
use crate::model::surface::{Cell, LatencyClass, ScanKind, SurfaceReport, VerifyState};
use crate::render::card::mb;
use crate::render::surface::glyph;
use crate::tui::state::SurfaceView;
use crate::tui::widgets::Theme;
use crate::units::{format_byte_range, format_bytes, format_duration, visible};

/// A cell's colour on the screen: greys for the fast bands, green, yellow and red for the
/// slow ones, blue for a read error (as Victoria marks them); verify states in their own.
fn colour(cell: Cell) -> Color {
    match cell {
        Cell::NotYet => Color::DarkGray,
        Cell::Latency(LatencyClass::Under5Ms) => Color::Gray,
        Cell::Latency(LatencyClass::Under20Ms) => Color::Gray,
        Cell::Latency(LatencyClass::Under50Ms) => Color::White,
        Cell::Latency(LatencyClass::Under200Ms) => Color::Green,
        Cell::Latency(LatencyClass::Under600Ms) => Color::Yellow,
        Cell::Latency(LatencyClass::Over600Ms) => Color::Red,
        Cell::ReadError => Color::Blue,
        Cell::Verify(VerifyState::Verified) => Color::Green,
        Cell::Verify(VerifyState::Zeroes) => Color::Yellow,
        Cell::Verify(VerifyState::Stale) => Color::Magenta,
        Cell::Verify(VerifyState::Corrupt) => Color::Red,
        Cell::Verify(VerifyState::Aliased) => Color::Red,
    }
}

fn cell_style(cell: Cell, theme: Theme) -> Style {
    let bold = matches!(
        cell,
        Cell::ReadError | Cell::Latency(LatencyClass::Over600Ms)
    );
    let style = if theme.color {
        Style::new().fg(colour(cell))
    } else {
        Style::new()
    };
    if bold {
        style.add_modifier(Modifier::BOLD)
    } else {
        style
    }
}

/// The status line, what matters first (the target last, cut where it must be): "full scan
/// · 1h32m left · 12.3 GiB of 931 GiB (1.3%) · 168 MB/s · /dev/sdb".
fn status(v: &SurfaceView) -> String {
    let kind = match v.kind {
        _ if !v.scans => "burn-in",
        ScanKind::Full => "full scan",
        ScanKind::Quick => "quick scan",
    };
    let mut parts = vec![kind.to_string()];
    let state = match (v.scanning, v.paused, &v.report) {
        // A burn-in holds its threads while paused: it still runs.
        (true, true, _) if !v.scans => Some("paused".into()),
        (true, _, _) => Some(
            v.progress
                .and_then(|p| p.eta_s())
                .map_or("starting".into(), |s| {
                    format!(
                        "{} left",
                        format_duration(std::time::Duration::from_secs_f64(s))
                    )
                }),
        ),
        (false, true, _) if v.scans => Some("paused".into()),
        (false, _, Some(r)) if r.complete => Some("done".into()),
        (false, _, _) => Some("stopped".into()),
    };
    parts.extend(state);
    if let Some((done, total)) = v.overall() {
        parts.push(format!(
            "{} of {} ({:.1}%)",
            format_bytes(done),
            format_bytes(total),
            done as f64 * 100.0 / total.max(1) as f64
        ));
    }
    if let Some(p) = v.progress.filter(|_| v.scanning) {
        let rate = p.done_bytes as f64 / p.elapsed_s.max(1e-9);
        parts.push(format!("{} MB/s", mb(rate / 1e6)));
    } else if let Some(r) = &v.report {
        parts.push(format!("{} MB/s", mb(r.bw_bytes_per_s() / 1e6)));
    }
    parts.push(visible(&v.target).into_owned());
    parts.join(" · ")
}

/// Each column's bandwidth (MB/s × 10, for the sparkline's integers): the mean of the regions
/// it covers that were read.
fn curve_points(r: &SurfaceReport, width: usize) -> Vec<u64> {
    let n = r.regions.len();
    let width = width.clamp(1, n.max(1));
    (0..width)
        .map(|k| {
            let (from, to) = (k * n / width, ((k + 1) * n / width).max(k * n / width + 1));
            let rates: Vec<f64> = r.regions[from.min(n)..to.min(n)]
                .iter()
                .filter_map(|s| s.bw_bytes_per_s())
                .collect();
            if rates.is_empty() {
                0
            } else {
                (rates.iter().sum::<f64>() / rates.len() as f64 / 1e5) as u64
            }
        })
        .collect()
}

/// The map's lines: `width` characters a line, at most `height` lines.
fn map_lines(r: &SurfaceReport, width: u16, height: u16, theme: Theme) -> Vec<Line<'static>> {
    let room = usize::from(width) * usize::from(height);
    let cells = r.map.squeezed(room.min(r.map.len()));
    cells
        .chunks(usize::from(width).max(1))
        .map(|row| {
            Line::from(
                row.iter()
                    .map(|&c| Span::styled(glyph(c).to_string(), cell_style(c, theme)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect()
}

/// The legend: each value found with its character and count.
fn legend(r: &SurfaceReport, theme: Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (cell, n) in r.map.counts() {
        let shown = if cell == Cell::NotYet {
            '·'
        } else {
            glyph(cell)
        };
        spans.push(Span::styled(shown.to_string(), cell_style(cell, theme)));
        spans.push(Span::raw(format!(" {} {n}  ", cell.label())));
    }
    Line::from(spans)
}

/// The slowest region and the read errors, in one line.
fn worst(r: &SurfaceReport) -> String {
    let mut parts = Vec::new();
    if let Some((i, bw)) = r.slowest(1).first() {
        let (start, len) = r.map.region_range(*i);
        parts.push(format!(
            "slowest {}: {} MB/s",
            format_byte_range(start, start + len),
            mb(bw / 1e6)
        ));
    }
    match r.errors.as_slice() {
        [] => parts.push("no read errors".into()),
        [one] => parts.push(format!("1 read error at {}", format_bytes(one.offset))),
        [first, ..] => parts.push(format!(
            "{} read errors, first at {}",
            r.errors.len(),
            format_bytes(first.offset)
        )),
    }
    parts.join(" · ")
}

/// Draws the surface screen in `area`.
pub fn draw_surface(v: &SurfaceView, theme: Theme, area: Rect, buf: &mut Buffer) {
    // A burn-in measures no rate per region: no curve, the map has its room.
    let curve_h = match area.height {
        _ if !v.scans => 0,
        20.. => 7,
        _ => 4,
    };
    let [top, curve, map, legend_row, worst_row, message] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(curve_h),
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    Paragraph::new(Line::styled(status(v), theme.accent())).render(top, buf);
    let inner = if curve.height > 0 {
        let curve_block = Block::new()
            .borders(Borders::ALL)
            .title(" MB/s against position: outer tracks (start) on the left ");
        framed(curve_block, curve, buf)
    } else {
        curve
    };
    let map_block = Block::new()
        .borders(Borders::ALL)
        .title(" map: a character per cell, the worst of its regions ");
    let map_inner = framed(map_block, map, buf);
    if let Some(r) = &v.report {
        if inner.height > 0 {
            let points = curve_points(r, usize::from(inner.width));
            Sparkline::default()
                .data(&points)
                .style(theme.graph())
                .render(inner, buf);
        }
        Paragraph::new(map_lines(r, map_inner.width, map_inner.height, theme))
            .render(map_inner, buf);
        Paragraph::new(legend(r, theme)).render(legend_row, buf);
        Paragraph::new(worst(r)).render(worst_row, buf);
    } else {
        Paragraph::new("waiting for the first reads…").render(map_inner, buf);
    }
    // What happened last first (paused, resumed, an error), else what the scan found.
    let said = v
        .message
        .clone()
        .map(|m| (m, theme.dim()))
        .or_else(|| v.findings.first().map(|f| (f.text.clone(), theme.warn())));
    if let Some((text, style)) = said {
        let line = super::hints::fit_message(Line::styled(text, style), message.width, theme);
        Paragraph::new(line).render(message, buf);
    }
}
