//! What is drawn over any screen: the help (every key, read from the screens' key tables)
//! and the fio equivalent of the current settings. Both are wrapped to the box and scroll
//! (↑ ↓ PgUp PgDn, from `App::overlay_scroll`) when they are taller than the terminal, so
//! every line can be read at 80x24; the box says so, and which lines it shows.

use ratatui::buffer::Buffer;
use ratatui::layout::{Rect, Size};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget};

use super::centered;
use crate::tui::keys;
use crate::tui::state::{App, FioOverlay};
use crate::tui::widgets::Theme;

/// The overlay's box in a terminal of `area`: at most 100 wide, 2 columns spare each side
/// when it can, as tall as its lines and the terminal allow.
fn box_in(area: Rect, lines: usize) -> Rect {
    let width = area.width.saturating_sub(4).clamp(76.min(area.width), 100);
    let height = u16::try_from(lines + 2).unwrap_or(u16::MAX);
    centered(area, width, height)
}

/// The columns inside a box in `area` (its borders off).
fn inner_width(area: Rect) -> usize {
    usize::from(box_in(area, 0).width.saturating_sub(2)).max(1)
}

/// `text` cut into lines of at most `width` characters at spaces; a word longer than a line
/// is cut where the line ends.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let line = lines.last_mut().expect("never empty");
            let used = line.chars().count();
            let gap = usize::from(used > 0);
            if used + gap + word.len() <= width {
                if gap == 1 {
                    line.push(' ');
                }
                line.extend(word.iter());
                break;
            }
            if used > 0 {
                lines.push(String::new());
                continue;
            }
            let rest = word.split_off(width);
            line.extend(word.iter());
            word = rest;
            lines.push(String::new());
        }
    }
    lines
}

/// `head` then `text` wrapped to `width`, the lines after the first indented by `indent`.
fn hanging(head: Span<'static>, text: &str, indent: usize, width: usize) -> Vec<Line<'static>> {
    let room = width.saturating_sub(indent).max(8);
    wrap(text, room)
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let lead = if i == 0 {
                head.clone()
            } else {
                Span::raw(" ".repeat(indent))
            };
            Line::from(vec![lead, Span::raw(part)])
        })
        .collect()
}

/// The help at `width` columns: the keys of the screen showing, a row each with the help
/// wrapped beside its keys, then every other screen's keys, wrapped.
pub fn help_lines(app: &App, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let (here, elsewhere) = keys::help(app);
    let longest = here
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0);
    // Keys beside their help when that leaves room for it, else above it.
    let pad = (longest + 2).min(width / 2);
    let mut lines = Vec::new();
    for (k, what) in &here {
        let label = k.chars().count();
        if label + 2 > pad {
            lines.push(Line::styled(k.clone(), theme.accent()));
            lines.extend(hanging(Span::raw(" ".repeat(pad)), what, pad, width));
        } else {
            let head = Span::styled(format!("{k:<pad$}"), theme.accent());
            lines.extend(hanging(head, what, pad, width));
        }
    }
    for other in &elsewhere {
        // The screen's name, its keys after it, and what does not fit indented by two.
        let (name, keys) = other.split_once(": ").unwrap_or(("", other));
        let room = width.saturating_sub(name.chars().count() + 2).max(8);
        let mut parts = wrap(keys, room).into_iter();
        let first = parts.next().unwrap_or_default();
        let head = Span::styled(format!("{name}: "), theme.dim());
        lines.push(Line::from(vec![head, Span::raw(first)]));
        let rest = parts.collect::<Vec<_>>().join(" ");
        if !rest.is_empty() {
            lines.extend(hanging(Span::raw("  "), &rest, 2, width));
        }
    }
    lines
}

/// The fio job at `width` columns.
fn fio_lines(f: &FioOverlay, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled("command line:", theme.accent())];
    lines.extend(wrap(&f.command_line, width).into_iter().map(Line::raw));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "job file (fio diskscope.fio):",
        theme.accent(),
    ));
    for l in f.job_file.lines() {
        lines.extend(wrap(l, width).into_iter().map(Line::raw));
    }
    lines
}

/// The message log at `width` columns: each message whole, after its time on the run's clock.
fn log_lines(app: &App, theme: Theme, width: usize) -> Vec<Line<'static>> {
    if app.log.entries.is_empty() {
        return vec![Line::styled("no messages yet", theme.dim())];
    }
    let mut lines = Vec::new();
    for e in &app.log.entries {
        let at = e.at.map_or_else(
            || "     -".to_string(),
            |t| format!("{:>6}", crate::units::format_duration(t)),
        );
        let head = Span::styled(format!("{at}  "), theme.dim());
        lines.extend(hanging(head, &e.text, 8, width));
    }
    lines
}

/// The overlay showing, if any: its title and its lines for a terminal of `area`.
fn overlay(app: &App, theme: Theme, area: Rect) -> Option<(&'static str, Vec<Line<'static>>)> {
    let width = inner_width(area);
    if app.log_shown {
        let title = " messages, newest last: ↑ ↓ PgUp PgDn scroll, any other key closes ";
        Some((title, log_lines(app, theme, width)))
    } else if app.help {
        let title = " keys: ↑ ↓ PgUp PgDn scroll, any other key closes ";
        Some((title, help_lines(app, theme, width)))
    } else {
        let title = " fio job of these settings: ↑ ↓ PgUp PgDn scroll, other keys close ";
        app.fio
            .as_ref()
            .map(|f| (title, fio_lines(f, theme, width)))
    }
}

/// How far the overlay showing can scroll in the terminal the last draw had, and a page.
pub fn scroll_range(app: &App) -> (usize, usize) {
    let Size { width, height } = app.viewport;
    let area = Rect::new(0, 0, width, height);
    let Some((_, lines)) = overlay(app, Theme { color: false }, area) else {
        return (0, 0);
    };
    let shown = usize::from(box_in(area, lines.len()).height.saturating_sub(2)).max(1);
    (lines.len().saturating_sub(shown), shown)
}

/// Draws the help or the fio job over the screen, from its scrolled-to line.
pub(super) fn draw_overlay(app: &App, theme: Theme, area: Rect, buf: &mut Buffer) {
    let Some((title, lines)) = overlay(app, theme, area) else {
        return;
    };
    let r = box_in(area, lines.len());
    let shown = usize::from(r.height.saturating_sub(2));
    let first = app.overlay_scroll.min(lines.len().saturating_sub(shown));
    let mut block = Block::bordered().title(Span::styled(title, theme.accent()));
    if lines.len() > shown {
        let last = (first + shown).min(lines.len());
        block = block.title_bottom(format!(" lines {}-{last} of {} ", first + 1, lines.len()));
    }
    Clear.render(r, buf);
    let visible: Vec<Line> = lines.into_iter().skip(first).take(shown).collect();
    Paragraph::new(visible).block(block).render(r, buf);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_cuts_at_spaces_and_long_words_at_the_edge() {
        assert_eq!(wrap("a bb ccc", 4), ["a bb", "ccc"]);
        assert_eq!(wrap("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap("", 4), [""]);
        assert!(
            wrap("one two three four five", 9)
                .iter()
                .all(|l| l.chars().count() <= 9)
        );
    }
}
