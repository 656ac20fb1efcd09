//! The fleet screen, drawn from `FleetScreen` alone: the header, the fleet's live IOPS as a
//! sparkline (the sum of the hosts' latest ETA figures, second by second), then one row per
//! host — its state while the fleet runs (connecting, running at a rate, done, failed with
//! the reason), and once every host has ended the final table: IOPS, MiB/s, mean and p99
//! latency, outliers marked — and a key line. Fits 80x24; a smaller terminal draws less.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Sparkline, Widget, Wrap};

use super::framed;
use super::panes::graph_block;
use crate::fleet::live::HostStatus;
use crate::fleet::results::HostState;
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

fn final_rows(s: &FleetScreen, theme: Theme) -> Vec<Line<'static>> {
    let Some(r) = &s.report else {
        return vec![];
    };
    let width = label_width(s);
    let a = &r.aggregate;
    let mut rows = vec![Line::styled(
        format!(
            "{:<width$} {:>9} {:>8} {:>9} {:>9}",
            "host", "IOPS", "MiB/s", "mean lat", "p99 lat"
        ),
        theme.dim(),
    )];
    for h in &r.hosts {
        let name = crate::fleet::hosts::Host {
            name: h.host.clone(),
            port: h.port,
        }
        .label();
        let line = match (h.state, h.total) {
            (HostState::Done, Some(t)) => {
                let row = format!(
                    "{name:<width$} {:>9.0} {:>8.1} {:>9} {:>9}",
                    t.iops,
                    t.bw_bytes_per_s / (1 << 20) as f64,
                    format_latency_ns(t.lat_mean_ns),
                    t.lat_p99_ns.map_or("-".into(), format_latency_ns)
                );
                if h.outlier {
                    Line::from(vec![
                        Span::styled(row, theme.warn()),
                        Span::styled(
                            format!(" outlier -{:.0}%", (1.0 - t.iops / a.median_iops) * 100.0),
                            theme.warn(),
                        ),
                    ])
                } else {
                    Line::raw(row)
                }
            }
            (HostState::Done, None) => Line::raw(format!("{name:<width$} did no I/O")),
            (HostState::Failed, _) => Line::styled(
                format!(
                    "{name:<width$} failed: {}",
                    h.reason.as_deref().unwrap_or("?")
                ),
                theme.error(),
            ),
        };
        rows.push(line);
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
    rows.push(Line::styled(
        format!(
            "outliers (over {:.0}% below the median {:.0} IOPS): {}",
            r.fleet.outlier_pct,
            a.median_iops,
            if r.outliers.is_empty() {
                "none".to_string()
            } else {
                r.outliers.join(", ")
            }
        ),
        theme.accent(),
    ));
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
