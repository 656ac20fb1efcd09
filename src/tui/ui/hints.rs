//! The two bottom lines every screen shares: the message line (an error, a notice, a
//! finding; one too long for the terminal is cut and says the log has it whole) and the hint
//! line under it, which no message displaces — `? help` first, `q quit` last, and between
//! them as many of the screen's feature keys as fit, all read from the screen's key table
//! (`keys::hints`).

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::tui::widgets::Theme;

/// What a cut message ends with: the log (`L`) has it whole.
pub const CUT: &str = "… L log";

/// The hint line from `(key, word)` entries: the help entry first, the last entry (quit)
/// always, and the others in order while they fit `width`.
pub(crate) fn hint_line(items: &[(String, &str)], width: u16, theme: Theme) -> Line<'static> {
    let mut items: Vec<&(String, &str)> = items.iter().collect();
    if let Some(i) = items.iter().position(|(k, _)| k == "?") {
        let help = items.remove(i);
        items.insert(0, help);
    }
    // Each entry after the first costs its two spaces before it too.
    let cost = |(k, w): &&(String, &str)| k.chars().count() + w.chars().count() + 3;
    let room = width as usize;
    let fixed: usize = match items.as_slice() {
        [] => 0,
        [one] => cost(one) - 2,
        [first, .., last] => cost(first) - 2 + cost(last),
    };
    let mut used = fixed;
    let mut keep = vec![false; items.len()];
    for (i, item) in items.iter().enumerate() {
        let last = i + 1 == items.len();
        if i == 0 || last {
            keep[i] = true;
        } else if used + cost(item) <= room {
            used += cost(item);
            keep[i] = true;
        }
    }
    let mut spans = Vec::new();
    for (item, _) in items.iter().zip(&keep).filter(|(_, k)| **k) {
        if !spans.is_empty() {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::styled(item.0.clone(), theme.accent()));
        spans.push(Span::styled(format!(" {}", item.1), theme.dim()));
    }
    Line::from(spans)
}

/// `line` as it fits `width`: whole when it does, else cut and ending in "… L log".
pub(crate) fn fit_message(line: Line<'static>, width: u16, theme: Theme) -> Line<'static> {
    let width = width as usize;
    if line.width() <= width {
        return line;
    }
    let style = line.spans.first().map_or(Style::new(), |s| s.style);
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let keep = width.saturating_sub(CUT.chars().count());
    let head: String = text.chars().take(keep).collect();
    Line::from(vec![
        Span::styled(head.trim_end().to_string(), style),
        Span::styled(CUT, theme.dim()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn help_goes_first_quit_stays_and_the_rest_fit() {
        let items: Vec<(String, &str)> = vec![
            ("s".into(), "sweep"),
            ("c".into(), "suite"),
            ("?".into(), "help"),
            ("q".into(), "quit"),
        ];
        let theme = Theme { color: false };
        assert_eq!(
            text(&hint_line(&items, 80, theme)),
            "? help  s sweep  c suite  q quit"
        );
        assert_eq!(
            text(&hint_line(&items, 24, theme)),
            "? help  s sweep  q quit"
        );
        assert_eq!(text(&hint_line(&items, 10, theme)), "? help  q quit");
    }

    #[test]
    fn a_long_message_is_cut_and_says_the_log_has_it() {
        let theme = Theme { color: false };
        let short = Line::raw("fits");
        assert_eq!(text(&fit_message(short, 10, theme)), "fits");
        let long = Line::raw("settling: range 45% of the mean (steady: within 20%)");
        let cut = text(&fit_message(long, 30, theme));
        assert_eq!(cut, "settling: range 45% of… L log");
        assert!(cut.chars().count() <= 30);
    }
}
