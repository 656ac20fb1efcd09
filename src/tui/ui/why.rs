//! The run screen's words of why, each a small pure function of the run's state so the panes
//! only place them: the steady mark and the link in the status line, the steady line atop
//! the IOPS graph, the link's ceiling in the bandwidth pane's title and the bytes written
//! under it, the temperature row of the kernel pane with its last minute, and the newest
//! finding for the message line.

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::findings::words::{bytes_per_s, celsius, clock};
use crate::tui::state::{Run, WhyView};
use crate::tui::widgets::Theme;
use crate::units::format_bytes;

/// The most readings the temperature row draws (its last half minute).
const TEMP_GRAPH_MAX: usize = 30;

/// The status line's mark: "steady" while the check is met, else "settling" (dimmed, the
/// first to go when the line is short).
pub(super) fn steady_mark(run: &Run, theme: Theme) -> (u8, Span<'static>) {
    if run.why.steady() {
        let style = theme.accent().add_modifier(Modifier::BOLD);
        (0, Span::styled("│ steady ", style))
    } else {
        (1, Span::styled("│ settling ", theme.dim()))
    }
}

/// The link's label for the status line ("PCIe 3.0 x2 (of 4.0 x4)"); none when unread.
pub(super) fn link_part(run: &Run) -> Option<String> {
    let label = &run.why.link_label;
    (!label.is_empty() && label != "?").then(|| format!("│ {label} "))
}

/// "steady since 0:42 (5 × 2 s within ±7%, slope 3%)", or the check's "settling: …" line.
pub(super) fn steady_line(run: &Run, theme: Theme) -> Line<'static> {
    let r = &run.why.report;
    match &r.steady_state {
        Some(s) if s.reached => {
            let text = format!(
                "steady since {} ({} × {} s within ±{}%, slope {}%)",
                clock(s.since_s.unwrap_or(0.0)),
                s.rounds,
                s.round_s,
                pct(s.excursion_pct.unwrap_or(0.0) / 2.0),
                pct(s.slope_pct.unwrap_or(0.0))
            );
            Line::styled(text, theme.accent())
        }
        _ => Line::styled(
            r.steady_text.clone().unwrap_or_else(|| "settling".into()),
            theme.dim(),
        ),
    }
}

/// A small share with one decimal ("0.4"), a larger one whole ("7").
fn pct(v: f64) -> String {
    if v < 1.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.0}")
    }
}

/// " of 1.97 GB/s link" for the bandwidth pane's title, where the link has a ceiling.
pub(super) fn ceiling_title(run: &Run) -> String {
    run.why
        .ceiling_bytes_per_s
        .map(|c| format!("· of {} link ", bytes_per_s(c as f64)))
        .unwrap_or_default()
}

/// "written 38.2 GiB" while anything has been written.
pub(super) fn written_line(run: &Run, theme: Theme) -> Option<Line<'static>> {
    let w = run.why.written_bytes;
    (w > 0).then(|| Line::styled(format!("written {}", format_bytes(w)), theme.dim()))
}

/// The newest finding, for the message line.
pub(super) fn finding_line(run: &Run, theme: Theme) -> Option<Line<'static>> {
    let f = run.why.latest.as_ref()?;
    Some(Line::styled(format!("why: {}", f.text), theme.warn()))
}

/// The kernel pane's temperature row, `width` columns after its label: "71 °C (warn 80)" and
/// the last readings as a small graph, or why there is no temperature (said there once,
/// never as 0 °C).
pub(super) fn temp_row(why: &WhyView, width: usize) -> (String, String) {
    if let Some(reason) = &why.no_sensor {
        // The reason where it fits, else the plain fact; the summary and JSON keep the whole.
        let text = if reason.chars().count() <= width {
            reason.clone()
        } else {
            "no temperature sensor".to_string()
        };
        return (text, String::new());
    }
    let now = match (why.temp_c, why.warn_c) {
        (Some(t), Some(w)) => format!("{} (warn {w:.0})", celsius(t)),
        (Some(t), None) => celsius(t),
        (None, _) => "not read".into(),
    };
    // One string over both columns: the reading, then as much of the last minute as fits.
    let room = width
        .saturating_sub(now.chars().count() + 2)
        .min(TEMP_GRAPH_MAX);
    (format!("{now}  {}", history(why, room)), String::new())
}

/// The last `width` readings as eighth blocks between their own low and high (a range of at
/// least 5 °C, so a steady drive draws a flat line); a failed read is a blank.
fn history(why: &WhyView, width: usize) -> String {
    const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let recent: Vec<Option<f64>> = why
        .temps
        .iter()
        .skip(why.temps.len().saturating_sub(width))
        .copied()
        .collect();
    let known = recent.iter().flatten();
    let lo = known.clone().copied().fold(f64::MAX, f64::min);
    let hi = known.copied().fold(f64::MIN, f64::max).max(lo + 5.0);
    recent
        .iter()
        .map(|t| match t {
            Some(t) => BLOCKS[(((t - lo) / (hi - lo)) * 7.0).round().clamp(0.0, 7.0) as usize],
            None => ' ',
        })
        .collect()
}
