//! The disks screen, drawn from `Disks` alone: a status line, the sliders of every target on
//! one line, the aggregate (the last second's IOPS, bandwidth and p99 of all targets, and a
//! sparkline of their live sum), then a row per target — the live table `render::disks`
//! defines (name, IOPS now, MB/s, p99, %util, link, model), its outlier mark and a sparkline
//! of its IOPS second by second on one scale for all rows, so the slow one stands out (any
//! I/O at all shows at least the lowest bar) — scrolling to keep the selected row on screen;
//! the outliers named; a key line. Columns go as width runs short: the model first, then the
//! link. With a row opened, the target's own run screen (`run::draw_run`). Fits 80x24 with 24.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Sparkline, Widget};

use super::disks_sliders::slider_line;
use super::framed;
use crate::render::disks::live_table;
use crate::render::hosts::BelowMedianPct;
use crate::render::table::{Row as TableRow, Table, Tone};
use crate::render::text::describe_settings;
use crate::tui::state::disks::{Disks, Order};
use crate::tui::widgets::Theme;
use crate::units::{format_count_rate, format_duration, format_latency_ns};

/// Widths of the live table's four columns after the name: IOPS now, MB/s, p99, %util.
const FIGURES: [usize; 4] = [8, 7, 8, 5];
/// The outlier mark's column: "-38%".
const NOTE: usize = 5;
/// The narrowest sparkline worth drawing.
const MIN_SPARK: usize = 8;

pub(super) fn draw_disks(d: &Disks, theme: Theme, area: Rect, buf: &mut Buffer) {
    if area.is_empty() {
        return;
    }
    if let Some(run) = d.open.and_then(|i| d.rows.get(i)) {
        return super::run::draw_run(&run.run, None, theme, area, buf);
    }
    let graph_h = match area.height {
        h if h >= 30 => 7,
        h if h >= 16 => 4,
        _ => 0,
    };
    let [status, sliders, graph, table, outliers, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(graph_h),
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(area);
    status_line(d, theme, status.width).render(status, buf);
    slider_line(d, theme, sliders.width).render(sliders, buf);
    draw_aggregate(d, theme, graph, buf);
    let shown = draw_table(d, theme, table, buf);
    outliers_line(d, theme, outliers.width, shown).render(outliers, buf);
    super::hints::fit_message(key_line(d, theme), keys.width, theme).render(keys, buf);
}

/// The status line, fitted to `width`: the mode, then "? help", give way first.
fn status_line(d: &Disks, theme: Theme, width: u16) -> Line<'static> {
    let sep = || Span::styled("│ ", theme.dim());
    // (drop order: 1 goes first, then 2; 0 stays)
    let mut parts: Vec<(u8, Span<'static>)> = vec![
        (0, Span::styled("diskscope ", theme.accent())),
        (0, Span::raw(format!("{} targets ", d.rows.len()))),
        (0, sep()),
        (
            0,
            Span::raw(format!("{} on each ", describe_settings(&d.settings))),
        ),
        (2, Span::raw(format!("({}) ", d.mode))),
        (0, sep()),
        (0, Span::raw(format!("{} ", format_duration(d.elapsed)))),
        (0, sep()),
        (
            0,
            Span::styled(
                format!("errors {} ", d.errors),
                if d.errors > 0 {
                    theme.error()
                } else {
                    Style::new()
                },
            ),
        ),
    ];
    if d.stopping {
        parts.push((0, Span::styled("│ STOPPING ", theme.warn())));
    } else if d.paused {
        let style = theme
            .warn()
            .add_modifier(ratatui::style::Modifier::REVERSED);
        parts.push((0, Span::styled("│ PAUSED ", style)));
    }
    parts.push((1, Span::styled("│ ? help", theme.dim())));
    fit(parts, width)
}

/// The spans that fit `width`, those of drop order 1, then 2, left out first.
pub(super) fn fit(mut parts: Vec<(u8, Span<'static>)>, width: u16) -> Line<'static> {
    for level in 1..=2 {
        let used: usize = parts.iter().map(|(_, s)| s.width()).sum();
        if used <= width as usize {
            break;
        }
        parts.retain(|(l, _)| *l != level);
    }
    Line::from(parts.into_iter().map(|(_, s)| s).collect::<Vec<_>>())
}

/// The aggregate: the last second's figures in the title, the live sum as a sparkline.
fn draw_aggregate(d: &Disks, theme: Theme, area: Rect, buf: &mut Buffer) {
    if area.height < 3 {
        return;
    }
    let title = match &d.now {
        Some(a) => format!(
            " all {}: {} IOPS · {} · p99 {} (last second) ",
            d.rows.len(),
            format_count_rate(a.iops),
            crate::findings::words::bytes_per_s(a.bw_bytes_per_s),
            format_latency_ns(a.latency_ns.p99 as f64)
        ),
        None => format!(" all {}: waiting for the first second ", d.rows.len()),
    };
    let block = Block::bordered().title(Span::styled(title, theme.accent()));
    let inner = framed(block, area, buf);
    let n = inner.width as usize;
    let h = &d.sum_history;
    let data: Vec<u64> = h.iter().skip(h.len().saturating_sub(n)).copied().collect();
    Sparkline::default()
        .data(&data)
        .style(theme.graph())
        .render(inner, buf);
}

/// The widths of the name, the optional link and model columns and the sparkline in `width`.
fn layout(d: &Disks, width: usize) -> (usize, Option<usize>, Option<usize>, usize) {
    let longest = |f: &dyn Fn(usize) -> usize, header: usize, cap: usize| {
        (0..d.rows.len())
            .map(f)
            .max()
            .unwrap_or(0)
            .max(header)
            .min(cap)
    };
    let name = longest(&|i| d.rows[i].id.name.chars().count(), 6, 20);
    let link = longest(
        &|i| d.rows[i].id.link.as_ref().map_or(1, |l| l.chars().count()),
        4,
        24,
    );
    let model = longest(
        &|i| d.rows[i].id.model.as_ref().map_or(0, |m| m.chars().count()),
        5,
        24,
    );
    let fixed = name + 1 + FIGURES.iter().map(|w| w + 1).sum::<usize>() + NOTE + 1;
    let rest = width.saturating_sub(fixed);
    if rest >= MIN_SPARK + 1 + link + 1 + model {
        (name, Some(link), Some(model), rest - link - model - 2)
    } else if rest >= MIN_SPARK + 1 + link {
        (name, Some(link), None, rest - link - 1)
    } else {
        (name, None, None, rest)
    }
}

/// The table; returns (first row shown, rows shown).
fn draw_table(d: &Disks, theme: Theme, area: Rect, buf: &mut Buffer) -> (usize, usize) {
    if area.height < 2 {
        return (0, 0);
    }
    let width = area.width as usize;
    let (name_w, link_w, model_w, spark_w) = layout(d, width);
    let widths = [name_w, FIGURES[0], FIGURES[1], FIGURES[2], FIGURES[3]];
    let table = live_table(&d.live_rows());
    let order = match (d.order, spark_w) {
        (Order::SlowestFirst, w) if w >= 25 => "IOPS/s, slowest first (o)",
        (Order::Given, w) if w >= 25 => "IOPS/s (o: slowest first)",
        (Order::SlowestFirst, w) if w >= 15 => "IOPS/s, slowest",
        _ => "IOPS/s",
    };
    let order: String = order.chars().take(spark_w).collect();
    let mut header = format!(
        "{} {:<NOTE$} {:<spark_w$}",
        table.header(&widths),
        "",
        order
    );
    for (w, i) in [(link_w, 5), (model_w, 6)] {
        if let Some(w) = w {
            header.push_str(&format!(" {:<w$}", table.columns[i].header));
        }
    }
    buf.set_stringn(area.x, area.y, &header, width, theme.dim());
    let visible = area.height as usize - 1;
    let start = d.selected.saturating_sub(visible.saturating_sub(1));
    let order = d.order();
    // One scale for every row's sparkline: the slow one's line sits lower.
    let scale = d
        .rows
        .iter()
        .flat_map(|r| r.history.iter().rev().take(spark_w))
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    for (shown, row) in table.rows.iter().enumerate().skip(start).take(visible) {
        let y = area.y + 1 + (shown - start) as u16;
        let history = &d.rows[order[shown]].history;
        let cols = Columns {
            widths: &widths,
            link: link_w,
            model: model_w,
            spark: spark_w,
            scale,
            theme,
        };
        draw_row(
            &table,
            row,
            history,
            shown == d.selected,
            &cols,
            Rect {
                y,
                height: 1,
                ..area
            },
            buf,
        );
    }
    (start, (table.rows.len() - start).min(visible))
}

/// The widths a row is drawn at.
struct Columns<'a> {
    /// The name and figures.
    widths: &'a [usize],
    link: Option<usize>,
    model: Option<usize>,
    spark: usize,
    /// The sparklines' common top.
    scale: u64,
    theme: Theme,
}

/// One target's row: its cells and outlier mark, its sparkline, its link and model.
fn draw_row(
    table: &Table<BelowMedianPct>,
    row: &TableRow<BelowMedianPct>,
    history: &std::collections::VecDeque<u64>,
    selected: bool,
    cols: &Columns,
    area: Rect,
    buf: &mut Buffer,
) {
    let theme = cols.theme;
    let width = area.width as usize;
    let mut style = match row.tone {
        Tone::Warn => theme.warn(),
        Tone::Error => theme.error(),
        Tone::Plain => Style::new(),
    };
    if selected {
        style = style.patch(theme.selected());
    }
    let note = row.note.map_or(String::new(), |n| format!("-{:.0}%", n.0));
    let text = format!("{} {note:>NOTE$} ", table.row(row, cols.widths));
    let x = area.x + text.chars().count() as u16;
    buf.set_stringn(area.x, area.y, &text, width, style);
    let spark = Rect {
        x,
        width: (cols.spark as u16).min((area.x + area.width).saturating_sub(x)),
        ..area
    };
    // A second with any I/O at all shows at least the lowest bar: on one scale with disks
    // ten times faster, the slow one's line would otherwise vanish as if it did nothing.
    let floor = cols.scale.div_ceil(8);
    let data: Vec<u64> = history
        .iter()
        .skip(history.len().saturating_sub(cols.spark))
        .map(|&v| if v > 0 { v.max(floor) } else { 0 })
        .collect();
    Sparkline::default()
        .data(&data)
        .max(cols.scale)
        .style(theme.graph())
        .render(spark, buf);
    let mut tail = String::new();
    for (w, i) in [(cols.link, 5), (cols.model, 6)] {
        if let Some(w) = w {
            let cell: String = row.cells[i].chars().take(w).collect();
            tail.push_str(&format!(" {cell:<w$}"));
        }
    }
    let tx = spark.x + spark.width;
    let room = (area.x + area.width).saturating_sub(tx) as usize;
    buf.set_stringn(tx, area.y, &tail, room, style);
}

/// "outliers (over 20% below the median 9.8k IOPS, last 5 s): sdf 38% below the median of
/// 12", shorter on a narrow screen, with where the table is when it scrolls.
fn outliers_line(
    d: &Disks,
    theme: Theme,
    width: u16,
    (start, shown): (usize, usize),
) -> Line<'static> {
    let named = d.outliers();
    let mut spans = Vec::new();
    if shown < d.rows.len() {
        spans.push(Span::styled(
            format!(
                "rows {}–{} of {} · ",
                start + 1,
                start + shown,
                d.rows.len()
            ),
            theme.dim(),
        ));
    }
    let window = crate::findings::thresholds::OUTLIER_WINDOW_S;
    let names = if named.is_empty() {
        "none".to_string()
    } else {
        named.join(", ")
    };
    let long = format!(
        "outliers (over {:.0}% below the median {} IOPS, last {window} s): ",
        d.outlier_pct,
        format_count_rate(d.median_iops)
    );
    let used: usize = spans.iter().map(Span::width).sum();
    let head = if used + long.chars().count() + names.chars().count() <= width as usize {
        long
    } else {
        "outliers: ".to_string()
    };
    spans.push(Span::styled(head, theme.dim()));
    spans.push(if named.is_empty() {
        Span::raw(names)
    } else {
        Span::styled(names, theme.warn())
    });
    Line::from(spans)
}

fn key_line(d: &Disks, theme: Theme) -> Line<'static> {
    match &d.message {
        Some(m) => Line::styled(m.clone(), theme.error()),
        None => Line::styled(
            "↑↓ choose · Tab ←→ sliders on every target · r reset statistics",
            theme.dim(),
        ),
    }
}
