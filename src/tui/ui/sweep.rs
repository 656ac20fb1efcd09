//! The sweep view: the status line, the chart's legend, the chart (with the baseline's sweep
//! dimmed beside it), the saturation sentence, the iops(1)-style table and the key line.
//! The lines are prepared first (`SweepLines`), then laid out.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::hints::fit_message;
use super::run::{draw_run, status_line, sweep_progress};
use crate::render::baseline::Baseline;
use crate::render::compare::compare_step;
use crate::render::sweep::{step_header, step_line, step_sides_line};
use crate::sweep::Dimension;
use crate::tui::state::{Run, SweepRun, SweepState};
use crate::tui::widgets::Theme;
use crate::tui::widgets::curve::{CurveChart, load_points};
use crate::tui::widgets::sweep::{Point, SweepChart};

/// What the sweep view shows, before it is laid out.
struct SweepLines {
    steps: Vec<Point>,
    base_steps: Vec<Point>,
    finding: Line<'static>,
    keys: Line<'static>,
    table: Vec<Line<'static>>,
}

/// The sweep view: status line, legend, chart, saturation sentence, table, key line.
pub(super) fn draw_sweep(
    run: &Run,
    baseline: Option<&Baseline>,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let Some(sweep) = &run.sweep else {
        return draw_run(run, baseline, theme, area, buf);
    };
    if area.is_empty() {
        return;
    }
    let d = sweep.dimension();
    let lines = SweepLines {
        steps: sweep
            .results()
            .iter()
            .map(|f| Point::of_step(d, f))
            .collect(),
        base_steps: baseline_points(baseline, d),
        finding: finding(sweep, run.info.target.direct, theme),
        keys: key_line(run, theme),
        table: step_table(sweep, baseline, area.width, theme),
    };
    if area.height < 6 {
        return draw_cramped(lines, theme, area, buf);
    }
    draw_full(run, sweep, lines, baseline, theme, area, buf);
}

/// The baseline's steps when it is a sweep of the same dimension.
fn baseline_points(baseline: Option<&Baseline>, d: Dimension) -> Vec<Point> {
    match baseline {
        Some(Baseline::Sweep {
            dimension, steps, ..
        }) if *dimension == d => steps
            .iter()
            .map(|(x, f)| Point::of_baseline(*x, f))
            .collect(),
        _ => Vec::new(),
    }
}

/// The saturation sentence, or how far the sweep got.
fn finding(sweep: &SweepRun, direct: bool, theme: Theme) -> Line<'static> {
    if let Some(c) = &sweep.curve {
        return Line::styled(c.summary.clone(), theme.accent());
    }
    match (&sweep.saturation, sweep.state) {
        (Some(s), _) => Line::styled(s.summary.clone(), theme.accent()),
        (None, SweepState::Done) if !direct => {
            Line::styled(crate::render::sweep::NOT_ON_THE_CACHE, theme.warn())
        }
        (None, SweepState::Done) => {
            Line::styled("no saturation found: no step did any I/O", theme.warn())
        }
        (None, _) => Line::styled(
            format!(
                "{} of {} steps measured",
                sweep.results().len(),
                sweep.runner.steps().len()
            ),
            theme.dim(),
        ),
    }
}

/// The message line: a message or notice (what `e` saved), the sweep's progress, else
/// what Enter and Esc do.
fn key_line(run: &Run, theme: Theme) -> Line<'static> {
    if let Some(m) = &run.message {
        Line::styled(m.clone(), theme.error())
    } else if let Some(n) = &run.notice {
        Line::styled(n.clone(), theme.accent())
    } else if let Some(p) = sweep_progress(run) {
        Line::styled(p, theme.warn())
    } else {
        Line::styled(
            "the sweep's chart: Enter/Esc back to the run (it goes on)",
            theme.dim(),
        )
    }
}

/// The table's header and one line per step (with the baseline's comparison when it fits
/// `width`); the saturating step is highlighted.
fn step_table(
    sweep: &SweepRun,
    baseline: Option<&Baseline>,
    width: u16,
    theme: Theme,
) -> Vec<Line<'static>> {
    let d = sweep.dimension();
    let mut table: Vec<Line> = vec![Line::styled(step_header(d), theme.dim())];
    for (i, r) in sweep.results().iter().enumerate() {
        let mut line = step_line(d, r);
        if let Some(b) = baseline {
            let with = format!("{line}{}", compare_step(b, d, r));
            if with.chars().count() <= width as usize {
                line = with;
            }
        }
        // The saturating step, or the first paced step beyond the curve's flat part (the
        // table's row 0 is the unlimited step).
        let knee = sweep
            .curve
            .as_ref()
            .and_then(|c| c.leaves_flat_at)
            .is_some_and(|k| k + 1 == i);
        let style = if knee || sweep.saturation.as_ref().is_some_and(|s| s.step == i) {
            theme.accent()
        } else {
            Style::new()
        };
        table.push(Line::styled(line, style));
        if let Some(sides) = step_sides_line(r) {
            table.push(Line::styled(sides, theme.dim()));
        }
    }
    table
}

/// Fewer than 6 rows: the finding on top, the key line at the bottom.
fn draw_cramped(lines: SweepLines, theme: Theme, area: Rect, buf: &mut Buffer) {
    lines.finding.render(Rect { height: 1, ..area }, buf);
    if area.height > 1 {
        let bottom = Rect {
            y: area.y + area.height - 1,
            height: 1,
            ..area
        };
        fit_message(lines.keys, bottom.width, theme).render(bottom, buf);
    }
}

/// Keeps the first `room` lines of the table, the last saying how many it hides.
fn fit_table(table: &mut Vec<Line<'static>>, room: usize, theme: Theme) {
    if table.len() > room {
        let hidden = table.len() - room.saturating_sub(1);
        table.truncate(room.saturating_sub(1));
        if room > 0 {
            table.push(Line::styled(
                format!("… {hidden} more steps (e saves them all)"),
                theme.dim(),
            ));
        }
    }
}

/// The full view, top to bottom.
fn draw_full(
    run: &Run,
    sweep: &SweepRun,
    mut lines: SweepLines,
    baseline: Option<&Baseline>,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let d = sweep.dimension();
    // The chart keeps at least 8 rows; the table gets what is left and says what it hides.
    // The finding wraps onto a second line rather than lose its end.
    let finding_rows = if lines.finding.width() > area.width as usize {
        2
    } else {
        1
    };
    let fixed = 3 + finding_rows; // status, legend, finding, keys
    fit_table(
        &mut lines.table,
        area.height.saturating_sub(fixed + 8) as usize,
        theme,
    );
    let [
        status,
        legend,
        chart_area,
        finding_area,
        table_area,
        keys_area,
    ] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(finding_rows),
        Constraint::Length(lines.table.len() as u16),
        Constraint::Length(1),
    ])
    .areas(area);
    let what = Span::styled(
        format!(
            "sweep of {} ({} × {:.1}s) ",
            d.name(),
            sweep.runner.steps().len(),
            sweep.step_time.as_secs_f64()
        ),
        theme.accent(),
    );
    status_line(run, theme, status.width, Some(what)).render(status, buf);
    if d == Dimension::Rate {
        // The hockey stick: latency against the load actually achieved.
        let (points, max_iops) = load_points(sweep.results());
        let chart = CurveChart {
            points: &points,
            max_iops,
            theme,
        };
        chart.legend().render(legend, buf);
        chart.render(chart_area, buf);
    } else {
        draw_chart(&lines, baseline, theme, d, legend, chart_area, buf);
    }
    Paragraph::new(lines.finding)
        .wrap(Wrap { trim: true })
        .render(finding_area, buf);
    Paragraph::new(lines.table).render(table_area, buf);
    fit_message(lines.keys, keys_area.width, theme).render(keys_area, buf);
}

/// The chart of a threads, block-size or depth sweep, with its legend.
fn draw_chart(
    lines: &SweepLines,
    baseline: Option<&Baseline>,
    theme: Theme,
    d: Dimension,
    legend: Rect,
    chart_area: Rect,
    buf: &mut Buffer,
) {
    let chart = SweepChart {
        dimension: d,
        steps: &lines.steps,
        baseline: &lines.base_steps,
        theme,
    };
    let mut legend_line = chart.legend();
    if !lines.base_steps.is_empty()
        && let Some(Baseline::Sweep { label, .. }) = baseline
    {
        legend_line
            .spans
            .push(Span::styled(format!(" {label}"), theme.dim()));
    }
    legend_line.render(legend, buf);
    chart.render(chart_area, buf);
}
