//! The run screen's panes: the kernel's view, the IOPS, bandwidth and latency sparklines (a
//! mark where each period begins), the latency histogram and the thread table, each a titled
//! frame around a widget. The graphs' "peak" and "avg" are the current period's.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use super::graphs::{self, Rate};
use super::{framed, why};
use crate::tui::state::Run;
use crate::tui::widgets::Theme;
use crate::tui::widgets::heatmap::{self, Heatmap};
use crate::tui::widgets::histogram::LatencyHistogramView;
use crate::tui::widgets::kernel::KernelPanel;
use crate::tui::widgets::members::MembersPanel;
use crate::tui::widgets::threads::ThreadTable;
use crate::units::{format_bytes, format_count_rate, format_latency_ns};

pub(super) fn draw_kernel(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    let view = &run.kernel;
    if let (true, Some(device)) = (view.show_members, view.device.as_deref()) {
        let block = Block::bordered().title(Span::styled(
            format!(" {device} and its members, 1 s (m: back) "),
            theme.dim(),
        ));
        let inner = framed(block, area, buf);
        MembersPanel {
            device,
            kernel: view.kernel,
            members: &view.members,
            theme,
        }
        .render(inner, buf);
        return;
    }
    let title = if view.members.is_empty() {
        " kernel (/proc/diskstats) vs app, 1 s ".to_string()
    } else {
        format!(" kernel vs app, 1 s · m: {} members ", view.members.len())
    };
    let mut block = Block::bordered().title(Span::styled(title, theme.dim()));
    if let Some(h) = &run.why.health {
        block = block.title_bottom(Span::styled(format!(" {h} "), theme.dim()));
    }
    let inner = framed(block, area, buf);
    let temp = why::temp_row(&run.why, (inner.width as usize).saturating_sub(9));
    KernelPanel {
        view,
        theme,
        temp,
        trims: run.settings.trim_pct > 0,
    }
    .render(inner, buf);
}

/// Draws `line` in the first row of `area` when there is one and room for a graph below it;
/// returns the rows left.
fn first_row(area: Rect, line: Option<Line<'static>>, buf: &mut Buffer) -> Rect {
    match line {
        Some(l) if area.height >= 3 => {
            l.render(Rect { height: 1, ..area }, buf);
            Rect {
                y: area.y + 1,
                height: area.height - 1,
                ..area
            }
        }
        _ => area,
    }
}

pub(super) fn graph_block(title: String, theme: Theme) -> Block<'static> {
    Block::new()
        .borders(Borders::TOP)
        .title(Span::styled(title, theme.accent()))
}

/// A dimmed, right-aligned title naming the baseline's figure.
pub(super) fn baseline_title(text: Option<String>, theme: Theme) -> Option<Line<'static>> {
    text.map(|t| Line::styled(format!(" {t} "), theme.dim()).right_aligned())
}

pub(super) fn draw_iops(
    run: &Run,
    base: Option<crate::render::baseline::Figures>,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    // Now, peak and average all come from the same one-second windows of running time; the
    // peak and average are the current period's (none until it has a whole second).
    let seconds = &run.seconds;
    let rate = |v: Option<f64>| v.map_or_else(|| "-".into(), format_count_rate);
    let title = format!(
        " IOPS now {} · peak {} · avg {} ",
        rate(seconds.now.as_ref().map(|n| n.iops)),
        rate(seconds.avg_iops().map(|_| seconds.peak_iops)),
        rate(seconds.avg_iops())
    );
    let mut block = graph_block(title, theme);
    if let Some(t) = baseline_title(
        base.map(|b| format!("baseline {}", format_count_rate(b.iops))),
        theme,
    ) {
        block = block.title_top(t);
    }
    let inner = framed(block, area, buf);
    let inner = first_row(inner, Some(why::steady_line(run, theme)), buf);
    graphs::draw_rate(run, Rate::Iops, theme, inner, buf);
}

pub(super) fn draw_bw(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    let seconds = &run.seconds;
    let rate =
        |v: Option<f64>| v.map_or_else(|| "-".into(), |b| format!("{}/s", format_bytes(b as u64)));
    let block = graph_block(
        format!(
            " bandwidth now {} · avg {} {}",
            rate(seconds.now.as_ref().map(|n| n.bw_bytes_per_s)),
            rate(seconds.avg_bw()),
            why::ceiling_title(run)
        ),
        theme,
    );
    let inner = framed(block, area, buf);
    let inner = first_row(inner, why::written_line(run, theme), buf);
    graphs::draw_rate(run, Rate::Bandwidth, theme, inner, buf);
}

pub(super) fn draw_latency(
    run: &Run,
    base: Option<crate::render::baseline::Figures>,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let (p50, p99) = match run.seconds.now.as_ref().map(|n| n.latency) {
        Some(l) if l.count > 0 => (
            format_latency_ns(l.p50 as f64),
            format_latency_ns(l.p99 as f64),
        ),
        _ => ("-".to_string(), "-".to_string()),
    };
    // With a rate, from each I/O's slot on the timetable (coordinated omission corrected).
    let what = if run.settings.rate_iops > 0 {
        "lat from due"
    } else {
        "latency"
    };
    // Coarser than an interval a column's latency is its intervals' peak (`graphs`): the
    // title says so, as the gutter does where it has the room.
    let peaks = match run.zoom {
        crate::stats::timeline::Zoom::Interval => "",
        _ => "(peaks) ",
    };
    let title = format!(" {what} p99 {p99} ▲ p50 {p50} ▼ {peaks}");
    let mut block = graph_block(title, theme);
    if let Some(t) = baseline_title(
        base.map(|b| format!("baseline p99 {}", format_latency_ns(b.p99_ns))),
        theme,
    ) {
        block = block.title_top(t);
    }
    let inner = framed(block, area, buf);
    graphs::draw_latency(run, theme, inner, buf);
}

pub(super) fn draw_histogram(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    if run.show_heatmap {
        // The same columns as the graphs': as many as fit right of its labels.
        let cols = run.timeline.columns(
            run.zoom,
            area.width.saturating_sub(2 + heatmap::LABEL) as usize,
        );
        let what = if run.settings.rate_iops > 0 {
            "heatmap of latency from due"
        } else {
            "latency heatmap"
        };
        let title = format!(" {what}, {} (d) ", graphs::per_column(run.zoom, &cols));
        let block = Block::bordered().title(Span::styled(title, theme.accent()));
        let inner = framed(block, area, buf);
        Heatmap {
            columns: &cols.buckets,
            theme,
        }
        .render(inner, buf);
        return;
    }
    let title = if run.settings.rate_iops > 0 {
        " latency from due time, 2 s (d) "
    } else {
        " latency distribution, 2 s (d) "
    };
    let block = Block::bordered().title(Span::styled(title, theme.accent()));
    let inner = framed(block, area, buf);
    LatencyHistogramView {
        histogram: &run.latency,
        theme,
    }
    .render(inner, buf);
}

pub(super) fn draw_threads(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    let count = run
        .last
        .as_ref()
        .map_or(0, |s| s.threads.iter().filter(|t| t.active).count());
    let block = Block::bordered().title(Span::styled(
        format!(" threads: {count} active ([ ] scroll) "),
        theme.accent(),
    ));
    let inner = framed(block, area, buf);
    crate::tui::hits::record(inner, crate::tui::hits::Hit::Threads);
    ThreadTable {
        rows: run.seconds.now.as_ref().map(|n| n.threads.as_slice()),
        scroll: run.thread_scroll,
        theme,
    }
    .render(inner, buf);
}
