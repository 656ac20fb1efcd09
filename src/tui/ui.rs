//! Layout and drawing: a pure function of `&App`. Nothing here reads a clock, touches the
//! engine or the target, or changes state — so the same `App` always draws the same screen,
//! which is what the snapshot tests rely on.
//!
//! The run screen at 80x24 and up: a status line; the sliders beside the kernel's view; the
//! IOPS, bandwidth and latency sparklines beside the latency histogram and the thread table;
//! a message line. Smaller terminals drop panes (first the side panes, then the graphs) and a
//! terminal of one cell still draws without panicking.
//!
//! The sweep view replaces the panes with the sweep's chart, the iops(1)-style table and the
//! saturation sentence; the write confirmation, the help and the fio job are drawn over
//! whatever is underneath.

use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Gauge, Paragraph, Sparkline, Widget, Wrap};

use super::app::{App, Confirm, FioOverlay, Knob, Preparing, Run, Screen, SweepState, View};
use super::widgets::Theme;
use super::widgets::histogram::LatencyHistogramView;
use super::widgets::kernel::KernelPanel;
use super::widgets::picker::PickerTable;
use super::widgets::slider::Slider;
use super::widgets::sweep::{Point, SweepChart};
use super::widgets::threads::ThreadTable;
use crate::report::baseline::{Baseline, compare_step};
use crate::report::text::describe_settings;
use crate::report::text::{step_header, step_line};
use crate::settings::{MAX_BS, MAX_IODEPTH, MAX_THREADS};
use crate::units::{
    format_block_size, format_bytes, format_count_rate, format_duration, format_latency_ns,
};

/// Every key, for the help overlay.
pub const HELP: &[(&str, &str)] = &[
    ("Tab ↑ ↓ j k", "move between sliders"),
    (
        "← → h l",
        "threads/depth/block size: halve/double; %: one step",
    ),
    ("+ -", "threads/depth: one more/fewer; others: one step"),
    ("space", "pause / resume"),
    ("r", "reset the statistics"),
    ("[ ] PgUp PgDn", "scroll the thread table"),
    (
        "s t / s b / s q",
        "sweep threads 1..64 / block size 512..4M / depth 1..256",
    ),
    ("Esc (sweeping)", "cancel the sweep; the run goes on"),
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

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        let theme = Theme { color: self.color };
        match &self.screen {
            Screen::Picker(p) => draw_picker(p, theme, area, buf),
            Screen::Confirm(c) => draw_confirm(c, theme, area, buf),
            Screen::Preparing(p) => draw_preparing(p, theme, area, buf),
            Screen::Run(r) if r.view == View::Sweep => {
                draw_sweep(r, self.baseline.as_ref(), theme, area, buf)
            }
            Screen::Run(r) => draw_run(r, self.baseline.as_ref(), theme, area, buf),
        }
        if let Some(f) = &self.fio {
            draw_fio(f, theme, area, buf);
        }
        if self.help {
            draw_help(theme, area, buf);
        }
    }
}

/// A box of at most `w` x `h` in the middle of `area`.
fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let (w, h) = (area.width.min(w), area.height.min(h));
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

fn draw_confirm(c: &Confirm, theme: Theme, area: Rect, buf: &mut Buffer) {
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

fn draw_fio(f: &FioOverlay, theme: Theme, area: Rect, buf: &mut Buffer) {
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

fn draw_picker(p: &super::app::Picker, theme: Theme, area: Rect, buf: &mut Buffer) {
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
        Line::styled(m.as_str(), theme.error()).render(message, buf);
    } else {
        Line::styled("reads only unless started with --allow-write", theme.dim())
            .render(message, buf);
    }
}

fn draw_preparing(p: &Preparing, theme: Theme, area: Rect, buf: &mut Buffer) {
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

fn draw_help(theme: Theme, area: Rect, buf: &mut Buffer) {
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

/// The status line: target, span, mode, elapsed, errors, paused — fitted to `width`. The
/// state (elapsed, errors, warnings, PAUSED/STOPPING) always shows; what does not fit goes
/// first ("? help", the name, the span, the mode), then the path loses its middle. `extra`
/// (the sweep's description) comes before the path.
fn status_line(run: &Run, theme: Theme, width: u16, extra: Option<Span<'static>>) -> Line<'static> {
    let i = &run.info;
    let sep = || Span::styled("│ ", theme.dim());
    let (elapsed, errors) = run
        .last
        .as_ref()
        .map_or((std::time::Duration::ZERO, 0), |s| {
            (s.at, s.total.errors + s.total.short_ios)
        });
    let err_style = if errors > 0 {
        theme.error()
    } else {
        Style::new()
    };
    // (drop order: 1 goes first, then 2 …; 0 and PATH stay; spans)
    const PATH: u8 = u8::MAX;
    let mut parts: Vec<(u8, Vec<Span<'static>>)> = vec![
        (2, vec![Span::styled("diskscope ", theme.accent())]),
        (0, extra.into_iter().collect()),
        (PATH, vec![]), // fitted last, into the room left
        (
            3,
            vec![
                sep(),
                Span::raw(format!("span {} ", format_bytes(i.span_bytes))),
            ],
        ),
        (
            4,
            vec![
                sep(),
                Span::raw(if i.direct { "direct " } else { "buffered " }),
            ],
        ),
        (
            0,
            vec![sep(), Span::raw(format!("{} ", format_duration(elapsed)))],
        ),
        (
            0,
            vec![sep(), Span::styled(format!("errors {errors} "), err_style)],
        ),
    ];
    if !i.warnings.is_empty() {
        let text = format!("│ warnings {} ", i.warnings.len());
        parts.push((0, vec![Span::styled(text, theme.warn())]));
    }
    if run.stopping {
        parts.push((0, vec![Span::styled("│ STOPPING ", theme.warn())]));
    } else if run.paused {
        let style = theme
            .warn()
            .add_modifier(ratatui::style::Modifier::REVERSED);
        parts.push((0, vec![Span::styled("│ PAUSED ", style)]));
    }
    parts.push((1, vec![Span::styled("│ ? help", theme.dim())]));
    let used = |parts: &[(u8, Vec<Span>)]| -> usize {
        parts.iter().flat_map(|(_, s)| s).map(Span::width).sum()
    };
    let path = format!("{} ", i.target);
    let room = |parts: &[(u8, Vec<Span>)]| (width as usize).saturating_sub(used(parts));
    for level in 1..=4 {
        if room(&parts) >= path.chars().count().min(16) {
            break;
        }
        parts.retain(|(p, _)| *p != level);
    }
    let fitted = shorten_middle(&path, room(&parts));
    if let Some(slot) = parts.iter_mut().find(|(p, _)| *p == PATH) {
        slot.1 = vec![Span::raw(fitted)];
    }
    Line::from(parts.into_iter().flat_map(|(_, s)| s).collect::<Vec<_>>())
}

/// `text` cut to `max` characters by replacing its middle with "…" (a path keeps its start
/// and its file name).
fn shorten_middle(text: &str, max: usize) -> String {
    let n = text.chars().count();
    if n <= max {
        return text.to_string();
    }
    if max < 2 {
        return "…".chars().take(max).collect();
    }
    let head = (max - 1) / 2;
    let tail = max - 1 - head;
    let start: String = text.chars().take(head).collect();
    let end: String = text.chars().skip(n - tail).collect();
    format!("{start}…{end}")
}

/// "sweep threads: step 3/7 (4 threads), measuring · Esc cancels" while a sweep runs.
fn sweep_progress(run: &Run) -> Option<String> {
    let sweep = run
        .sweep
        .as_ref()
        .filter(|w| w.state == SweepState::Running)?;
    let (i, n, measuring) = sweep.runner.progress();
    let d = sweep.dimension();
    let value = sweep
        .runner
        .steps()
        .get(i)
        .map_or_else(String::new, |s| d.describe(d.value(s)));
    Some(format!(
        "sweep {}: step {}/{n} ({value}), {} · v chart · Esc cancels",
        d.name(),
        (i + 1).min(n),
        if measuring { "measuring" } else { "ramping up" }
    ))
}

fn message_line(run: &Run, theme: Theme) -> Line<'static> {
    if let Some(m) = &run.message {
        Line::styled(m.clone(), theme.error())
    } else if let Some(p) = sweep_progress(run) {
        Line::styled(p, theme.warn())
    } else if let Some(n) = &run.notice {
        Line::styled(n.clone(), theme.accent())
    } else if !run.info.warnings.is_empty() {
        Line::styled(
            format!("warning: {}", run.info.warnings.join("; ")),
            theme.warn(),
        )
    } else {
        Line::styled(
            "space pause · r reset · s sweep · e save · f fio · q quit · ? help",
            theme.dim(),
        )
    }
}

/// The baseline's figures when it is a single run.
fn run_baseline(b: Option<&Baseline>) -> Option<crate::report::baseline::Figures> {
    match b {
        Some(Baseline::Run { total, .. }) => Some(*total),
        _ => None,
    }
}

fn draw_run(run: &Run, baseline: Option<&Baseline>, theme: Theme, area: Rect, buf: &mut Buffer) {
    let base = run_baseline(baseline);
    if area.is_empty() {
        return;
    }
    if area.height < 3 {
        status_line(run, theme, area.width, None).render(Rect { height: 1, ..area }, buf);
        return;
    }
    let [status, body, message] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area);
    status_line(run, theme, status.width, None).render(status, buf);
    message_line(run, theme).render(message, buf);
    if body.width >= 80 && body.height >= 20 {
        let [top, bottom] =
            Layout::vertical([Constraint::Length(8), Constraint::Fill(1)]).areas(body);
        let [controls, kernel] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(top);
        draw_controls(run, theme, controls, buf);
        draw_kernel(run, theme, kernel, buf);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(bottom);
        let [iops, bw, lat] = Layout::vertical([
            Constraint::Fill(2),
            Constraint::Fill(2),
            Constraint::Fill(3),
        ])
        .areas(left);
        draw_iops(run, base, theme, iops, buf);
        draw_bw(run, theme, bw, buf);
        draw_latency(run, base, theme, lat, buf);
        let [hist, threads] =
            Layout::vertical([Constraint::Fill(1), Constraint::Fill(1)]).areas(right);
        draw_histogram(run, theme, hist, buf);
        draw_threads(run, theme, threads, buf);
    } else if body.height >= 7 {
        let [controls, rest] =
            Layout::vertical([Constraint::Length(7), Constraint::Fill(1)]).areas(body);
        draw_controls(run, theme, controls, buf);
        if rest.height >= 8 {
            let [iops, lat] =
                Layout::vertical([Constraint::Fill(1), Constraint::Fill(1)]).areas(rest);
            draw_iops(run, base, theme, iops, buf);
            draw_latency(run, base, theme, lat, buf);
        } else {
            draw_iops(run, base, theme, rest, buf);
        }
    } else {
        // Too small for the sliders' box: the settings as one line, then IOPS.
        let s = run.settings;
        let text = format!(
            "{}: {} thr {} r{}% rnd{}%",
            run.focus.label(),
            s.threads,
            format_block_size(s.bs),
            s.read_pct,
            s.random_pct
        );
        Line::raw(text).render(Rect { height: 1, ..body }, buf);
        if body.height > 1 {
            draw_iops(
                run,
                base,
                theme,
                Rect {
                    y: body.y + 1,
                    height: body.height - 1,
                    ..body
                },
                buf,
            );
        }
    }
}

/// Where a value sits on a log2 scale from `lo` to `hi`.
fn log_position(v: u64, lo: u64, hi: u64) -> f64 {
    let (v, lo, hi) = (
        (v.max(1) as f64).log2(),
        (lo as f64).log2(),
        (hi as f64).log2(),
    );
    if hi > lo { (v - lo) / (hi - lo) } else { 0.0 }
}

fn draw_controls(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    let title = if run.sweeping() {
        Span::styled(" controls locked: sweeping (Esc cancels) ", theme.warn())
    } else {
        Span::styled(" controls: Tab/↑↓ select, ←→ +- change ", theme.dim())
    };
    let block = Block::bordered().title(title);
    let inner = block.inner(area);
    block.render(area, buf);
    let s = run.settings;
    for (row, knob) in Knob::ALL.iter().enumerate().take(inner.height as usize) {
        let (value, position) = match knob {
            Knob::Threads => (
                s.threads.to_string(),
                log_position(s.threads as u64, 1, MAX_THREADS as u64),
            ),
            Knob::QueueDepth => (
                s.iodepth.to_string(),
                log_position(s.iodepth as u64, 1, MAX_IODEPTH as u64),
            ),
            Knob::BlockSize => (
                format_block_size(s.bs),
                log_position(s.bs, super::app::MIN_BS, MAX_BS),
            ),
            Knob::ReadPct => {
                let v = if run.info.write_allowed {
                    format!("{}", s.read_pct)
                } else {
                    format!("{} ro", s.read_pct)
                };
                (v, f64::from(s.read_pct) / 100.0)
            }
            Knob::RandomPct => (s.random_pct.to_string(), f64::from(s.random_pct) / 100.0),
        };
        Slider {
            label: knob.label(),
            value,
            position,
            focused: run.focus == *knob,
            theme,
        }
        .render(
            Rect {
                y: inner.y + row as u16,
                height: 1,
                ..inner
            },
            buf,
        );
    }
    let rows = Knob::ALL.len() as u16;
    if inner.height > rows {
        let phrase = format!("  {}", describe_settings(&s));
        Line::styled(phrase, theme.dim()).render(
            Rect {
                y: inner.y + rows,
                height: 1,
                ..inner
            },
            buf,
        );
    }
}

fn draw_kernel(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered().title(Span::styled(
        " kernel (/proc/diskstats) vs app, 1 s ",
        theme.dim(),
    ));
    let inner = block.inner(area);
    block.render(area, buf);
    KernelPanel {
        view: &run.kernel,
        theme,
    }
    .render(inner, buf);
}

/// The last `n` values of a history.
fn tail(q: &std::collections::VecDeque<u64>, n: usize) -> Vec<u64> {
    q.iter().skip(q.len().saturating_sub(n)).copied().collect()
}

fn graph_block(title: String, theme: Theme) -> Block<'static> {
    Block::new()
        .borders(Borders::TOP)
        .title(Span::styled(title, theme.accent()))
}

/// A dimmed, right-aligned title naming the baseline's figure.
fn baseline_title(text: Option<String>, theme: Theme) -> Option<Line<'static>> {
    text.map(|t| Line::styled(format!(" {t} "), theme.dim()).right_aligned())
}

fn draw_iops(
    run: &Run,
    base: Option<crate::report::baseline::Figures>,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    // Now, peak and average all come from the same one-second windows of running time.
    let seconds = &run.seconds;
    let rate = |v: Option<f64>| v.map_or_else(|| "-".into(), format_count_rate);
    let title = format!(
        " IOPS now {} · peak {} · avg {} ",
        rate(seconds.now.as_ref().map(|n| n.iops)),
        rate(seconds.now.as_ref().map(|_| seconds.peak_iops)),
        rate(seconds.avg_iops())
    );
    let mut block = graph_block(title, theme);
    if let Some(t) = baseline_title(
        base.map(|b| format!("baseline {}", format_count_rate(b.iops))),
        theme,
    ) {
        block = block.title_top(t);
    }
    let inner = block.inner(area);
    block.render(area, buf);
    Sparkline::default()
        .data(tail(&run.iops, inner.width as usize))
        .style(theme.graph())
        .render(inner, buf);
}

fn draw_bw(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    let seconds = &run.seconds;
    let rate =
        |v: Option<f64>| v.map_or_else(|| "-".into(), |b| format!("{}/s", format_bytes(b as u64)));
    let block = graph_block(
        format!(
            " bandwidth now {} · avg {} ",
            rate(seconds.now.as_ref().map(|n| n.bw_bytes_per_s)),
            rate(seconds.avg_bw())
        ),
        theme,
    );
    let inner = block.inner(area);
    block.render(area, buf);
    Sparkline::default()
        .data(tail(&run.bw, inner.width as usize))
        .style(theme.graph())
        .render(inner, buf);
}

fn draw_latency(
    run: &Run,
    base: Option<crate::report::baseline::Figures>,
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
    let n = area.width as usize;
    let p99s = tail(&run.p99, n);
    let p50s = tail(&run.p50, n);
    let max = p99s.iter().copied().max().unwrap_or(0).max(1);
    let title = format!(" latency p99 {p99} ▲ p50 {p50} ▼ ");
    let mut block = graph_block(title, theme);
    if let Some(t) = baseline_title(
        base.map(|b| format!("baseline p99 {}", format_latency_ns(b.p99_ns))),
        theme,
    ) {
        block = block.title_top(t);
    }
    let inner = block.inner(area);
    block.render(area, buf);
    if inner.height == 0 {
        return;
    }
    let upper = inner.height.div_ceil(2);
    let [a, b] = Layout::vertical([Constraint::Length(upper), Constraint::Fill(1)]).areas(inner);
    Sparkline::default()
        .data(p99s)
        .max(max)
        .style(theme.tail())
        .render(a, buf);
    Sparkline::default()
        .data(p50s)
        .max(max)
        .style(theme.graph())
        .render(b, buf);
}

fn draw_histogram(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    let block = Block::bordered().title(Span::styled(
        " latency distribution, last 2 s ",
        theme.accent(),
    ));
    let inner = block.inner(area);
    block.render(area, buf);
    LatencyHistogramView {
        histogram: &run.latency,
        theme,
    }
    .render(inner, buf);
}

fn draw_threads(run: &Run, theme: Theme, area: Rect, buf: &mut Buffer) {
    let count = run
        .last
        .as_ref()
        .map_or(0, |s| s.threads.iter().filter(|t| t.active).count());
    let block = Block::bordered().title(Span::styled(
        format!(" threads: {count} active ([ ] scroll) "),
        theme.accent(),
    ));
    let inner = block.inner(area);
    block.render(area, buf);
    ThreadTable {
        rows: run.seconds.now.as_ref().map(|n| n.threads.as_slice()),
        scroll: run.thread_scroll,
        theme,
    }
    .render(inner, buf);
}

/// The sweep view: status line, legend, chart, saturation sentence, table, key line.
fn draw_sweep(run: &Run, baseline: Option<&Baseline>, theme: Theme, area: Rect, buf: &mut Buffer) {
    let Some(sweep) = &run.sweep else {
        return draw_run(run, baseline, theme, area, buf);
    };
    if area.is_empty() {
        return;
    }
    let d = sweep.dimension();
    let results = sweep.results();
    let steps: Vec<Point> = results.iter().map(|f| Point::of_step(d, f)).collect();
    let base_steps: Vec<Point> = match baseline {
        Some(Baseline::Sweep {
            dimension, steps, ..
        }) if *dimension == d => steps
            .iter()
            .map(|(x, f)| Point::of_baseline(*x, f))
            .collect(),
        _ => Vec::new(),
    };
    let chart = SweepChart {
        dimension: d,
        steps: &steps,
        baseline: &base_steps,
        theme,
    };
    let finding = match (&sweep.saturation, sweep.state) {
        (Some(s), _) => Line::styled(s.summary.clone(), theme.accent()),
        (None, SweepState::Done) => {
            Line::styled("no saturation found: no step did any I/O", theme.warn())
        }
        (None, _) => Line::styled(
            format!(
                "{} of {} steps measured",
                results.len(),
                sweep.runner.steps().len()
            ),
            theme.dim(),
        ),
    };
    let keys = if let Some(p) = sweep_progress(run) {
        Line::styled(p, theme.warn())
    } else if let Some(m) = &run.message {
        Line::styled(m.clone(), theme.error())
    } else if let Some(n) = &run.notice {
        Line::styled(n.clone(), theme.accent())
    } else {
        Line::styled(
            "Enter/Esc back to the run (it goes on) · e save the sweep · q quit · ? help",
            theme.dim(),
        )
    };
    if area.height < 6 {
        finding.render(Rect { height: 1, ..area }, buf);
        if area.height > 1 {
            keys.render(
                Rect {
                    y: area.y + area.height - 1,
                    height: 1,
                    ..area
                },
                buf,
            );
        }
        return;
    }
    let mut table: Vec<Line> = vec![Line::styled(step_header(d), theme.dim())];
    for (i, r) in results.iter().enumerate() {
        let mut line = step_line(d, r);
        if let Some(b) = baseline {
            let with = format!("{line}{}", compare_step(b, d, r));
            if with.chars().count() <= area.width as usize {
                line = with;
            }
        }
        let style = if sweep.saturation.as_ref().is_some_and(|s| s.step == i) {
            theme.accent()
        } else {
            Style::new()
        };
        table.push(Line::styled(line, style));
    }
    // The chart keeps at least 8 rows; the table gets what is left and says what it hides.
    // The finding wraps onto a second line rather than lose its end.
    let finding_rows = if finding.width() > area.width as usize {
        2
    } else {
        1
    };
    let fixed = 3 + finding_rows; // status, legend, finding, keys
    let room = area.height.saturating_sub(fixed + 8) as usize;
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
        Constraint::Length(table.len() as u16),
        Constraint::Length(1),
    ])
    .areas(area);
    let head = status_line(
        run,
        theme,
        status.width,
        Some(Span::styled(
            format!(
                "sweep of {} ({} × {:.1}s) ",
                d.name(),
                sweep.runner.steps().len(),
                sweep.step_time.as_secs_f64()
            ),
            theme.accent(),
        )),
    );
    head.render(status, buf);
    let mut legend_line = chart.legend();
    if !base_steps.is_empty()
        && let Some(Baseline::Sweep { label, .. }) = baseline
    {
        legend_line
            .spans
            .push(Span::styled(format!(" {label}"), theme.dim()));
    }
    legend_line.render(legend, buf);
    chart.render(chart_area, buf);
    Paragraph::new(finding)
        .wrap(Wrap { trim: true })
        .render(finding_area, buf);
    Paragraph::new(table).render(table_area, buf);
    keys.render(keys_area, buf);
}
