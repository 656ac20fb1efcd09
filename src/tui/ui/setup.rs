//! The screens before a run: the target picker, the write confirmation for a block device,
//! and the scratch file's layout (or the target's opening).

use super::hints::fit_message;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Gauge, Paragraph, Widget, Wrap};

use super::centered;
use crate::tui::state::{Confirm, Picker, Preparing};
use crate::tui::widgets::Theme;
use crate::tui::widgets::picker::PickerTable;
use crate::units::format_bytes;

pub(super) fn draw_confirm(c: &Confirm, theme: Theme, area: Rect, buf: &mut Buffer) {
    if area.is_empty() {
        return;
    }
    let device = c.device.display();
    let mut lines = vec![
        Line::raw(format!(
            "Writing destroys the data on {device}. Type its path to allow writes, or Esc to run read-only:"
        )),
        Line::raw(""),
        Line::styled(format!("> {}█", c.input), theme.accent()),
        Line::raw(""),
    ];
    if let Some(m) = &c.message {
        lines.push(Line::styled(m.clone(), theme.error()));
        lines.push(Line::raw(""));
    }
    lines.push(Line::styled(
        "Enter confirms · Esc runs read-only (read % stays 100) · Ctrl-C quits",
        theme.dim(),
    ));
    let r = centered(area, 76, 14);
    Clear.render(r, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(Span::styled(
            format!(" allow writes to {device}? "),
            theme.warn(),
        )))
        .render(r, buf);
}

pub(super) fn draw_picker(p: &Picker, theme: Theme, area: Rect, buf: &mut Buffer) {
    if area.is_empty() {
        return;
    }
    let [title, body, message] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    Line::from(vec![
        Span::styled("diskscope", theme.accent()),
        Span::raw(" — pick a target: ↑↓/jk move, Enter starts, q quits"),
    ])
    .render(title, buf);
    PickerTable { picker: p, theme }.render(body, buf);
    if let Some(m) = &p.message {
        let line = Line::styled(m.clone(), theme.error());
        fit_message(line, message.width, theme).render(message, buf);
    } else if !p.marked.is_empty() {
        let n = p.marked.len();
        Line::styled(
            format!(
                "{n} marked: Enter starts on {} · space unmarks",
                if n == 1 { "it" } else { "all of them at once" }
            ),
            theme.accent(),
        )
        .render(message, buf);
    } else if let Some(n) = &p.notice {
        let line = Line::styled(n.clone(), theme.accent());
        fit_message(line, message.width, theme).render(message, buf);
    } else {
        Line::styled("reads only unless started with --allow-write", theme.dim())
            .render(message, buf);
    }
}

pub(super) fn draw_preparing(p: &Preparing, theme: Theme, area: Rect, buf: &mut Buffer) {
    if area.is_empty() {
        return;
    }
    let h = area.height.min(3);
    let y = area.y + (area.height - h) / 2;
    let box_area = Rect {
        x: area.x,
        y,
        width: area.width,
        height: h,
    };
    let ratio = if p.total > 0 {
        (p.done as f64 / p.total as f64).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let label = if p.total > 0 {
        format!("{} of {}", format_bytes(p.done), format_bytes(p.total))
    } else {
        "opening…".to_string()
    };
    let block = Block::new()
        .borders(Borders::ALL)
        .title(format!(" preparing {} (q cancels) ", p.label));
    Gauge::default()
        .block(block)
        .gauge_style(theme.graph())
        .ratio(ratio)
        .label(label)
        .render(box_area, buf);
}
