//! The fleet screen, drawn from `FleetScreen` alone: the header, the fleet's live IOPS as a
//! sparkline (the sum of the hosts' latest ETA figures, second by second), then one row per
//! host — its state while the fleet runs (connecting, running at a rate, done, failed with
//! the reason), and once every host has ended the final table: IOPS, MiB/s, mean and p99
//! latency, outliers marked — and a key line. Fits 80x24; a smaller terminal draws less.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline, Widget, Wrap};

use super::framed;
use super::panes::graph_block;
use crate::fleet::live::HostStatus;
use crate::render::hosts::{BelowMedianPct, host_table, outliers_line};
use crate::render::table::Tone;
use crate::tui::state::fleet::FleetScreen;
use crate::tui::widgets::Theme;
use crate::units::{format_count_rate, format_latency_ns};

impl Widget for &FleetScreen {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = Theme { color: self.color };
        let [top, graph, table, keys] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(if area.height >= 12 { 6 } else { 0 }),
            Constraint::Min(0),
            Constraint::Length(1),
        ])
        .areas(area);
        Paragraph::new(Line::styled(self.header.clone(), theme.accent())).render(top, buf);
        draw_graph(self, theme, graph, buf);
        let rows = match &self.report {
            Some(_) => final_rows(self, theme),
            None => live_rows(self, theme),
        };
        Paragraph::new(rows)
            .wrap(Wrap { trim: false })
            .render(table, buf);
        let hint = match (&self.report, self.stopping) {
            (Some(_), _) => "done · q quit (the table is printed again on exit)",
            (None, true) => "stopping the hosts … they still report",
            (None, false) => "q stop every host early (each still reports what it did)",
        };
        Paragraph::new(Line::styled(hint, theme.dim())).render(keys, buf);
        if self.ascii {
            super::to_ascii(area, buf);
        }
    }
}

fn draw_graph(s: &FleetScreen, theme: Theme, area: Rect, buf: &mut Buffer) {
    if area.height == 0 {
        return;
    }
    let b = &s.board;
    let (running, done, failed) = b.counts();
    let title = format!(
        " fleet {} IOPS now (sum of hosts' ETA) · {}s · {running} running {done} done {failed} failed ",
        format_count_rate(b.live_iops()),
        b.seconds
    );
    let inner = framed(graph_block(title, theme), area, buf);
    let n = inner.width as usize;
    let data: Vec<u64> = b.history[b.history.len().saturating_sub(n)..]
        .iter()
        .map(|v| *v as u64)
        .collect();
    Sparkline::default()
        .data(&data)
        .style(theme.graph())
        .render(inner, buf);
}

fn live_rows(s: &FleetScreen, theme: Theme) -> Vec<Line<'static>> {
    let width = label_width(s);
    let mut rows = vec![Line::styled(
        format!(
            "{:<width$} {:<11} {:>10} {:>6}",
            "host", "state", "IOPS now", "done"
        ),
        theme.dim(),
    )];
    for r in &s.board.rows {
        let (state, style) = match &r.status {
            HostStatus::Failed(_) => ("failed", theme.error()),
            HostStatus::Running(_) => ("running", theme.accent()),
            other => (other.word(), theme.dim()),
        };
        let (rate, pct) = match &r.status {
            HostStatus::Running(l) => (
                format_count_rate(l.iops),
                l.percent.map_or(String::new(), |p| format!("{p:.0}%")),
            ),
            _ => (String::new(), String::new()),
        };
        let mut spans = vec![
            Span::raw(format!("{:<width$} ", r.label)),
            Span::styled(format!("{state:<11}"), style),
            Span::raw(format!(" {rate:>10} {pct:>6}")),
        ];
        if let HostStatus::Failed(why) = &r.status {
            spans.push(Span::styled(format!(" {why}"), theme.error()));
        }
        rows.push(Line::from(spans));
    }
    rows
}

/// The host table (`render::hosts`, the one the text summary prints) at this screen's widths,
/// without the ops column, then the aggregate and the outliers.
fn final_rows(s: &FleetScreen, theme: Theme) -> Vec<Line<'static>> {
    let Some(r) = &s.report else {
        return vec![];
    };
    let a = &r.aggregate;
    let table = host_table(r);
    let widths = [label_width(s), 9, 8, 9, 9];
    let mut rows = vec![Line::styled(table.header(&widths), theme.dim())];
    for row in &table.rows {
        let text = table.row(row, &widths);
        let style = match row.tone {
            Tone::Plain => Style::new(),
            Tone::Warn => theme.warn(),
            Tone::Error => theme.error(),
        };
        rows.push(match row.note {
            Some(BelowMedianPct(p)) => Line::from(vec![
                Span::styled(text, style),
                Span::styled(format!(" outlier -{p:.0}%"), theme.warn()),
            ]),
            None if row.tone == Tone::Plain => Line::raw(text),
            None => Line::styled(text, style),
        });
    }
    rows.push(Line::styled(
        format!(
            "fleet {:.0} IOPS (sum of hosts) · mean {} · worst host p99 {}",
            a.iops,
            format_latency_ns(a.lat_mean_ns),
            a.worst_p99_ns.map_or("-".into(), format_latency_ns),
        ),
        theme.accent(),
    ));
    rows.push(Line::styled(outliers_line(r, "over"), theme.accent()));
    rows
}

fn label_width(s: &FleetScreen) -> usize {
    s.board
        .rows
        .iter()
        .map(|r| r.label.len())
        .max()
        .unwrap_or(4)
        .clamp(4, 24)
}
