//! What is drawn over any screen: the help (every key, read from the screens' key tables)
//! and the fio equivalent of the current settings.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

use super::centered;
use crate::tui::keys;
use crate::tui::state::{App, FioOverlay};
use crate::tui::widgets::Theme;

pub(super) fn draw_fio(f: &FioOverlay, theme: Theme, area: Rect, buf: &mut Buffer) {
    let mut lines = vec![
        Line::styled("command line:", theme.accent()),
        Line::raw(f.command_line.clone()),
        Line::raw(""),
        Line::styled("job file (fio diskscope.fio):", theme.accent()),
    ];
    lines.extend(f.job_file.lines().map(|l| Line::raw(l.to_string())));
    let r = centered(area, 100, lines.len() as u16 + 6);
    Clear.render(r, buf);
    Paragraph::new(lines)
        .wrap(Wrap { trim: false })
        .block(Block::bordered().title(Span::styled(
            " fio equivalent of the current settings (any key closes) ",
            theme.accent(),
        )))
        .render(r, buf);
}

/// The keys of the screen showing, a row each (from the same tables the keys are handled
/// with: `keys::help`), then every other screen's keys a line each, wrapped, as far as the
/// terminal's height allows.
pub(super) fn draw_help(app: &App, theme: Theme, area: Rect, buf: &mut Buffer) {
    let (here, elsewhere) = keys::help(app);
    let pad = here
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    let width = area.width.saturating_sub(4).clamp(76.min(area.width), 100);
    let inner = usize::from(width.saturating_sub(2)).max(1);
    let rows: Vec<Line> = here
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!("{k:<pad$}"), theme.accent()),
                Span::raw(*what),
            ])
        })
        .collect();
    let wrapped: usize = elsewhere
        .iter()
        .map(|l| l.chars().count().div_ceil(inner))
        .sum();
    let others: Vec<Line> = elsewhere
        .iter()
        .map(|other| {
            let (name, keys) = other.split_once(": ").unwrap_or(("", other));
            Line::from(vec![
                Span::styled(format!("{name}: "), theme.dim()),
                Span::raw(keys.to_string()),
            ])
        })
        .collect();
    let r = centered(area, width, (rows.len() + wrapped) as u16 + 2);
    Clear.render(r, buf);
    let block = Block::bordered().title(" keys (any key closes) ");
    let body = block.inner(r);
    block.render(r, buf);
    let top = Rect {
        height: body.height.min(rows.len() as u16),
        ..body
    };
    Paragraph::new(rows).render(top, buf);
    let rest = Rect {
        y: top.bottom(),
        height: body.height - top.height,
        ..body
    };
    Paragraph::new(others)
        .wrap(Wrap { trim: false })
        .render(rest, buf);
}
