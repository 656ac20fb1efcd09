//! The suite view: the status line, the card — one row per test, read and write side by side
//! (median MB/s, IOPS, p99 and the passes' spread), filling in as passes finish, with what it
//! measured beyond the disk under it — then the live graphs of the pass under way, and a line
//! saying which pass runs (or the keys, once done). Fits 80x24.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Widget};

use super::framed;
use super::hints::fit_message;
use super::panes::draw_iops;
use super::run::{draw_panes, draw_run, run_baseline, shorten_middle, status_line};
use crate::render::baseline::Baseline;
use crate::render::card::mb;
use crate::suite::{Direction, TestResult};
use crate::tui::state::{Run, Series, SuiteRun};
use crate::tui::widgets::Theme;
use crate::units::{format_count_rate, format_latency_ns};

/// Width of one direction's cells.
const CELL: usize = 31;

/// The suite view, top to bottom.
pub(super) fn draw_suite(
    run: &Run,
    baseline: Option<&Baseline>,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let Some(suite) = &run.suite else {
        return draw_run(run, baseline, theme, area, buf);
    };
    if area.is_empty() {
        return;
    }
    let plan = suite.runner.plan();
    let what = Span::styled(
        format!(
            "suite {} ({}×{:.1}s) ",
            plan.suite.name(),
            plan.timing.passes,
            plan.timing.pass_time.as_secs_f64()
        ),
        theme.accent(),
    );
    status_line(run, theme, area.width, Some(what)).render(Rect { height: 1, ..area }, buf);
    if area.height < 3 {
        return;
    }
    let rows = card_lines(suite, theme, area.width.saturating_sub(2) as usize);
    let card_h = (rows.len() as u16 + 2).min(area.height - 2);
    let [card, graphs, message] = Layout::vertical([
        Constraint::Length(card_h),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(Rect {
        y: area.y + 1,
        height: area.height - 1,
        ..area
    });
    let title = Span::styled(
        " card: median of the passes, spread (max-min)/median ",
        theme.dim(),
    );
    let mut block = Block::bordered().title(title);
    if let Some(p) = progress(suite).filter(|_| run.notice.is_some() || run.message.is_some()) {
        // The message line has something else to say: the progress stays in sight here.
        block = block.title_bottom(Span::styled(format!(" {p} "), theme.warn()));
    }
    let inner = framed(block, card, buf);
    Paragraph::new(rows).render(inner, buf);
    message_line(run, suite, theme, message.width).render(message, buf);
    draw_graphs(run, baseline, theme, graphs, buf);
}

/// The live panes under the card: IOPS, bandwidth and latency beside the histogram and the
/// thread table; fewer on a small screen.
fn draw_graphs(run: &Run, baseline: Option<&Baseline>, theme: Theme, area: Rect, buf: &mut Buffer) {
    let base = run_baseline(baseline);
    if area.height < 3 {
        return;
    }
    if area.width < 60 || area.height < 8 {
        return draw_iops(run, base, theme, area, buf);
    }
    draw_panes(run, base, theme, [1, 1, 1], area, buf);
}

/// The card's header, a row per test and the notes (each cut to `width`, the log has them).
fn card_lines(suite: &SuiteRun, theme: Theme, width: usize) -> Vec<Line<'static>> {
    let cols = |dir: &str| {
        format!(
            "{:>8}{:>7}{:>9}{:>7}",
            format!("{dir} MB/s"),
            "IOPS",
            "p99",
            "spread"
        )
    };
    let mut lines = vec![Line::styled(
        format!("{:<14}{}  {}", "test", cols("R"), cols("W")),
        theme.dim(),
    )];
    let current = suite.runner.current().filter(|_| suite.running());
    let planned = suite.runner.plan().timing.passes;
    for (i, t) in suite.card().iter().enumerate() {
        let name = if t.iodepth_run != t.iodepth {
            format!("{} Q1", t.name)
        } else {
            t.name.clone()
        };
        let mut spans = vec![Span::raw(format!("{name:<14}"))];
        for d in [Direction::Read, Direction::Write] {
            let under_way = current.is_some_and(|p| p.test == i && p.direction == d);
            let text = cell(t, d, planned, under_way);
            let style = if under_way {
                theme.accent()
            } else if t.direction(d).is_err() {
                theme.dim()
            } else {
                ratatui::style::Style::new()
            };
            spans.push(Span::styled(text, style));
            if d == Direction::Read {
                spans.push(Span::raw("  "));
            }
        }
        lines.push(Line::from(spans));
    }
    // A note too long for the card is cut and says the log has it whole.
    for n in &suite.notes {
        let note = Line::styled(format!("note: {n}"), theme.warn());
        lines.push(fit_message(note, width as u16, theme));
    }
    lines
}

/// One direction's cell: median MB/s, IOPS, p99 (all passes' I/Os) and the passes' spread
/// as (max − min) / median of their MB/s — or, while fewer than the `planned` passes ran,
/// how many ("1 of 3", as the printed card says it); or why there are none.
fn cell(t: &TestResult, d: Direction, planned: usize, under_way: bool) -> String {
    match t.direction(d) {
        Ok(f) => format!(
            "{:>8}{:>7}{:>9}{:>7}",
            mb(f.mb_per_s.median),
            format_count_rate(f.iops.median),
            format_latency_ns(f.latency_ns.p99 as f64),
            if f.passes.len() < planned {
                format!("{} of {planned}", f.passes.len())
            } else {
                format!("{:.0}%", f.mb_per_s.width_pct())
            }
        ),
        Err(_) if under_way => format!("{:>CELL$}", "running…"),
        // Writing is decided when the TUI starts: the card's "add --allow-write=/dev/X",
        // shortened to fit its cell.
        Err(why) if why.contains("--allow-write") => {
            format!("{:>CELL$}", "not run: needs --allow-write")
        }
        Err(why) => format!("{:>CELL$}", shorten_middle(why, CELL)),
    }
}

/// "4k random read pass 2/3, measuring (5/24) · Esc cancels" while the suite runs.
fn progress(suite: &SuiteRun) -> Option<String> {
    let p = suite.runner.progress().filter(|_| suite.running())?;
    Some(format!(
        "{} {} pass {}/{}, {} ({}/{}) · Esc cancels",
        p.test,
        p.direction.name(),
        p.pass,
        p.of_passes,
        p.phase,
        p.done + 1,
        p.total
    ))
}

/// An error or notice (what `e` saved), which pass runs, or what Enter and Esc do.
fn message_line(run: &Run, suite: &SuiteRun, theme: Theme, width: u16) -> Line<'static> {
    let text = |s: String| shorten_middle(&s, width as usize);
    if let Some(m) = &run.message {
        return fit_message(Line::styled(m.clone(), theme.error()), width, theme);
    }
    if let Some(n) = &run.notice {
        return fit_message(Line::styled(n.clone(), theme.accent()), width, theme);
    }
    if let Some(p) = progress(suite) {
        return Line::styled(text(p), theme.warn());
    }
    Line::styled(
        text("the card: Enter/Esc back to the sliders (the run goes on)".into()),
        theme.dim(),
    )
}
