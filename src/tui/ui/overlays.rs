//! What is drawn over any screen: the help (every key) and the fio equivalent of the current
//! settings.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Widget, Wrap};

use super::centered;
use crate::tui::state::FioOverlay;
use crate::tui::widgets::Theme;

/// Every key, for the help overlay.
pub const HELP: &[(&str, &str)] = &[
    ("Tab ↑ ↓ j k", "move between sliders"),
    (
        "← → h l",
        "threads/depth/block size: halve/double; %: one step; rate: 1-2-5 ladder",
    ),
    (
        "+ -",
        "threads/depth: one more/fewer; rate: a tenth; others: one step",
    ),
    ("space", "pause / resume"),
    ("r", "reset the statistics"),
    ("[ ] PgUp PgDn", "scroll the thread table"),
    ("m", "md/dm target: its member disks in the kernel pane"),
    (
        "d",
        "latency distribution / heatmap (░ ≤5% ▒ ≤25% ▓ ≤60% █ of a second's I/Os)",
    ),
    (
        "s t / s b / s q",
        "sweep threads 1..64 / block size 512..4M / depth 1..256",
    ),
    ("s r", "latency vs load: unlimited, then 10..100% of it"),
    ("Esc (sweeping)", "cancel the sweep; the run goes on"),
    ("c", "run the standard suite: the card (Esc cancels)"),
    ("v", "show the last sweep's chart (Enter/Esc: back)"),
    ("e", "save the run, or the last sweep, as diskscope-*.json"),
    ("f", "the fio command line and job file for these settings"),
    ("?", "this help (any key closes)"),
    ("q Esc Ctrl-C", "quit and print the summary"),
    ("Ctrl-Z", "suspend (fg resumes)"),
    ("picker: ↑ ↓ j k", "choose; Enter starts"),
    (
        "write confirm",
        "type the device's path + Enter; Esc: read-only",
    ),
];

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

pub(super) fn draw_help(theme: Theme, area: Rect, buf: &mut Buffer) {
    let r = centered(area, 76, HELP.len() as u16 + 2);
    Clear.render(r, buf);
    let lines: Vec<Line> = HELP
        .iter()
        .map(|(k, what)| {
            Line::from(vec![
                Span::styled(format!("{k:<16}"), theme.accent()),
                Span::raw(*what),
            ])
        })
        .collect();
    Paragraph::new(lines)
        .block(Block::bordered().title(" keys "))
        .render(r, buf);
}
